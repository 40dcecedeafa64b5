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

package config

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// UsageDebounce is how long a configuration waits after one of its
// ProviderConfigUsages came or went before it counts its users again. Every
// new managed resource adds a usage; counting each at once wrote the
// configuration's status once per resource of a burst. Waiting lets one
// count, and at most one status write, cover every usage change of the
// window. The last change of a burst is always followed by a count, so the
// count published in the end is exact.
const UsageDebounce = 3 * time.Second

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

// debounced passes events to an event handler whose requests are added to
// the queue after a delay, by clk: a request already waiting keeps its
// earlier time, so events that arrive while one waits add nothing. The
// delay is timed here, not by the queue's AddAfter, so that tests step a
// fake clock through it.
type debounced struct {
	handler.TypedEventHandler[client.Object, reconcile.Request]
	after time.Duration
	clk   clock.WithDelayedExecution

	mu      sync.Mutex
	waiting map[reconcile.Request]bool
}

func newDebounced(h handler.TypedEventHandler[client.Object, reconcile.Request], after time.Duration, clk clock.WithDelayedExecution) *debounced {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &debounced{TypedEventHandler: h, after: after, clk: clk, waiting: map[reconcile.Request]bool{}}
}

func (d *debounced) Create(ctx context.Context, e event.TypedCreateEvent[client.Object], q queue) {
	d.TypedEventHandler.Create(ctx, e, delayed{queue: q, d: d})
}

func (d *debounced) Update(ctx context.Context, e event.TypedUpdateEvent[client.Object], q queue) {
	d.TypedEventHandler.Update(ctx, e, delayed{queue: q, d: d})
}

func (d *debounced) Delete(ctx context.Context, e event.TypedDeleteEvent[client.Object], q queue) {
	d.TypedEventHandler.Delete(ctx, e, delayed{queue: q, d: d})
}

func (d *debounced) Generic(ctx context.Context, e event.TypedGenericEvent[client.Object], q queue) {
	d.TypedEventHandler.Generic(ctx, e, delayed{queue: q, d: d})
}

// add adds r to q once d.after has passed, unless r already waits. The
// timer is set outside d.mu: a fake clock runs the callback, which takes
// d.mu, under its own lock.
func (d *debounced) add(q queue, r reconcile.Request) {
	d.mu.Lock()
	if d.waiting[r] {
		d.mu.Unlock()
		return
	}
	d.waiting[r] = true
	d.mu.Unlock()
	d.clk.AfterFunc(d.after, func() {
		d.mu.Lock()
		delete(d.waiting, r)
		d.mu.Unlock()
		q.Add(r)
	})
}

// delayed is a queue whose Add waits.
type delayed struct {
	queue
	d *debounced
}

func (q delayed) Add(r reconcile.Request) { q.d.add(q.queue, r) }
