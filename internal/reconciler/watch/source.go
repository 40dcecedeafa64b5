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

package watch

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A Source is a controller-runtime source that enqueues the resources of one
// kind that Git events woke: a landed or failed write, a drift found by a
// poll. Wake never blocks, so a branch writer can call it from its own
// goroutine; wakes that come before the controller started (a gated
// controller waits for its CRD) are kept and enqueued when it starts.
type Source struct {
	mu    sync.Mutex
	q     workqueue.TypedRateLimitingInterface[reconcile.Request]
	early map[types.NamespacedName]struct{}
}

// NewSource returns a Source that enqueues nothing until started.
func NewSource() *Source {
	return &Source{early: map[types.NamespacedName]struct{}{}}
}

// Start is called by the controller with its queue.
func (s *Source) Start(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q = q
	for nn := range s.early {
		q.Add(reconcile.Request{NamespacedName: nn})
	}
	s.early = nil
	return nil
}

// Wake enqueues nn. A resource already queued is not queued twice.
func (s *Source) Wake(nn types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.q == nil {
		s.early[nn] = struct{}{}
		return
	}
	s.q.Add(reconcile.Request{NamespacedName: nn})
}
