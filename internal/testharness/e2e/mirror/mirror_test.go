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

package mirror_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestMirrorLifecycle(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixtureOf(t, map[string][]testenv.CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n", e2e.MirrorFolder + "/notes.md": "kept by people\n"}}},
	})
	e2e.StartProvider(t, "")
	ns := f.Namespace

	a := e2e.ConfigMap(ns, "a", map[string]string{"app": "demo"}, map[string]string{"k": "1"})
	b := e2e.ConfigMap(ns, "b", nil, map[string]string{"k": "2"})
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	for _, o := range []client.Object{a, b, dep} {
		e2e.Create(t, o)
	}
	// What the Deployment's controller would make, made by hand: envtest
	// runs no controllers. Controlled, so not mirrored.
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "Deployment", Name: dep.Name, UID: dep.UID, Controller: ptr.To(true),
		}}},
		Spec: appsv1.ReplicaSetSpec{Selector: dep.Spec.Selector, Template: dep.Spec.Template},
	}
	e2e.Create(t, rs)
	seed := f.Repo.Head(t, "main")

	m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{
		{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "apps/v1", Kind: "Deployment"}, {APIVersion: "apps/v1", Kind: "ReplicaSet"},
	}}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))

	want := map[string]string{
		e2e.ObjPath(ns, "core", "configmap", "a"):    e2e.Rendered(t, a),
		e2e.ObjPath(ns, "core", "configmap", "b"):    e2e.Rendered(t, b),
		e2e.ObjPath(ns, "apps", "deployment", "web"): e2e.Rendered(t, dep),
	}
	if diff := cmp.Diff(want, f.Mirrored(t)); diff != "" {
		t.Fatalf("the first commit does not hold exactly the sanitized objects (ReplicaSet skipped): -want, +got:\n%s", diff)
	}
	if got := f.Files(t, "main")[e2e.MirrorFolder+"/notes.md"]; got != "kept by people\n" {
		t.Errorf("a file the Mirror does not own changed: %q", got)
	}
	log := f.Repo.Log(t, "main")
	if len(log) < 2 || log[1].SHA != seed {
		t.Errorf("the initial mirror took %d commits, want 1", len(log)-1)
	}
	if m.Status.AtProvider.Objects != 3 || m.Status.AtProvider.Commit != log[0].SHA {
		t.Errorf("atProvider = %+v, want 3 objects and commit %s", m.Status.AtProvider, log[0].SHA)
	}
	if strings.Contains(f.Files(t, "main")[e2e.ObjPath(ns, "core", "configmap", "a")], "resourceVersion") {
		t.Errorf("the rendering is not sanitized")
	}

	t.Run("UpdateFollows", func(t *testing.T) {
		a.Data = map[string]string{"k": "changed"}
		if err := e2e.CP.Client.Update(ctx, a); err != nil {
			t.Fatal(err)
		}
		want[e2e.ObjPath(ns, "core", "configmap", "a")] = e2e.Rendered(t, a)
		f.WaitMirrored(t, want)
		e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	})

	t.Run("StatusOnlyMakesNoCommit", func(t *testing.T) {
		head := f.Repo.Head(t, "main")
		if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(dep), dep); err != nil {
			t.Fatal(err)
		}
		dep.Status.ObservedGeneration = dep.Generation
		dep.Status.Replicas = 1
		if err := e2e.CP.Client.Status().Update(ctx, dep); err != nil {
			t.Fatal(err)
		}
		// A no-op update: the API server keeps the object as it is.
		if err := e2e.CP.Client.Update(ctx, b); err != nil {
			t.Fatal(err)
		}
		rv := m.ResourceVersion
		f.Stays(t, m, false, "main", head, "a status-only change and a no-op update")
		if err := e2e.ReadyAndCurrent(t, m)(); err != nil {
			t.Error(err)
		}
		if m.ResourceVersion != rv {
			t.Errorf("a converged Mirror's reconciles wrote it (resourceVersion %s, was %s)", m.ResourceVersion, rv)
		}
	})

	t.Run("DeleteRemovesFile", func(t *testing.T) {
		if err := e2e.CP.Client.Delete(ctx, b); err != nil {
			t.Fatal(err)
		}
		delete(want, e2e.ObjPath(ns, "core", "configmap", "b"))
		f.WaitMirrored(t, want)
		e2e.WaitFor(t, time.Minute, m, func() error {
			if err := e2e.ReadyAndCurrent(t, m)(); err != nil {
				return err
			}
			if m.Status.AtProvider.Objects != 2 {
				return fmt.Errorf("atProvider.objects = %d, want 2", m.Status.AtProvider.Objects)
			}
			return nil
		})
	})

	t.Run("GitDriftIsPutBack", func(t *testing.T) {
		p := e2e.ObjPath(ns, "core", "configmap", "a")
		if _, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "hand edit", Files: map[string]string{p: "edited: by hand\n"}}); err != nil {
			t.Fatal(err)
		}
		f.WaitMirrored(t, want)
	})

	outer := t
	t.Run("RestartSweeps", func(t *testing.T) {
		e2e.Running.Stop()
		c := e2e.ConfigMap(ns, "c", nil, map[string]string{"k": "3"})
		e2e.Create(t, c)
		if err := e2e.CP.Client.Delete(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(dep), dep); err != nil {
			t.Fatal(err)
		}
		dep.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
		if err := e2e.CP.Client.Update(ctx, dep); err != nil {
			t.Fatal(err)
		}
		// The outer test's: a subtest's cleanup would stop it when the
		// subtest ends.
		e2e.StartProvider(outer, "")
		delete(want, e2e.ObjPath(ns, "core", "configmap", "a"))
		want[e2e.ObjPath(ns, "core", "configmap", "c")] = e2e.Rendered(t, c)
		want[e2e.ObjPath(ns, "apps", "deployment", "web")] = e2e.Rendered(t, dep)
		f.WaitMirrored(t, want)
		if got := f.Files(t, "main")[e2e.MirrorFolder+"/notes.md"]; got != "kept by people\n" {
			t.Errorf("a file the Mirror does not own changed: %q", got)
		}
	})

	t.Run("SecondMirrorConflicts", func(t *testing.T) {
		head := f.Repo.Head(t, "main")
		second := e2e.NewMirror(ns, "second", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
		e2e.Create(t, second)
		e2e.WaitFor(t, time.Minute, second, e2e.StalledWith(t, second, "Conflict"))
		if msg := second.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "Mirror "+ns+"/m,") {
			t.Errorf("Conflict does not name the Mirror created first: %q", msg)
		}
		e2e.WritesLanded(t)
		if got := f.Repo.Head(t, "main"); got != head {
			t.Errorf("a Mirror in conflict wrote to the branch")
		}
		if err := e2e.CP.Client.Delete(ctx, second); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, second)
		if got := f.Repo.Head(t, "main"); got != head {
			t.Errorf("deleting a Mirror in conflict removed another's files")
		}
	})

	t.Run("DeleteRemovesOwnedFiles", func(t *testing.T) {
		if err := e2e.CP.Client.Delete(ctx, m); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, m)
		if diff := cmp.Diff(map[string]string{e2e.MirrorFolder + "/notes.md": "kept by people\n"}, f.Files(t, "main")); diff != "" {
			t.Errorf("deleting the Mirror must remove its files and marker only: -want, +got:\n%s", diff)
		}
	})
}

