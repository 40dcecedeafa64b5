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

package inplace_test

// Mirror e2e: layout InPlace, on the golden repositories of
// internal/mirror/inplace/testdata/repos.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// golden reads a golden repository under folder, with "shop" (the
// namespace its documents name) replaced by ns.
func golden(t *testing.T, name, folder string, replace ...string) map[string]string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "..", "mirror", "inplace", "testdata", "repos", name)
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[folder+"/"+filepath.ToSlash(rel)] = strings.NewReplacer(replace...).Replace(string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// apply creates every object of a YAML file's documents, in namespace ns
// when a document names none.
func apply(t *testing.T, content, ns string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(content)), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		if len(u.Object) == 0 {
			continue
		}
		if u.GetNamespace() == "" {
			u.SetNamespace(ns)
		}
		e2e.Create(t, u)
		out = append(out, u)
	}
}

var inPlaceKinds = []v1alpha1.MirrorResource{
	{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "v1", Kind: "Service"},
	{APIVersion: "v1", Kind: "ServiceAccount"}, {APIVersion: "apps/v1", Kind: "Deployment"},
}

// TestMirrorInPlaceMultiDoc points an InPlace Mirror at hand-written
// multi-document files: adopting them writes nothing but the marker; a
// change in the cluster moves only its lines; a deletion removes only its
// document; a new object gets a file of its own; an object found twice is
// Stalled naming both places until one goes.
func TestMirrorInPlaceMultiDoc(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	ns := f.Namespace
	files := golden(t, "multidoc", e2e.MirrorFolder, "namespace: shop", "namespace: "+ns)
	seed(t, f, files)
	e2e.StartProvider(t, "")
	shop, tools := e2e.MirrorFolder+"/apps/shop.yaml", e2e.MirrorFolder+"/apps/tools.yaml"
	for _, p := range []string{shop, tools} {
		apply(t, files[p], ns)
	}
	m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{Layout: v1alpha1.MirrorLayoutInPlace, Resources: inPlaceKinds}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))

	got := f.Files(t, "main")
	for p, c := range files {
		if got[p] != c {
			t.Errorf("adopting %s changed it: -want +got:\n%s", p, cmp.Diff(c, got[p]))
		}
	}
	if marker := got[e2e.MirrorFolder+"/"+mirrorcontroller.MarkerFile]; !strings.Contains(marker, "file: apps/shop.yaml") || !strings.Contains(marker, "name: robot") {
		t.Errorf("the marker does not record the documents edited in place:\n%s", marker)
	}

	t.Run("ScaleMovesOneLine", func(t *testing.T) {
		dep := &unstructured.Unstructured{}
		dep.SetAPIVersion("apps/v1")
		dep.SetKind("Deployment")
		if err := e2e.CP.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, dep); err != nil {
			t.Fatal(err)
		}
		_ = unstructured.SetNestedField(dep.Object, int64(3), "spec", "replicas")
		if err := e2e.CP.Client.Update(ctx, dep); err != nil {
			t.Fatal(err)
		}
		files[shop] = strings.Replace(files[shop], "replicas: 2 #", "replicas: 3 #", 1)
		waitFile(t, f, shop, files[shop])
	})

	t.Run("DeleteRemovesOneDocument", func(t *testing.T) {
		sa := &corev1.ServiceAccount{}
		sa.Namespace, sa.Name = ns, "robot"
		if err := e2e.CP.Client.Delete(ctx, sa); err != nil {
			t.Fatal(err)
		}
		files[tools], _, _ = strings.Cut(files[tools], "---\n")
		waitFile(t, f, tools, files[tools])
		if got := f.Files(t, "main")[shop]; got != files[shop] {
			t.Errorf("another file moved: %s", cmp.Diff(files[shop], got))
		}
	})

	t.Run("NewObjectGetsItsLayoutFile", func(t *testing.T) {
		cm := e2e.ConfigMap(ns, "extra", nil, map[string]string{"k": "v"})
		e2e.Create(t, cm)
		waitFile(t, f, e2e.ObjPath(ns, "core", "configmap", "extra"), e2e.Rendered(t, cm))
	})

	t.Run("FoundTwiceStalls", func(t *testing.T) {
		dup := e2e.MirrorFolder + "/copy.yaml"
		_, rest, _ := strings.Cut(files[shop], "---\n")
		doc, _, _ := strings.Cut(rest, "---\n")
		if _, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "a copy", Files: map[string]string{dup: doc}}); err != nil {
			t.Fatal(err)
		}
		e2e.ReconciledAgain(t, 1, true, m)
		e2e.WaitFor(t, time.Minute, m, e2e.StalledWith(t, m, mirrorcontroller.ReasonFoundTwice))
		msg := m.GetCondition(xpv2.TypeReady).Message
		if !strings.Contains(msg, "apps/shop.yaml (document 2") || !strings.Contains(msg, "copy.yaml (document 1") {
			t.Errorf("FoundTwice does not name both places: %q", msg)
		}
		if _, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "no copy", Deletes: []string{dup}}); err != nil {
			t.Fatal(err)
		}
		e2e.ReconciledAgain(t, 1, true, m)
		e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	})
}

// seed commits the golden files to the fixture's main, as the team that
// wrote them did.
func seed(t *testing.T, f *e2e.Fixture, files map[string]string) {
	t.Helper()
	if _, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "hand-written manifests", Files: files}); err != nil {
		t.Fatal(err)
	}
	delete(files, e2e.MirrorFolder+"/README.md")
}

func waitFile(t *testing.T, f *e2e.Fixture, p, want string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		if got := f.Files(t, "main")[p]; got != want {
			return errors.New(p + " is not what it should be: -want +got:\n" + cmp.Diff(want, got))
		}
		return nil
	})
}
