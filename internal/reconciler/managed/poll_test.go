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

package managed

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

func TestPoll(t *testing.T) {
	type want struct{ lo, hi time.Duration }
	cases := map[string]struct {
		reason string
		opts   []ReconcilerOption
		thing  *v1alpha1.Thing
		want   want
	}{
		"Default": {
			reason: "Without jitter the poll interval is exact.",
			opts:   []ReconcilerOption{WithPollInterval(time.Minute)},
			thing:  newThing(),
			want:   want{time.Minute, time.Minute},
		},
		"Jitter": {
			reason: "Jitter spreads the interval within +/- the jitter.",
			opts:   []ReconcilerOption{WithPollInterval(time.Minute), WithPollJitter(10 * time.Second)},
			thing:  newThing(),
			want:   want{50 * time.Second, 70 * time.Second},
		},
		"Annotation": {
			reason: "The crossplane.io/poll-interval annotation overrides the default.",
			opts:   []ReconcilerOption{WithPollInterval(time.Minute)},
			thing:  newThing(withAnnotation(meta.AnnotationKeyPollInterval, "5m")),
			want:   want{5 * time.Minute, 5 * time.Minute},
		},
		"AnnotationBelowMinimum": {
			reason: "An annotation below the minimum is clamped to it.",
			opts:   []ReconcilerOption{WithPollInterval(time.Minute), WithMinPollInterval(30 * time.Second)},
			thing:  newThing(withAnnotation(meta.AnnotationKeyPollInterval, "1s")),
			want:   want{30 * time.Second, 30 * time.Second},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := testScheme(t)
			r := NewReconciler(cluster{c: fake.NewClientBuilder().WithScheme(s).Build(), s: s}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind), tc.opts...)
			p := &pass{r: r, mg: tc.thing}
			var seen []time.Duration
			for range 200 {
				d := p.poll()
				if d < tc.want.lo || d > tc.want.hi {
					t.Fatalf("%s\npoll(): want within [%s, %s], got %s", tc.reason, tc.want.lo, tc.want.hi, d)
				}
				seen = append(seen, d)
			}
			if tc.want.lo != tc.want.hi && seen[0] == seen[1] && seen[1] == seen[2] {
				t.Errorf("%s\npoll(): no jitter observed: %v", tc.reason, seen[:3])
			}
		})
	}
}

func TestConditionMetrics(t *testing.T) {
	s := testScheme(t)
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.Thing{}).WithObjects(newThing()).Build()
	st := newStore()
	st.put(testKey, extThing{Value: "v1"})
	m := session.NewConditionMetrics()
	r := NewReconciler(cluster{c: c, s: s}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind),
		WithTypedExternalConnector[*v1alpha1.Thing](st), WithConditionMetrics(m))
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: testName}}

	if _, err := r.Reconcile(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	// Ready, Reconciling and Stalled, three series each.
	if diff := cmp.Diff(9, testutil.CollectAndCount(m, session.MetricResourceCondition)); diff != "" {
		t.Errorf("series after a reconcile: -want, +got:\n%s", diff)
	}

	if err := c.Delete(context.Background(), newThing()); err != nil {
		t.Fatal(err)
	}
	// Our finalizer holds it: the external resource is deleted first.
	for range 3 {
		if _, err := r.Reconcile(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(0, testutil.CollectAndCount(m, session.MetricResourceCondition)); diff != "" {
		t.Errorf("series once the resource is gone: -want, +got:\n%s", diff)
	}
}
