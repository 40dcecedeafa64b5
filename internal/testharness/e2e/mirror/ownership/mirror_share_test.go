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

package ownership_test

// Mirror e2e: a branch or folder shared with others (an external pusher, a
// File, a Mirror orphaned without Delete).

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestMirrorOrphanedKeepsFilesAndReleasesWatches(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	p := e2e.StartProvider(t, "")
	cm := e2e.ConfigMap(f.Namespace, "kept", nil, map[string]string{"k": "1"})
	e2e.Create(t, cm)
	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
	m.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize}
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	want := map[string]string{e2e.ObjPath(f.Namespace, "core", "configmap", "kept"): e2e.Rendered(t, cm)}
	f.WaitMirrored(t, want)
	if n := p.Mirrors.Informers(); n != 1 {
		t.Fatalf("%d informers run for one Mirror of one kind in one namespace, want 1", n)
	}
	if err := e2e.CP.Client.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, m)
	testenv.Eventually(t, 30*time.Second, func() error {
		if n := p.Mirrors.Informers(); n != 0 {
			return fmt.Errorf("%d informers still run for a Mirror that is gone", n)
		}
		return nil
	})
	if diff := cmp.Diff(want, f.Mirrored(t)); diff != "" {
		t.Errorf("without Delete in managementPolicies the files stay: -want, +got:\n%s", diff)
	}
}

// TestMirrorRacesAnExternalPusher churns objects while someone else pushes
// to the same branch: every object's last state lands, every foreign commit
// stays, and the branch only ever moves forward (no force push).
func TestMirrorRacesAnExternalPusher(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	const objects, rounds = 5, 20
	cms := make([]*corev1.ConfigMap, objects)
	for i := range cms {
		cms[i] = e2e.ConfigMap(f.Namespace, fmt.Sprintf("cm-%d", i), nil, map[string]string{"round": "0"})
		e2e.Create(t, cms[i])
	}
	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))

	foreign := map[string]string{}
	for r := 1; r <= rounds; r++ {
		cm := cms[r%objects]
		cm.Data = map[string]string{"round": fmt.Sprint(r)}
		if err := e2e.CP.Client.Update(ctx, cm); err != nil {
			t.Fatal(err)
		}
		p := fmt.Sprintf("other/ext-%02d.txt", r)
		foreign[p] = fmt.Sprintf("round %d\n", r)
		// The external pusher loses races to the provider too, and does
		// what a person does: fetch and push again.
		var err error
		for try := 0; try < 10; try++ {
			if _, err = f.Repo.Commit("main", testenv.CommitSpec{Message: "external " + p, Files: map[string]string{p: foreign[p]}}); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{}
	for _, cm := range cms {
		want[e2e.ObjPath(f.Namespace, "core", "configmap", cm.Name)] = e2e.Rendered(t, cm)
	}
	f.WaitMirrored(t, want)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	files := f.Files(t, "main")
	for p, c := range foreign {
		if files[p] != c {
			t.Errorf("the external pusher's %s is %q, want %q", p, files[p], c)
		}
	}
	for _, u := range f.Repo.Reflog(t, "main") {
		if u.Old != "" && strings.Trim(u.Old, "0") != "" && !f.Repo.IsAncestor(t, u.Old, u.New) {
			t.Errorf("main moved from %s to %s, not a fast-forward", u.Old, u.New)
		}
	}
}

// TestMirrorMeetsAFile: a File created before a Mirror whose folder holds
// its path keeps it: the Mirror is Stalled Conflict naming the File and
// writes nothing, the File stays Ready; once the File is gone (it removes
// its file: the Mirror keeps something else there) the Mirror writes the
// folder.
func TestMirrorMeetsAFile(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	cm := e2e.ConfigMap(f.Namespace, "app", nil, map[string]string{"k": "1"})
	e2e.Create(t, cm)
	p := e2e.ObjPath(f.Namespace, "core", "configmap", "app")
	fl := e2e.NewFile(f, "notes", p, "written by a File\n")
	e2e.Create(t, fl)
	e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	head := f.Repo.Head(t, "main")

	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.StalledWith(t, m, claim.ReasonConflict))
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "File "+f.Namespace+"/notes,") {
		t.Errorf("Conflict does not name the File created first: %q", msg)
	}
	e2e.WritesLanded(t)
	if got := f.Repo.Head(t, "main"); got != head {
		t.Fatalf("a Mirror in conflict with a File wrote to the branch")
	}
	if err := e2e.ReadyAndCurrent(t, fl)(); err != nil {
		t.Errorf("the File: %v", err)
	}

	if err := e2e.CP.Client.Delete(ctx, fl); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, fl)
	// The File going wakes the Mirror.
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	f.WaitMirrored(t, map[string]string{p: e2e.Rendered(t, cm)})
}

