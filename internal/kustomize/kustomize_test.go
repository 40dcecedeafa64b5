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
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// golden is the base + two overlays repository the Mirror tests share.
const golden = "../mirror/inplace/testdata/repos/overlays"

// readDir is every YAML file under dir, parsed, by slash path relative to it.
func readDir(t testing.TB, dir string) (Files, map[string]string) {
	t.Helper()
	files, raw := Files{}, map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		f, err := yamledit.Parse(b)
		if err != nil {
			return err
		}
		files[rel], raw[rel] = f, string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, raw
}

func TestBuild(t *testing.T) {
	fs, _ := readDir(t, golden)
	l, err := Build(fs)
	if err != nil {
		t.Fatal(err)
	}
	type obj struct {
		ID       string
		Images   []string
		Replicas string
		File     string
	}
	got := map[string][]obj{}
	for _, r := range l.Roots {
		for _, o := range l.Rendered[r] {
			rep := ""
			if n := child(child(o.Value, "spec"), "replicas"); n != nil {
				rep = n.Value
			}
			got[r] = append(got[r], obj{ID: o.ID.String(), Images: imagesOf(o.Value), Replicas: rep, File: o.File})
		}
	}
	want := map[string][]obj{
		"production/kustomization.yaml": {
			{ID: "apps/Deployment shop-production/web", Images: []string{"ghcr.io/example/web:1.4.0", "envoyproxy/envoy:v1.31.0"}, Replicas: "4", File: "base/deployment.yaml"},
			{ID: "core/Service shop-production/web", File: "base/service.yaml"},
			{ID: "core/ConfigMap shop-production/web-settings", File: "production/settings.yaml"},
		},
		"staging/kustomization.yaml": {
			{ID: "apps/Deployment shop-staging/web", Images: []string{"ghcr.io/example/web:1.5.0-rc.1", "envoyproxy/envoy:v1.31.0"}, Replicas: "1", File: "base/deployment.yaml"},
			{ID: "core/Service shop-staging/web", File: "base/service.yaml"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Build: the overlays render, -want +got:\n%s", diff)
	}
	if !l.Shared("base/deployment.yaml") || l.Shared("production/settings.yaml") {
		t.Errorf("Shared: the base is shared by both overlays, an overlay's own file by none")
	}
}

// rendered is what root renders as id, with set applied (a live object).
func rendered(t *testing.T, l *Layout, root, id string, set func(n *yaml.Node)) (Object, *yaml.Node) {
	t.Helper()
	for _, o := range l.Rendered[root] {
		if o.ID.String() == id {
			live := Copy(o.Value)
			set(live)
			return o, live
		}
	}
	t.Fatalf("%s renders no %s", root, id)
	return Object{}, nil
}

func container(i int, image string) func(*yaml.Node) {
	return func(n *yaml.Node) {
		c := child(child(child(child(n, "spec"), "template"), "spec"), "containers").Content[i]
		child(c, "image").Value = image
	}
}

func replicaCount(v string) func(*yaml.Node) {
	return func(n *yaml.Node) { child(child(n, "spec"), "replicas").Value = v }
}

type anyRule struct{}

func (anyRule) Add([]string) bool { return true }
func (anyRule) Ignore(p []string) bool {
	return len(p) == 2 && p[0] == "metadata" && p[1] == "namespace"
}

func TestChange(t *testing.T) {
	const (
		stg  = "staging/kustomization.yaml"
		prod = "production/kustomization.yaml"
		dep  = "apps/Deployment %s/web"
	)
	fs, raw := readDir(t, golden)
	type args struct {
		root, id string
		set      func(*yaml.Node)
	}
	cases := map[string]struct {
		reason string
		args   args
		want   map[string]string
		err    string
	}{
		"StagingImageEntry": {
			reason: "An image change on staging goes to staging's images entry; the base stays.",
			args:   args{root: stg, id: strings.Replace(dep, "%s", "shop-staging", 1), set: container(0, "ghcr.io/example/web:1.5.0")},
			want:   map[string]string{stg: strings.Replace(raw[stg], "newTag: 1.5.0-rc.1 #", "newTag: 1.5.0 #", 1)},
		},
		"ProductionImageNewEntry": {
			reason: "An image change on production, which has no images entry, creates one there.",
			args:   args{root: prod, id: strings.Replace(dep, "%s", "shop-production", 1), set: container(1, "envoyproxy/envoy:v1.32.1")},
			want:   map[string]string{prod: raw[prod] + "images:\n  - name: envoyproxy/envoy\n    newTag: v1.32.1\n"},
		},
		"ProductionReplicasEntry": {
			reason: "A replica change on production moves its replicas entry's count, comment kept.",
			args:   args{root: prod, id: strings.Replace(dep, "%s", "shop-production", 1), set: replicaCount("6")},
			want:   map[string]string{prod: strings.Replace(raw[prod], "count: 4   #", "count: 6   #", 1)},
		},
		"StagingReplicasNewEntry": {
			reason: "A replica change on staging, which has no replicas entry, creates one there; the base's replicas stay.",
			args:   args{root: stg, id: strings.Replace(dep, "%s", "shop-staging", 1), set: replicaCount("2")},
			want:   map[string]string{stg: raw[stg] + "replicas:\n  - name: web\n    count: 2\n"},
		},
		"OwnDocument": {
			reason: "A change to a document only production renders is made in that document.",
			args: args{root: prod, id: "core/ConfigMap shop-production/web-settings", set: func(n *yaml.Node) {
				child(child(n, "data"), "log-level").Value = "debug"
			}},
			want: map[string]string{"production/settings.yaml": strings.Replace(raw["production/settings.yaml"], "warn", "debug", 1)},
		},
		"SharedOtherField": {
			reason: "Any other change to a document of the shared base has no modelled place: refused by name.",
			args: args{root: stg, id: "core/Service shop-staging/web", set: func(n *yaml.Node) {
				child(child(n, "spec"), "ports").Content[0].Content[1].Value = "81"
			}},
			err: "base/service.yaml uses a change of core/Service shop-staging/web other than its images and replicas",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l, err := Build(fs)
			if err != nil {
				t.Fatal(err)
			}
			o, live := rendered(t, l, tc.args.root, tc.args.id, tc.args.set)
			edits, after, err := l.Change(tc.args.root, o, live, anyRule{})
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("\n%s\nChange(...): error %v, want one starting %q", tc.reason, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("\n%s\nChange(...): %v", tc.reason, err)
			}
			got := map[string]string{}
			for f, b := range edits {
				got[f] = string(b)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nChange(...): -want, +got:\n%s", tc.reason, diff)
			}
			if a, ok := after.Object(tc.args.root, o.ID); !ok || !yamledit.Same(anyRule{}, a.Value, live) {
				t.Errorf("\n%s\nChange(...): the layout after it does not render the live object", tc.reason)
			}
		})
	}
}

func TestUnsupported(t *testing.T) {
	base := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cm.yaml\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	cases := map[string]struct {
		reason  string
		extra   string
		feature string
	}{
		"ConfigMapGenerator": {reason: "Generators make objects no document holds.", extra: "configMapGenerator:\n- name: x\n  literals: [a=b]\n", feature: "configMapGenerator"},
		"SecretGenerator":    {reason: "Generators make objects no document holds.", extra: "secretGenerator:\n- name: x\n", feature: "secretGenerator"},
		"Components":         {reason: "Components are not modelled.", extra: "components:\n- ../c\n", feature: "components"},
		"NamePrefix":         {reason: "A prefix changes names, so identities.", extra: "namePrefix: p-\n", feature: "namePrefix"},
		"NameSuffix":         {reason: "A suffix changes names, so identities.", extra: "nameSuffix: -s\n", feature: "nameSuffix"},
		"Replacements":       {reason: "Replacements copy values between objects.", extra: "replacements:\n- source: {kind: ConfigMap}\n", feature: "replacements"},
		"Vars":               {reason: "Vars copy values between objects.", extra: "vars:\n- name: V\n", feature: "vars"},
		"HelmCharts":         {reason: "Helm charts render what no document holds.", extra: "helmCharts:\n- name: c\n", feature: "helmCharts"},
		"Transformers":       {reason: "Plugins run code.", extra: "transformers:\n- t.yaml\n", feature: "transformers"},
		"Generators":         {reason: "Plugins run code.", extra: "generators:\n- g.yaml\n", feature: "generators"},
		"JSON6902":           {reason: "JSON 6902 patches are not modelled.", extra: "patchesJson6902:\n- path: p.yaml\n", feature: "patchesJson6902"},
		"InlinePatches":      {reason: "Patches are not modelled.", extra: "patches:\n- patch: |-\n    - op: remove\n      path: /x\n", feature: "patches"},
		"StrategicMerge":     {reason: "Patches are not modelled.", extra: "patchesStrategicMerge:\n- p.yaml\n", feature: "patchesStrategicMerge"},
		"RemoteBase":         {reason: "A remote base is outside the repository.", extra: "bases:\n- github.com/example/repo//base?ref=v1\n", feature: "the remote base github.com/example/repo//base?ref=v1"},
		"RemoteURL":          {reason: "A remote resource is outside the repository.", extra: "resources:\n- https://example.org/x.yaml\n", feature: "the remote base https://example.org/x.yaml"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k := base + tc.extra
			if strings.HasPrefix(tc.extra, "resources:") {
				k = strings.Replace(base, "resources:\n- cm.yaml\n", tc.extra, 1)
			}
			fs := Files{}
			for p, c := range map[string]string{"app/kustomization.yaml": k, "app/cm.yaml": cm} {
				f, err := yamledit.Parse([]byte(c))
				if err != nil {
					t.Fatal(err)
				}
				fs[p] = f
			}
			_, err := Build(fs)
			want := &UnsupportedError{Feature: tc.feature, File: "app/kustomization.yaml"}
			if diff := cmp.Diff(want.Error(), errString(err)); diff != "" {
				t.Errorf("\n%s\nBuild(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
