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

package mirror

import (
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/git"
)

// TestAttributionCondition: a Mirror with attribution Admission says in its
// Attribution condition whether the webhook saw the write of its last
// change, and authors that change accordingly; one with Audit has no such
// condition.
func TestAttributionCondition(t *testing.T) {
	type want struct {
		Status  corev1.ConditionStatus
		Reason  xpv2.ConditionReason
		Author  git.Signature
		Message bool
	}
	cases := map[string]struct {
		reason      string
		attribution v1alpha1.MirrorAttribution
		admitted    bool
		// off: the process serves no webhook.
		off  bool
		want want
	}{
		"Received": {
			reason:      "The webhook kept the write that made the live content: its user authors it, and the condition says the webhook sees the Mirror's changes.",
			attribution: v1alpha1.MirrorAttributionAdmission,
			admitted:    true,
			want:        want{Status: corev1.ConditionTrue, Reason: ReasonAdmissionReceived, Author: user("alice")},
		},
		"NotReceived": {
			reason:      "No admission fact of the object: the change is authored unresolved at once, and the condition says why, naming the object.",
			attribution: v1alpha1.MirrorAttributionAdmission,
			want:        want{Status: corev1.ConditionFalse, Reason: ReasonAdmissionNotReceived, Author: unresolved(), Message: true},
		},
		"Off": {
			reason:      "A provider that serves no webhook: the change is authored unresolved at once (never by the audit join), and the condition says the webhook is off.",
			attribution: v1alpha1.MirrorAttributionAdmission,
			off:         true,
			want:        want{Status: corev1.ConditionFalse, Reason: ReasonAdmissionNotReceived, Author: unresolved(), Message: true},
		},
		"Audit": {
			reason:      "A Mirror with attribution Audit joins the audit fact, not the admission one, and has no Attribution condition.",
			attribution: v1alpha1.MirrorAttributionAudit,
			admitted:    true,
			want:        want{Author: user("mallory")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := newJoinBed(t, func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Attribution = tc.attribution })
			store := admission.NewStore(admission.WithClock(b.clk))
			if !tc.off {
				b.attr.SetAdmission(store)
			}
			// An audit fact the Admission Mirror must not join.
			b.store.Add(keyOfCM("a"), by("mallory"))
			o := cm("a", "2")
			o.UID = "uid-a"
			if tc.admitted {
				store.Add(admission.Fact{Operation: admission.OpCreate, User: audit.User{Username: "alice"}, Namespace: o.Namespace, Name: o.Name, UID: o.UID, Fingerprint: store.Fingerprint(o.Content)})
			}
			c, err := b.observe(o)
			if err != nil || c == nil {
				t.Fatalf("Observe(): %v, %v; want a change", c, err)
			}
			cond := b.mg.GetCondition(TypeAttribution)
			got := want{Status: cond.Status, Reason: cond.Reason, Author: c.Parts[0].Author, Message: cond.Message != "" && cond.Status == corev1.ConditionFalse}
			if tc.want.Status == "" && cond.Status == corev1.ConditionUnknown {
				// GetCondition's answer for a condition the Mirror lacks.
				got.Status = ""
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.Message && !tc.off && !strings.Contains(cond.Message, "ns/a") {
				t.Errorf("%s\nthe condition's message %q does not name the object", tc.reason, cond.Message)
			}
		})
	}
}
