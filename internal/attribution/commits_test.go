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

package attribution

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/git"
)

// TestAuthorObjects: with commit PerChange and attribution Audit, each
// object's commit is authored by who changed that object (co-authors as
// trailers); the marker, in no attribution, never decides an author.
func TestAuthorObjects(t *testing.T) {
	alice := git.Signature{Name: "alice", Email: "alice@users.noreply.example.org"}
	bob := git.Signature{Name: "bob", Email: "bob@users.noreply.example.org"}
	carol := git.Signature{Name: "carol", Email: "carol@users.noreply.example.org"}
	put := func(files ...string) map[string]git.File {
		m := map[string]git.File{}
		for _, f := range files {
			m[f] = git.File{Content: []byte(f)}
		}
		return m
	}
	type author struct {
		Author  git.Signature
		Message string
	}
	cases := map[string]struct {
		reason string
		parts  []git.Part
		rels   []string
		at     attributed
		want   []author
	}{
		"OnePerObject": {
			reason: "each part takes its own object's author",
			parts: []git.Part{
				{Message: "Update ConfigMap a/one", Puts: put("live/a/core/configmap/one.yaml")},
				{Message: "Delete ConfigMap a/two", Deletes: []string{"live/a/core/configmap/two.yaml"}},
			},
			rels: []string{"a/core/configmap/one.yaml", "a/core/configmap/two.yaml"},
			at: attributed{byPath: map[string]attribution{
				"a/core/configmap/one.yaml": {author: alice},
				"a/core/configmap/two.yaml": {author: bob},
			}},
			want: []author{{alice, "Update ConfigMap a/one"}, {bob, "Delete ConfigMap a/two"}},
		},
		"MarkerRidesWithTheLast": {
			reason: "the marker in the last part does not take its author away",
			parts: []git.Part{
				{Message: "Update ConfigMap a/one", Puts: put("live/.mirror.yaml", "live/a/core/configmap/one.yaml")},
			},
			rels: []string{"a/core/configmap/one.yaml"},
			at:   attributed{byPath: map[string]attribution{"a/core/configmap/one.yaml": {author: alice, coauthors: []git.Signature{carol}}}},
			want: []author{{alice, "Update ConfigMap a/one\n\nCo-authored-by: carol <carol@users.noreply.example.org>"}},
		},
		"InPlace": {
			reason: "an edit in place is authored by its object's author, whatever files it writes (a kustomization, another object's file)",
			parts: []git.Part{
				{Message: "Update Deployment a/web", Puts: put("live/staging/kustomization.yaml")},
				{Message: "Update ConfigMap a/one", Puts: put("live/staging/kustomization.yaml", "live/staging/settings.yaml")},
			},
			rels: []string{"a/apps/deployment/web.yaml", "a/core/configmap/one.yaml"},
			at: attributed{byPath: map[string]attribution{
				"a/apps/deployment/web.yaml": {author: bob, by: ByAdmission},
				"a/core/configmap/one.yaml":  {author: alice, by: ByAdmission},
			}},
			want: []author{{bob, "Update Deployment a/web\n\nAttributed-By: admission"}, {alice, "Update ConfigMap a/one\n\nAttributed-By: admission"}},
		},
		"NotAttributed": {
			reason: "a part the join does not name keeps the change's default author",
			parts:  []git.Part{{Message: "Update ConfigMap a/one", Puts: put("a/core/configmap/one.yaml")}},
			rels:   []string{"a/core/configmap/one.yaml"},
			at:     attributed{byPath: map[string]attribution{}},
			want:   []author{{git.Signature{}, "Update ConfigMap a/one"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			AuthorObjects(tc.parts, tc.rels, &Decision{tc.at})
			got := make([]author, len(tc.parts))
			for i, p := range tc.parts {
				got[i] = author{p.Author, p.Message}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nAuthorObjects(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
