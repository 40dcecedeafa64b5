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
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// recordingQueue records the requests added to it.
type recordingQueue struct {
	queue
	mu    sync.Mutex
	added []reconcile.Request
}

func (q *recordingQueue) Add(r reconcile.Request) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.added = append(q.added, r)
}

func (q *recordingQueue) AddAfter(reconcile.Request, time.Duration) {
	panic("the debounce is timed by its clock, not by the queue")
}

func (q *recordingQueue) took() []reconcile.Request {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.added
	q.added = nil
	return out
}

func usageOf(kind, name string) *v1alpha1.ProviderConfigUsage {
	u := &v1alpha1.ProviderConfigUsage{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	u.SetProviderConfigReference(xpv2.ProviderConfigReference{Kind: kind, Name: "git"})
	return u
}

func TestDebouncedUsageEvents(t *testing.T) {
	usage := func(kind string) *v1alpha1.ProviderConfigUsage { return usageOf(kind, "uid") }
	pc := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "git"}}
	cases := map[string]struct {
		reason string
		send   func(context.Context, *debounced, queue)
		want   []reconcile.Request
	}{
		"Create": {
			reason: "A new usage asks for a count of its configuration after the debounce, not at once.",
			send: func(ctx context.Context, d *debounced, q queue) {
				d.Create(ctx, event.CreateEvent{Object: usage("ProviderConfig")}, q)
			},
			want: []reconcile.Request{pc},
		},
		"Delete": {
			reason: "A usage gone asks for a count too: the last user leaving unblocks a deletion.",
			send: func(ctx context.Context, d *debounced, q queue) {
				d.Delete(ctx, event.DeleteEvent{Object: usage("ProviderConfig")}, q)
			},
			want: []reconcile.Request{pc},
		},
		"Update": {
			reason: "An update names the configuration of the old and the new usage: one count covers both.",
			send: func(ctx context.Context, d *debounced, q queue) {
				d.Update(ctx, event.UpdateEvent{ObjectOld: usage("ProviderConfig"), ObjectNew: usage("ProviderConfig")}, q)
			},
			want: []reconcile.Request{pc},
		},
		"Generic": {
			reason: "A generic event is delayed like the others.",
			send: func(ctx context.Context, d *debounced, q queue) {
				d.Generic(ctx, event.GenericEvent{Object: usage("ProviderConfig")}, q)
			},
			want: []reconcile.Request{pc},
		},
		"OtherKind": {
			reason: "A usage of the other configuration kind is not this controller's.",
			send: func(ctx context.Context, d *debounced, q queue) {
				d.Create(ctx, event.CreateEvent{Object: usage("ClusterProviderConfig")}, q)
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q := &recordingQueue{}
			clk := testingclock.NewFakeClock(time.Unix(1e9, 0))
			d := newDebounced(&resource.EnqueueRequestForProviderConfig{Kind: "ProviderConfig"}, UsageDebounce, clk)
			tc.send(context.Background(), d, q)
			clk.Step(UsageDebounce - time.Nanosecond)
			if got := q.took(); len(got) != 0 {
				t.Errorf("%s\nadded before the debounce passed: %v", tc.reason, got)
			}
			clk.Step(time.Nanosecond)
			if diff := cmp.Diff(tc.want, q.took()); diff != "" {
				t.Errorf("%s\nadded once the debounce passed: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDebounceIsExact steps the clock through a burst of usages of one
// configuration: usages at t=0 and t=2.9s ask for one count, at t=3s and
// not before; one at t=3.1s for another, at t=6.1s.
func TestDebounceIsExact(t *testing.T) {
	q := &recordingQueue{}
	clk := testingclock.NewFakeClock(time.Unix(1e9, 0))
	d := newDebounced(&resource.EnqueueRequestForProviderConfig{Kind: "ProviderConfig"}, UsageDebounce, clk)
	pc := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "git"}}
	created := func(name string) {
		d.Create(context.Background(), event.CreateEvent{Object: usageOf("ProviderConfig", name)}, q)
	}
	at := func(step time.Duration, want ...reconcile.Request) {
		t.Helper()
		clk.Step(step)
		if diff := cmp.Diff(want, q.took()); diff != "" {
			t.Errorf("at t=%s, counts asked for: -want, +got:\n%s", clk.Since(time.Unix(1e9, 0)), diff)
		}
	}
	created("a")                               // t=0
	at(2900 * time.Millisecond)                // t=2.9s
	created("b")                               // t=2.9s: waits with a's
	at(100*time.Millisecond - time.Nanosecond) // just before t=3s
	at(time.Nanosecond, pc)                    // t=3s: one count for both
	at(100 * time.Millisecond)                 // t=3.1s
	created("c")                               // t=3.1s
	at(UsageDebounce - time.Nanosecond)        // just before t=6.1s
	at(time.Nanosecond, pc)                    // t=6.1s
}
