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

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

// TestReconcileAdmission: a resource its admission refuses (another
// replica holds its repository) is not observed, costs no write, is not
// requeued, and is forgotten; one it admits is reconciled as ever.
func TestReconcileAdmission(t *testing.T) {
	nn := types.NamespacedName{Namespace: testNS, Name: testName}
	type want struct {
		observes int64
		gone     []types.NamespacedName
		result   reconcile.Result
		written  bool
	}
	cases := map[string]struct {
		reason string
		admit  bool
		want   want
	}{
		"Refused": {
			reason: "Queued before its repository moved away: dropped, forgotten, not observed, nothing written.",
			want:   want{gone: []types.NamespacedName{nn}},
		},
		"Admitted": {
			reason: "Held here: observed and its status written.",
			admit:  true,
			want:   want{observes: 1, written: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := testScheme(t)
			c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.Thing{}).WithObjects(newThing()).Build()
			before := &v1alpha1.Thing{}
			if err := c.Get(context.Background(), nn, before); err != nil {
				t.Fatal(err)
			}
			st := newStore()
			st.put(testKey, extThing{Value: "v1"})
			var gone []types.NamespacedName
			var asked []string
			r := NewReconciler(cluster{c: c, s: s}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind),
				WithTypedExternalConnector[*v1alpha1.Thing](st), WithManagementPolicies(), WithPollInterval(testPoll),
				WithGone(ForgetterFn(func(nn types.NamespacedName) { gone = append(gone, nn) })),
				WithAdmission(func(_ context.Context, o client.Object) bool { asked = append(asked, o.GetName()); return tc.admit }))
			res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: nn})
			if err != nil {
				t.Fatalf("%s\nReconcile: %v", tc.reason, err)
			}
			after := &v1alpha1.Thing{}
			if err := c.Get(context.Background(), nn, after); err != nil {
				t.Fatal(err)
			}
			got := want{observes: st.observes.Load(), gone: gone, written: after.ResourceVersion != before.ResourceVersion}
			if !tc.admit {
				got.result = res
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nReconcile: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff([]string{testName}, asked); diff != "" {
				t.Errorf("%s\nadmission asked about: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
