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
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

type calls struct{ Creates, Updates, Deletes, Observes int64 }

// nopSource is an event source that never enqueues anything.
type nopSource struct{}

func (nopSource) Start(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	return nil
}

// reconcileArgs is what a TestReconcile case sets up: the stored Thing,
// the external things, the external client's errors, and the options.
type reconcileArgs struct {
	thing     *v1alpha1.Thing
	ext       map[string]extThing
	observe   error
	create    error
	createAt  string
	funcs     interceptor.Funcs
	opts      []ReconcilerOption
	secretRef bool
}

// reconcileWant is what a TestReconcile case checks after one Reconcile.
type reconcileWant struct {
	result reconcile.Result
	err    error
	obj    *observed
	ext    map[string]extThing
	calls  calls
}

// reconcileCase is one row of the Reconcile tables.
type reconcileCase struct {
	reason string
	args   reconcileArgs
	want   reconcileWant
}

// runReconcileCases runs each case's one Reconcile on a fake API server
// and the store, and checks the result, the stored Thing, the external
// things and calls, and the connection Secret.
func runReconcileCases(t *testing.T, cases map[string]reconcileCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := testScheme(t)
			b := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.Thing{}).WithInterceptorFuncs(tc.args.funcs)
			if tc.args.thing != nil {
				if tc.args.secretRef {
					tc.args.thing.Spec.WriteConnectionSecretToReference = &xpv2.LocalSecretReference{Name: "conn"}
				}
				b = b.WithObjects(tc.args.thing)
			}
			c := b.Build()
			st := newStore()
			for k, v := range tc.args.ext {
				st.put(k, v)
			}
			st.observeErr[testKey] = tc.args.observe
			st.createErr[testKey] = tc.args.create
			if tc.args.createAt != "" {
				st.createAt[testKey] = tc.args.createAt
			}
			opts := append([]ReconcilerOption{WithTypedExternalConnector[*v1alpha1.Thing](st), WithPollInterval(testPoll)}, tc.args.opts...)
			r := NewReconciler(cluster{c: c, s: s}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind), opts...)

			got, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: testName}})
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nReconcile(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.result, got); diff != "" {
				t.Errorf("%s\nReconcile(...): -want result, +got result:\n%s", tc.reason, diff)
			}

			var obj *observed
			stored := &v1alpha1.Thing{}
			if err := c.Get(context.Background(), types.NamespacedName{Namespace: testNS, Name: testName}, stored); err == nil {
				obj = observe(stored)
			} else if !kerrors.IsNotFound(err) {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want.obj, obj); diff != "" {
				t.Errorf("%s\nstored Thing: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.ext == nil {
				tc.want.ext = map[string]extThing{}
				for k, v := range tc.args.ext {
					tc.want.ext[k] = v
				}
			}
			if diff := cmp.Diff(tc.want.ext, st.snapshot()); diff != "" {
				t.Errorf("%s\nexternal things: -want, +got:\n%s", tc.reason, diff)
			}
			gotCalls := calls{Creates: st.creates.Load(), Updates: st.updates.Load(), Deletes: st.deletes.Load(), Observes: st.observes.Load()}
			if diff := cmp.Diff(tc.want.calls, gotCalls); diff != "" {
				t.Errorf("%s\nexternal calls: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.args.secretRef {
				sec := &corev1.Secret{}
				if err := c.Get(context.Background(), types.NamespacedName{Namespace: testNS, Name: "conn"}, sec); err != nil {
					t.Fatalf("%s\nconnection Secret: %v", tc.reason, err)
				}
				if diff := cmp.Diff(map[string][]byte{"value": []byte("v1")}, sec.Data); diff != "" {
					t.Errorf("%s\nconnection Secret data: -want, +got:\n%s", tc.reason, diff)
				}
			}
		})
	}
}

