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
	"k8s.io/client-go/tools/record"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

func TestReadyTransitionEvents(t *testing.T) {
	progressing := func(st corev1.ConditionStatus, reason xpv2.ConditionReason, msg string) *Readiness {
		r := newTestReadiness()
		r.Progressing(st, reason, msg)
		return r
	}
	stalled := newTestReadiness()
	stalled.Stalled("SecretNotFound", "secret missing")

	cases := map[string]struct {
		reason  string
		before  []xpv2.Condition
		write   func(s *Session, obj *widget)
		events  []string
		patches int
	}{
		"FirstReadyConverged": {
			reason:  "Reaching Ready is Normal; the first Ready is a transition.",
			write:   func(s *Session, _ *widget) { s.ApplyReadiness(converged()) },
			events:  []string{"Normal Available " + readyMsg},
			patches: 1,
		},
		"ProgressingFalseIsNormal": {
			reason: "Progressing clears on its own: Normal.",
			write: func(s *Session, _ *widget) {
				s.ApplyReadiness(progressing(corev1.ConditionFalse, xpv2.ReasonCreating, "cloning"))
			},
			events:  []string{"Normal Creating cloning"},
			patches: 1,
		},
		"ProgressingUnknownIsNormal": {
			reason: "Ready=Unknown while progressing is still Normal.",
			write: func(s *Session, _ *widget) {
				s.ApplyReadiness(progressing(corev1.ConditionUnknown, "AwaitingDiscovery", "waiting"))
			},
			events:  []string{"Normal AwaitingDiscovery waiting"},
			patches: 1,
		},
		"StalledIsWarning": {
			reason:  "Only a stall, which needs a human, is a Warning.",
			write:   func(s *Session, _ *widget) { s.ApplyReadiness(stalled) },
			events:  []string{"Warning SecretNotFound secret missing"},
			patches: 1,
		},
		"ReadyWithoutTheTrioStaysAWarning": {
			reason: "Ready written without Stalled (e.g. directly by an external client) is loud, not silently downgraded.",
			write: func(_ *Session, obj *widget) {
				obj.Status.Conditions = append(obj.Status.Conditions, xpv2.Condition{
					Type: xpv2.TypeReady, Status: corev1.ConditionFalse, Reason: xpv2.ReasonUnavailable, Message: "down", LastTransitionTime: t0,
				})
			},
			events:  []string{"Warning Unavailable down"},
			patches: 1,
		},
		"ReasonChangeIsATransition": {
			reason: "Same status, new reason: announced.",
			before: trioConditions(progressing(corev1.ConditionFalse, xpv2.ReasonCreating, "cloning"), 1),
			write: func(s *Session, _ *widget) {
				s.ApplyReadiness(progressing(corev1.ConditionFalse, "Fetching", "fetching"))
			},
			events:  []string{"Normal Fetching fetching"},
			patches: 1,
		},
		"MessageOnlyChangeIsNotATransition": {
			reason: "A message-only change is written but not announced.",
			before: trioConditions(progressing(corev1.ConditionFalse, xpv2.ReasonCreating, "cloning 10%"), 1),
			write: func(s *Session, _ *widget) {
				s.ApplyReadiness(progressing(corev1.ConditionFalse, xpv2.ReasonCreating, "cloning 90%"))
			},
			patches: 1,
		},
		"NoOpIsSilent": {
			reason:  "Nothing written, nothing announced.",
			before:  trioConditions(converged(), 1),
			write:   func(s *Session, _ *widget) { s.ApplyReadiness(converged()) },
			patches: 0,
		},
		"NoReadyNoEvent": {
			reason: "A status without Ready announces nothing.",
			write: func(s *Session, _ *widget) {
				s.Set(xpv2.Condition{Type: "Axis", Status: corev1.ConditionTrue, Reason: "Ok"})
			},
			patches: 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var p patchLog
			w := newWidget(1, tc.before...)
			w.Status.ObservedGeneration = 1
			c, obj := env(t, w, p.funcs(nil))
			rec := record.NewFakeRecorder(10)
			s := Begin(c, obj, WithRecorder(rec))
			tc.write(s, obj)
			if err := s.Commit(context.Background()); err != nil {
				t.Fatalf("Commit(): %v", err)
			}
			if diff := cmp.Diff(tc.events, drain(rec)); diff != "" {
				t.Errorf("%s\nEvents: -want, +got:\n%s", tc.reason, diff)
			}
			if len(p.bodies) != tc.patches {
				t.Errorf("%s\npatches sent = %d, want %d", tc.reason, len(p.bodies), tc.patches)
			}
		})
	}
}
