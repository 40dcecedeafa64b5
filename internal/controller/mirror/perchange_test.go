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
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// shownPart is a part as a case states it: its message, the paths it
// writes and removes, and what it expects.
type shownPart struct {
	Message string
	Puts    []string
	Deletes []string
	Expect  map[string]string
}

func show(parts []git.Part) []shownPart {
	var out []shownPart
	for _, p := range parts {
		out = append(out, shownPart{Message: p.Message, Puts: slices.Sorted(maps.Keys(p.Puts)), Deletes: p.Deletes, Expect: p.Expect})
	}
	return out
}

// at is o with resourceVersion rv.
func at(o mirror.Object, rv string) mirror.Object {
	o.ResourceVersion = rv
	return o
}

// TestPerChangeParts: a Mirror with commit PerChange cuts the change of a
// folder it already owns into one part per object, oldest change first
// (resourceVersion), deletions after, each naming its object, with the
// marker's expectation on the first part and its rewrite on the last. Its
// first write and its removal stay one commit, and a Batched Mirror's
// change has no parts.
func TestPerChangeParts(t *testing.T) {
	a, b, c := object("a", "1"), object("b", "2"), object("c", "3")
	pa, pb, pc := "live/"+a.Path, "live/"+b.Path, "live/"+c.Path
	mk := "live/" + MarkerFile
	sha := func(s string) string { return git.BlobSHA([]byte(s)) }
	ours := markerOf("ns/m", a.Path, b.Path, c.Path)
	owned := map[string]string{mk: ours, pa: string(a.Content), pb: string(b.Content), pc: string(c.Content)}
	perChange := func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Commit = v1alpha1.MirrorCommitPerChange }
	msg := func(subject, file string) string { return subject + "\n\nMirror ns/m: " + file }
	deploy := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	web := "live/" + mirror.Path(deploy, "ns", "web")
	cases := map[string]struct {
		reason string
		mg     *v1alpha1.Mirror
		files  map[string]string
		objs   []mirror.Object
		want   []shownPart
		// wantPuts are the paths of a change without parts.
		wantPuts []string
	}{
		"EditsInTheOrderMade": {
			reason: "Three owned objects edited: three parts ordered by resourceVersion, numerically (9 before 10), no marker rewrite.",
			mg:     newMirror(perChange), files: owned,
			objs: []mirror.Object{at(object("a", "1e"), "30"), at(object("b", "2e"), "9"), at(object("c", "3e"), "10")},
			want: []shownPart{
				{Message: msg("Update ConfigMap ns/b", pb), Puts: []string{pb}, Expect: map[string]string{mk: sha(ours)}},
				{Message: msg("Update ConfigMap ns/c", pc), Puts: []string{pc}},
				{Message: msg("Update ConfigMap ns/a", pa), Puts: []string{pa}},
			},
		},
		"CreateUpdateDelete": {
			reason: "A new object expects no file where it lands; a deletion comes after the writes; the marker's rewrite rides with the last part.",
			mg:     newMirror(perChange), files: map[string]string{mk: markerOf("ns/m", a.Path, b.Path), pa: string(a.Content), pb: string(b.Content)},
			objs: []mirror.Object{at(object("a", "1e"), "5"), at(c, "3")},
			want: []shownPart{
				{Message: msg("Create ConfigMap ns/c", pc), Puts: []string{pc}, Expect: map[string]string{pc: "", mk: sha(markerOf("ns/m", a.Path, b.Path))}},
				{Message: msg("Update ConfigMap ns/a", pa), Puts: []string{pa}},
				{Message: msg("Delete ConfigMap ns/b", pb), Puts: []string{mk}, Deletes: []string{pb}},
			},
		},
		"DeletedKindNobodyNames": {
			reason: "A deleted object of a kind neither the snapshot nor the spec spells is named by its path's kind.",
			mg: newMirror(perChange, func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Resources = append(m.Spec.ForProvider.Resources, v1alpha1.MirrorResource{Group: ptr.To("apps"), Resource: "deployments"})
			}),
			files: map[string]string{mk: markerOf("ns/m", a.Path, mirror.Path(deploy, "ns", "web")), pa: string(a.Content), web: "kind: Deployment\n"},
			objs:  []mirror.Object{a},
			want: []shownPart{
				{Message: msg("Delete deployment ns/web", web), Puts: []string{mk}, Deletes: []string{web},
					Expect: map[string]string{mk: sha(markerOf("ns/m", a.Path, mirror.Path(deploy, "ns", "web")))}},
			},
		},
		"Template": {
			reason: "The Mirror's template sees the object of each commit.",
			mg: newMirror(perChange, func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.CommitMessage = "{{ .Verb }}d {{ .Kind }} {{ .ObjectNamespace }}/{{ .ObjectName }} ({{ .File }}, Mirror {{ .Name }})"
			}),
			files: owned,
			objs:  []mirror.Object{a, b, at(object("c", "3e"), "4")},
			want: []shownPart{
				{Message: "Updated ConfigMap ns/c (" + pc + ", Mirror m)", Puts: []string{pc}, Expect: map[string]string{mk: sha(ours)}},
			},
		},
		"FirstWrite": {
			reason: "The write that claims the folder is one commit, however many objects it brings.",
			mg:     newMirror(perChange), files: map[string]string{"README.md": "x"},
			objs:     []mirror.Object{at(a, "1"), at(b, "2")},
			wantPuts: []string{mk, pa, pb},
		},
		"Batched": {
			reason: "A Batched Mirror's change is one commit.",
			mg:     newMirror(), files: owned,
			objs:     []mirror.Object{at(object("a", "1e"), "30"), at(object("b", "2e"), "9"), c},
			wantPuts: []string{pa, pb},
		},
		"ExplicitBatched": {
			reason: "commit Batched, as the CRD defaults it, is one commit too.",
			mg:     newMirror(func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Commit = v1alpha1.MirrorCommitBatched }), files: owned,
			objs:     []mirror.Object{at(object("a", "1e"), "30"), b, c},
			wantPuts: []string{pa},
		},
		"Removal": {
			reason: "Removing the folder of a Mirror being deleted is one commit.",
			mg: newMirror(perChange, func(m *v1alpha1.Mirror) {
				m.SetDeletionTimestamp(&metav1.Time{Time: time.Now()})
				m.SetFinalizers([]string{"finalizer.managedresource.crossplane.io"})
			}),
			files: owned,
			objs:  []mirror.Object{a, b, c},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newExternal(t, &fakeRepository{files: tc.files}, &fakeSources{snap: mirror.Snapshot{Synced: true, Objects: tc.objs}})
			if _, err := e.Observe(context.Background(), tc.mg); err != nil {
				t.Fatal(err)
			}
			if e.change == nil {
				t.Fatal("Observe found no change to make")
			}
			if diff := cmp.Diff(tc.want, show(e.change.Parts)); diff != "" {
				t.Errorf("%s\nparts: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantPuts, slices.Sorted(maps.Keys(e.change.Puts))); diff != "" {
				t.Errorf("%s\nputs of the change itself: -want, +got:\n%s", tc.reason, diff)
			}
			if len(e.change.Parts) > 0 && (len(e.change.Puts) > 0 || len(e.change.Deletes) > 0 || len(e.change.Expect) > 0) {
				t.Errorf("%s\na change with parts carries files of its own: the branch writer refuses it", tc.reason)
			}
			if e.change.Resource.Kind != v1alpha1.MirrorKind || e.change.Resource.Name != "m" {
				t.Errorf("%s\nresource of the change = %+v, want the Mirror: every part's trailers name it", tc.reason, e.change.Resource)
			}
		})
	}
}

// TestCommitModeValidated: a commit mode the CRD would refuse is refused in
// code too, naming the field.
func TestCommitModeValidated(t *testing.T) {
	cases := map[string]struct {
		reason string
		commit v1alpha1.MirrorCommit
		want   bool
	}{
		"Unset":     {reason: "A Mirror stored before the field existed is Batched.", want: true},
		"Batched":   {reason: "Batched is valid.", commit: v1alpha1.MirrorCommitBatched, want: true},
		"PerChange": {reason: "PerChange is valid.", commit: v1alpha1.MirrorCommitPerChange, want: true},
		"Other":     {reason: "Anything else is InvalidSpec.", commit: "Sometimes"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Request(newMirror(func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Commit = tc.commit }))
			if got := err == nil; got != tc.want {
				t.Fatalf("%s\nRequest() error = %v, want valid: %v", tc.reason, err, tc.want)
			}
			if reason, ok := managed.StalledReason(err); err != nil && (!ok || reason != spec.ReasonInvalidSpec || !strings.Contains(err.Error(), errCommit)) {
				t.Errorf("%s\nerror %v is not InvalidSpec naming spec.forProvider.commit", tc.reason, err)
			}
		})
	}
}
