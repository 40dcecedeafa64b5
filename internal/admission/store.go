/*
Copyright 2026 The provider-git Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package admission

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Defaults of a Store.
const (
	// DefaultMaxFacts bounds the facts a Store keeps: a fact is about
	// 830 bytes of heap (its strings and a fingerprint; a ServiceAccount
	// with three groups, BenchmarkStoreMemory), so about 8 MiB; far
	// above the writes of a join's wait on a busy cluster.
	DefaultMaxFacts = 10000
	// DefaultMaxBytes bounds the facts' estimated size, whatever the
	// reviews held (a client that reaches the webhook may send groups of
	// any length).
	DefaultMaxBytes = 16 << 20
	// DefaultMaxAge is how long a fact is kept at most: the join needs a
	// fact from the write until the Mirror's next plan (the watch's
	// delivery, seconds); a Mirror held back longer (a failing push)
	// finds it still within minutes.
	DefaultMaxAge = 5 * time.Minute
)

// Store keeps the facts the webhook admitted, within a count, a byte and
// an age bound. Past the count or the byte bound, the namespace holding the
// most facts (or bytes) loses its oldest, counted in
// provider_git_admission_facts_dropped_total: a namespace that floods writes
// evicts its own facts, never those of a namespace holding fewer, so a
// quiet namespace's facts stay until its Mirror joins them or they age out.
// Namespaces holding as many lose in the order of their oldest facts.
// Finding the namespace is a scan of the namespaces that hold facts, made
// only when a bound is reached (at most DefaultMaxFacts namespaces).
//
// mu guards every field below it; nobody holds it across the network or
// while calling out.
type Store struct {
	clock    clock.PassiveClock
	maxFacts int
	maxBytes int64
	maxAge   time.Duration
	metrics  *Metrics
	// key keys the fingerprints: random per process, so a fingerprint
	// says nothing of the content to anyone but this process.
	key []byte

	mu sync.Mutex
	// queue is every fact kept in arrival order, queue[head:] live, a fact
	// evicted early a nil; compacted when the nils outnumber the facts.
	queue []*kept
	head  int
	n     int
	byUID map[string][]*kept
	byNS  map[string]*inNamespace
	bytes int64
}

// kept is a fact and its place in the Store's queue.
type kept struct {
	Fact
	at   int
	size int64
}

// inNamespace are one namespace's facts, oldest first, and their size.
type inNamespace struct {
	facts []*kept
	bytes int64
}

// StoreOption configures a Store.
type StoreOption func(*Store)

// WithClock sets the clock facts are stamped and aged by.
func WithClock(c clock.PassiveClock) StoreOption { return func(s *Store) { s.clock = c } }

// WithMaxFacts bounds how many facts are kept; at least one is.
func WithMaxFacts(n int) StoreOption { return func(s *Store) { s.maxFacts = max(n, 1) } }

// WithMaxBytes bounds the facts' estimated size; at least one is kept.
func WithMaxBytes(n int64) StoreOption { return func(s *Store) { s.maxBytes = n } }

// WithMaxAge drops facts older than d.
func WithMaxAge(d time.Duration) StoreOption { return func(s *Store) { s.maxAge = d } }

// WithMetrics records the Store's size and drops on m.
func WithMetrics(m *Metrics) StoreOption { return func(s *Store) { s.metrics = m } }

// NewStore returns an empty Store with a fingerprint key of its own.
func NewStore(o ...StoreOption) *Store {
	s := &Store{
		clock: clock.RealClock{}, maxFacts: DefaultMaxFacts, maxAge: DefaultMaxAge,
		maxBytes: DefaultMaxBytes, key: make([]byte, 32), byUID: map[string][]*kept{}, byNS: map[string]*inNamespace{},
	}
	// crypto/rand.Read never fails (Go 1.24+): it panics rather.
	_, _ = rand.Read(s.key)
	for _, fn := range o {
		fn(s)
	}
	return s
}

// Fingerprint is the keyed digest of content (an object's rendering): the
// webhook's of what it admits, and the join's of what the watch delivers.
func (s *Store) Fingerprint(content []byte) string {
	m := hmac.New(sha256.New, s.key)
	m.Write(content)
	return hex.EncodeToString(m.Sum(nil))
}

// Add keeps f, stamped now.
func (s *Store) Add(f Fact) {
	f.Arrived = s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked(f.Arrived)
	e := &kept{Fact: f, at: len(s.queue)}
	e.size = sizeOf(&e.Fact)
	s.queue = append(s.queue, e)
	s.byUID[f.UID] = append(s.byUID[f.UID], e)
	ns := s.byNS[f.Namespace]
	if ns == nil {
		ns = &inNamespace{}
		s.byNS[f.Namespace] = ns
	}
	ns.facts = append(ns.facts, e)
	ns.bytes += e.size
	s.n++
	s.bytes += e.size
	for s.n > s.maxFacts {
		s.dropLocked(s.largestLocked(func(ns *inNamespace) int64 { return int64(len(ns.facts)) }).facts[0], reasonCount)
	}
	for s.bytes > s.maxBytes && s.n > 1 {
		s.dropLocked(s.largestLocked(func(ns *inNamespace) int64 { return ns.bytes }).facts[0], reasonBytes)
	}
	s.metrics.size(s.n)
}

// Of returns the facts of the object uid that arrived after t, oldest
// first. The facts are copies; their Groups are shared and must not be
// modified.
func (s *Store) Of(uid string, after time.Time) []Fact {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked(s.clock.Now())
	var out []Fact
	for _, f := range s.byUID[uid] {
		if f.Arrived.After(after) {
			out = append(out, f.Fact)
		}
	}
	return out
}

// Len is how many facts are kept.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Bytes is the kept facts' estimated size: what the byte bound
// (WithMaxBytes) is compared with.
func (s *Store) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// expireLocked drops the facts older than the age bound.
func (s *Store) expireLocked(now time.Time) {
	for s.head < len(s.queue) {
		e := s.queue[s.head]
		if e != nil && now.Sub(e.Arrived) <= s.maxAge {
			break
		}
		if e == nil {
			s.head++
			continue
		}
		s.dropLocked(e, reasonAge)
	}
	s.metrics.size(s.n)
}

// largestLocked is the namespace of which size says the most, the one
// whose oldest fact is older among those of one size.
func (s *Store) largestLocked(size func(*inNamespace) int64) *inNamespace {
	var top *inNamespace
	var most int64
	for _, ns := range s.byNS {
		n := size(ns)
		if top == nil || n > most || (n == most && ns.facts[0].at < top.facts[0].at) {
			top, most = ns, n
		}
	}
	return top
}

// dropLocked drops e, the oldest fact of its namespace (and of its UID).
func (s *Store) dropLocked(e *kept, reason string) {
	s.queue[e.at] = nil
	ns := s.byNS[e.Namespace]
	ns.facts[0] = nil
	ns.facts = ns.facts[1:]
	ns.bytes -= e.size
	if len(ns.facts) == 0 {
		delete(s.byNS, e.Namespace)
	}
	fs := s.byUID[e.UID]
	if i := slices.Index(fs, e); i >= 0 {
		fs = slices.Delete(fs, i, i+1)
	}
	if len(fs) == 0 {
		delete(s.byUID, e.UID)
	} else {
		s.byUID[e.UID] = fs
	}
	s.n--
	s.bytes -= e.size
	s.metrics.dropped(reason)
	for s.head < len(s.queue) && s.queue[s.head] == nil {
		s.head++
	}
	if holes := len(s.queue) - s.n; holes > s.n && holes > 64 {
		// Compact, so that neither the facts evicted early nor the
		// backing array grow without bound.
		live := make([]*kept, 0, s.n)
		for _, f := range s.queue[s.head:] {
			if f != nil {
				f.at = len(live)
				live = append(live, f)
			}
		}
		s.queue, s.head = live, 0
	}
}

// factOverhead is what a fact costs beyond its strings' bytes: the Fact
// itself, its place in the queue, its namespace's and its UID's lists, the
// map entries (amortized), and each string's allocation rounded up to its
// size class. Measured on amd64 (BenchmarkStoreMemory): a ServiceAccount's
// update of a ConfigMap holds 828 B of live heap, which 320 estimated as
// 677 B; at 480 the estimate is within a few percent of the heap.
const factOverhead = 480

// sizeOf estimates what f holds on the heap.
func sizeOf(f *Fact) int64 {
	n := len(f.Operation) + len(f.User.Username) + len(f.User.UID) + len(f.FieldManager) + len(f.Resource.Group) +
		len(f.Resource.Resource) + len(f.Version) + len(f.Namespace) + len(f.Name) + len(f.UID) + len(f.Against) + len(f.Fingerprint)
	for _, g := range f.User.Groups {
		n += len(g) + 16
	}
	return int64(n + factOverhead)
}