// TestMirrorHoldsItsFolder: a File created in a Mirror's folder after the
// Mirror is Stalled Conflict naming the Mirror and changes nothing, and
// deleting it leaves the Mirror's file; once the Mirror is gone, a waiting
// File takes over its path.
func TestMirrorHoldsItsFolder(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	cm := e2e.ConfigMap(f.Namespace, "app", nil, map[string]string{"k": "1"})
	e2e.Create(t, cm)
	p := e2e.ObjPath(f.Namespace, "core", "configmap", "app")
	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	f.WaitMirrored(t, map[string]string{p: e2e.Rendered(t, cm)})
	head := f.Repo.Head(t, "main")

	// Created at least a second later: the Mirror is first.
	waitNextSecond(t, m)
	overwrite := e2e.NewFile(f, "overwrite", p, "written by a File\n")
	beside := e2e.NewFile(f, "beside", e2e.MirrorFolder+"/README.md", "about this folder\n")
	e2e.Create(t, overwrite)
	e2e.Create(t, beside)
	for _, fl := range []*v1alpha1.File{overwrite, beside} {
		e2e.WaitFor(t, time.Minute, fl, e2e.StalledWith(t, fl, claim.ReasonConflict))
		if msg := fl.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "Mirror "+f.Namespace+"/m,") {
			t.Errorf("Conflict of File %s does not name the Mirror created first: %q", fl.Name, msg)
		}
	}
	e2e.WritesLanded(t)
	if got := f.Repo.Head(t, "main"); got != head {
		t.Fatalf("a File in conflict with a Mirror wrote to the branch")
	}
	if err := e2e.ReadyAndCurrent(t, m)(); err != nil {
		t.Errorf("the Mirror: %v", err)
	}

	// A File held off never wrote: deleting it removes nothing.
	if err := e2e.CP.Client.Delete(ctx, beside); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, beside)
	e2e.WritesLanded(t)
	if got := f.Repo.Head(t, "main"); got != head {
		t.Fatalf("deleting a File held off by a Mirror changed the branch")
	}

	// The Mirror going (it removes its files) lets the File write its own.
	if err := e2e.CP.Client.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, m)
	e2e.WaitFor(t, time.Minute, overwrite, e2e.ReadyAndCurrent(t, overwrite))
	testenv.Eventually(t, time.Minute, func() error {
		files := f.Files(t, "main")
		if files[p] != "written by a File\n" {
			return fmt.Errorf("%s holds %q, want the File's content", p, files[p])
		}
		if _, ok := files[e2e.MirrorFolder+"/"+mirrorcontroller.MarkerFile]; ok {
			return fmt.Errorf("the Mirror's marker is still there")
		}
		return nil
	})
}

// TestNestedMirrors: a Mirror whose folder lies inside an earlier Mirror's
// folder on the same branch is Stalled Conflict naming it and writes
// nothing; once the first is gone, the second writes its folder.
func TestNestedMirrors(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	cm := e2e.ConfigMap(f.Namespace, "app", nil, map[string]string{"k": "1"})
	e2e.Create(t, cm)
	cms := []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}
	outer := e2e.NewMirror(f.Namespace, "outer", v1alpha1.MirrorParameters{Resources: cms}, e2e.PCRef())
	e2e.Create(t, outer)
	e2e.WaitFor(t, time.Minute, outer, e2e.ReadyAndCurrent(t, outer))
	head := f.Repo.Head(t, "main")

	waitNextSecond(t, outer)
	innerFolder := e2e.MirrorFolder + "/inner"
	inner := e2e.NewMirror(f.Namespace, "inner", v1alpha1.MirrorParameters{Path: innerFolder, Resources: cms}, e2e.PCRef())
	e2e.Create(t, inner)
	e2e.WaitFor(t, time.Minute, inner, e2e.StalledWith(t, inner, claim.ReasonConflict))
	if msg := inner.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "Mirror "+f.Namespace+"/outer,") {
		t.Errorf("Conflict does not name the Mirror created first: %q", msg)
	}
	e2e.WritesLanded(t)
	if got := f.Repo.Head(t, "main"); got != head {
		t.Fatalf("a nested Mirror in conflict wrote to the branch")
	}

	if err := e2e.CP.Client.Delete(ctx, outer); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, outer)
	e2e.WaitFor(t, time.Minute, inner, e2e.ReadyAndCurrent(t, inner))
	want := fmt.Sprintf("%s/%s/core/configmap/app.yaml", innerFolder, f.Namespace)
	testenv.Eventually(t, time.Minute, func() error {
		files := f.Files(t, "main")
		if files[want] != e2e.Rendered(t, cm) {
			return fmt.Errorf("%s holds %q, want the ConfigMap", want, files[want])
		}
		if _, ok := files[e2e.ObjPath(f.Namespace, "core", "configmap", "app")]; ok {
			return fmt.Errorf("the outer Mirror's file is still there")
		}
		return nil
	})
}

// waitNextSecond returns once the API server's clock, which stamps
// creationTimestamp in whole seconds, has passed o's: what is created
// afterwards is later than o, not tied with it.
func waitNextSecond(t *testing.T, o interface{ GetCreationTimestamp() metav1.Time }) {
	t.Helper()
	testenv.Eventually(t, 10*time.Second, func() error {
		probe := e2e.ConfigMap("default", "", nil, nil)
		probe.GenerateName = "clock-"
		if err := e2e.CP.Client.Create(context.Background(), probe); err != nil {
			return err
		}
		defer func() { _ = e2e.CP.Client.Delete(context.Background(), probe) }()
		if !probe.CreationTimestamp.After(o.GetCreationTimestamp().Time) {
			return fmt.Errorf("the API server's clock is still at %s", probe.CreationTimestamp)
		}
		return nil
	})
}