func TestMirrorSelectsAndNeverWritesSecrets(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	ns := f.Namespace
	demo := e2e.ConfigMap(ns, "demo", map[string]string{"app": "demo"}, map[string]string{"k": "1"})
	other := e2e.ConfigMap(ns, "other", map[string]string{"app": "other"}, map[string]string{"k": "2"})
	const secretValue = "hunter2-never-in-git"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "s", Labels: map[string]string{"app": "demo"}},
		StringData: map[string]string{"password": secretValue}}
	for _, o := range []client.Object{demo, other, secret} {
		e2e.Create(t, o)
	}
	m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{
		Resources:     []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "v1", Kind: "Secret"}},
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "demo"}},
	}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	f.WaitMirrored(t, map[string]string{e2e.ObjPath(ns, "core", "configmap", "demo"): e2e.Rendered(t, demo)})
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "Secret") {
		t.Errorf("Ready's message does not say Secrets were left out: %q", msg)
	}
	// The label selector follows label changes.
	other.Labels["app"] = "demo"
	if err := e2e.CP.Client.Update(ctx, other); err != nil {
		t.Fatal(err)
	}
	f.WaitMirrored(t, map[string]string{
		e2e.ObjPath(ns, "core", "configmap", "demo"):  e2e.Rendered(t, demo),
		e2e.ObjPath(ns, "core", "configmap", "other"): e2e.Rendered(t, other),
	})
	if out := f.GitOut(t, "log", "-p", "--all"); strings.Contains(out, secretValue) || strings.Contains(out, "aHVudGVyMi") {
		t.Errorf("a Secret's value is in the repository's history")
	}
}

// TestMirrorCommittingIsInProgress: while a Mirror's change waits in its
// branch writer (a long commit window), the live object says Committing and
// kstatus reads it as InProgress, never Failed or Current; once the push
// lands it is Ready and Current. The window runs on a fake clock the test
// steps once it has seen Committing: the change waits exactly as long as
// the test needs, and not 15 s of wall time.
func TestMirrorCommittingIsInProgress(t *testing.T) {
	const window = 15 * time.Second
	f := e2e.NewFixture(t)
	e2e.SetWindow(t, f, window)
	clk := testingclock.NewFakeClock(time.Now())
	e2e.StartProvider(t, "", e2e.WithGitClock(clk))
	cm := e2e.ConfigMap(f.Namespace, "app", nil, map[string]string{"k": "1"})
	e2e.Create(t, cm)
	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, func() error {
		if err := e2e.ConditionIs(m, xpv2.TypeReady, corev1.ConditionFalse, mirrorcontroller.ReasonCommitting); err != nil {
			return err
		}
		return e2e.KstatusIs(t, m, "InProgress")
	})
	if got := f.Mirrored(t); len(got) != 0 {
		t.Fatalf("the folder holds %v before the commit window closed", got)
	}
	stepWhenQueued(t, clk, window)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	f.WaitMirrored(t, map[string]string{e2e.ObjPath(f.Namespace, "core", "configmap", "app"): e2e.Rendered(t, cm)})
}
