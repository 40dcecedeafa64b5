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
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

// TestReconcileLifecycle: management policies, pauses, an interrupted
// create, deletion, and status and metadata writes that fail.
func TestReconcileLifecycle(t *testing.T) {
	errBoom := errors.New("boom")
	errConflict := kerrors.NewConflict(schema.GroupResource{Resource: "things"}, testName, errBoom)

	cases := map[string]reconcileCase{
		"PolicyInvalid": {
			reason: "An unsupported managementPolicies combination is stalled with its own reason.",
			args:   reconcileArgs{thing: newThing(withPolicies(xpv2.ManagementActionCreate)), opts: []ReconcilerOption{WithManagementPolicies()}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: ReasonManagementPolicyInvalid}, corev1.ConditionFalse, corev1.ConditionTrue, ReasonManagementPolicyInvalid, syncedError)},
			},
		},
		"PolicyWithoutFeature": {
			reason: "A non-default policy without WithManagementPolicies is refused, as crossplane-runtime refuses it with the flag off.",
			args:   reconcileArgs{thing: newThing(withPolicies(xpv2.ManagementActionObserve))},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: ReasonManagementPolicyInvalid}, corev1.ConditionFalse, corev1.ConditionTrue, ReasonManagementPolicyInvalid, syncedError)},
			},
		},
		"PausedByAnnotation": {
			reason: "A paused resource only gets Synced=False/ReconcilePaused (and its observed generation); the external system is not touched and nothing requeues.",
			args:   reconcileArgs{thing: newThing(withAnnotation(meta.AnnotationKeyReconciliationPaused, "true")), ext: map[string]extThing{testKey: {Value: "old"}}},
			want: reconcileWant{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalName, meta.AnnotationKeyReconciliationPaused}, Colour: "blue",
					Conditions: []cond{{Type: xpv2.TypeSynced, Status: corev1.ConditionFalse, Reason: xpv2.ReasonReconcilePaused, Gen: testGen}}},
				ext: map[string]extThing{testKey: {Value: "old"}},
			},
		},
		"PausedByPolicy": {
			reason: "Empty managementPolicies pause, like the annotation.",
			args:   reconcileArgs{thing: newThing(withPolicies()), opts: []ReconcilerOption{WithManagementPolicies()}},
			want: reconcileWant{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: []cond{{Type: xpv2.TypeSynced, Status: corev1.ConditionFalse, Reason: xpv2.ReasonReconcilePaused, Gen: testGen}}},
			},
		},
		"CreateIncomplete": {
			reason: "A create whose outcome was never recorded stalls rather than risk leaking a second external resource.",
			args:   reconcileArgs{thing: newThing(withAnnotation(meta.AnnotationKeyExternalCreatePending, time.Now().Format(time.RFC3339)))},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalCreatePending, meta.AnnotationKeyExternalName}, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: ReasonCreateIncomplete}, corev1.ConditionFalse, corev1.ConditionTrue, ReasonCreateIncomplete, syncedError)},
			},
		},
		"CreateIncompleteDeterministic": {
			reason: "With a deterministic external name an unrecorded create is safe to re-observe and retry.",
			args: reconcileArgs{thing: newThing(withAnnotation(meta.AnnotationKeyExternalCreatePending, time.Now().Format(time.RFC3339))),
				ext: map[string]extThing{testKey: {Value: "v1"}}, opts: []ReconcilerOption{WithDeterministicExternalName(true)}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalCreatePending, meta.AnnotationKeyExternalName}, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"CreationGracePeriod": {
			reason: "Shortly after a successful create, 'does not exist' is distrusted: no second Create.",
			args:   reconcileArgs{thing: newThing(withAnnotation(meta.AnnotationKeyExternalCreateSucceeded, time.Now().Format(time.RFC3339)))},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalCreateSucceeded, meta.AnnotationKeyExternalName}, Colour: "blue",
					Conditions: trio(creating, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{},
				calls: calls{Observes: 1},
			},
		},
		"DeleteRequested": {
			reason: "A deleted resource whose external resource exists gets it deleted, keeps the finalizer, and reports Deleting.",
			args:   reconcileArgs{thing: newThing(deleted()), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(deleting, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{},
				calls: calls{Deletes: 1, Observes: 1},
			},
		},
		"DeleteFinalized": {
			reason: "Once the external resource is gone the finalizer is removed and the resource disappears.",
			args:   reconcileArgs{thing: newThing(deleted()), ext: map[string]extThing{}},
			want:   reconcileWant{ext: map[string]extThing{}, calls: calls{Observes: 1}},
		},
		"DeleteWaitsForOtherFinalizers": {
			reason: "Another controller's finalizer holds deletion of the external resource back.",
			args:   reconcileArgs{thing: newThing(deleted("example.org/other")), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: []string{xpmanaged.FinalizerName, "example.org/other"}, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(deleting, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"DeleteOrphans": {
			reason: "Without Delete in managementPolicies the external resource is left in place and the finalizer removed.",
			args: reconcileArgs{thing: newThing(deleted(), withPolicies(xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize)),
				ext: map[string]extThing{testKey: {Value: "v1"}}, opts: []ReconcilerOption{WithManagementPolicies()}},
			want: reconcileWant{ext: map[string]extThing{testKey: {Value: "v1"}}},
		},
		"StatusWriteLost": {
			reason: "A status patch rejected by the optimistic lock is not an error; the resource comes back in ~100ms.",
			args: reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, funcs: interceptor.Funcs{
				SubResourcePatch: func(_ context.Context, _ client.Client, _ string, _ client.Object, _ client.Patch, _ ...client.SubResourcePatchOption) error {
					return errConflict
				}}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: session.RequeueWriteLostInterval},
				obj:    &observed{Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue"},
				ext:    map[string]extThing{testKey: {Value: "v1"}},
				calls:  calls{Observes: 1},
			},
		},
		"StatusWriteFails": {
			reason: "Any other status write failure is returned so controller-runtime backs off.",
			args: reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, funcs: interceptor.Funcs{
				SubResourcePatch: func(_ context.Context, _ client.Client, _ string, _ client.Object, _ client.Patch, _ ...client.SubResourcePatchOption) error {
					return errBoom
				}}},
			want: reconcileWant{
				err:   errors.Wrap(errBoom, "cannot patch status"),
				obj:   &observed{Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue"},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"MetadataWriteConflict": {
			reason: "A conflict writing our own metadata means our copy is stale: nothing computed from it is published and the resource comes back promptly.",
			args: reconcileArgs{thing: newThing(func(t *v1alpha1.Thing) { t.Finalizers = nil }), ext: map[string]extThing{testKey: {Value: "v1"}}, funcs: interceptor.Funcs{
				Update: func(_ context.Context, _ client.WithWatch, _ client.Object, _ ...client.UpdateOption) error {
					return errConflict
				}}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: session.RequeueWriteLostInterval},
				obj:    &observed{ObservedGeneration: testGen, Annotations: externalName, Colour: "blue", AtProvider: "v1"},
				ext:    map[string]extThing{testKey: {Value: "v1"}},
				calls:  calls{Observes: 1},
			},
		},
		"ReconcileRequestHandled": {
			reason: "A crossplane.io/reconcile-requested-at token is acknowledged in status.lastHandledReconcileAt.",
			args:   reconcileArgs{thing: newThing(withAnnotation(meta.AnnotationKeyReconcileRequestedAt, "tok-1")), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalName, meta.AnnotationKeyReconcileRequestedAt}, Colour: "blue", AtProvider: "v1", LastHandled: "tok-1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"PublishesConnectionDetails": {
			reason: "Connection details are written to the local Secret the resource names (checked below).",
			args:   reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, secretRef: true},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
	}
	runReconcileCases(t, cases)
}

// countingClient counts status writes, so a test can prove a steady-state
// reconcile sends none.
func countingFuncs(statusWrites *atomic.Int64) interceptor.Funcs {
	return interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, o ...client.SubResourcePatchOption) error {
			statusWrites.Add(1)
			return c.SubResource(sub).Patch(ctx, obj, p, o...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, o ...client.SubResourceUpdateOption) error {
			statusWrites.Add(1)
			return c.SubResource(sub).Update(ctx, obj, o...)
		},
	}
}

