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

package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/manifest"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

const mirrorFolder = "live"

func newMirror(ns, name string, p v1alpha1.MirrorParameters, ref *xpv2.ProviderConfigReference) *v1alpha1.Mirror {
	if p.Branch == "" {
		p.Branch = "main"
	}
	if p.Path == "" {
		p.Path = mirrorFolder
	}
	m := &v1alpha1.Mirror{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.MirrorSpec{ForProvider: p}}
	m.Spec.ProviderConfigReference = ref
	return m
}

func configMap(ns, name string, labels map[string]string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}, Data: data}
}

// rendered is the file a live object becomes: internal/manifest's rendering
// of what the API server holds now.
func rendered(t *testing.T, obj client.Object) string {
	t.Helper()
	if err := cp.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	gvk, err := cp.Client.GroupVersionKindFor(obj)
	if err != nil {
		t.Fatal(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	j, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out, err := manifest.Render(j)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// mirrored is what the folder holds besides the marker and foreign files.
func (f *fixture) mirrored(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, c := range f.files(t, "main") {
		if strings.HasPrefix(p, mirrorFolder+"/") && p != mirrorFolder+"/"+mirrorcontroller.MarkerFile && !strings.HasSuffix(p, ".md") {
			out[p] = c
		}
	}
	return out
}

func (f *fixture) waitMirrored(t *testing.T, want map[string]string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		if diff := cmp.Diff(want, f.mirrored(t)); diff != "" {
			return fmt.Errorf("the folder does not mirror the namespace: -want, +got:\n%s", diff)
		}
		return nil
	})
}

func objPath(ns, group, kind, name string) string {
	return fmt.Sprintf("%s/%s/%s/%s/%s.yaml", mirrorFolder, ns, group, kind, name)
}

func TestMirrorLifecycle(t *testing.T) {
	ctx := context.Background()
	f := newFixtureOf(t, map[string][]testenv.CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n", mirrorFolder + "/notes.md": "kept by people\n"}}},
	})
	startProvider(t, "")
	ns := f.ns

	a := configMap(ns, "a", map[string]string{"app": "demo"}, map[string]string{"k": "1"})
	b := configMap(ns, "b", nil, map[string]string{"k": "2"})
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
		create(t, o)
	}
	// What the Deployment's controller would make, made by hand: envtest
	// runs no controllers. Controlled, so not mirrored.
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "Deployment", Name: dep.Name, UID: dep.UID, Controller: ptr.To(true),
		}}},
		Spec: appsv1.ReplicaSetSpec{Selector: dep.Spec.Selector, Template: dep.Spec.Template},
	}
	create(t, rs)
	seed := f.repo.Head(t, "main")

	m := newMirror(ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{
		{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "apps/v1", Kind: "Deployment"}, {APIVersion: "apps/v1", Kind: "ReplicaSet"},
	}}, pcRef())
	create(t, m)
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))

	want := map[string]string{
		objPath(ns, "core", "configmap", "a"):    rendered(t, a),
		objPath(ns, "core", "configmap", "b"):    rendered(t, b),
		objPath(ns, "apps", "deployment", "web"): rendered(t, dep),
	}
	if diff := cmp.Diff(want, f.mirrored(t)); diff != "" {
		t.Fatalf("the first commit does not hold exactly the sanitized objects (ReplicaSet skipped): -want, +got:\n%s", diff)
	}
	if got := f.files(t, "main")[mirrorFolder+"/notes.md"]; got != "kept by people\n" {
		t.Errorf("a file the Mirror does not own changed: %q", got)
	}
	log := f.repo.Log(t, "main")
	if len(log) < 2 || log[1].SHA != seed {
		t.Errorf("the initial mirror took %d commits, want 1", len(log)-1)
	}
	if m.Status.AtProvider.Objects != 3 || m.Status.AtProvider.Commit != log[0].SHA {
		t.Errorf("atProvider = %+v, want 3 objects and commit %s", m.Status.AtProvider, log[0].SHA)
	}
	if strings.Contains(f.files(t, "main")[objPath(ns, "core", "configmap", "a")], "resourceVersion") {
		t.Errorf("the rendering is not sanitized")
	}

	t.Run("UpdateFollows", func(t *testing.T) {
		a.Data = map[string]string{"k": "changed"}
		if err := cp.Client.Update(ctx, a); err != nil {
			t.Fatal(err)
		}
		want[objPath(ns, "core", "configmap", "a")] = rendered(t, a)
		f.waitMirrored(t, want)
		waitFor(t, time.Minute, m, readyAndCurrent(t, m))
	})

	t.Run("StatusOnlyMakesNoCommit", func(t *testing.T) {
		head := f.repo.Head(t, "main")
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(dep), dep); err != nil {
			t.Fatal(err)
		}
		dep.Status.ObservedGeneration = dep.Generation
		dep.Status.Replicas = 1
		if err := cp.Client.Status().Update(ctx, dep); err != nil {
			t.Fatal(err)
		}
		// A no-op update: the API server keeps the object as it is.
		if err := cp.Client.Update(ctx, b); err != nil {
			t.Fatal(err)
		}
		rv := m.ResourceVersion
		f.stays(t, m, false, "main", head, "a status-only change and a no-op update")
		if err := readyAndCurrent(t, m)(); err != nil {
			t.Error(err)
		}
		if m.ResourceVersion != rv {
			t.Errorf("a converged Mirror's reconciles wrote it (resourceVersion %s, was %s)", m.ResourceVersion, rv)
		}
	})

	t.Run("DeleteRemovesFile", func(t *testing.T) {
		if err := cp.Client.Delete(ctx, b); err != nil {
			t.Fatal(err)
		}
		delete(want, objPath(ns, "core", "configmap", "b"))
		f.waitMirrored(t, want)
		waitFor(t, time.Minute, m, func() error {
			if err := readyAndCurrent(t, m)(); err != nil {
				return err
			}
			if m.Status.AtProvider.Objects != 2 {
				return fmt.Errorf("atProvider.objects = %d, want 2", m.Status.AtProvider.Objects)
			}
			return nil
		})
	})

	t.Run("GitDriftIsPutBack", func(t *testing.T) {
		p := objPath(ns, "core", "configmap", "a")
		if _, err := f.repo.Commit("main", testenv.CommitSpec{Message: "hand edit", Files: map[string]string{p: "edited: by hand\n"}}); err != nil {
			t.Fatal(err)
		}
		f.waitMirrored(t, want)
	})

	outer := t
	t.Run("RestartSweeps", func(t *testing.T) {
		running.stop()
		c := configMap(ns, "c", nil, map[string]string{"k": "3"})
		create(t, c)
		if err := cp.Client.Delete(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(dep), dep); err != nil {
			t.Fatal(err)
		}
		dep.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
		if err := cp.Client.Update(ctx, dep); err != nil {
			t.Fatal(err)
		}
		// The outer test's: a subtest's cleanup would stop it when the
		// subtest ends.
		startProvider(outer, "")
		delete(want, objPath(ns, "core", "configmap", "a"))
		want[objPath(ns, "core", "configmap", "c")] = rendered(t, c)
		want[objPath(ns, "apps", "deployment", "web")] = rendered(t, dep)
		f.waitMirrored(t, want)
		if got := f.files(t, "main")[mirrorFolder+"/notes.md"]; got != "kept by people\n" {
			t.Errorf("a file the Mirror does not own changed: %q", got)
		}
	})

	t.Run("SecondMirrorConflicts", func(t *testing.T) {
		head := f.repo.Head(t, "main")
		second := newMirror(ns, "second", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, pcRef())
		create(t, second)
		waitFor(t, time.Minute, second, stalledWith(t, second, "Conflict"))
		if msg := second.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "Mirror "+ns+"/m,") {
			t.Errorf("Conflict does not name the Mirror created first: %q", msg)
		}
		writesLanded(t)
		if got := f.repo.Head(t, "main"); got != head {
			t.Errorf("a Mirror in conflict wrote to the branch")
		}
		if err := cp.Client.Delete(ctx, second); err != nil {
			t.Fatal(err)
		}
		waitGone(t, second)
		if got := f.repo.Head(t, "main"); got != head {
			t.Errorf("deleting a Mirror in conflict removed another's files")
		}
	})

	t.Run("DeleteRemovesOwnedFiles", func(t *testing.T) {
		if err := cp.Client.Delete(ctx, m); err != nil {
			t.Fatal(err)
		}
		waitGone(t, m)
		if diff := cmp.Diff(map[string]string{mirrorFolder + "/notes.md": "kept by people\n"}, f.files(t, "main")); diff != "" {
			t.Errorf("deleting the Mirror must remove its files and marker only: -want, +got:\n%s", diff)
		}
	})
}

