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

package share

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A Share is what the controllers need of sharing: which repositories this
// replica holds and when that changes. A *Membership is one; nil in
// Options means no sharing.
type Share interface {
	View() View
	Changed() <-chan struct{}
}

// Filter passes the events of objects whose repository this replica holds:
// the others' events never reach its queues. Deletions pass: a resource that
// is gone costs one read, and its holder is the one that has work to do.
func Filter(s Share, k Keys) predicate.Predicate {
	held := func(o client.Object) bool { return s.View().Holds(k.Of(context.Background(), o)) }
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return held(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return held(e.ObjectNew) },
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		GenericFunc: func(e event.GenericEvent) bool { return held(e.Object) },
	}
}

// Admit reports whether this replica reconciles o. The Filter keeps other
// replicas' events out of the queue; what is in the queue when a repository
// moves away (a retry, a wake from a write or a poll) is stopped here, and
// its resource forgotten (the Gone path: no drift watch, no kept result),
// so the replica that lost a repository stops observing it.
func Admit(s Share, k Keys) func(ctx context.Context, o client.Object) bool {
	return func(ctx context.Context, o client.Object) bool { return s.View().Holds(k.Of(ctx, o)) }
}

// Handover is a controller source that enqueues, on each change of the
// view, every object of one kind whose repository this replica gained or
// lost: the gainer observes it afresh (the same full observation as after a
// restart: what Git holds is read, what is missing written, what the
// trailers say was written is not written twice), the loser forgets it.
type Handover struct {
	s    Share
	keys Keys
	list func(ctx context.Context) ([]client.Object, error)
}

// NewHandover returns the handover source of the objects list returns
// (from the manager's cache).
func NewHandover(s Share, k Keys, list func(ctx context.Context) ([]client.Object, error)) *Handover {
	return &Handover{s: s, keys: k, list: list}
}

// Start enqueues into q until ctx ends. Its first pass compares with a view
// that holds nothing, so what was held before the controller started is
// enqueued once (the informer's own events may have been filtered by a view
// that had not settled yet).
func (h *Handover) Start(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	go func() {
		last := View{}
		for {
			ch := h.s.Changed()
			v := h.s.View()
			h.enqueue(ctx, q, last, v)
			last = v
			select {
			case <-ctx.Done():
				return
			case <-ch:
			}
		}
	}()
	return nil
}

// enqueue adds the objects whose holding differs between before and now.
func (h *Handover) enqueue(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], before, now View) {
	if before.equal(now) {
		return
	}
	objs, err := h.list(ctx)
	if err != nil {
		// The informer's resync is the safety net.
		return
	}
	for _, o := range objs {
		k := h.keys.Of(ctx, o)
		if before.Holds(k) != now.Holds(k) {
			q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)})
		}
	}
}
