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
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

func TestDesiredStateChanged(t *testing.T) {
	base := func() *v1alpha1.Thing { return newThing() }
	cases := map[string]struct {
		reason string
		fresh  bool // the old object is a new one: no finalizer, no external name
		change func(*v1alpha1.Thing)
		want   bool
	}{
		"StatusOnly": {
			reason: "A status-only update (our own status write) must not trigger a reconcile.",
			change: func(t *v1alpha1.Thing) {
				t.Status.ObservedGeneration = 9
				t.Status.SetConditions(xpv2.Available())
				t.ResourceVersion = "2"
			},
			want: false,
		},
		"Generation": {
			reason: "A spec change bumps the generation.",
			change: func(t *v1alpha1.Thing) { t.Generation++ },
			want:   true,
		},
		"Label": {
			reason: "Labels are desired state.",
			change: func(t *v1alpha1.Thing) { t.Labels = map[string]string{"a": "b"} },
			want:   true,
		},
		"Annotation": {
			reason: "Annotations carry pause, external name and reconcile requests.",
			change: func(t *v1alpha1.Thing) { t.Annotations[meta.AnnotationKeyReconciliationPaused] = "true" },
			want:   true,
		},
		"CreateBookkeeping": {
			reason: "Our own create annotations are followed by our own requeue.",
			change: func(t *v1alpha1.Thing) {
				meta.SetExternalCreatePending(t, metav1.Now().Time)
				meta.SetExternalCreateSucceeded(t, metav1.Now().Time)
				t.ResourceVersion = "2"
			},
			want: false,
		},
		"FirstClaim": {
			reason: "Our own first write (finalizer, first external name, create-pending) is followed by our own status write; its echo would only race it.",
			fresh:  true,
			change: func(t *v1alpha1.Thing) {
				t.Finalizers = append(t.Finalizers, finalizerName)
				meta.SetExternalName(t, "path/of/thing")
				meta.SetExternalCreatePending(t, metav1.Now().Time)
				t.ResourceVersion = "2"
			},
			want: false,
		},
		"ExternalNameChanged": {
			reason: "A changed external name is desired state.",
			change: func(t *v1alpha1.Thing) { meta.SetExternalName(t, "other") },
			want:   true,
		},
		"Resync": {
			reason: "The informer's resync delivers the object unchanged: the safety net of resources nothing polls.",
			change: func(*v1alpha1.Thing) {},
			want:   true,
		},
		"Finalizers": {
			reason: "Another controller removing its finalizer unblocks deletion.",
			change: func(t *v1alpha1.Thing) { t.Finalizers = append(t.Finalizers, "other") },
			want:   true,
		},
		"Deletion": {
			reason: "The start of deletion.",
			change: func(t *v1alpha1.Thing) { now := metav1.Now(); t.DeletionTimestamp = &now },
			want:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o, n := base(), base()
			if tc.fresh {
				o, n = newThing(fresh()), newThing(fresh())
			}
			tc.change(n)
			got := DesiredStateChanged().Update(event.UpdateEvent{ObjectOld: o, ObjectNew: n})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nUpdate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
