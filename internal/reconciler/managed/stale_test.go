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
	"sync/atomic"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

// TestReconcileSkipsItsOwnStaleRead: a reconcile that reads the version its
// resource's last reconcile replaced with its own writes (a cache that has
// not seen them yet) acts on nothing and writes nothing: its status patch
// would be refused with a Conflict. It comes back in
// session.RequeueWriteLostInterval; once the cache caught up it reconciles.
func TestReconcileSkipsItsOwnStaleRead(t *testing.T) {
	s := testScheme(t)
	var writes atomic.Int64
	var stale client.Object // served instead of the stored object while set
	var first client.Object // the object as the first reconcile read it
	funcs := countingFuncs(&writes)
	funcs.Get = func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, o ...client.GetOption) error {
		if stale != nil {
			stale.(*v1alpha1.Thing).DeepCopyInto(obj.(*v1alpha1.Thing)) //nolint:forcetypeassert // only Things here
			return nil
		}
		err := c.Get(ctx, key, obj, o...)
		if first == nil && err == nil {
			first, _ = obj.DeepCopyObject().(client.Object)
		}
		return err
	}
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.Thing{}).
		WithInterceptorFuncs(funcs).WithObjects(newThing(fresh())).Build()
	st := newStore()
	r := NewReconciler(cluster{c: c, s: s}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind),
		WithTypedExternalConnector[*v1alpha1.Thing](st), WithPollInterval(testPoll), WithCreationGracePeriod(0))
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: testName}}

	if _, err := r.Reconcile(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if writes.Load() != 1 || st.observes.Load() != 1 {
		t.Fatalf("first reconcile: %d status writes, %d observes; want 1, 1", writes.Load(), st.observes.Load())
	}

	// The cache still serves the object as the first reconcile read it.
	stale = first
	res, err := r.Reconcile(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter != session.RequeueWriteLostInterval || writes.Load() != 1 || st.observes.Load() != 1 {
		t.Errorf("stale read: requeue after %s, %d status writes, %d observes; want %s, 1, 1 (nothing acted on, nothing written)",
			res.RequeueAfter, writes.Load(), st.observes.Load(), session.RequeueWriteLostInterval)
	}

	// The cache caught up.
	stale = nil
	if _, err := r.Reconcile(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if st.observes.Load() != 2 {
		t.Errorf("after the cache caught up: %d observes, want 2", st.observes.Load())
	}
}
