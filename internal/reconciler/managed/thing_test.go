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
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

// The Thing fixtures the unit tests, the envtest tests and the benchmark
// share: a Thing as a previous reconcile left it, and what a test asserts
// of the stored one.

var _ Managed = &v1alpha1.Thing{}

const (
	testNS   = "default"
	testName = "t"
	testGen  = 3
	testPoll = 10 * time.Second
)

var testKey = testNS + "/" + testName

func testScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

type cluster struct {
	c client.Client
	s *runtime.Scheme
}

func (c cluster) GetClient() client.Client   { return c.c }
func (c cluster) GetScheme() *runtime.Scheme { return c.s }

type thingOption func(*v1alpha1.Thing)

// newThing is a Thing as a previous reconcile would have left it: external
// name set, our finalizer present, value "v1".
func newThing(o ...thingOption) *v1alpha1.Thing {
	t := &v1alpha1.Thing{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: testNS, Name: testName, Generation: testGen,
			Annotations: map[string]string{meta.AnnotationKeyExternalName: testName},
			Finalizers:  []string{xpmanaged.FinalizerName},
		},
		Spec: v1alpha1.ThingSpec{
			ManagedResourceSpec: xpv2.ManagedResourceSpec{ManagementPolicies: xpv2.ManagementPolicies{xpv2.ManagementActionAll}},
			ForProvider:         v1alpha1.ThingParameters{Value: "v1", Colour: ptr("blue")},
		},
	}
	for _, fn := range o {
		fn(t)
	}
	return t
}

func ptr[T any](v T) *T { return &v }

func fresh() thingOption {
	return func(t *v1alpha1.Thing) { t.Annotations, t.Finalizers = nil, nil }
}

func withAnnotation(k, v string) thingOption {
	return func(t *v1alpha1.Thing) {
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		t.Annotations[k] = v
	}
}

func withPolicies(p ...xpv2.ManagementAction) thingOption {
	return func(t *v1alpha1.Thing) { t.Spec.ManagementPolicies = p }
}

func deleted(extraFinalizers ...string) thingOption {
	return func(t *v1alpha1.Thing) {
		now := metav1.Now()
		t.DeletionTimestamp = &now
		t.Finalizers = append(t.Finalizers, extraFinalizers...)
	}
}

func withConditions(c ...xpv2.Condition) thingOption {
	return func(t *v1alpha1.Thing) { t.Status.Conditions = c }
}

// cond is the part of a condition a test asserts on.
type cond struct {
	Type   xpv2.ConditionType
	Status corev1.ConditionStatus
	Reason xpv2.ConditionReason
	Gen    int64
}

// observed is what a test asserts of the stored Thing.
type observed struct {
	ObservedGeneration int64
	Conditions         []cond
	Finalizers         []string
	Annotations        []string // crossplane.io/ keys present
	AtProvider         string
	Colour             string
	LastHandled        string
}

func observe(t *v1alpha1.Thing) *observed {
	o := &observed{ObservedGeneration: t.Status.ObservedGeneration, Finalizers: t.Finalizers, AtProvider: t.Status.AtProvider.Value, LastHandled: t.Status.LastHandledReconcileAt}
	for _, c := range t.Status.Conditions {
		o.Conditions = append(o.Conditions, cond{c.Type, c.Status, c.Reason, c.ObservedGeneration})
	}
	slices.SortFunc(o.Conditions, func(a, b cond) int { return strings.Compare(string(a.Type), string(b.Type)) })
	for k := range t.Annotations {
		if strings.HasPrefix(k, "crossplane.io/") {
			o.Annotations = append(o.Annotations, k)
		}
	}
	slices.Sort(o.Annotations)
	if t.Spec.ForProvider.Colour != nil {
		o.Colour = *t.Spec.ForProvider.Colour
	}
	return o
}

// trio returns the sorted expected conditions: Ready, Reconciling, Stalled,
// Synced, all stamped with the generation read.
func trio(ready cond, reconciling, stalled corev1.ConditionStatus, stallReason xpv2.ConditionReason, synced cond) []cond {
	rec := cond{Type: session.TypeReconciling, Status: reconciling, Gen: testGen}
	st := cond{Type: session.TypeStalled, Status: stalled, Gen: testGen}
	switch {
	case stalled == corev1.ConditionTrue:
		rec.Reason, st.Reason = stallReason, stallReason
	case reconciling == corev1.ConditionTrue:
		rec.Reason, st.Reason = ready.Reason, session.ReasonProgressing
	default:
		rec.Reason, st.Reason = session.ReasonSucceeded, session.ReasonSucceeded
	}
	ready.Type, ready.Gen, synced.Type, synced.Gen = xpv2.TypeReady, testGen, xpv2.TypeSynced, testGen
	return []cond{ready, rec, st, synced}
}

var (
	ready       = cond{Status: corev1.ConditionTrue, Reason: xpv2.ReasonAvailable}
	creating    = cond{Status: corev1.ConditionFalse, Reason: xpv2.ReasonCreating}
	deleting    = cond{Status: corev1.ConditionFalse, Reason: xpv2.ReasonDeleting}
	syncedOK    = cond{Status: corev1.ConditionTrue, Reason: xpv2.ReasonReconcileSuccess}
	syncedError = cond{Status: corev1.ConditionFalse, Reason: xpv2.ReasonReconcileError}

	allAnnotations = []string{meta.AnnotationKeyExternalCreatePending, meta.AnnotationKeyExternalCreateSucceeded, meta.AnnotationKeyExternalName}
	externalName   = []string{meta.AnnotationKeyExternalName}
	ourFinalizer   = []string{xpmanaged.FinalizerName}
)
