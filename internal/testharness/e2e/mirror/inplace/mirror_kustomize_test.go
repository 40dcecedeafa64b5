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

// Mirror e2e: layout InPlace over a kustomize base and two overlays.

import (
	"context"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/manifest"
	"github.com/crossplane-contrib/provider-git/internal/mirror/inplace"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// build renders the overlay at dir of the folder's files with kustomize.
func build(t *testing.T, files map[string]string, dir string) []*unstructured.Unstructured {
	t.Helper()
	mem := filesys.MakeFsInMemory()
	for p, c := range files {
		if err := mem.WriteFile("/"+p, []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(mem, "/"+dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, r := range res.Resources() {
		m, err := r.Map()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
	return out
}

// grantedConfig is a ClusterProviderConfig for f's repository that lets
// Mirrors of f's namespace read namespaces labelled for it.
func grantedConfig(t *testing.T, f *e2e.Fixture, label string) *xpv2.ProviderConfigReference {
	t.Helper()
	cpc := &v1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: f.Namespace},
		Spec: v1alpha1.ClusterProviderConfigSpec{
			URL: e2e.HTTPGit.RepoURL(f.Namespace + ".git"),
			Credentials: v1alpha1.ClusterProviderCredentials{Source: xpv2.CredentialsSourceSecret,
				SecretRef: &v1alpha1.CredentialsSecretRef{Namespace: f.Namespace, Name: "git-credentials"}},
			Mirror: &v1alpha1.MirrorPolicy{MirrorNamespaces: []string{f.Namespace},
				SourceNamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"mirror": label}}},
		},
	}
	e2e.Create(t, cpc)
	t.Cleanup(func() { _ = e2e.CP.Client.Delete(context.Background(), cpc) })
	return &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: cpc.Name}
}

// liveMatches fails unless every object the overlays render is live as
// rendered, under the rule a Mirror keeps documents by.
func liveMatches(t *testing.T, files map[string]string, folder string) error {
	t.Helper()
	for _, dir := range []string{"staging", "production"} {
		for _, r := range build(t, files, path.Join(folder, dir)) {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(r.GroupVersionKind())
			if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(r), u); err != nil {
				return err
			}
			j, _ := u.MarshalJSON()
			lb, err := manifest.Render(j)
			if err != nil {
				return err
			}
			rj, _ := r.MarshalJSON()
			rb, _ := manifest.Render(rj)
			liveN, _ := yamledit.ParseValue(lb)
			rendN, _ := yamledit.ParseValue(rb)
			if !yamledit.Same(inplace.FieldRule{}, rendN, liveN) {
				return fmt.Errorf("kustomize build %s renders %s/%s as\n%s\nbut it is live as\n%s", dir, r.GetNamespace(), r.GetName(), rb, lb)
			}
		}
	}
	return nil
}

