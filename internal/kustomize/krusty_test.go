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

package kustomize

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// The renderer is tested against kustomize itself (krusty, in tests only:
// it would add about 19 MiB to the provider binary). For the golden layout
// and a fuzzed corpus of layouts within the modelled subset, every root
// renders the same objects with the same content.

// krustyBuild renders root (a kustomization file) with kustomize, in
// memory, by identity.
func krustyBuild(t testing.TB, raw map[string]string, root string) (map[string]any, error) {
	t.Helper()
	mem := filesys.MakeFsInMemory()
	for p, c := range raw {
		if err := mem.WriteFile("/"+p, []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	opts := krusty.MakeDefaultOptions()
	res, err := krusty.MakeKustomizer(opts).Run(mem, "/"+path.Dir(root))
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, r := range res.Resources() {
		m, err := r.Map()
		if err != nil {
			t.Fatal(err)
		}
		g := r.GetGvk().Group
		id := yamledit.ID{Group: g, Kind: r.GetKind(), Namespace: r.GetNamespace(), Name: r.GetName()}
		out[id.String()] = m
	}
	return out, nil
}

// ours renders root with this package, by identity.
func ours(t testing.TB, raw map[string]string, root string) (map[string]any, error) {
	t.Helper()
	fs := Files{}
	for p, c := range raw {
		f, err := yamledit.Parse([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		fs[p] = f
	}
	objs, err := Render(fs, root)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, o := range objs {
		var v map[string]any
		if err := o.Value.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out[o.ID.String()] = v
	}
	return out, nil
}

// sameAsKustomize fails t when root renders differently. Either both
// renderers fail or both give the same objects.
func sameAsKustomize(t *testing.T, raw map[string]string, root string) {
	t.Helper()
	want, kerr := krustyBuild(t, raw, root)
	got, err := ours(t, raw, root)
	if kerr != nil && err != nil {
		// Both refuse: that a Mirror refuses a layout kustomize cannot
		// build either is what matters, not the words.
		return
	}
	if (kerr != nil) != (err != nil) {
		t.Fatalf("%s: kustomize says %v, this package says %v\n%s", root, kerr, err, show(raw))
	}
	if diff := cmp.Diff(normalize(want), normalize(got)); diff != "" {
		t.Fatalf("%s renders differently from kustomize, -kustomize +ours:\n%s\n%s", root, diff, show(raw))
	}
}

func normalize(v any) any { return Normalize(v) }

func show(raw map[string]string) string {
	var b strings.Builder
	for p, c := range raw {
		fmt.Fprintf(&b, "--- %s\n%s", p, c)
	}
	return b.String()
}

func TestGoldenMatchesKustomize(t *testing.T) {
	fs, raw := readDir(t, golden)
	l, err := Build(fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range l.Roots {
		t.Run(root, func(t *testing.T) { sameAsKustomize(t, raw, root) })
	}
}

// images the fuzzed layouts use: registries with ports, tags, digests.
var fuzzImages = []string{
	"nginx", "nginx:1.25", "ghcr.io/example/web:1.4.0", "localhost:5000/app", "localhost:5000/app:v2",
	"example.org/team/app@sha256:" + strings.Repeat("a", 64), "busybox:1.36@sha256:" + strings.Repeat("b", 64), "nginxx:1",
}

var fuzzEntries = []Image{
	{Name: "nginx", NewTag: "1.27"}, {Name: "nginx", NewName: "mirror.example.org/nginx"},
	{Name: "ghcr.io/example/web", NewTag: "2.0.0"}, {Name: "localhost:5000/app", NewName: "registry.example.org/app", NewTag: "v3"},
	{Name: "busybox", Digest: "sha256:" + strings.Repeat("c", 64)}, {Name: "example.org/team/app", NewTag: "t", Digest: "sha256:" + strings.Repeat("d", 64)},
	{Name: "nginx", NewName: "nginx", NewTag: "stable"},
}

var fuzzKinds = []string{"Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job", "CronJob", "Pod", "ConfigMap", "Namespace", "ClusterRole"}

// layoutOf builds a base + overlay layout from the fuzzer's bytes: which
// kinds the base holds and with which images, whether each kustomization
// sets a namespace, which images and replicas entries it has.
func layoutOf(data []byte) (map[string]string, []string) {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := int(data[0])
		data = data[1:]
		return b
	}
	var docs []string
	var names []string
	for i, n := 0, 1+next()%4; i < n; i++ {
		kind := fuzzKinds[next()%len(fuzzKinds)]
		name := fmt.Sprintf("obj%d", i)
		names = append(names, name)
		docs = append(docs, objectYAML(kind, name, fuzzImages[next()%len(fuzzImages)], fuzzImages[next()%len(fuzzImages)], next()%3 == 0))
	}
	kust := func(resources []string, dataNS bool) string {
		var b strings.Builder
		b.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n")
		for _, r := range resources {
			b.WriteString("- " + r + "\n")
		}
		if dataNS {
			fmt.Fprintf(&b, "namespace: ns%d\n", next()%3)
		}
		if n := next() % 3; n > 0 {
			b.WriteString("images:\n")
			for i := 0; i < n; i++ {
				e := fuzzEntries[next()%len(fuzzEntries)]
				b.WriteString("- name: " + e.Name + "\n")
				for _, kv := range [][2]string{{"newName", e.NewName}, {"newTag", e.NewTag}, {"digest", e.Digest}} {
					if kv[1] != "" {
						b.WriteString("  " + kv[0] + ": " + strconv.Quote(kv[1]) + "\n")
					}
				}
			}
		}
		if n := next() % 3; n > 0 && len(names) > 0 {
			b.WriteString("replicas:\n")
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, "- name: %s\n  count: %d\n", names[next()%len(names)], next()%10)
			}
		}
		return b.String()
	}
	raw := map[string]string{
		"base/objects.yaml":       strings.Join(docs, "---\n"),
		"base/kustomization.yaml": kust([]string{"objects.yaml"}, next()%2 == 0),
	}
	raw["overlay/kustomization.yaml"] = kust([]string{"../base"}, next()%2 == 0)
	return raw, []string{"base/kustomization.yaml", "overlay/kustomization.yaml"}
}

func objectYAML(kind, name, image, init string, ns bool) string {
	meta := "metadata:\n  name: " + name + "\n"
	if ns {
		meta += "  namespace: preset\n"
	}
	pod := "containers:\n- name: main\n  image: " + image + "\ninitContainers:\n- name: init\n  image: " + init + "\n"
	indent := func(s string, n int) string {
		pad := strings.Repeat(" ", n)
		return pad + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pad) + "\n"
	}
	switch kind {
	case "Deployment", "StatefulSet", "ReplicaSet", "DaemonSet":
		return "apiVersion: apps/v1\nkind: " + kind + "\n" + meta + "spec:\n  template:\n    spec:\n" + indent(pod, 6)
	case "Job":
		return "apiVersion: batch/v1\nkind: Job\n" + meta + "spec:\n  template:\n    spec:\n" + indent(pod, 6)
	case "CronJob":
		return "apiVersion: batch/v1\nkind: CronJob\n" + meta + "spec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n" + indent(pod, 10)
	case "Pod":
		return "apiVersion: v1\nkind: Pod\n" + meta + "spec:\n" + indent(pod, 2)
	case "ConfigMap":
		return "apiVersion: v1\nkind: ConfigMap\n" + meta + "data:\n  image: " + image + "\n"
	case "Namespace":
		return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n"
	}
	return "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: " + name + "\nrules: []\n"
}

// FuzzRenderMatchesKustomize renders fuzzed layouts of the modelled subset
// with kustomize and with this package: they must agree on every object.
func FuzzRenderMatchesKustomize(f *testing.F) {
	for _, s := range []string{"", "\x03\x00\x01\x02\x05\x01\x02\x02\x03\x01\x01\x02\x04", "\x00\x02\x03\x07\x00\x01\x01\x06\x02\x00\x01\x02\x02\x05", "\x02\x04\x05\x06\x08\x09\x01\x00\x02\x03\x04\x05\x06\x01\x01"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, roots := layoutOf(data)
		for _, root := range roots {
			sameAsKustomize(t, raw, root)
		}
	})
}

// TestVerify: the golden layout verifies against kustomize; a layout whose
// model renders one value differently does not.
func TestVerify(t *testing.T) {
	fs, _ := readDir(t, golden)
	l, err := Build(fs)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Verify(); err != nil {
		t.Fatalf("Verify: the golden layout renders as kustomize renders it, got %v", err)
	}
	root := l.Roots[0]
	child(child(l.Rendered[root][0].Value, "metadata"), "name").Value = "renamed"
	want := &UnsupportedError{Feature: "a layout kustomize renders differently from this provider's model of it", File: root}
	if diff := cmp.Diff(want.Error(), errString(l.Verify())); diff != "" {
		t.Errorf("Verify: a model that renders differently must fail, -want +got:\n%s", diff)
	}
}
