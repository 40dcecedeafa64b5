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
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

var (
	t0 = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 = metav1.NewTime(time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC))
)

func cond(t xpv2.ConditionType, s corev1.ConditionStatus, r xpv2.ConditionReason, m string, ltt metav1.Time, gen int64) xpv2.Condition {
	return xpv2.Condition{Type: t, Status: s, Reason: r, Message: m, LastTransitionTime: ltt, ObservedGeneration: gen}
}

func TestUpsert(t *testing.T) {
	existing := func() []xpv2.Condition {
		return []xpv2.Condition{
			cond("A", corev1.ConditionTrue, "Ok", "a", t0, 1),
			cond("B", corev1.ConditionTrue, "Ok", "b", t0, 1),
			cond("C", corev1.ConditionFalse, "Bad", "c", t0, 1),
		}
	}
	cases := map[string]struct {
		reason string
		in     xpv2.Condition
		want   []xpv2.Condition
	}{
		"UpdatesInPlaceAndKeepsOrder": {
			reason: "A touched condition keeps its index and its transition time when the status is unchanged; reason, message and generation move.",
			in:     cond("B", corev1.ConditionTrue, "Better", "b2", metav1.Time{}, 2),
			want: []xpv2.Condition{
				cond("A", corev1.ConditionTrue, "Ok", "a", t0, 1),
				cond("B", corev1.ConditionTrue, "Better", "b2", t0, 2),
				cond("C", corev1.ConditionFalse, "Bad", "c", t0, 1),
			},
		},
		"ChangesTransitionTimeWhenStatusChanges": {
			reason: "A status flip moves lastTransitionTime to now, in place.",
			in:     cond("A", corev1.ConditionFalse, "Broken", "a2", metav1.Time{}, 2),
			want: []xpv2.Condition{
				cond("A", corev1.ConditionFalse, "Broken", "a2", t1, 2),
				cond("B", corev1.ConditionTrue, "Ok", "b", t0, 1),
				cond("C", corev1.ConditionFalse, "Bad", "c", t0, 1),
			},
		},
		"CallerTransitionTimeIsIgnored": {
			reason: "The transition time is owned by the upsert, not the caller.",
			in:     cond("C", corev1.ConditionFalse, "Bad", "c", t1, 1),
			want:   existing(),
		},
		"NewConditionIsAppendedWithNow": {
			reason: "A new type is appended at the end and stamped now.",
			in:     cond("D", corev1.ConditionUnknown, "NotChecked", "d", metav1.Time{}, 2),
			want: append(existing(),
				cond("D", corev1.ConditionUnknown, "NotChecked", "d", t1, 2)),
		},
		"EmptyReasonIsUnspecified": {
			reason: "An empty reason would 422 the whole status write; it is stored as Unspecified.",
			in:     cond("B", corev1.ConditionTrue, "", "b", metav1.Time{}, 1),
			want: []xpv2.Condition{
				cond("A", corev1.ConditionTrue, "Ok", "a", t0, 1),
				cond("B", corev1.ConditionTrue, ReasonUnspecified, "b", t0, 1),
				cond("C", corev1.ConditionFalse, "Bad", "c", t0, 1),
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := upsert(existing(), tc.in, t1)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nupsert(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	in := []xpv2.Condition{
		cond("A", corev1.ConditionTrue, "Ok", "", t0, 1),
		cond("B", corev1.ConditionTrue, "Ok", "", t0, 1),
		cond("C", corev1.ConditionTrue, "Ok", "", t0, 1),
	}
	want := []xpv2.Condition{
		cond("A", corev1.ConditionTrue, "Ok", "", t0, 1),
		cond("C", corev1.ConditionTrue, "Ok", "", t0, 1),
	}
	if diff := cmp.Diff(want, remove(in, "B")); diff != "" {
		t.Errorf("remove(B) drops only B and keeps order: -want, +got:\n%s", diff)
	}
}

func TestFind(t *testing.T) {
	conds := []xpv2.Condition{cond("A", corev1.ConditionTrue, "Ok", "", t0, 1)}
	if got := Find(conds, "Missing"); got != nil {
		t.Errorf("Find(Missing) = %v, want nil", got)
	}
	got := Find(conds, "A")
	if got == nil {
		t.Fatal("Find(A) = nil, want the condition")
	}
	got.Message = "aliased"
	if conds[0].Message != "aliased" {
		t.Error("Find(A) must alias the slice element so callers can read the live condition")
	}
}
