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
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// TestRequestLayout: code refuses a layout the CRD's enum refuses, with
// the same words, so a Mirror stored before the enum is Stalled InvalidSpec.
func TestRequestLayout(t *testing.T) {
	cases := map[string]struct {
		reason string
		layout v1alpha1.MirrorLayout
		commit v1alpha1.MirrorCommit
		att    v1alpha1.MirrorAttribution
		want   string
	}{
		"Default":          {reason: "No layout is the Folder layout.", layout: ""},
		"Folder":           {reason: "Folder is today's layout.", layout: v1alpha1.MirrorLayoutFolder},
		"InPlace":          {reason: "InPlace edits where the YAML lives.", layout: v1alpha1.MirrorLayoutInPlace},
		"Other":            {reason: "Anything else is refused.", layout: "Flat", want: errLayout},
		"InPlaceBatched":   {reason: "InPlace in Batched commits, as the CRD allows.", layout: v1alpha1.MirrorLayoutInPlace, commit: v1alpha1.MirrorCommitBatched, att: v1alpha1.MirrorAttributionNone},
		"InPlacePerChange": {reason: "InPlace writes one commit per object's change with PerChange.", layout: v1alpha1.MirrorLayoutInPlace, commit: v1alpha1.MirrorCommitPerChange},
		"InPlaceAudit":     {reason: "InPlace joins its changes to audit facts by object.", layout: v1alpha1.MirrorLayoutInPlace, att: v1alpha1.MirrorAttributionAudit},
		"InPlaceAdmission": {reason: "InPlace joins its changes to admission facts by object.", layout: v1alpha1.MirrorLayoutInPlace, att: v1alpha1.MirrorAttributionAdmission},
		"FolderPerChange":  {reason: "PerChange with the Folder layout is fine.", layout: v1alpha1.MirrorLayoutFolder, commit: v1alpha1.MirrorCommitPerChange},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mg := newMirror(func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Layout, m.Spec.ForProvider.Commit, m.Spec.ForProvider.Attribution = tc.layout, tc.commit, tc.att
			})
			_, err := Request(mg)
			got := ""
			if err != nil {
				got = err.Error()
				if r, _ := managed.StalledReason(err); r != spec.ReasonInvalidSpec {
					t.Errorf("\n%s\nRequest(...): reason %q, want InvalidSpec", tc.reason, r)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nRequest(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
