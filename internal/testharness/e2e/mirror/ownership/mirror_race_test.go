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

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestMirrorHandFilePushedBetweenReadAndPush: a person pushes a file at a
// Mirror's path after the Mirror read the folder and before its push
// lands. The ownership rule holds on the tree the commit lands on: each of
// the four shapes of a hand file is PathConflict and stays as the person
// wrote it, while the rest of the same batch (a Mirror and Files beside
// them) lands on top of the person's commit.
//
// Nothing is left to timing. A push gate holds the provider's pushes on the
// server. The first push (one File) is held while every resource under test
// plans on the seed head and queues its change behind it; released, the
// writer takes all of them as one batch, whose push is held in turn. The
// person's commit lands then, and the held push fails to move the branch,
// so the batch is rebased onto the person's commit.
func TestMirrorHandFilePushedBetweenReadAndPush(t *testing.T) {
	f := e2e.NewFixture(t)
	gate := testenv.NewPushGate(t, f.Repo)
	e2e.StartProvider(t, "")
	ns := f.Namespace
	a := e2e.ConfigMap(ns, "a", nil, map[string]string{"k": "1"})
	b := e2e.ConfigMap(ns, "b", nil, map[string]string{"k": "2"})
	e2e.Create(t, a)
	e2e.Create(t, b)
	cms := []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}
	rel := func(name string) string {
		return strings.TrimPrefix(e2e.ObjPath(ns, "core", "configmap", name), e2e.MirrorFolder+"/")
	}

	first := e2e.NewFile(f, "first", "first.txt", "1\n")
	e2e.Create(t, first)
	if got := gate.Held(t, 1, time.Minute); !slices.Equal(got, []string{"first.txt"}) {
		t.Fatalf("the first push changes %v, want only the first File's path", got)
	}

	// The owner a hand marker names: it exists, in a folder of its own.
	owner := e2e.NewMirror(ns, "owner", v1alpha1.MirrorParameters{Path: "owned", Resources: cms}, e2e.PCRef())
	// Each shape of hand file, at the path of a Mirror of its own.
	hand := map[string]struct{ path, content string }{
		"plain":        {rel("a"), "notes a person keeps here\n"},
		"other-object": {rel("a"), e2e.Rendered(t, b)},
		"two-docs":     {rel("a"), e2e.Rendered(t, a) + "---\n" + e2e.Rendered(t, b)},
		"marker":       {mirrorcontroller.MarkerFile, fmt.Sprintf("mirror:\n  namespace: %s\n  name: %s\nfiles: []\n", ns, owner.Name)},
	}
	mirrors := map[string]*v1alpha1.Mirror{}
	for name := range hand {
		mirrors[name] = e2e.NewMirror(ns, name, v1alpha1.MirrorParameters{Path: "m/" + name, Resources: cms}, e2e.PCRef())
	}
	files := []*v1alpha1.File{e2e.NewFile(f, "f1", "files/1.txt", "one\n"), e2e.NewFile(f, "f2", "files/2.txt", "two\n")}
	objs := []client.Object{owner}
	for _, m := range mirrors {
		objs = append(objs, m)
	}
	for _, fl := range files {
		objs = append(objs, fl)
	}
	for _, o := range objs {
		e2e.Create(t, o)
	}
	// Each has read the seed head and queued its change behind the held
	// push.
	committing := func(o interface {
		GetCondition(xpv2.ConditionType) xpv2.Condition
	}) func() error {
		return func() error { return e2e.ConditionIs(o, xpv2.TypeReady, corev1.ConditionFalse, "Committing") }
	}
	e2e.WaitFor(t, time.Minute, owner, committing(owner))
	for _, m := range mirrors {
		e2e.WaitFor(t, time.Minute, m, committing(m))
	}
	for _, fl := range files {
		e2e.WaitFor(t, time.Minute, fl, committing(fl))
	}
	gate.Release(t, 1)

	batch := gate.Held(t, 2, time.Minute)
	for _, p := range []string{"files/1.txt", "files/2.txt", "owned/" + mirrorcontroller.MarkerFile, "m/plain/" + rel("a"), "m/marker/" + mirrorcontroller.MarkerFile} {
		if !slices.Contains(batch, p) {
			t.Fatalf("the second push does not carry %s: the resources under test are not one batch (%v)", p, batch)
		}
	}
	handFiles := map[string]string{}
	for name, h := range hand {
		handFiles["m/"+name+"/"+h.path] = h.content
	}
	handHead, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "by hand", Files: handFiles})
	if err != nil {
		t.Fatal(err)
	}
	gate.Open(t)

	for name, m := range mirrors {
		e2e.WaitFor(t, time.Minute, m, e2e.StalledWith(t, m, "PathConflict"))
		if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "m/"+name) {
			t.Errorf("Mirror %s: the conflict does not name its folder: %q", name, msg)
		}
	}
	e2e.WaitFor(t, time.Minute, owner, e2e.ReadyAndCurrent(t, owner))
	for _, fl := range files {
		e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	}

	got := f.Files(t, "main")
	for p, want := range handFiles {
		if got[p] != want {
			t.Errorf("%s was changed: %q, want the person's %q", p, got[p], want)
		}
	}
	for name := range hand {
		for p := range got {
			if strings.HasPrefix(p, "m/"+name+"/") && handFiles[p] == "" {
				t.Errorf("Mirror %s wrote %s into a folder that holds a file not its own", name, p)
			}
		}
	}
	for p, want := range map[string]string{
		"files/1.txt": "one\n", "files/2.txt": "two\n",
		"owned/" + rel("a"): e2e.Rendered(t, a), "owned/" + rel("b"): e2e.Rendered(t, b),
	} {
		if got[p] != want {
			t.Errorf("%s of the same batch did not land: %q, want %q", p, got[p], want)
		}
	}
	// The rest of the batch was rebased onto the person's commit: the
	// commit that carries it is the person's child.
	log := f.Repo.Log(t, "main")
	if len(log) < 2 || log[1].SHA != handHead || !slices.Equal(log[0].Parents, []string{handHead}) {
		t.Errorf("the batch did not land on the person's commit %s: history %+v", handHead, log[:min(3, len(log))])
	}
}