func TestMirrorInPlaceKustomize(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	ref := grantedConfig(t, f, f.Namespace)
	var nss []string
	for _, env := range []string{"staging", "production"} {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-" + env + "-", Labels: map[string]string{"mirror": f.Namespace}}}
		e2e.Create(t, n)
		nss = append(nss, n.Name)
	}
	stg, prod := nss[0], nss[1]
	folder := e2e.MirrorFolder
	files := golden(t, "overlays", folder, "namespace: shop-staging", "namespace: "+stg, "namespace: shop-production", "namespace: "+prod)
	seed(t, f, files)
	for _, dir := range []string{"staging", "production"} {
		for _, u := range build(t, files, path.Join(folder, dir)) {
			e2e.Create(t, u)
		}
	}
	e2e.StartProvider(t, "")
	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Layout: v1alpha1.MirrorLayoutInPlace, SourceNamespaces: nss, Resources: []v1alpha1.MirrorResource{
		{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "v1", Kind: "Service"}, {APIVersion: "apps/v1", Kind: "Deployment"},
	}}, ref)
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	for p, c := range files {
		if got := f.Files(t, "main")[p]; got != c {
			t.Errorf("adopting the layout changed %s:\n%s", p, got)
		}
	}
	deployment := func(ns string, edit func(u *unstructured.Unstructured)) {
		t.Helper()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
		if err := e2e.CP.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, u); err != nil {
			t.Fatal(err)
		}
		edit(u)
		if err := e2e.CP.Client.Update(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	stgK, prodK, base := folder+"/staging/kustomization.yaml", folder+"/production/kustomization.yaml", folder+"/base/deployment.yaml"

	t.Run("ImageGoesToTheOverlaysEntry", func(t *testing.T) {
		deployment(stg, func(u *unstructured.Unstructured) {
			cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
			cs[0].(map[string]any)["image"] = "ghcr.io/example/web:1.5.0"
			_ = unstructured.SetNestedSlice(u.Object, cs, "spec", "template", "spec", "containers")
		})
		files[stgK] = strings.Replace(files[stgK], "newTag: 1.5.0-rc.1 #", "newTag: 1.5.0 #", 1)
		waitFile(t, f, stgK, files[stgK])
		if got := f.Files(t, "main")[base]; got != files[base] {
			t.Errorf("the shared base moved:\n%s", got)
		}
		if err := liveMatches(t, f.Files(t, "main"), folder); err != nil {
			t.Error(err)
		}
	})

	t.Run("ReplicasGoToTheOverlaysEntry", func(t *testing.T) {
		deployment(prod, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, int64(6), "spec", "replicas")
		})
		files[prodK] = strings.Replace(files[prodK], "count: 4   #", "count: 6   #", 1)
		waitFile(t, f, prodK, files[prodK])
		if err := liveMatches(t, f.Files(t, "main"), folder); err != nil {
			t.Error(err)
		}
	})

	t.Run("NewObjectIsANewResourceInOneCommit", func(t *testing.T) {
		head := f.Repo.Head(t, "main")
		cm := e2e.ConfigMap(stg, "extra", nil, map[string]string{"k": "v"})
		e2e.Create(t, cm)
		file := folder + "/staging/configmap-extra.yaml"
		waitFile(t, f, file, e2e.Rendered(t, cm))
		got := f.Files(t, "main")[stgK]
		if !strings.Contains(got, "- configmap-extra.yaml") {
			t.Errorf("the new file is not in staging's resources:\n%s", got)
		}
		log := f.Repo.Log(t, "main")
		if len(log) < 2 || log[1].SHA != head {
			t.Errorf("the new file and its resources entry took more than one commit")
		}
		if err := liveMatches(t, f.Files(t, "main"), folder); err != nil {
			t.Error(err)
		}
	})
}

// TestMirrorInPlaceUnsupportedLayout seeds layouts using each refused
// feature: the Mirror is Stalled UnsupportedLayout naming it and its file,
// and the repository is not touched.
func TestMirrorInPlaceUnsupportedLayout(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n"
	cases := map[string]struct {
		extra, feature string
	}{
		"Generator":  {extra: "configMapGenerator:\n- name: gen\n  literals: [a=b]\n", feature: "configMapGenerator"},
		"Components": {extra: "components:\n- ../c\n", feature: "components"},
		"NamePrefix": {extra: "namePrefix: p-\n", feature: "namePrefix"},
		"Patches":    {extra: "patches:\n- patch: |-\n    - op: remove\n      path: /data\n  target: {kind: ConfigMap}\n", feature: "patches"},
		"RemoteBase": {extra: "resources:\n- https://github.com/example/repo//base?ref=v1\n", feature: "the remote base"},
	}
	// Every layout is seeded, each in a repository of its own, before the
	// provider starts; then the cases run at once.
	fixtures := map[string]*e2e.Fixture{}
	for name, tc := range cases {
		f := e2e.NewFixture(t)
		k := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
		if !strings.HasPrefix(tc.extra, "resources:") {
			k += "resources:\n- cm.yaml\n"
		}
		k += tc.extra
		seed(t, f, map[string]string{e2e.MirrorFolder + "/app/kustomization.yaml": k, e2e.MirrorFolder + "/app/cm.yaml": cm})
		fixtures[name] = f
	}
	e2e.StartProvider(t, "")
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := fixtures[name]
			e2e.Create(t, e2e.ConfigMap(f.Namespace, "a", nil, map[string]string{"k": "v"}))
			head := f.Repo.Head(t, "main")
			m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Layout: v1alpha1.MirrorLayoutInPlace,
				Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
			e2e.Create(t, m)
			e2e.WaitFor(t, time.Minute, m, e2e.StalledWith(t, m, mirrorcontroller.ReasonUnsupportedLayout))
			msg := m.GetCondition(xpv2.TypeReady).Message
			if !strings.Contains(msg, tc.feature) || !strings.Contains(msg, e2e.MirrorFolder+"/app/kustomization.yaml uses") {
				t.Errorf("UnsupportedLayout does not name the feature and the file by its path in the repository: %q", msg)
			}
			e2e.WritesLanded(t)
			if got := f.Repo.Head(t, "main"); got != head {
				t.Errorf("a Mirror refusing the layout wrote to the repository")
			}
		})
	}
}
