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
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// added is one request a handler added to a queue, and after how long.
type added struct {
	Request reconcile.Request
	After   time.Duration
}

// recordingQueue records what is added to it.
type recordingQueue struct {
	queue
	added []added
}

func (q *recordingQueue) Add(r reconcile.Request) { q.added = append(q.added, added{Request: r}) }
func (q *recordingQueue) AddAfter(r reconcile.Request, d time.Duration) {
	q.added = append(q.added, added{Request: r, After: d})
}

func TestDebouncedUsageEvents(t *testing.T) {
	usage := func(kind string) *v1alpha1.ProviderConfigUsage {
		u := &v1alpha1.ProviderConfigUsage{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "uid"}}
		u.SetProviderConfigReference(xpv2.ProviderConfigReference{Kind: kind, Name: "git"})
		return u
	}
	pc := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "git"}}
	cases := map[string]struct {
		reason string
		send   func(context.Context, debounced, queue)
		want   []added
	}{
		"Create": {
			reason: "A new usage asks for a count of its configuration after the debounce, not at once.",
			send: func(ctx context.Context, d debounced, q queue) {
				d.Create(ctx, event.CreateEvent{Object: usage("ProviderConfig")}, q)
			},
			want: []added{{Request: pc, After: UsageDebounce}},
		},
		"Delete": {
			reason: "A usage gone asks for a count too: the last user leaving unblocks a deletion.",
			send: func(ctx context.Context, d debounced, q queue) {
				d.Delete(ctx, event.DeleteEvent{Object: usage("ProviderConfig")}, q)
			},
			want: []added{{Request: pc, After: UsageDebounce}},
		},
		"Update": {
			reason: "An update names the configuration of the old and the new usage.",
			send: func(ctx context.Context, d debounced, q queue) {
				d.Update(ctx, event.UpdateEvent{ObjectOld: usage("ProviderConfig"), ObjectNew: usage("ProviderConfig")}, q)
			},
			want: []added{{Request: pc, After: UsageDebounce}, {Request: pc, After: UsageDebounce}},
		},
		"Generic": {
			reason: "A generic event is delayed like the others.",
			send: func(ctx context.Context, d debounced, q queue) {
				d.Generic(ctx, event.GenericEvent{Object: usage("ProviderConfig")}, q)
			},
			want: []added{{Request: pc, After: UsageDebounce}},
		},
		"OtherKind": {
			reason: "A usage of the other configuration kind is not this controller's.",
			send: func(ctx context.Context, d debounced, q queue) {
				d.Create(ctx, event.CreateEvent{Object: usage("ClusterProviderConfig")}, q)
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q := &recordingQueue{}
			d := debounced{TypedEventHandler: &resource.EnqueueRequestForProviderConfig{Kind: "ProviderConfig"}, after: UsageDebounce}
			tc.send(context.Background(), d, q)
			if diff := cmp.Diff(tc.want, q.added); diff != "" {
				t.Errorf("%s\nadded: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