func TestReconcileSteadyStateWritesNothing(t *testing.T) {
	s := testScheme(t)
	var writes atomic.Int64
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.Thing{}).
		WithInterceptorFuncs(countingFuncs(&writes)).WithObjects(newThing(fresh())).Build()
	st := newStore()
	rec := record.NewFakeRecorder(100)
	r := NewReconciler(cluster{c: c, s: s}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind),
		WithTypedExternalConnector[*v1alpha1.Thing](st), WithPollInterval(testPoll), WithCreationGracePeriod(0), WithRecorder(rec))
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: testName}}

	// Create, then converge, then poll three times.
	for i := range 5 {
		if _, err := r.Reconcile(context.Background(), req); err != nil {
			t.Fatalf("reconcile %d: %v", i, err)
		}
	}
	if got, want := writes.Load(), int64(2); got != want {
		t.Errorf("status writes over create + converge + 3 polls: want %d (create, converge), got %d", want, got)
	}

	// One Event per persisted Ready transition, none per poll: the create
	// is announced by Ready turning Creating.
	close(rec.Events)
	var events []string
	for e := range rec.Events {
		events = append(events, e)
	}
	wantEvents := []string{
		"Normal Creating " + msgCreateRequested,
		"Normal Available " + msgAvailable,
	}
	if diff := cmp.Diff(wantEvents, events); diff != "" {
		t.Errorf("events: -want, +got:\n%s", diff)
	}
}