// TestMirrorRunningMeetsFreshHandFile: a Mirror that is up to date meets a
// new object, and a person pushes a file at that object's path after the
// Mirror read the folder and before its push lands (the push gate holds the
// push while the person's lands). The person's file stays, the Mirror is
// PathConflict, and the marker still lists only what it owned.
func TestMirrorRunningMeetsFreshHandFile(t *testing.T) {
	f := e2e.NewFixture(t)
	gate := testenv.NewPushGate(t, f.Repo)
	e2e.StartProvider(t, "")
	ns := f.Namespace
	a := e2e.ConfigMap(ns, "a", nil, map[string]string{"k": "1"})
	e2e.Create(t, a)
	m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
	e2e.Create(t, m)
	gate.Held(t, 1, time.Minute)
	gate.Release(t, 1)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	marker := e2e.MirrorFolder + "/" + mirrorcontroller.MarkerFile
	before := f.Files(t, "main")

	c := e2e.ConfigMap(ns, "c", nil, map[string]string{"k": "3"})
	e2e.Create(t, c)
	pc := e2e.ObjPath(ns, "core", "configmap", "c")
	if got := gate.Held(t, 2, time.Minute); !slices.Contains(got, pc) {
		t.Fatalf("the Mirror's push changes %v, want %s among them", got, pc)
	}
	const hand = "a person's notes, not a ConfigMap\n"
	if _, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "by hand", Files: map[string]string{pc: hand}}); err != nil {
		t.Fatal(err)
	}
	gate.Open(t)

	e2e.WaitFor(t, time.Minute, m, e2e.StalledWith(t, m, "PathConflict"))
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, pc) {
		t.Errorf("the conflict does not name %s: %q", pc, msg)
	}
	got := f.Files(t, "main")
	if got[pc] != hand {
		t.Errorf("%s was changed: %q, want the person's %q", pc, got[pc], hand)
	}
	if got[marker] != before[marker] {
		t.Errorf("the marker changed:\n%s\nwas:\n%s", got[marker], before[marker])
	}
}
