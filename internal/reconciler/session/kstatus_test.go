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

package session

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// TestKstatusConformance runs the real kstatus.Compute over what a session
// commit stored, not over hand-built fixtures.
func TestKstatusConformance(t *testing.T) {
	type want struct {
		status      status.Status
		readyReason xpv2.ConditionReason
	}
	cases := map[string]struct {
		reason     string
		contribute func(r *Readiness)
		// specMoved bumps metadata.generation after the commit, as a spec
		// edit not yet reconciled would.
		specMoved bool
		want      want
	}{
		"Converged": {
			reason:     "Nothing contributed: Current, Ready reason Available.",
			contribute: func(_ *Readiness) {},
			want:       want{status: status.CurrentStatus, readyReason: xpv2.ReasonAvailable},
		},
		"ProgressingFalse": {
			reason:     "A dependency coming up: InProgress.",
			contribute: func(r *Readiness) { r.Progressing(corev1.ConditionFalse, "Replaying", "replaying") },
			want:       want{status: status.InProgressStatus, readyReason: "Replaying"},
		},
		"ProgressingUnknown": {
			reason:     "Nothing established yet: InProgress.",
			contribute: func(r *Readiness) { r.Progressing(corev1.ConditionUnknown, "AwaitingDiscovery", "waiting") },
			want:       want{status: status.InProgressStatus, readyReason: "AwaitingDiscovery"},
		},
		"Stalled": {
			reason:     "A stall publishes the terminal trio: Failed.",
			contribute: func(r *Readiness) { r.Stalled("ValidationFailed", "spec.url is not a URL") },
			want:       want{status: status.FailedStatus, readyReason: "ValidationFailed"},
		},
		"StallThenMilderGates": {
			reason: "The F1 regression: a refused path plus an unready dependency plus an unknown source stays Failed.",
			contribute: func(r *Readiness) {
				r.Stalled("UnsupportedContent", "refused")
				r.Progressing(corev1.ConditionFalse, "DependencyNotReady", "provider down")
				r.Progressing(corev1.ConditionUnknown, "AwaitingDiscovery", "source unknown")
			},
			want: want{status: status.FailedStatus, readyReason: "UnsupportedContent"},
		},
		"ObservedGenerationLags": {
			reason:     "A converged status for an older generation is InProgress.",
			contribute: func(_ *Readiness) {},
			specMoved:  true,
			want:       want{status: status.InProgressStatus, readyReason: xpv2.ReasonAvailable},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWidget(3)
			w.Status.ObservedGeneration = 2
			c, obj := env(t, w, interceptor.Funcs{})
			s := Begin(c, obj)
			r := newTestReadiness()
			tc.contribute(r)
			s.ApplyReadiness(r)
			if err := s.Commit(context.Background()); err != nil {
				t.Fatalf("Commit(): %v", err)
			}
			got := stored(t, c)
			content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(got)
			if err != nil {
				t.Fatalf("ToUnstructured(): %v", err)
			}
			u := &unstructured.Unstructured{Object: content}
			u.SetGroupVersionKind(widgetGVK)
			if tc.specMoved {
				u.SetGeneration(u.GetGeneration() + 1)
			}
			res, err := status.Compute(u)
			if err != nil {
				t.Fatalf("Compute(): %v", err)
			}
			ready := Find(got.Status.Conditions, xpv2.TypeReady)
			if ready == nil || ready.Message == "" {
				t.Fatalf("%s\nstored Ready = %v, want a Ready with a non-empty message", tc.reason, ready)
			}
			if diff := cmp.Diff(tc.want, want{status: res.Status, readyReason: ready.Reason}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nkstatus: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