// TestReconcileFinalizedWritesNoStatus: the reconcile that removes the last
// finalizer deletes the resource, so it sends no status patch that could
// only be answered NotFound; while another finalizer holds the resource,
// Deleting is still written.
func TestReconcileFinalizedWritesNoStatus(t *testing.T) {
	orphan := withPolicies(xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize)
	cases := map[string]struct {
		reason string
		thing  *v1alpha1.Thing
		ext    map[string]extThing
		want   int64
	}{
		"DeletedExternalGone": {
			reason: "The external resource is gone and ours is the only finalizer: removing it deletes the resource.",
			thing:  newThing(deleted()),
			ext:    map[string]extThing{},
		},
		"Orphaned": {
			reason: "Without Delete in managementPolicies the finalizer goes at once, and with it the resource.",
			thing:  newThing(deleted(), orphan),
			ext:    map[string]extThing{testKey: {Value: "v1"}},
		},
		"OrphanedHeldByAnotherFinalizer": {
			reason: "Another finalizer keeps the resource after ours goes: it is reported Deleting.",
			thing:  newThing(deleted("example.org/other"), orphan),
			ext:    map[string]extThing{testKey: {Value: "v1"}},
			want:   1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := testScheme(t)
			var writes atomic.Int64
			c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.Thing{}).
				WithInterceptorFuncs(countingFuncs(&writes)).WithObjects(tc.thing).Build()
			st := newStore()
			for k, v := range tc.ext {
				st.put(k, v)
			}
			r := NewReconciler(cluster{c: c, s: s}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind),
				WithTypedExternalConnector[*v1alpha1.Thing](st), WithPollInterval(testPoll), WithManagementPolicies())
			req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: testName}}
			if _, err := r.Reconcile(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if got := writes.Load(); got != tc.want {
				t.Errorf("%s\nstatus writes: want %d, got %d", tc.reason, tc.want, got)
			}
		})
	}
}

// TestReconcileNewResourceWrites counts the writes that take a new resource
// named WithExternalNameOf through a create handed to a writer: one metadata
// write (name, finalizer, create-pending) and one status write.
func TestReconcileNewResourceWrites(t *testing.T) {
	s := testScheme(t)
	var statusWrites, updates atomic.Int64
	funcs := countingFuncs(&statusWrites)
	funcs.Update = func(ctx context.Context, c client.WithWatch, obj client.Object, o ...client.UpdateOption) error {
		updates.Add(1)
		return c.Update(ctx, obj, o...)
	}
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.Thing{}).
		WithInterceptorFuncs(funcs).WithObjects(newThing(fresh())).Build()
	st := newStore()
	st.createErr[testKey] = Waiting("Committing", "waiting for the push")
	r := NewReconciler(cluster{c: c, s: s}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind),
		WithTypedExternalConnector[*v1alpha1.Thing](st), WithPollInterval(testPoll),
		WithExternalNameOf(func(resource.Managed) string { return testName }))
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: testName}}
	if _, err := r.Reconcile(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(calls{Creates: 1, Observes: 1}, calls{Creates: st.creates.Load(), Observes: st.observes.Load()}); diff != "" {
		t.Errorf("external calls: -want, +got:\n%s", diff)
	}
	if got := updates.Load(); got != 1 {
		t.Errorf("metadata writes: want 1 (name, finalizer and create-pending together), got %d", got)
	}
	if got := statusWrites.Load(); got != 1 {
		t.Errorf("status writes: want 1, got %d", got)
	}
}

// TestReconcileWarnsOncePerError: a failure retried with the same error
// gets one Warning, not one per retry; a different error gets its own.
func TestReconcileWarnsOncePerError(t *testing.T) {
	s := testScheme(t)
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.Thing{}).WithObjects(newThing()).Build()
	st := newStore()
	st.put(testKey, extThing{Value: "old"})
	rec := record.NewFakeRecorder(100)
	r := NewReconciler(cluster{c: c, s: s}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind),
		WithTypedExternalConnector[*v1alpha1.Thing](st), WithPollInterval(testPoll), WithRecorder(rec))
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: testName}}
	for i, err := range []error{errors.New("boom"), errors.New("boom"), errors.New("bang")} {
		st.setUpdateErr(testKey, err)
		if _, err := r.Reconcile(context.Background(), req); err != nil {
			t.Fatalf("reconcile %d: %v", i, err)
		}
	}
	close(rec.Events)
	var warnings []string
	for e := range rec.Events {
		if strings.HasPrefix(e, corev1.EventTypeWarning+" "+reasonCannotUpdate) {
			warnings = append(warnings, e)
		}
	}
	want := []string{
		"Warning " + reasonCannotUpdate + " " + errReconcileUpdate + ": boom",
		"Warning " + reasonCannotUpdate + " " + errReconcileUpdate + ": bang",
	}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("warnings: -want, +got:\n%s", diff)
	}
}
