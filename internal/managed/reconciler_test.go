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
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/managed/testkind/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/session"
)

type calls struct{ Creates, Updates, Deletes, Observes int64 }

// nopSource is an event source that never enqueues anything.
type nopSource struct{}

func (nopSource) Start(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	return nil
}

func TestReconcile(t *testing.T) {
	errBoom := errors.New("boom")
	errConflict := kerrors.NewConflict(schema.GroupResource{Resource: "things"}, testName, errBoom)

	type args struct {
		thing     *v1alpha1.Thing
		ext       map[string]extThing
		observe   error
		create    error
		createAt  string
		funcs     interceptor.Funcs
		opts      []ReconcilerOption
		secretRef bool
	}
	type want struct {
		result reconcile.Result
		err    error
		obj    *observed
		ext    map[string]extThing
		calls  calls
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"NotFound": {
			reason: "A resource that is gone is not an error and is not requeued.",
			args:   args{},
			want:   want{},
		},
		"CreateWhenMissing": {
			reason: "A new resource gets an external name, our finalizer, the create annotations, an external resource, and Ready=False/Creating with Reconciling=True; it comes back soon.",
			args:   args{thing: newThing(fresh())},
			want: want{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: allAnnotations, Colour: "blue",
					Conditions: trio(creating, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Creates: 1, Observes: 1},
			},
		},
		"CreateKeepsStatusComputedByCreate": {
			reason: "Status that Create computes survives the annotation writes that follow it (crossplane-runtime v2.4 discards it).",
			args:   args{thing: newThing(fresh()), createAt: "from-create"},
			want: want{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: allAnnotations, Colour: "blue", AtProvider: "from-create",
					Conditions: trio(creating, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Creates: 1, Observes: 1},
			},
		},
		"CreateTransientError": {
			reason: "A failed Create records create-failed, reports Creating with Synced=False and is retried soon.",
			args:   args{thing: newThing(fresh()), create: errBoom},
			want: want{
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
			args:   args{thing: newThing(fresh()), create: Waiting("Committing", "waiting for the push")},
			want: want{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: allAnnotations, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: "Committing"}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{},
				calls: calls{Creates: 1, Observes: 1},
			},
		},
		"CreateWaitingNamedOnce": {
			reason: "With WithExternalNameOf a new resource's name, finalizer and create-pending mark are one write; a create handed to a writer gets no succeeded mark (its outcome is not known yet).",
			args: args{thing: newThing(fresh()), create: Waiting("Committing", "waiting for the push"),
				opts: []ReconcilerOption{WithExternalNameOf(func(resource.Managed) string { return testName })}},
			want: want{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Colour: "blue",
					Annotations: []string{meta.AnnotationKeyExternalCreatePending, meta.AnnotationKeyExternalName},
					Conditions:  trio(cond{Status: corev1.ConditionFalse, Reason: "Committing"}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{},
				calls: calls{Creates: 1, Observes: 1},
			},
		},
		"ObserveErrorStillNames": {
			reason: "A reconcile whose Observe fails before any metadata write still persists the external name WithExternalNameOf sets.",
			args: args{thing: newThing(fresh()), ext: map[string]extThing{testKey: {Value: "v1"}}, observe: errBoom,
				opts: []ReconcilerOption{WithExternalNameOf(func(resource.Managed) string { return testName })}},
			want: want{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionUnknown, Reason: xpv2.ReasonReconcileError}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				calls: calls{Observes: 1},
			},
		},
		"ObserveWaiting": {
			reason: "An Observe that finds its change still with the writer is progressing, not an error, and waits for the wake.",
			args:   args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "old"}}, observe: Waiting("Committing", "waiting for the push")},
			want: want{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: "Committing"}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				calls: calls{Observes: 1},
			},
		},
		"ConvergedEventDriven": {
			reason: "With an event source that reports drift, a converged resource is not requeued on a timer at all.",
			args:   args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, opts: []ReconcilerOption{WithEventSource(nopSource{})}},
			want: want{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				calls: calls{Observes: 1},
			},
		},
		"ConvergedEventDrivenPollAnnotation": {
			reason: "An explicit crossplane.io/poll-interval annotation still asks for polls when an event source reports drift.",
			args: args{thing: newThing(func(t *v1alpha1.Thing) {
				meta.AddAnnotations(t, map[string]string{meta.AnnotationKeyPollInterval: "7m"})
			}),
				ext: map[string]extThing{testKey: {Value: "v1"}}, opts: []ReconcilerOption{WithEventSource(nopSource{})}},
			want: want{
				result: reconcile.Result{RequeueAfter: 7 * time.Minute},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalName, meta.AnnotationKeyPollInterval}, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				calls: calls{Observes: 1},
			},
		},
		"Converged": {
			reason: "An up-to-date resource is Ready=True/Available, Reconciling=False, Stalled=False, and polled at the poll interval.",
			args:   args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"DriftUpdates": {
			reason: "A resource that is not up to date is updated and reported progressing until an observation confirms it.",
			args:   args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "old"}}},
			want: want{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "old",
					Conditions: trio(cond{Status: corev1.ConditionUnknown, Reason: xpv2.ReasonUpdateRequested}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Updates: 1, Observes: 1},
			},
		},
		"DriftWithoutUpdatePolicy": {
			reason: "Without Update in managementPolicies a drifted resource is left alone and reported converged.",
			args: args{
				thing: newThing(withPolicies(xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionDelete, xpv2.ManagementActionLateInitialize)),
				ext:   map[string]extThing{testKey: {Value: "old"}},
				opts:  []ReconcilerOption{WithManagementPolicies()},
			},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "old",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "old"}},
				calls: calls{Observes: 1},
			},
		},
		"LateInitialize": {
			reason: "Spec fields Observe filled in are persisted and the resource still converges in the same reconcile.",
			args:   args{thing: newThing(func(t *v1alpha1.Thing) { t.Spec.ForProvider.Colour = nil }), ext: map[string]extThing{testKey: {Value: "v1", Colour: "red"}}},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "red", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1", Colour: "red"}},
				calls: calls{Observes: 1},
			},
		},
		"ObserveTransientError": {
			reason: "A plain error is transient: Synced=False, Ready=Unknown, Reconciling=True (kstatus InProgress), retried with backoff.",
			args:   args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, observe: errBoom},
			want: want{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionUnknown, Reason: xpv2.ReasonReconcileError}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"ObserveProgressingError": {
			reason: "An error marked Progressing is transient like any other, with its own reason in Ready and Reconciling (kstatus InProgress).",
			args:   args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, observe: Progressing("ResourceNotFound", errBoom)},
			want: want{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionUnknown, Reason: "ResourceNotFound"}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"ObserveTransientErrorKeepsReadyFalse": {
			reason: "A transient error on a resource already known not ready keeps Ready=False rather than claiming Unknown.",
			args:   args{thing: newThing(withConditions(xpv2.Creating())), ext: map[string]extThing{testKey: {Value: "v1"}}, observe: errBoom},
			want: want{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: xpv2.ReasonReconcileError}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"ObserveStalledError": {
			reason: "An error marked Stalled needs a human: Stalled=True with its reason (kstatus Failed), polled at the poll interval.",
			args:   args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, observe: Stalled("AuthenticationFailed", errBoom)},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: "AuthenticationFailed"}, corev1.ConditionFalse, corev1.ConditionTrue, "AuthenticationFailed", syncedError)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"ObserveOnlyMissing": {
			reason: "Observe-only and missing is progressing (something else may create it), polled at the poll interval, and nothing is created.",
			args:   args{thing: newThing(fresh(), withPolicies(xpv2.ManagementActionObserve)), opts: []ReconcilerOption{WithManagementPolicies()}},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: xpv2.ReasonUnavailable}, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedError)},
				ext:   map[string]extThing{},
				calls: calls{Observes: 1},
			},
		},
		"ObserveOnlyExists": {
			reason: "Observe-only and present converges without writing to the external resource.",
			args: args{thing: newThing(withPolicies(xpv2.ManagementActionObserve)), opts: []ReconcilerOption{WithManagementPolicies()},
				ext: map[string]extThing{testKey: {Value: "other"}}},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "other",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "other"}},
				calls: calls{Observes: 1},
			},
		},
		"PolicyInvalid": {
			reason: "An unsupported managementPolicies combination is stalled with its own reason.",
			args:   args{thing: newThing(withPolicies(xpv2.ManagementActionCreate)), opts: []ReconcilerOption{WithManagementPolicies()}},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: ReasonManagementPolicyInvalid}, corev1.ConditionFalse, corev1.ConditionTrue, ReasonManagementPolicyInvalid, syncedError)},
			},
		},
		"PolicyWithoutFeature": {
			reason: "A non-default policy without WithManagementPolicies is refused, as crossplane-runtime refuses it with the flag off.",
			args:   args{thing: newThing(withPolicies(xpv2.ManagementActionObserve))},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: ReasonManagementPolicyInvalid}, corev1.ConditionFalse, corev1.ConditionTrue, ReasonManagementPolicyInvalid, syncedError)},
			},
		},
		"PausedByAnnotation": {
			reason: "A paused resource only gets Synced=False/ReconcilePaused (and its observed generation); the external system is not touched and nothing requeues.",
			args:   args{thing: newThing(withAnnotation(meta.AnnotationKeyReconciliationPaused, "true")), ext: map[string]extThing{testKey: {Value: "old"}}},
			want: want{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalName, meta.AnnotationKeyReconciliationPaused}, Colour: "blue",
					Conditions: []cond{{Type: xpv2.TypeSynced, Status: corev1.ConditionFalse, Reason: xpv2.ReasonReconcilePaused, Gen: testGen}}},
				ext: map[string]extThing{testKey: {Value: "old"}},
			},
		},
		"PausedByPolicy": {
			reason: "Empty managementPolicies pause, like the annotation.",
			args:   args{thing: newThing(withPolicies()), opts: []ReconcilerOption{WithManagementPolicies()}},
			want: want{
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue",
					Conditions: []cond{{Type: xpv2.TypeSynced, Status: corev1.ConditionFalse, Reason: xpv2.ReasonReconcilePaused, Gen: testGen}}},
			},
		},
		"CreateIncomplete": {
			reason: "A create whose outcome was never recorded stalls rather than risk leaking a second external resource.",
			args:   args{thing: newThing(withAnnotation(meta.AnnotationKeyExternalCreatePending, time.Now().Format(time.RFC3339)))},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalCreatePending, meta.AnnotationKeyExternalName}, Colour: "blue",
					Conditions: trio(cond{Status: corev1.ConditionFalse, Reason: ReasonCreateIncomplete}, corev1.ConditionFalse, corev1.ConditionTrue, ReasonCreateIncomplete, syncedError)},
			},
		},
		"CreateIncompleteDeterministic": {
			reason: "With a deterministic external name an unrecorded create is safe to re-observe and retry.",
			args: args{thing: newThing(withAnnotation(meta.AnnotationKeyExternalCreatePending, time.Now().Format(time.RFC3339))),
				ext: map[string]extThing{testKey: {Value: "v1"}}, opts: []ReconcilerOption{WithDeterministicExternalName(true)}},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalCreatePending, meta.AnnotationKeyExternalName}, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"CreationGracePeriod": {
			reason: "Shortly after a successful create, 'does not exist' is distrusted: no second Create.",
			args:   args{thing: newThing(withAnnotation(meta.AnnotationKeyExternalCreateSucceeded, time.Now().Format(time.RFC3339)))},
			want: want{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalCreateSucceeded, meta.AnnotationKeyExternalName}, Colour: "blue",
					Conditions: trio(creating, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{},
				calls: calls{Observes: 1},
			},
		},
		"DeleteRequested": {
			reason: "A deleted resource whose external resource exists gets it deleted, keeps the finalizer, and reports Deleting.",
			args:   args{thing: newThing(deleted()), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want: want{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(deleting, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{},
				calls: calls{Deletes: 1, Observes: 1},
			},
		},
		"DeleteFinalized": {
			reason: "Once the external resource is gone the finalizer is removed and the resource disappears.",
			args:   args{thing: newThing(deleted()), ext: map[string]extThing{}},
			want:   want{ext: map[string]extThing{}, calls: calls{Observes: 1}},
		},
		"DeleteWaitsForOtherFinalizers": {
			reason: "Another controller's finalizer holds deletion of the external resource back.",
			args:   args{thing: newThing(deleted("example.org/other")), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want: want{
				result: reconcile.Result{RequeueAfter: time.Second},
				obj: &observed{ObservedGeneration: testGen, Finalizers: []string{xpmanaged.FinalizerName, "example.org/other"}, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(deleting, corev1.ConditionTrue, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"DeleteOrphans": {
			reason: "Without Delete in managementPolicies the external resource is left in place and the finalizer removed.",
			args: args{thing: newThing(deleted(), withPolicies(xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize)),
				ext: map[string]extThing{testKey: {Value: "v1"}}, opts: []ReconcilerOption{WithManagementPolicies()}},
			want: want{ext: map[string]extThing{testKey: {Value: "v1"}}},
		},
		"StatusWriteLost": {
			reason: "A status patch rejected by the optimistic lock is not an error; the resource comes back in ~100ms.",
			args: args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, funcs: interceptor.Funcs{
				SubResourcePatch: func(_ context.Context, _ client.Client, _ string, _ client.Object, _ client.Patch, _ ...client.SubResourcePatchOption) error {
					return errConflict
				}}},
			want: want{
				result: reconcile.Result{RequeueAfter: session.RequeueWriteLostInterval},
				obj:    &observed{Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue"},
				ext:    map[string]extThing{testKey: {Value: "v1"}},
				calls:  calls{Observes: 1},
			},
		},
		"StatusWriteFails": {
			reason: "Any other status write failure is returned so controller-runtime backs off.",
			args: args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, funcs: interceptor.Funcs{
				SubResourcePatch: func(_ context.Context, _ client.Client, _ string, _ client.Object, _ client.Patch, _ ...client.SubResourcePatchOption) error {
					return errBoom
				}}},
			want: want{
				err:   errors.Wrap(errBoom, "cannot patch status"),
				obj:   &observed{Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue"},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"MetadataWriteConflict": {
			reason: "A conflict writing our own metadata means our copy is stale: nothing computed from it is published and the resource comes back promptly.",
			args: args{thing: newThing(func(t *v1alpha1.Thing) { t.Finalizers = nil }), ext: map[string]extThing{testKey: {Value: "v1"}}, funcs: interceptor.Funcs{
				Update: func(_ context.Context, _ client.WithWatch, _ client.Object, _ ...client.UpdateOption) error {
					return errConflict
				}}},
			want: want{
				result: reconcile.Result{RequeueAfter: session.RequeueWriteLostInterval},
				obj:    &observed{ObservedGeneration: testGen, Annotations: externalName, Colour: "blue", AtProvider: "v1"},
				ext:    map[string]extThing{testKey: {Value: "v1"}},
				calls:  calls{Observes: 1},
			},
		},
		"ReconcileRequestHandled": {
			reason: "A crossplane.io/reconcile-requested-at token is acknowledged in status.lastHandledReconcileAt.",
			args:   args{thing: newThing(withAnnotation(meta.AnnotationKeyReconcileRequestedAt, "tok-1")), ext: map[string]extThing{testKey: {Value: "v1"}}},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: []string{meta.AnnotationKeyExternalName, meta.AnnotationKeyReconcileRequestedAt}, Colour: "blue", AtProvider: "v1", LastHandled: "tok-1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
		"PublishesConnectionDetails": {
			reason: "Connection details are written to the local Secret the resource names (checked below).",
			args:   args{thing: newThing(), ext: map[string]extThing{testKey: {Value: "v1"}}, secretRef: true},
			want: want{
				result: reconcile.Result{RequeueAfter: testPoll},
				obj: &observed{ObservedGeneration: testGen, Finalizers: ourFinalizer, Annotations: externalName, Colour: "blue", AtProvider: "v1",
					Conditions: trio(ready, corev1.ConditionFalse, corev1.ConditionFalse, "", syncedOK)},
				ext:   map[string]extThing{testKey: {Value: "v1"}},
				calls: calls{Observes: 1},
			},
		},
	}
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
