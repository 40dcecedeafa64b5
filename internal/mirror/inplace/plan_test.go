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

package inplace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-git/internal/manifest"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// repo reads a golden repository: its files by slash path, and an index of
// them.
func repo(t *testing.T, name string) (map[string]string, *Index) {
	t.Helper()
	dir := filepath.Join("testdata", "repos", name)
	raw := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		raw[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	x := NewIndex()
	blobs := map[string]string{}
	for p, c := range raw {
		blobs[p] = "blob-" + c
	}
	if err := x.Update(blobs, func(rel string) ([]byte, error) { return []byte(raw[rel]), nil }); err != nil {
		t.Fatal(err)
	}
	return raw, x
}

// live is the object as the cluster would serve it: doc, in namespace ns,
// with defaults the API server fills in, changed by edit.
func live(t *testing.T, doc, ns string, edit func(u *unstructured.Unstructured)) mirror.Object {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	if ns != "" {
		u.SetNamespace(ns)
	}
	u.SetUID("0000")
	u.SetResourceVersion("42")
	if u.GetKind() == "Deployment" {
		_ = unstructured.SetNestedField(u.Object, int64(600), "spec", "progressDeadlineSeconds")
		_ = unstructured.SetNestedField(u.Object, "ClusterFirst", "spec", "template", "spec", "dnsPolicy")
	}
	if edit != nil {
		edit(u)
	}
	j, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	c, err := manifest.Render(j)
	if err != nil {
		t.Fatal(err)
	}
	gvk := u.GroupVersionKind()
	return mirror.Object{Path: mirror.Path(gvk, u.GetNamespace(), u.GetName()), Content: c, GVK: gvk, Namespace: u.GetNamespace(), Name: u.GetName()}
}

// docOf is document i of file in raw.
func docOf(t *testing.T, raw map[string]string, file string, i int) string {
	t.Helper()
	f, err := yamledit.Parse([]byte(raw[file]))
	if err != nil {
		t.Fatal(err)
	}
	return raw[file][f.Docs[i].Start:f.Docs[i].End]
}

func TestPlanInPlaceMultiDoc(t *testing.T) {
	raw, _ := repo(t, "multidoc")
	shop := "apps/shop.yaml"
	all := func(edit map[string]func(*unstructured.Unstructured), skip string) []mirror.Object {
		var out []mirror.Object
		for _, d := range []struct {
			file string
			i    int
			name string
		}{{shop, 0, "config"}, {shop, 1, "deployment"}, {shop, 2, "service"}, {"apps/tools.yaml", 0, "flags"}, {"apps/tools.yaml", 1, "robot"}} {
			if d.name == skip {
				continue
			}
			out = append(out, live(t, docOf(t, raw, d.file, d.i), "", edit[d.name]))
		}
		return out
	}
	found := []DocRef{
		{File: shop, Kind: "ConfigMap", Namespace: "shop", Name: "web-config"},
		{File: shop, Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "web"},
		{File: shop, Kind: "Service", Namespace: "shop", Name: "web"},
		{File: "apps/tools.yaml", Kind: "ConfigMap", Namespace: "shop", Name: "feature-flags"},
		{File: "apps/tools.yaml", Kind: "ServiceAccount", Namespace: "shop", Name: "robot"},
	}
	SortDocs(found)
	type want struct {
		puts    map[string]string
		deletes []string
		docs    []DocRef
		err     string
	}
	cases := map[string]struct {
		reason string
		objs   []mirror.Object
		owned  []DocRef
		want   want
	}{
		"Steady": {
			reason: "Live objects equal to their documents (defaults aside) change nothing; every document found is owned.",
			objs:   all(nil, ""),
			want:   want{puts: map[string]string{}, docs: found},
		},
		"Scaled": {
			reason: "A scaled Deployment moves only its replicas line in the three-document file.",
			objs: all(map[string]func(*unstructured.Unstructured){"deployment": func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, int64(5), "spec", "replicas")
			}}, ""),
			want: want{puts: map[string]string{shop: strings.Replace(raw[shop], "replicas: 2 #", "replicas: 5 #", 1)}, docs: found},
		},
		"Deleted": {
			reason: "An owned document whose object is gone is removed from its file, and only it.",
			objs:   all(nil, "robot"),
			owned:  found,
			want:   want{puts: map[string]string{"apps/tools.yaml": docOf(t, raw, "apps/tools.yaml", 0)}, docs: found[:len(found)-1]},
		},
		"NotOwnedStays": {
			reason: "A document the Mirror never adopted stays when no object matches it.",
			objs:   all(nil, "robot"),
			want:   want{puts: map[string]string{}, docs: found[:len(found)-1]},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, x := repo(t, "multidoc")
			p, err := x.Plan(Mirror{Path: ".", Namespace: "shop", Prune: true}, tc.objs, tc.owned)
			got := want{puts: map[string]string{}, deletes: p.Deletes, docs: p.Docs}
			if err != nil {
				got.err = err.Error()
			}
			for f, b := range p.Puts {
				got.puts[f] = string(b)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nPlan(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPlanInPlaceFoundTwice(t *testing.T) {
	raw, x := repo(t, "multidoc")
	dup := docOf(t, raw, "apps/tools.yaml", 1)
	if err := x.Update(map[string]string{"apps/shop.yaml": "blob-" + raw["apps/shop.yaml"], "apps/tools.yaml": "blob-" + raw["apps/tools.yaml"], "copy.yaml": "dup"},
		func(string) ([]byte, error) { return []byte(dup), nil }); err != nil {
		t.Fatal(err)
	}
	_, err := x.Plan(Mirror{Path: ".", Namespace: "shop", Prune: true}, []mirror.Object{live(t, dup, "", nil)}, nil)
	var twice *FoundTwiceError
	if !errors.As(err, &twice) {
		t.Fatalf("Plan: %v, want FoundTwiceError", err)
	}
	want := "ServiceAccount shop/robot is found twice in the folder, in apps/tools.yaml (document 2, line 10) and in copy.yaml (document 1, line 1): keep one of them"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Plan: the error names both places, -want +got:\n%s", diff)
	}
}

// TestExamplesAreGolden keeps examples/inplace the repositories these
// tests use, byte for byte, so the documented outcomes are the tested ones.
func TestExamplesAreGolden(t *testing.T) {
	for _, name := range []string{"multidoc", "overlays"} {
		want, _ := repo(t, name)
		got := map[string]string{}
		dir := filepath.Join("..", "..", "..", "examples", "inplace", name)
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			got[filepath.ToSlash(rel)] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("examples/inplace/%s is not internal/mirror/inplace/testdata/repos/%s: -testdata +examples:\n%s", name, name, diff)
		}
	}
}

// overlaysLive is every object the golden overlays render, as live
// objects, with edit applied to the one named id.
func overlaysLive(t *testing.T, x *Index, edits map[string]func(u *unstructured.Unstructured)) []mirror.Object {
	t.Helper()
	l, err := x.kustomizations()
	if err != nil {
		t.Fatal(err)
	}
	var out []mirror.Object
	for _, root := range l.Roots {
		for _, o := range l.Rendered[root] {
			b, err := yamlv3Marshal(o.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, live(t, string(b), "", edits[o.ID.String()]))
		}
	}
	return out
}

func TestPlanInPlaceOverlays(t *testing.T) {
	raw, _ := repo(t, "overlays")
	const (
		stgK  = "staging/kustomization.yaml"
		prodK = "production/kustomization.yaml"
	)
	image := func(i int, v string) func(*unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) {
			cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
			cs[i].(map[string]any)["image"] = v
			_ = unstructured.SetNestedSlice(u.Object, cs, "spec", "template", "spec", "containers")
		}
	}
	type want struct {
		puts    map[string]string
		deletes []string
		created []string
	}
	cases := map[string]struct {
		reason string
		edits  map[string]func(*unstructured.Unstructured)
		extra  []mirror.Object
		drop   string
		owned  []DocRef
		want   want
	}{
		"Steady": {
			reason: "Live objects equal to what the overlays render change nothing.",
			want:   want{puts: map[string]string{}},
		},
		"StagingImage": {
			reason: "An image change on staging goes to staging's images entry.",
			edits:  map[string]func(*unstructured.Unstructured){"apps/Deployment shop-staging/web": image(0, "ghcr.io/example/web:1.5.0")},
			want:   want{puts: map[string]string{stgK: strings.Replace(raw[stgK], "1.5.0-rc.1", "1.5.0", 1)}},
		},
		"NewObject": {
			reason: "A new object of staging's namespace is a new file of staging, in its resources.",
			extra:  []mirror.Object{live(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: shop-staging\ndata:\n  k: v\n", "", nil)},
			want: want{puts: map[string]string{
				stgK:                           strings.Replace(raw[stgK], "- ../base\n", "- ../base\n- configmap-extra.yaml\n", 1),
				"staging/configmap-extra.yaml": "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: shop-staging\n",
			}, created: []string{"staging/configmap-extra.yaml"}},
		},
		"OwnedDeleted": {
			reason: "An owned object of production's own file is removed with its file and its resources entry.",
			drop:   "core/ConfigMap shop-production/web-settings",
			owned:  []DocRef{{File: "production/settings.yaml", Kind: "ConfigMap", Namespace: "shop-production", Name: "web-settings"}},
			want: want{
				puts:    map[string]string{prodK: strings.Replace(raw[prodK], "  - settings.yaml\n", "", 1)},
				deletes: []string{"production/settings.yaml"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, x := repo(t, "overlays")
			var objs []mirror.Object
			for _, o := range overlaysLive(t, x, tc.edits) {
				id := yamledit.ID{Group: o.GVK.Group, Kind: o.GVK.Kind, Namespace: o.Namespace, Name: o.Name}
				if id.String() != tc.drop {
					objs = append(objs, o)
				}
			}
			objs = append(objs, tc.extra...)
			p, err := x.Plan(Mirror{Path: ".", Namespace: "shop", Prune: true}, objs, tc.owned)
			if err != nil {
				t.Fatalf("\n%s\nPlan(...): %v", tc.reason, err)
			}
			got := want{puts: map[string]string{}, deletes: p.Deletes, created: p.Created}
			for f, b := range p.Puts {
				got.puts[f] = string(b)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nPlan(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func yamlv3Marshal(n *yamlv3.Node) ([]byte, error) { return yamlv3.Marshal(n) }
