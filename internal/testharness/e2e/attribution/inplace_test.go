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

package attribution_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestAdmissionInPlacePerChange: a Mirror with layout InPlace, commit
// PerChange and attribution Admission over a kustomize overlay whose base
// keeps two ConfigMaps in one file. alice edits one, then bob the other:
// two commits of that file, in that order, the first authored by alice and
// holding her edit alone (what the overlay rendered after it), the second
// by bob holding both, each Attributed-By admission; the kustomizations are
// untouched.
func TestAdmissionInPlacePerChange(t *testing.T) {
	f, ns := admissionBed(t)
	folder := e2e.MirrorFolder
	doc := func(name, k string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  labels:\n    mirror: \"yes\"\ndata:\n  " + k + ": \"0\"\n"
	}
	base, app := folder+"/base/configmaps.yaml", folder+"/app/kustomization.yaml"
	seeded := "# The app's settings and flags, kept together.\n" + doc("settings", "k") + "---\n" + doc("flags", "f")
	files := map[string]string{
		folder + "/base/kustomization.yaml": "resources:\n- configmaps.yaml\n",
		base:                                seeded,
		app:                                 "namespace: " + ns + "\nresources:\n- ../base\n",
	}
	if _, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "hand-written manifests", Files: files}); err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]string{"settings": "k", "flags": "f"} {
		e2e.Create(t, e2e.ConfigMap(ns, name, map[string]string{"mirror": "yes"}, map[string]string{k: "0"}))
	}
	m := admissionMirror(ns)
	m.Spec.ForProvider.Layout, m.Spec.ForProvider.Commit = v1alpha1.MirrorLayoutInPlace, v1alpha1.MirrorCommitPerChange
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	e2e.WritesLanded(t)
	before := f.Repo.Head(t, "main")
	if got := f.Files(t, "main")[base]; got != seeded {
		t.Fatalf("adopting the layout changed %s:\n%s", base, got)
	}

	edit(t, userClient(t, "alice"), ns, "settings", "k", "alice")
	edit(t, userClient(t, "bob"), ns, "flags", "f", "bob")
	first := strings.Replace(seeded, `k: "0"`, `k: "alice"`, 1)
	both := strings.Replace(first, `f: "0"`, `f: "bob"`, 1)
	testenv.Eventually(t, time.Minute, func() error {
		if got := f.Files(t, "main")[base]; got != both {
			return fmt.Errorf("%s does not hold both edits yet: -want, +got:\n%s", base, cmp.Diff(both, got))
		}
		return nil
	})
	e2e.WritesLanded(t)
	want := []attributedCommit{{Author: "alice", By: attribution.ByAdmission, Content: first}, {Author: "bob", By: attribution.ByAdmission, Content: both}}
	got := fileCommits(t, f, before, base)
	for i := range got {
		// fileCommits reads a file through git show, which ends it with
		// a newline of its own.
		got[i].Content = strings.TrimSuffix(got[i].Content, "\n")
		want[i].Content = strings.TrimSuffix(want[i].Content, "\n")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commits of %s: -want, +got:\n%s", base, diff)
	}
	for _, k := range []string{folder + "/base/kustomization.yaml", app} {
		if got := f.Files(t, "main")[k]; got != files[k] {
			t.Errorf("%s moved:\n%s", k, got)
		}
	}
}
