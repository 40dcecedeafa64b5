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
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Defaults of a Store.
const (
	// DefaultMaxFacts bounds the facts a Store keeps: a fact is about
	// 400 bytes (its strings and a fingerprint), so about 4 MiB; far
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

// Store keeps the facts the webhook admitted, oldest first, within a
// count, a byte and an age bound: a new fact past the count or the bytes
// drops the oldest, counted in provider_git_admission_facts_dropped_total.
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

	mu    sync.Mutex
	queue []*Fact // every fact, oldest first; queue[head:] are live
	head  int
	byUID map[string][]*Fact
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
		maxBytes: DefaultMaxBytes, key: make([]byte, 32), byUID: map[string][]*Fact{},
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
	e := &f
	s.queue = append(s.queue, e)
	s.byUID[f.UID] = append(s.byUID[f.UID], e)
	s.bytes += sizeOf(e)
	for len(s.queue)-s.head > s.maxFacts {
		s.dropLocked(reasonCount)
	}
	for s.bytes > s.maxBytes && len(s.queue)-s.head > 1 {
		s.dropLocked(reasonBytes)
	}
	s.metrics.size(len(s.queue) - s.head)
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
			out = append(out, *f)
		}
	}
	return out
}

// Len is how many facts are kept.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue) - s.head
}

// expireLocked drops the facts older than the age bound.
func (s *Store) expireLocked(now time.Time) {
	for s.head < len(s.queue) && now.Sub(s.queue[s.head].Arrived) > s.maxAge {
		s.dropLocked(reasonAge)
	}
	s.metrics.size(len(s.queue) - s.head)
}

// dropLocked drops the oldest fact, which is also the oldest of its UID.
func (s *Store) dropLocked(reason string) {
	f := s.queue[s.head]
	s.queue[s.head] = nil
	s.head++
	if s.head > len(s.queue)/2 && s.head > 64 {
		// Compact, so the backing array does not grow without bound.
		s.queue = append(s.queue[:0:0], s.queue[s.head:]...)
		s.head = 0
	}
	if fs := s.byUID[f.UID]; len(fs) <= 1 {
		delete(s.byUID, f.UID)
	} else {
		fs[0] = nil
		s.byUID[f.UID] = fs[1:]
	}
	s.bytes -= sizeOf(f)
	s.metrics.dropped(reason)
}

// factOverhead is what a fact costs beyond its strings: the Fact itself,
// its place in the queue and in its UID's list, and its map entry
// (amortized), rounded up from its field sizes on amd64.
const factOverhead = 320

// sizeOf estimates what f holds on the heap.
func sizeOf(f *Fact) int64 {
	n := len(f.Operation) + len(f.User.Username) + len(f.User.UID) + len(f.FieldManager) + len(f.Resource.Group) +
		len(f.Resource.Resource) + len(f.Version) + len(f.Namespace) + len(f.Name) + len(f.UID) + len(f.Against) + len(f.Fingerprint)
	for _, g := range f.User.Groups {
		n += len(g) + 16
	}
	return int64(n + factOverhead)
}
