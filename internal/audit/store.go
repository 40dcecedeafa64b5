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

package audit

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// Defaults of a Store.
const (
	// DefaultMaxBytes bounds the facts a Store keeps.
	DefaultMaxBytes = 16 << 20
	// DefaultMaxAge is how long a fact is kept at most: far longer than
	// any join waits (seconds), so a write retried for minutes still finds
	// its facts.
	DefaultMaxAge = 5 * time.Minute
)

// factOverhead is what a fact costs beyond its strings: the fact itself,
// its place in the queue and in its key's list, and the map entry its key
// shares with the object's other facts (amortized), measured on amd64
// (TestFactSizeAccounted).
const factOverhead = 384

// Store keeps the facts of watched group/resources, oldest first, within a
// byte bound and an age bound: a new fact past the byte bound evicts the
// oldest, whichever object it is of. Its size is an estimate of the heap it
// holds (strings plus a fixed overhead per fact), reported by Bytes and the
// provider_git_audit_store_bytes metric.
type Store struct {
	clock    clock.PassiveClock
	maxBytes int64
	maxAge   time.Duration
	metrics  *Metrics

	// wanted is the set of group/resources someone watches, replaced
	// whole on change so an event is checked against it without a lock.
	wanted atomic.Pointer[map[GroupResource]struct{}]
	// names are the wanted resources' names as JSON strings ("configmaps"),
	// with the same lifecycle: a body that holds none of them holds no
	// wanted event (see Server.ingest).
	names atomic.Pointer[[][]byte]

	wmu   sync.Mutex // guards wants and owners
	wants map[GroupResource]map[string]struct{}
	// owners are what each owner wants, so that the same want again
	// (every reconcile of a Mirror) changes nothing.
	owners map[string][]GroupResource

	mu     sync.Mutex // guards what follows
	queue  []*stored  // every fact, oldest first; queue[head:] are live
	head   int
	byKey  map[Key][]*stored
	bytes  int64
	notify []func(Key)
}

// stored is a fact in the Store.
type stored struct {
	key  Key
	fact Fact
	size int64
}

// StoreOption configures a Store.
type StoreOption func(*Store)

// WithClock sets the clock facts are stamped and aged by.
func WithClock(c clock.PassiveClock) StoreOption { return func(s *Store) { s.clock = c } }

// WithMaxBytes bounds the facts' estimated size; at least one fact is kept.
func WithMaxBytes(n int64) StoreOption { return func(s *Store) { s.maxBytes = n } }

// WithMaxAge drops facts older than d.
func WithMaxAge(d time.Duration) StoreOption { return func(s *Store) { s.maxAge = d } }

// WithMetrics records the Store's size, evictions and events on m.
func WithMetrics(m *Metrics) StoreOption { return func(s *Store) { s.metrics = m } }

// NewStore returns an empty Store that wants nothing.
func NewStore(o ...StoreOption) *Store {
	s := &Store{
		clock: clock.RealClock{}, maxBytes: DefaultMaxBytes, maxAge: DefaultMaxAge,
		wants: map[GroupResource]map[string]struct{}{}, owners: map[string][]GroupResource{}, byKey: map[Key][]*stored{},
	}
	for _, fn := range o {
		fn(s)
	}
	empty := map[GroupResource]struct{}{}
	s.wanted.Store(&empty)
	s.names.Store(&[][]byte{})
	return s
}

// Want records that owner watches the group/resources grs, replacing what
// it wanted before; no grs withdraws it. Facts of a group/resource nobody
// wants are not kept.
func (s *Store) Want(owner string, grs ...GroupResource) {
	grs = slices.Clone(grs)
	slices.SortFunc(grs, func(a, b GroupResource) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Resource, b.Resource))
	})
	grs = slices.Compact(grs)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if old, ok := s.owners[owner]; ok == (len(grs) > 0) && slices.Equal(old, grs) {
		return
	}
	for _, gr := range s.owners[owner] {
		delete(s.wants[gr], owner)
		if len(s.wants[gr]) == 0 {
			delete(s.wants, gr)
		}
	}
	delete(s.owners, owner)
	if len(grs) > 0 {
		s.owners[owner] = grs
	}
	for _, gr := range grs {
		if s.wants[gr] == nil {
			s.wants[gr] = map[string]struct{}{}
		}
		s.wants[gr][owner] = struct{}{}
	}
	set := make(map[GroupResource]struct{}, len(s.wants))
	for gr := range s.wants {
		set[gr] = struct{}{}
	}
	s.wanted.Store(&set)
	var names [][]byte
	for gr := range set {
		n := []byte(strconv.Quote(gr.Resource))
		if !slices.ContainsFunc(names, func(b []byte) bool { return bytes.Equal(b, n) }) {
			names = append(names, n)
		}
	}
	s.names.Store(&names)
}

// Wants reports whether someone watches gr. It takes no lock and
// allocates nothing.
func (s *Store) Wants(gr GroupResource) bool {
	_, ok := (*s.wanted.Load())[gr]
	return ok
}

