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

package session

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Superseded remembers, per object, the resourceVersions its last
// reconcile's own writes replaced. An object read at one of them comes from
// a cache that has not seen that write yet: a status computed from it is
// computed from data the reconcile itself made obsolete, and its
// optimistic-lock patch would be refused with a Conflict. Under a burst of
// events (a Mirror woken by every object it mirrors) nearly every reconcile
// right after a write read such a copy: a third of that Mirror's status
// writes were Conflicts. A reconciler that asks Stale first skips those
// reconciles and comes back once the cache caught up.
//
// resourceVersions are compared for equality only, never ordered: the
// version a write replaced is certainly older than the one it made.
type Superseded struct {
	mu sync.Mutex
	m  map[types.NamespacedName][]string
}

// NewSuperseded returns an empty memory, for one reconciler's sessions.
func NewSuperseded() *Superseded {
	return &Superseded{m: map[types.NamespacedName][]string{}}
}

// WithSuperseded records in s the resourceVersions this session's writes
// replaced, once they landed. nil records nothing.
func WithSuperseded(s *Superseded) Option {
	return func(ss *Session) { ss.superseded = s }
}

// Stale reports whether resourceVersion rv of nn, as read, is one the last
// reconcile's own writes replaced. Any other version is news (the cache
// caught up, or someone else wrote), and the memory of nn is dropped.
func (s *Superseded) Stale(nn types.NamespacedName, rv string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.m[nn]
	if !ok {
		return false
	}
	if slices.Contains(old, rv) {
		return true
	}
	delete(s.m, nn)
	return false
}

// Forget drops what is kept of nn: call it when nn is gone.
func (s *Superseded) Forget(nn types.NamespacedName) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, nn)
}

// record keeps rvs as what the writes of nn's last reconcile replaced.
func (s *Superseded) record(nn types.NamespacedName, rvs []string) {
	if s == nil || len(rvs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[nn] = slices.Clone(rvs)
}
