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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

func TestStalled(t *testing.T) {
	errBoom := errors.New("boom")
	type want struct {
		marked bool
		reason xpv2.ConditionReason
		msg    string
	}
	cases := map[string]struct {
		reason string
		err    error
		want   want
	}{
		"Nil":     {reason: "Stalled(reason, nil) is nil, so it can wrap a maybe-nil error.", err: Stalled("X", nil), want: want{}},
		"Plain":   {reason: "A plain error is transient.", err: errBoom, want: want{msg: "boom"}},
		"Marked":  {reason: "A marked error is stalled with its reason; the message is the error's.", err: Stalled("HostKeyMismatch", errBoom), want: want{marked: true, reason: "HostKeyMismatch", msg: "boom"}},
		"Wrapped": {reason: "The mark survives wrapping with context.", err: errors.Wrap(Stalled("PathRefused", errBoom), "observe failed"), want: want{marked: true, reason: "PathRefused", msg: "observe failed: boom"}},
		"Outermost": {reason: "Of two marks, the outermost names the reason.", err: Stalled("Outer", errors.Wrap(Stalled("Inner", errBoom), "ctx")),
			want: want{marked: true, reason: "Outer", msg: "ctx: boom"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reason, marked := StalledReason(tc.err)
			got := want{marked: marked, reason: reason}
			if tc.err != nil {
				got.msg = tc.err.Error()
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nStalledReason, Error(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestProgressing(t *testing.T) {
	errBoom := errors.New("boom")
	type want struct {
		marked bool
		reason xpv2.ConditionReason
	}
	cases := map[string]struct {
		reason string
		err    error
		want   want
	}{
		"Nil":     {reason: "Progressing(reason, nil) is nil.", err: Progressing("X", nil), want: want{}},
		"Plain":   {reason: "A plain error has no reason of its own.", err: errBoom, want: want{}},
		"Wrapped": {reason: "The mark survives wrapping with context.", err: errors.Wrap(Progressing("ResourceNotFound", errBoom), "observe failed"), want: want{marked: true, reason: "ResourceNotFound"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reason, marked := ProgressingReason(tc.err)
			if diff := cmp.Diff(tc.want, want{marked: marked, reason: reason}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nProgressingReason: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
