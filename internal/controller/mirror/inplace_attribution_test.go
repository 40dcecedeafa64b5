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
	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/inplace"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
)

// TestInPlaceAttributed: a Mirror with layout InPlace whose two objects
// live in one file, edited by alice (first) and bob, authors each edit by
// who made it (admission facts, exactly) and, with commit PerChange, writes
// one commit per object: the shared file as each change leaves it, the
// first commit holding alice's edit alone. Batched, one commit per run of
// one author's changes; a change whose fact has not come is held as Git has
// it, in the file the other change writes too.
func TestInPlaceAttributed(t *testing.T) {
	const file = "live/apps.yaml"
	doc := func(name, data string) string { return string(cm(name, data).Content) }
	seeded := doc("a", "1") + "---\n" + doc("b", "1")
	// perChange is what commitsOf reads of a PerChange commit's message
	// besides its subject: the Mirror and the file it names.
	perChange := "Mirror ns/m: " + file + "\n"
	type want struct {
		Commits []commit
		Bys     []string
		// Contents are what each commit writes to the shared file.
		Contents []string
	}
	cases := map[string]struct {
		reason      string
		commit      v1alpha1.MirrorCommit
		attribution v1alpha1.MirrorAttribution
		// users made a's and b's edits; "" made none the webhook saw.
		users [2]string
		want  want
	}{
		"PerChange": {
			reason: "One commit per object's edit, in the order made, each authored by its writer, the shared file as each leaves it.",
			commit: v1alpha1.MirrorCommitPerChange, attribution: v1alpha1.MirrorAttributionAdmission, users: [2]string{"alice", "bob"},
			want: want{
				Commits: []commit{{Author: user("alice"), Files: []string{file}, Message: perChange}, {Author: user("bob"), Files: []string{file}, Message: perChange}},
				Bys:     []string{attribution.ByAdmission, attribution.ByAdmission}, Contents: []string{doc("a", "2") + "---\n" + doc("b", "1"), doc("a", "2") + "---\n" + doc("b", "2")},
			},
		},
		"PerChangeUnattributed": {
			reason: "Without attribution, PerChange is one commit per object's edit too, authored by the configuration's identity.",
			commit: v1alpha1.MirrorCommitPerChange, attribution: v1alpha1.MirrorAttributionNone, users: [2]string{"alice", "bob"},
			want: want{
				Commits: []commit{{Files: []string{file}, Message: "Mirror ns/m: " + file}, {Files: []string{file}, Message: "Mirror ns/m: " + file}},
				Bys:     []string{"", ""}, Contents: []string{doc("a", "2") + "---\n" + doc("b", "1"), doc("a", "2") + "---\n" + doc("b", "2")},
			},
		},
		"BatchedTwoAuthors": {
			reason:      "Batched, two authors are two commits, in the order their changes were made.",
			attribution: v1alpha1.MirrorAttributionAdmission, users: [2]string{"alice", "bob"},
			want: want{
				Commits: []commit{{Author: user("alice"), Files: []string{file}}, {Author: user("bob"), Files: []string{file}}},
				Bys:     []string{attribution.ByAdmission, attribution.ByAdmission}, Contents: []string{doc("a", "2") + "---\n" + doc("b", "1"), doc("a", "2") + "---\n" + doc("b", "2")},
			},
		},
		"BatchedOneAuthor": {
			reason:      "Batched, one author's changes are one commit.",
			attribution: v1alpha1.MirrorAttributionAdmission, users: [2]string{"alice", "alice"},
			want: want{
				Commits: []commit{{Author: user("alice"), Files: []string{file}}},
				Bys:     []string{attribution.ByAdmission}, Contents: []string{doc("a", "2") + "---\n" + doc("b", "2")},
			},
		},
		"Held": {
			reason: "With Auto, bob's edit, which neither source has named yet, waits: alice's commit writes the file with b as Git has it.",
			commit: v1alpha1.MirrorCommitPerChange, attribution: v1alpha1.MirrorAttributionAuto, users: [2]string{"alice", ""},
			want: want{
				Commits: []commit{{Author: user("alice"), Files: []string{file}, Message: perChange}},
				Bys:     []string{attribution.ByAdmission}, Contents: []string{doc("a", "2") + "---\n" + doc("b", "1")},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := newJoinBed(t, func(m *v1alpha1.Mirror) {
				p := &m.Spec.ForProvider
				p.Layout, p.Commit, p.Attribution = v1alpha1.MirrorLayoutInPlace, tc.commit, tc.attribution
			})
			store := admission.NewStore(admission.WithClock(b.clk))
			b.attr.SetAdmission(store)
			docs := []inplace.DocRef{{File: "apps.yaml", Kind: "ConfigMap", Namespace: "ns", Name: "a"}, {File: "apps.yaml", Kind: "ConfigMap", Namespace: "ns", Name: "b"}}
			b.repo.files = map[string]string{
				"live/" + MarkerFile: string(plan.Marker{Mirror: plan.MarkerOwner{Namespace: "ns", Name: "m"}, Documents: docs}.Render()),
				file:                 seeded,
			}
			var objs []mirror.Object
			for i, n := range []string{"a", "b"} {
				o := at(cm(n, "2"), []string{"10", "11"}[i])
				o.UID, o.Prev = "uid-"+n, "5"
				if u := tc.users[i]; u != "" {
					store.Add(admission.Fact{Operation: admission.OpUpdate, User: audit.User{Username: u}, Namespace: "ns", Name: n, UID: o.UID, Against: "5", Fingerprint: store.Fingerprint(o.Content)})
				}
				objs = append(objs, o)
			}
			c, err := b.observe(objs...)
			if err != nil || c == nil {
				t.Fatalf("Observe(): %v, %v; want a change", c, err)
			}
			got := want{Commits: commitsOf(c), Bys: bysOf(c)}
			for _, p := range c.Parts {
				got.Contents = append(got.Contents, string(p.Puts[file].Content))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if tc.attribution != v1alpha1.MirrorAttributionNone && c.Committer != configured {
				t.Errorf("%s\ncommitter %v, want the configuration's identity", tc.reason, c.Committer)
			}
			if len(c.Parts) > 0 && c.Parts[0].Expect[file] != git.BlobSHA([]byte(seeded)) {
				t.Errorf("%s\nthe first commit does not expect the file as the edits read it", tc.reason)
			}
		})
	}
}