// TestReconcile: a resource created, observed, converged, drifted and
// late-initialized, and the errors and waits of Observe and Create.
func TestReconcile(t *testing.T) {
	errBoom := errors.New("boom")

	cases := map[string]reconcileCase{
		"NotFound": {
			reason: "A resource that is gone is not an error and is not requeued.",
			args:   reconcileArgs{},
			want:   reconcileWant{},
		},
		"CreateWhenMissing": {
			reason: "A new resource gets an external name, our finalizer, the create annotations, an external resource, and Ready=False/Creating with Reconciling=True; it comes back soon.",
			args:   reconcileArgs{thing: newThing(fresh())},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: allAnnotations, Colour: "blue",
					Conditions: trio(creating, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Creates: 1, Observes: 1},
			},
		},
		"CreateKeepsStatusComputedByCreate": {
			reason: "Status that Create computes survives the annotation writes that follow it (crossplane-runtime v2.4 discards it).",
			args:   reconcileArgs{thing: newThing(fresh()), createAt: "from-create"},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: allAnnotations, Colour: "blue", AtProvider: "from-create",
					Conditions: trio(creating, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Creates: 1, Observes: 1},
			},
		},
		"CreateTransientError": {
			reason: "A failed Create records create-failed, reports Creating with Synced=False and is retried soon.",
			args:   reconcileArgs{thing: newThing(fresh()), create: errBoom},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Colour: "blue",
					Annotations: []string{meta.AnnotationKeyExternalCreateFailed, meta.AnnotationKeyExternalCreatePending, meta.AnnotationKeyExternalName},
					Conditions:  trio(creating, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				ext:   map[string]extThing{},
				calls: calls{Creates: 1, Observes: 1},
			},
		},
		"CreateWaiting": {
			reason: "A Create handed to an asynchronous writer is accepted (create annotations recorded), reported Ready=False with the writer's reason and Reconciling=True, and not requeued: the writer's wake brings it back.",
			args:   reconcileArgs{thing: newThing(fresh()), create: Waiting("Committing", "waiting for the push")},
			want: reconcileWant{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: allAnnotations, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: "Committing"}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{},
				calls: calls{Creates: 1, Observes: 1},
			},
		},
		"CreateWaitingNamedOnce": {
			reason: "With WithExternalNameOf a new resource's name, finalizer and create-pending mark are one write; a create handed to a writer gets no succeeded mark (its outcome is not known yet).",
			args: reconcileArgs{thing: newThing(fresh()), create: Waiting("Committing", "waiting for the push"),
				opts: []ReconcilerOption{WithExternalNameOf(func(resource.Managed) string { return testName })}},
			want: reconcileWant{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Colour: "blue",
					Annotations: []string{meta.AnnotationKeyExternalCreatePending, meta.AnnotationKeyExternalName},
					Conditions:  trio(cond{Status: corev1.ConditionFalse, Reason: "Committing"}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{},
				calls: calls{Creates: 1, Observes: 1},
			},
		},
		"ObserveErrorStillNames": {
			reason: "A reconcile whose Observe fails before any metadata write still persists the external name WithExternalNameOf sets.",
			args: reconcileArgs{thing: newThing(fresh()), ext: map[string]extThing{testKey: {Value: "v1"}}, observe: errBoom,
				opts: []ReconcilerOption{WithExternalNameOf(func(resource.Managed) string { return testName })}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionUnknown, Reason: xpv2.ReasonReconcileError}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				calls: calls{Observes: 1},
			},
		},
		"ObserveWaiting": {
			reason: "An Observe that finds its change still with the writer is progressing, not an error, and waits for the wake.",
			args:   reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "old"}}, observe: Waiting("Committing", "waiting for the push")},
			want: reconcileWant{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: "Committing"}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				calls: calls{Observes: 1},
			},
		},
		"ObserveWaitingFor": {
			reason: "An Observe that waits on something no wake reports (a rate limit's reset, a review) is progressing with its reason and Synced True, and comes back after the time it names, not on backoff.",
			args:   reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "old"}}, observe: WaitingFor("RateLimited", "until 12:00", 42*time.Second)},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: 42 * time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: "RateLimited"}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				calls: calls{Observes: 1},
			},
		},
		"ConvergedEventDriven": {
			reason: "With an event source that reports drift, a converged resource is not requeued on a timer at all.",
			args:   reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, opts: []ReconcilerOption{WithEventSource(nopSource{})}},
			want: reconcileWant{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				calls: calls{Observes: 1},
			},
		},
		"ConvergedWakeSource": {
			reason: "A source that only wakes (a PullRequest's branches) leaves the poll as it is: a converged resource is polled at the poll interval.",
			args:   reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, opts: []ReconcilerOption{WithWakeSource(nopSource{})}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				calls: calls{Observes: 1},
			},
		},
		"ConvergedEventDrivenPollAnnotation": {
			reason: "An explicit crossplane.io/poll-interval annotation still asks for polls when an event source reports drift.",
			args: reconcileArgs{thing: newThing(func(t *v1alpha1.Thing) {
				meta.AddAnnotations(t, map[string]string{meta.AnnotationKeyPollInterval: "7m"})
			}),
				ext: map[string]extThing{testKey: {Value: "v1"}}, opts: []ReconcilerOption{WithEventSource(nopSource{})}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: 7 * time.Minute},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalName, meta.AnnotationKeyPollInterval}, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				calls: calls{Observes: 1},
			},
		},
		"Converged": {
			reason: "An up-to-date resource is Ready=True/Available, Reconciling=False, Stalled=False, and polled at the poll interval.",
			args:   reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"DriftUpdates": {
			reason: "A resource that is not up to date is updated and reported progressing until an observation confirms it.",
			args:   reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "old"}}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "old",
					Conditions: trio(cond{Status: corev1.ConditionUnknown, Reason: xpv2.ReasonUpdateRequested}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Updates: 1, Observes: 1},
			},
		},
		"DriftWithoutUpdatePolicy": {
			reason: "Without Update in managementPolicies a drifted resource is left alone and reported converged.",
			args: reconcileArgs{
				thing: newThing(withPolicies(xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionDelete, xpv2.ManagementActionLateInitialize)),
				ext:   map[string]extThing{testKey: {Value: "old"}},
				opts:  []ReconcilerOption{WithManagementPolicies()},
			},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "old",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "old"}},
				calls: calls{Observes: 1},
			},
		},
		"LateInitialize": {
			reason: "Spec fields Observe filled in are persisted and the resource still converges in the same reconcile.",
			args:   reconcileArgs{thing: newThing(func(t *v1alpha1.Thing) { t.Spec.ForProvider.Colour = nil }), ext: map[string]extThing{testKey: {Value: "v1", Colour: "red"}}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "red", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1", Colour: "red"}},
				calls: calls{Observes: 1},
			},
		},
		"ObserveTransientError": {
			reason: "A plain error is transient: Synced=False, Ready=Unknown, Reconciling=True (kstatus InProgress), retried with backoff.",
			args:   reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, observe: errBoom},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionUnknown, Reason: xpv2.ReasonReconcileError}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"ObserveProgressingError": {
			reason: "An error marked Progressing is transient like any other, with its own reason in Ready and Reconciling (kstatus InProgress).",
			args:   reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, observe: Progressing("ResourceNotFound", errBoom)},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionUnknown, Reason: "ResourceNotFound"}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"ObserveTransientErrorKeepsReadyFalse": {
			reason: "A transient error on a resource already known not ready keeps Ready=False rather than claiming Unknown.",
			args:   reconcileArgs{thing: newThing(withConditions(xpv2.Creating())), ext: map[string]extThing{testKey: {Value: "v1"}}, observe: errBoom},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: xpv2.ReasonReconcileError}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"ObserveStalledError": {
			reason: "An error marked Stalled needs a human: Stalled=True with its reason (kstatus Failed), polled at the poll interval.",
			args:   reconcileArgs{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, observe: Stalled("AuthenticationFailed", errBoom)},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: "AuthenticationFailed"}, corev1.ConditionFalse, corev1.ConditionTrue, "AuthenticationFailed", syncedError)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"ObserveOnlyMissing": {
			reason: "Observe-only and missing is progressing (something else may create it), polled at the poll interval, and nothing is created.",
			args:   reconcileArgs{thing: newThing(fresh(), withPolicies(xpv2.ManagementActionObserve)), opts: []ReconcilerOption{WithManagementPolicies()}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: xpv2.ReasonUnavailable}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				ext:   map[string]extThing{},
				calls: calls{Observes: 1},
			},
		},
		"ObserveOnlyExists": {
			reason: "Observe-only and present converges without writing to the external resource.",
			args: reconcileArgs{thing: newThing(withPolicies(xpv2.ManagementActionObserve)), opts: []ReconcilerOption{WithManagementPolicies()},
				ext: map[string]extThing{testKey: {Value: "other"}}},
			want: reconcileWant{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "other",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "other"}},
				calls: calls{Observes: 1},
			},
		},
	}
	runReconcileCases(t, cases)
}