func TestMirrorSelectsAndNeverWritesSecrets(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	startProvider(t, "")
	ns := f.ns
	demo := configMap(ns, "demo", map[string]string{"app": "demo"}, map[string]string{"k": "1"})
	other := configMap(ns, "other", map[string]string{"app": "other"}, map[string]string{"k": "2"})
	const secretValue = "hunter2-never-in-git"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "s", Labels: map[string]string{"app": "demo"}},
		StringData: map[string]string{"password": secretValue}}
	for _, o := range []client.Object{demo, other, secret} {
		create(t, o)
	}
	m := newMirror(ns, "m", v1alpha1.MirrorParameters{
		Resources:     []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "v1", Kind: "Secret"}},
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "demo"}},
	}, pcRef())
	create(t, m)
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))
	f.waitMirrored(t, map[string]string{objPath(ns, "core", "configmap", "demo"): rendered(t, demo)})
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "Secret") {
		t.Errorf("Ready's message does not say Secrets were left out: %q", msg)
	}
	// The label selector follows label changes.
	other.Labels["app"] = "demo"
	if err := cp.Client.Update(ctx, other); err != nil {
		t.Fatal(err)
	}
	f.waitMirrored(t, map[string]string{
		objPath(ns, "core", "configmap", "demo"):  rendered(t, demo),
		objPath(ns, "core", "configmap", "other"): rendered(t, other),
	})
	if out := f.gitOut(t, "log", "-p", "--all"); strings.Contains(out, secretValue) || strings.Contains(out, "aHVudGVyMi") {
		t.Errorf("a Secret's value is in the repository's history")
	}
}

// TestMirrorCommittingIsInProgress: while a Mirror's change waits in its
// branch writer (a long commit window), the live object says Committing and
// kstatus reads it as InProgress, never Failed or Current; once the push
// lands it is Ready and Current.
func TestMirrorCommittingIsInProgress(t *testing.T) {
	f := newFixture(t)
	setWindow(t, f, 15*time.Second)
	startProvider(t, "")
	cm := configMap(f.ns, "app", nil, map[string]string{"k": "1"})
	create(t, cm)
	m := newMirror(f.ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, pcRef())
	create(t, m)
	waitFor(t, time.Minute, m, func() error {
		if err := conditionIs(m, xpv2.TypeReady, corev1.ConditionFalse, mirrorcontroller.ReasonCommitting); err != nil {
			return err
		}
		return kstatusIs(t, m, "InProgress")
	})
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))
	f.waitMirrored(t, map[string]string{objPath(f.ns, "core", "configmap", "app"): rendered(t, cm)})
}