// mentioned reports whether b holds the name of a wanted resource as a JSON
// string. The API server's encoder never escapes the ASCII letters of a
// resource name, so a body without any holds no wanted event.
func (s *Store) mentioned(b []byte) bool {
	for _, n := range *s.names.Load() {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

// Notify calls fn, outside the Store's lock, with the key of every fact
// added from now on, so a caller waiting for one is woken.
func (s *Store) Notify(fn func(Key)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notify = append(s.notify, fn)
}

// Add keeps f as a fact of k, stamped now, unless nobody wants k's
// group/resource. It reports whether it kept it.
func (s *Store) Add(k Key, f Fact) bool {
	if !s.Wants(k.GroupResource) {
		return false
	}
	f.Arrived = s.clock.Now()
	e := &stored{key: k, fact: f, size: sizeOf(k, f)}
	s.mu.Lock()
	s.expireLocked(f.Arrived)
	if f.AuditID != "" && slices.ContainsFunc(s.byKey[k], func(o *stored) bool { return sameEvent(o.fact, f) }) {
		// The API server retries a batch it saw fail: one request is one
		// fact, however often its event arrives. Only the same event: a
		// client may send an Audit-ID of its choosing, so another write
		// under a known ID is kept beside it, never dropped.
		s.mu.Unlock()
		return false
	}
	s.queue = append(s.queue, e)
	s.byKey[k] = append(s.byKey[k], e)
	s.bytes += e.size
	for s.bytes > s.maxBytes && len(s.queue)-s.head > 1 {
		s.evictLocked(reasonBytes)
	}
	s.reportLocked()
	notify := s.notify
	s.mu.Unlock()
	for _, fn := range notify {
		fn(k)
	}
	return true
}

// sameEvent: a and b are one event delivered twice.
func sameEvent(a, b Fact) bool {
	return a.AuditID == b.AuditID && a.Verb == b.Verb && a.ResourceVersion == b.ResourceVersion &&
		a.User.Username == b.User.Username && a.Impersonator == b.Impersonator && a.Stage.Equal(b.Stage)
}

// Since returns the facts of k that arrived at or after t, oldest first.
// The facts are copies; their Groups are shared and must not be modified.
func (s *Store) Since(k Key, t time.Time) []Fact {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Fact
	for _, e := range s.byKey[k] {
		if !e.fact.Arrived.Before(t) {
			out = append(out, e.fact)
		}
	}
	return out
}

// Collection returns the deletecollection facts that may have deleted an
// object of gr in namespace, arrived at or after t, oldest first: those of
// that namespace and those of every namespace (a deletecollection across
// namespaces, or of a cluster-scoped resource, has none). The audit event
// of a deletecollection names no object, nor which objects its selectors
// matched: a caller uses these facts only for a deletion that has no fact
// of its own object (Since), joined by time as any other.
func (s *Store) Collection(gr GroupResource, namespace string, t time.Time) []Fact {
	out := s.Since(Key{GroupResource: gr, Namespace: namespace}, t)
	if namespace != "" {
		out = append(out, s.Since(Key{GroupResource: gr}, t)...)
		slices.SortStableFunc(out, func(a, b Fact) int { return a.Arrived.Compare(b.Arrived) })
	}
	return out
}

// Bytes is the estimated size of the facts kept.
func (s *Store) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// Len is how many facts are kept.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue) - s.head
}

// expireLocked evicts the facts older than the age bound.
func (s *Store) expireLocked(now time.Time) {
	for s.head < len(s.queue) && now.Sub(s.queue[s.head].fact.Arrived) > s.maxAge {
		s.evictLocked(reasonAge)
	}
}

// evictLocked drops the oldest fact, which is also the oldest of its key.
func (s *Store) evictLocked(reason string) {
	e := s.queue[s.head]
	s.queue[s.head] = nil
	s.head++
	if s.head > len(s.queue)/2 && s.head > 64 {
		// Compact, so the backing array does not grow without bound.
		s.queue = append(s.queue[:0:0], s.queue[s.head:]...)
		s.head = 0
	}
	facts := s.byKey[e.key]
	if len(facts) <= 1 {
		delete(s.byKey, e.key)
	} else {
		facts[0] = nil
		s.byKey[e.key] = facts[1:]
	}
	s.bytes -= e.size
	s.metrics.evicted(reason)
}

func (s *Store) reportLocked() {
	s.metrics.size(s.bytes, len(s.queue)-s.head)
}

// sizeOf estimates what k and f hold on the heap.
func sizeOf(k Key, f Fact) int64 {
	n := len(k.Group) + len(k.Resource) + len(k.Namespace) + len(k.Name) +
		len(f.User.Username) + len(f.User.UID) + len(f.Impersonator) + len(f.UserAgent) + len(f.FieldManager) +
		len(f.Verb) + len(f.AuditID) + len(f.ResourceVersion)
	for _, g := range f.User.Groups {
		n += len(g) + 16
	}
	return int64(n + factOverhead)
}
