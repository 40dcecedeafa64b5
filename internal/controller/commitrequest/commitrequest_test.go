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

package commitrequest

import (
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

func TestChangeFor(t *testing.T) {
	author := git.Signature{Name: "A", Email: "a@example.org"}
	res := git.Resource{Kind: "CommitRequest", Namespace: "team-a", Name: "release", UID: "uid-1"}
	raw := func(s string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(s)} }
	type want struct {
		change git.Change
		failed bool
		reason xpv2.ConditionReason
	}
	cases := map[string]struct {
		reason string
		params v1alpha1.CommitRequestParameters
		want   want
	}{
		"PutsObjectsAndDeletes": {
			reason: "Content, rendered objects and deletes all go into one change of its own, with the request's message, the connection's author and the request's UID trailer.",
			params: v1alpha1.CommitRequestParameters{
				Branch: "main", Message: "Release 1.2\n\nBumps the app.",
				Files: []v1alpha1.CommitFile{
					{Path: "VERSION", Content: ptr.To("1.2\n")},
					{Path: "bin/run", Content: ptr.To("#!/bin/sh\n"), Mode: v1alpha1.FileModeExecutable},
					{Path: "cm.yaml", Object: raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","uid":"u"},"status":{"a":1}}`)},
					{Path: "old.txt", Delete: true},
				},
			},
			want: want{change: git.Change{
				Puts: map[string]git.File{
					"VERSION": {Content: []byte("1.2\n")},
					"bin/run": {Content: []byte("#!/bin/sh\n"), Executable: true},
					"cm.yaml": {Content: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")},
				},
				Deletes:   []string{"old.txt"},
				Message:   "Release 1.2\n\nBumps the app.",
				Author:    author,
				Resource:  res,
				OwnCommit: true,
			}},
		},
		"Secret": {
			reason: "A Secret among the files refuses the whole request: nothing of it may land.",
			params: v1alpha1.CommitRequestParameters{Branch: "main", Message: "m", Files: []v1alpha1.CommitFile{
				{Path: "ok", Content: ptr.To("x")},
				{Path: "s.yaml", Object: raw(`{"apiVersion":"v1","kind":"Secret","stringData":{"k":"v"}}`)},
			}},
			want: want{failed: true, reason: spec.ReasonSecretRefused},
		},
		"DuplicatePath": {
			reason: "A path listed twice makes the result depend on order.",
			params: v1alpha1.CommitRequestParameters{Branch: "main", Message: "m", Files: []v1alpha1.CommitFile{
				{Path: "a", Content: ptr.To("1")}, {Path: "a", Delete: true},
			}},
			want: want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"DeleteWithContent": {
			reason: "delete: true with content is ambiguous.",
			params: v1alpha1.CommitRequestParameters{Branch: "main", Message: "m", Files: []v1alpha1.CommitFile{
				{Path: "a", Content: ptr.To("1"), Delete: true},
			}},
			want: want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"NothingForFile": {
			reason: "A file needs content, an object or delete: true.",
			params: v1alpha1.CommitRequestParameters{Branch: "main", Message: "m", Files: []v1alpha1.CommitFile{{Path: "a"}}},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"NoFiles": {
			reason: "A request with no files would be an empty commit.",
			params: v1alpha1.CommitRequestParameters{Branch: "main", Message: "m"},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"BadPath": {
			reason: "A path outside the repository is refused in code too.",
			params: v1alpha1.CommitRequestParameters{Branch: "main", Message: "m", Files: []v1alpha1.CommitFile{{Path: "a/../../b", Content: ptr.To("x")}}},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"BadBranch": {
			reason: "A branch name git would refuse is refused.",
			params: v1alpha1.CommitRequestParameters{Branch: "-x", Message: "m", Files: []v1alpha1.CommitFile{{Path: "a", Content: ptr.To("x")}}},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"EmptyMessage": {
			reason: "A request's message is its reason to exist.",
			params: v1alpha1.CommitRequestParameters{Branch: "main", Files: []v1alpha1.CommitFile{{Path: "a", Content: ptr.To("x")}}},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"ControlCharacterInMessage": {
			reason: "Control characters other than newline and tab are refused, as by the CRD.",
			params: v1alpha1.CommitRequestParameters{Branch: "main", Message: "a\x1b[31mred", Files: []v1alpha1.CommitFile{{Path: "a", Content: ptr.To("x")}}},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"LongMessage": {
			reason: "The message cap is the CRD's.",
			params: v1alpha1.CommitRequestParameters{Branch: "main", Message: strings.Repeat("m", maxMessageBytes+1), Files: []v1alpha1.CommitFile{{Path: "a", Content: ptr.To("x")}}},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &v1alpha1.CommitRequest{
				ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "release", UID: "uid-1"},
				Spec:       v1alpha1.CommitRequestSpec{ForProvider: tc.params},
			}
			got, err := ChangeFor(cr, author)
			r, _ := managed.StalledReason(err)
			if diff := cmp.Diff(tc.want, want{change: got, failed: err != nil, reason: r},
				cmp.AllowUnexported(want{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nChangeFor(...): -want, +got:\n%s", tc.reason, diff)
			}
			if _, stalled := managed.StalledReason(err); err != nil && !stalled {
				t.Errorf("%s\nChangeFor(...): a spec error must be marked Stalled, got %v", tc.reason, err)
			}
		})
	}
}
