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
	"maps"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
)

// ignoredAnnotations are written by the reconciler itself, which schedules
// its own follow-up; an update event for them would only add a reconcile.
var ignoredAnnotations = []string{
	meta.AnnotationKeyExternalCreatePending,
	meta.AnnotationKeyExternalCreateSucceeded,
	meta.AnnotationKeyExternalCreateFailed,
}

// DesiredStateChanged admits create, delete and generic events, the
// informer's periodic resync, and update events that change what the user
// asked for: generation (spec), labels, annotations (except the reconciler's
// own create bookkeeping and first external name), finalizers (except ours
// being added), or the deletion timestamp.
//
// It filters status-only updates. That closes the self-trigger loop (status
// write, resourceVersion bump, update event, reconcile) structurally, and it
// is why a lost status write must requeue itself (session.RequeueAfter):
// nothing else brings the object back.
func DesiredStateChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: desiredStateChanged}
}

func desiredStateChanged(e event.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return false
	}
	o, n := e.ObjectOld, e.ObjectNew
	switch {
	case o.GetResourceVersion() == n.GetResourceVersion():
		// The informer's periodic resync: the safety net of a resource
		// that nothing polls on a timer (see WithEventSource).
		return true
	case o.GetGeneration() != n.GetGeneration():
		return true
	case !maps.Equal(o.GetLabels(), n.GetLabels()):
		return true
	case !maps.Equal(withoutIgnored(o.GetAnnotations()), withoutIgnored(named(o.GetAnnotations(), n.GetAnnotations()))):
		return true
	case !slices.Equal(o.GetFinalizers(), n.GetFinalizers()) && !slices.Equal(append(slices.Clone(o.GetFinalizers()), finalizerName), n.GetFinalizers()):
		// Our finalizer being added is our own write, like the
		// bookkeeping: its echo would race our status write.
		return true
	case (o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil):
		return true
	}
	return false
}

// named returns n without the external name when o had none: a first
// name is the reconciler's own (WithExternalNameOf, or an initializer),
// written in the reconcile that goes on to act on it. A user's change of an
// existing name is desired state.
func named(o, n map[string]string) map[string]string {
	if _, ok := o[meta.AnnotationKeyExternalName]; ok {
		return n
	}
	out := maps.Clone(n)
	delete(out, meta.AnnotationKeyExternalName)
	return out
}

func withoutIgnored(a map[string]string) map[string]string {
	out := maps.Clone(a)
	for _, k := range ignoredAnnotations {
		delete(out, k)
	}
	return out
}
