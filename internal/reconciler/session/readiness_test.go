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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

const (
	readyMsg      = "Widget is available"
	notStalledMsg = "Widget is not stalled"
)

func newTestReadiness() *Readiness {
	return NewReadiness(xpv2.ReasonAvailable, readyMsg, notStalledMsg)
}

func TestTrio(t *testing.T) {
	type want struct {
		trio       Trio
		converged  bool
		converging bool
	}
	cases := map[string]struct {
		reason     string
		contribute func(r *Readiness)
		want       want
	}{
		"Converged": {
			reason:     "No contribution derives Ready=True with the configured reason and the two abnormal conditions False/Succeeded.",
			contribute: func(_ *Readiness) {},
			want: want{
				converged: true,
				trio: Trio{
					Ready:       Verdict{Status: corev1.ConditionTrue, Reason: xpv2.ReasonAvailable, Message: readyMsg},
					Reconciling: Verdict{Status: corev1.ConditionFalse, Reason: ReasonSucceeded, Message: "Reconciliation complete"},
					Stalled:     Verdict{Status: corev1.ConditionFalse, Reason: ReasonSucceeded, Message: notStalledMsg},
				},
			},
		},
		"ProgressingFalse": {
			reason:     "A progressing contribution is Reconciling=True with its own reason and message, Stalled=False/Progressing.",
			contribute: func(r *Readiness) { r.Progressing(corev1.ConditionFalse, xpv2.ReasonCreating, "cloning") },
			want: want{
				converging: true,
				trio: Trio{
					Ready:       Verdict{Status: corev1.ConditionFalse, Reason: xpv2.ReasonCreating, Message: "cloning"},
					Reconciling: Verdict{Status: corev1.ConditionTrue, Reason: xpv2.ReasonCreating, Message: "cloning"},
					Stalled:     Verdict{Status: corev1.ConditionFalse, Reason: ReasonProgressing, Message: "Reconciliation is making progress"},
				},
			},
		},
		"ProgressingUnknown": {
			reason: "Ready=Unknown ('not established at all') is kept on a progressing contribution.",
			contribute: func(r *Readiness) {
				r.Progressing(corev1.ConditionUnknown, "AwaitingDiscovery", "nothing observed yet")
			},
			want: want{
				converging: true,
				trio: Trio{
					Ready:       Verdict{Status: corev1.ConditionUnknown, Reason: "AwaitingDiscovery", Message: "nothing observed yet"},
					Reconciling: Verdict{Status: corev1.ConditionTrue, Reason: "AwaitingDiscovery", Message: "nothing observed yet"},
					Stalled:     Verdict{Status: corev1.ConditionFalse, Reason: ReasonProgressing, Message: "Reconciliation is making progress"},
				},
			},
		},
		"ProgressingTrueIsFalse": {
			reason:     "Ready=True beside Reconciling=True is incoherent, so a progressing True is taken as False.",
			contribute: func(r *Readiness) { r.Progressing(corev1.ConditionTrue, "Replaying", "replaying") },
			want: want{
				converging: true,
				trio: Trio{
					Ready:       Verdict{Status: corev1.ConditionFalse, Reason: "Replaying", Message: "replaying"},
					Reconciling: Verdict{Status: corev1.ConditionTrue, Reason: "Replaying", Message: "replaying"},
					Stalled:     Verdict{Status: corev1.ConditionFalse, Reason: ReasonProgressing, Message: "Reconciliation is making progress"},
				},
			},
		},
		"Stalled": {
			reason:     "A stall is Ready=False and Stalled=True with its reason and message; Reconciling=False says it is stalled.",
			contribute: func(r *Readiness) { r.Stalled("SecretNotFound", "secret git-creds not found") },
			want: want{
				trio: Trio{
					Ready:       Verdict{Status: corev1.ConditionFalse, Reason: "SecretNotFound", Message: "secret git-creds not found"},
					Reconciling: Verdict{Status: corev1.ConditionFalse, Reason: "SecretNotFound", Message: "Reconciliation is stalled"},
					Stalled:     Verdict{Status: corev1.ConditionTrue, Reason: "SecretNotFound", Message: "secret git-creds not found"},
				},
			},
		},
		"TwoStallsFirstWins": {
			reason: "Ties go to the first contributor: call order is the precedence.",
			contribute: func(r *Readiness) {
				r.Stalled("UnsupportedContent", "first")
				r.Stalled("WriteBoundaryRefused", "second")
			},
			want: want{
				trio: Trio{
					Ready:       Verdict{Status: corev1.ConditionFalse, Reason: "UnsupportedContent", Message: "first"},
					Reconciling: Verdict{Status: corev1.ConditionFalse, Reason: "UnsupportedContent", Message: "Reconciliation is stalled"},
					Stalled:     Verdict{Status: corev1.ConditionTrue, Reason: "UnsupportedContent", Message: "first"},
				},
			},
		},
		"TwoProgressingFirstWins": {
			reason: "Ties go to the first contributor at the progressing level too.",
			contribute: func(r *Readiness) {
				r.Progressing(corev1.ConditionFalse, "DependencyNotReady", "first")
				r.Progressing(corev1.ConditionUnknown, "AwaitingDiscovery", "second")
			},
			want: want{
				converging: true,
				trio: Trio{
					Ready:       Verdict{Status: corev1.ConditionFalse, Reason: "DependencyNotReady", Message: "first"},
					Reconciling: Verdict{Status: corev1.ConditionTrue, Reason: "DependencyNotReady", Message: "first"},
					Stalled:     Verdict{Status: corev1.ConditionFalse, Reason: ReasonProgressing, Message: "Reconciliation is making progress"},
				},
			},
		},
		"ProgressingNeverOverridesStall": {
			reason: "The F1 regression: a later, milder gate must not flip a stall back to progressing.",
			contribute: func(r *Readiness) {
				r.Stalled("UnsupportedContent", "refused")
				r.Progressing(corev1.ConditionFalse, "DependencyNotReady", "provider down")
				r.Progressing(corev1.ConditionUnknown, "AwaitingDiscovery", "source unknown")
			},
			want: want{
				trio: Trio{
					Ready:       Verdict{Status: corev1.ConditionFalse, Reason: "UnsupportedContent", Message: "refused"},
					Reconciling: Verdict{Status: corev1.ConditionFalse, Reason: "UnsupportedContent", Message: "Reconciliation is stalled"},
					Stalled:     Verdict{Status: corev1.ConditionTrue, Reason: "UnsupportedContent", Message: "refused"},
				},
			},
		},
		"StallOutranksEarlierProgressing": {
			reason: "A strictly greater level replaces the stored verdict whatever the order.",
			contribute: func(r *Readiness) {
				r.Progressing(corev1.ConditionFalse, "DependencyNotReady", "provider down")
				r.Stalled("ConnectionFailed", "unreachable")
			},
			want: want{
				trio: Trio{
					Ready:       Verdict{Status: corev1.ConditionFalse, Reason: "ConnectionFailed", Message: "unreachable"},
					Reconciling: Verdict{Status: corev1.ConditionFalse, Reason: "ConnectionFailed", Message: "Reconciliation is stalled"},
					Stalled:     Verdict{Status: corev1.ConditionTrue, Reason: "ConnectionFailed", Message: "unreachable"},
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := newTestReadiness()
			tc.contribute(r)
			got := want{trio: r.Trio(), converged: r.Converged(), converging: r.Converging()}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nTrio(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestTrioConvergedReasonIsConfigurable(t *testing.T) {
	// ProviderConfigs converge on Succeeded, MRs on Available; the reason is
	// the caller's, not hard-coded.
	got := NewReadiness(ReasonSucceeded, "ok", "PC is not stalled").Trio().Ready
	want := Verdict{Status: corev1.ConditionTrue, Reason: ReasonSucceeded, Message: "ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Trio().Ready: -want, +got:\n%s", diff)
	}
}
