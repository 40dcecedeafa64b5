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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// TestChangeExpects: the change a Mirror hands to the branch writer says
// what it was decided on, so the writer can refuse it where the commit
// lands if a person changed that meanwhile: the marker always (it says what
// the Mirror owns), each file written where none was or adopted for what it
// held; an owned file is put back whatever it holds, so it expects nothing.
func TestChangeExpects(t *testing.T) {
	a, b := object("a", "1"), object("b", "2")
	pa, pb := "live/"+a.Path, "live/"+b.Path
	mk := "live/" + MarkerFile
	sha := func(s string) string { return git.BlobSHA([]byte(s)) }
	ours := markerOf("ns/m", a.Path)
	adoptable := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: ns}\n"
	gone := markerOf("ns/gone", a.Path, b.Path)
	cases := map[string]struct {
		reason string
		mg     *v1alpha1.Mirror
		files  map[string]string
		want   map[string]string
	}{
		"NewFolder": {
			reason: "A new folder is written where no marker and no file was: each must still be absent where it lands.",
			mg:     newMirror(), files: map[string]string{"README.md": "x"},
			want: map[string]string{mk: "", pa: "", pb: ""},
		},
		"OwnedPutBackNewAdded": {
			reason: "An owned file is put back whatever it holds; a new object's file expects no file; the marker expects itself.",
			mg:     newMirror(), files: map[string]string{mk: ours, pa: "edited\n"},
			want: map[string]string{mk: sha(ours), pb: ""},
		},
		"Adopted": {
			reason: "A file adopted as the same object expects what it held when adopted.",
			mg:     newMirror(), files: map[string]string{mk: ours, pa: string(a.Content), pb: adoptable},
			want: map[string]string{mk: sha(ours), pb: sha(adoptable)},
		},
		"TakenOver": {
			reason: "A marker naming a Mirror that is gone is taken over only while it is that marker.",
			mg:     newMirror(), files: map[string]string{mk: gone, pa: string(a.Content), pb: string(b.Content)},
			want: map[string]string{mk: sha(gone)},
		},
		"InPlaceGuardsWhatItRead": {
			reason: "An InPlace edit expects every file of the folder it read, those it does not write too (before, a base changed meanwhile was not guarded).",
			mg: newMirror(func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Layout = v1alpha1.MirrorLayoutInPlace
				m.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionNone
			}),
			files: map[string]string{mk: ours, pa: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\ndata: {k: old}\n", "live/base/other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, namespace: ns}\n"},
			want: map[string]string{mk: sha(ours), pa: sha("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\ndata: {k: old}\n"), pb: "",
				"live/base/other.yaml": sha("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, namespace: ns}\n")},
		},
		"Removal": {
			reason: "Owned files are removed only while the marker still names this Mirror.",
			mg:     newMirror(func(m *v1alpha1.Mirror) { m.SetDeletionTimestamp(&metav1.Time{Time: time.Now()}) }),
			files:  map[string]string{mk: ours, pa: string(a.Content)},
			want:   map[string]string{mk: sha(ours)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			src := &fakeSources{snap: mirror.Snapshot{Synced: true, Objects: []mirror.Object{a, b}}}
			e := newExternal(t, &fakeRepository{files: tc.files}, src)
			if _, err := e.Observe(context.Background(), tc.mg); err != nil {
				t.Fatal(err)
			}
			if e.change == nil {
				t.Fatal("Observe found no change to make")
			}
			if diff := cmp.Diff(tc.want, e.change.Expect); diff != "" {
				t.Errorf("%s\nExpect: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPreconditionFailedPlansAgain: a write refused where it would have
// landed (a person pushed into the folder after the Mirror read it) is not
// reported as it is: the Mirror plans again on the head that refused it, so
// the ownership rule decides there, exactly as if the person's file had been
// pushed before the read. A file that is not the Mirror's is PathConflict
// naming it; one that holds the same object is adopted; other errors of a
// write are still reported as they are.
func TestPreconditionFailedPlansAgain(t *testing.T) {
	a := object("a", "1")
	pa := "live/" + a.Path
	refused := &git.Error{Kind: git.KindPathConflict, Err: &git.PreconditionError{Path: pa, Have: git.BlobSHA([]byte("x"))}}
	cases := map[string]struct {
		reason string
		files  map[string]string
		res    git.Result
		want   outcome
	}{
		"ForeignFile": {
			reason: "Plain text pushed by hand at an object's path is PathConflict, found by the plan on the new head.",
			files:  map[string]string{pa: "written by hand\n"},
			res:    git.Result{Err: refused},
			want:   outcome{Stalled: spec.ReasonPathConflict, Ensured: true},
		},
		"SameObject": {
			reason: "A single document of the very object pushed by hand is adopted, as it would have been had it come first.",
			files:  map[string]string{pa: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\n"},
			res:    git.Result{Err: refused},
			want:   outcome{Puts: []string{"live/" + MarkerFile, pa}, Ensured: true},
		},
		"OtherWriteError": {
			reason: "A path conflict of another kind (a directory at the path) is still the write's own error.",
			files:  map[string]string{},
			res:    git.Result{Err: &git.Error{Kind: git.KindPathConflict, Err: errors.New("path is a directory")}},
			want:   outcome{Stalled: spec.ReasonPathConflict},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			src := &fakeSources{snap: mirror.Snapshot{Synced: true, Objects: []mirror.Object{a}}}
			repo := &fakeRepository{files: tc.files, result: &tc.res}
			e := newExternal(t, repo, src)
			obs, err := e.Observe(context.Background(), newMirror())
			got := outcome{Obs: obs, Ensured: src.ensured}
			classify(&got, err)
			if e.change != nil {
				got.Puts = slices.Sorted(maps.Keys(e.change.Puts))
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(outcome{}, "Obs")); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s\nerror: %v", tc.reason, diff, err)
			}
			if name == "ForeignFile" && (err == nil || !strings.Contains(err.Error(), pa)) {
				t.Errorf("%s\nthe conflict does not name %s: %v", tc.reason, pa, err)
			}
		})
	}
}
