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

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

// TestReconcileGone: every way a resource goes for good reaches the
// Forgetters (WithGone), so what was kept for it outside the API server (a
// drift index entry that polls its repository, a write's result) is
// dropped; a resource still in use is not forgotten.
func TestReconcileGone(t *testing.T) {
	nn := types.NamespacedName{Namespace: testNS, Name: testName}
	orphaning := withPolicies(xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize)
	type args struct {
		thing *v1alpha1.Thing
		ext   map[string]extThing
	}
	type want struct {
		gone    []types.NamespacedName
		ext     map[string]extThing
		deletes int64
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"FinalizerRemovedByHand": {
			reason: "A resource whose finalizer was removed by hand had no last reconcile of its own: the reconcile that finds it NotFound forgets it.",
			args:   args{ext: map[string]extThing{}},
			want:   want{gone: []types.NamespacedName{nn}, ext: map[string]extThing{}},
		},
		"Orphaned": {
			reason: "Without Delete in managementPolicies the resource goes without an Observe: the orphan path itself forgets it, and leaves the external resource.",
			args:   args{thing: newThing(deleted(), orphaning), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want:   want{gone: []types.NamespacedName{nn}, ext: map[string]extThing{testKey: {Value: "v1"}}},
		},
		"OrphanedHeldByAnotherFinalizer": {
			reason: "An orphaned resource another controller still holds is forgotten once our finalizer is off: nothing more is done for it.",
			args:   args{thing: newThing(deleted("example.org/other"), orphaning), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want:   want{gone: []types.NamespacedName{nn}, ext: map[string]extThing{testKey: {Value: "v1"}}},
		},
		"DeleteCompleted": {
			reason: "A deletion that finds the external resource gone removes the finalizer and forgets the resource.",
			args:   args{thing: newThing(deleted()), ext: map[string]extThing{}},
			want:   want{gone: []types.NamespacedName{nn}, ext: map[string]extThing{}},
		},
		"DeleteRequested": {
			reason: "A deletion still waiting for its external resource to go keeps everything: the next observation must still see it.",
			args:   args{thing: newThing(deleted()), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want:   want{ext: map[string]extThing{}, deletes: 1},
		},
		"Live": {
			reason: "A converged resource is not forgotten.",
			args:   args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want:   want{ext: map[string]extThing{testKey: {Value: "v1"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := testScheme(t)
			b := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.Thing{})
			if tc.args.thing != nil {
				b = b.WithObjects(tc.args.thing)
			}
			c := b.Build()
			st := newStore()
			for k, v := range tc.args.ext {
				st.put(k, v)
			}
			var gone []types.NamespacedName
			r := NewReconciler(cluster{c: c, s: s}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind),
				WithTypedExternalConnector[*v1alpha1.Thing](st), WithManagementPolicies(), WithPollInterval(testPoll),
				WithGone(ForgetterFn(func(nn types.NamespacedName) { gone = append(gone, nn) })))
			if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: nn}); err != nil {
				t.Fatalf("%s\nReconcile: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.gone, gone); diff != "" {
				t.Errorf("%s\nforgotten: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.ext, st.snapshot()); diff != "" {
				t.Errorf("%s\nexternal resources: -want, +got:\n%s", tc.reason, diff)
			}
			if got := st.deletes.Load(); got != tc.want.deletes {
				t.Errorf("%s\nexternal deletes: want %d, got %d", tc.reason, tc.want.deletes, got)
			}
		})
	}
}
