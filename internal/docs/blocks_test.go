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

package docs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// fragmentMark, as a block's first line, says the block is part of an
// object (a field or two to add to one), not objects to apply: it is only
// parsed as YAML. "# fragment of a Mirror" (a kind of fragmentBases) has
// it merged into a minimal object of that kind, which is dry-run in its
// place, so the fields it shows are checked too.
const fragmentMark = "# fragment"

var fragmentRE = regexp.MustCompile(`^# fragment(?: of an? ([A-Za-z]+))?`)

// fragmentBases are the minimal valid objects a fragment of their kind is
// merged into.
var fragmentBases = map[string]string{
	"Mirror": `apiVersion: git.m.crossplane.io/v1alpha1
kind: Mirror
metadata: {name: fragment, namespace: default}
spec:
  providerConfigRef: {kind: ProviderConfig, name: gitops}
  forProvider:
    branch: main
    path: live
    resources: [{apiVersion: v1, kind: ConfigMap}]
`,
	"ClusterProviderConfig": `apiVersion: git.m.crossplane.io/v1alpha1
kind: ClusterProviderConfig
metadata: {name: fragment}
spec:
  url: https://git.example.org/platform/gitops.git
  credentials:
    source: Secret
    secretRef: {name: git, namespace: crossplane-system}
`,
}

// skipKinds are the kinds, by "apiVersion kind", the docs and examples
// show but the test control plane does not serve, each with why no API
// server the test can start validates them. Any other kind, but the
// composite resources of an XRD they show (skipXR), must pass a dry run.
var skipKinds = map[string]string{
	"kustomize.config.k8s.io/v1beta1 Kustomization": "kustomize's own file in a repository (examples/inplace), read by kustomize, never applied",
	"kustomize.toolkit.fluxcd.io/v1 Kustomization":  "Flux's kind: the test installs no Flux CRDs (no module this repository depends on ships them)",
	"audit.k8s.io/v1 Policy":                        "a file kube-apiserver reads (--audit-policy-file), not an API object",
	"v1 Config":                                     "a kubeconfig file kube-apiserver reads (--audit-webhook-config-file), not an API object",
}

// skipXR is why a composite resource of an XRD the docs or examples show
// is not dry-run: Crossplane makes its CRD from the XRD, and the test runs
// no Crossplane (internal/testharness/crossplanetest renders and applies them).
const skipXR = "a composite resource: its CRD is made by Crossplane, which the test does not run"

// yamlSource is YAML the docs or examples show: a fenced ```yaml block of
// a Markdown file, or a whole example file.
type yamlSource struct {
	File     string
	Line     int // of the block's first line, 1-based; 1 for a file
	Text     string
	Fragment bool
	// Of is the kind a fragment is part of, when it says ("# fragment of
	// a Mirror").
	Of string
}

func (s yamlSource) String() string { return fmt.Sprintf("%s:%d", s.File, s.Line) }

// yamlBlocks returns the ```yaml blocks of a Markdown document. Other
// fences (sh, console, none) are not YAML, and a fence inside one does not
// open a block.
func yamlBlocks(file string, markdown []byte) []yamlSource {
	var out []yamlSource
	var cur *yamlSource
	var body strings.Builder
	fence := ""
	for i, l := range strings.Split(string(markdown), "\n") {
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			if info := strings.TrimSpace(trimmed[3:]); info == "yaml" || info == "yml" {
				cur = &yamlSource{File: file, Line: i + 2}
				body.Reset()
			}
		case fence != "" && strings.HasPrefix(trimmed, fence):
			fence = ""
			if cur != nil {
				cur.Text = body.String()
				cur.Fragment, cur.Of = fragment(cur.Text)
				out = append(out, *cur)
				cur = nil
			}
		case cur != nil:
			body.WriteString(l)
			body.WriteByte('\n')
		}
	}
	return out
}

// docSources returns every ```yaml block of README.md and docs/, and every
// .yaml file under examples/.
func docSources(t *testing.T) []yamlSource {
	t.Helper()
	var out []yamlSource
	for _, f := range markdownFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, yamlBlocks(f, data)...)
	}
	err := filepath.WalkDir(filepath.Join(root, "examples"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := yamlSource{File: p, Line: 1, Text: string(data)}
		s.Fragment, s.Of = fragment(s.Text)
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fragment reports whether text is a fragment, and of which kind.
func fragment(text string) (bool, string) {
	m := fragmentRE.FindStringSubmatch(text)
	if m == nil {
		return false, ""
	}
	return true, m[1]
}

// objects parses s, document by document, strictly (a key twice in one
// mapping is an error: the API server would see only the last). A fragment
// returns its base object with the fragment merged in, or nothing when it
// names no kind; any other document must be an object, with apiVersion
// and kind.
func objects(s yamlSource) ([]*unstructured.Unstructured, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(s.Text)))
	var out []*unstructured.Unstructured
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		js, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
			continue
		}
		if s.Fragment {
			o, err := merged(s.Of, js)
			if err != nil {
				return nil, fmt.Errorf("document %d: %w", i, err)
			}
			if o != nil {
				out = append(out, o)
			}
			continue
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("document %d is not an object with apiVersion and kind (mark a partial block %q): %w", i, fragmentMark, err)
		}
		out = append(out, u)
	}
}

// merged returns fragment, JSON, merged into the base object of kind; nil
// for no kind.
func merged(kind string, fragment []byte) (*unstructured.Unstructured, error) {
	if kind == "" {
		return nil, nil
	}
	base, ok := fragmentBases[kind]
	if !ok {
		return nil, fmt.Errorf("a fragment of a %s: fragmentBases has no %s to merge it into", kind, kind)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(base), &u.Object); err != nil {
		return nil, err
	}
	f := map[string]any{}
	if err := json.Unmarshal(fragment, &f); err != nil {
		return nil, fmt.Errorf("a fragment of a %s must be a mapping: %w", kind, err)
	}
	mergeInto(u.Object, f)
	return u, nil
}

// mergeInto sets every field of src in dst, merging mappings and
// replacing anything else.
func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		sm, sok := v.(map[string]any)
		dm, dok := dst[k].(map[string]any)
		if sok && dok {
			mergeInto(dm, sm)
			continue
		}
		dst[k] = v
	}
}

func TestYAMLBlocks(t *testing.T) {
	cases := map[string]struct {
		reason string
		arg    string
		want   []yamlSource
	}{
		"YAMLOnly": {
			reason: "Only yaml fences are blocks; sh and bare fences are not.",
			arg:    "# T\n```sh\nkubectl apply\n```\n```\nplain\n```\n```yaml\na: 1\n```\n",
			want:   []yamlSource{{File: "f.md", Line: 9, Text: "a: 1\n"}},
		},
		"Fragment": {
			reason: "A block opening with the mark is a fragment.",
			arg:    "```yaml\n# fragment: a Mirror's\nspec: {}\n```\n",
			want:   []yamlSource{{File: "f.md", Line: 2, Text: "# fragment: a Mirror's\nspec: {}\n", Fragment: true}},
		},
		"FragmentOf": {
			reason: "A fragment may name the kind it is part of.",
			arg:    "```yaml\n# fragment of a Mirror\nspec: {}\n```\n",
			want:   []yamlSource{{File: "f.md", Line: 2, Text: "# fragment of a Mirror\nspec: {}\n", Fragment: true, Of: "Mirror"}},
		},
		"Indented": {
			reason: "A block inside a list item is a block too.",
			arg:    "1. Apply:\n   ```yaml\n   a: 1\n   ```\n",
			want:   []yamlSource{{File: "f.md", Line: 3, Text: "   a: 1\n"}},
		},
		"FenceInFence": {
			reason: "A yaml fence inside a longer one opens nothing.",
			arg:    "~~~\n```yaml\na: 1\n```\n~~~\n",
			want:   nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, yamlBlocks("f.md", []byte(tc.arg))); diff != "" {
				t.Errorf("%s\nyamlBlocks: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestObjects(t *testing.T) {
	cases := map[string]struct {
		reason  string
		arg     yamlSource
		want    []string
		wantErr bool
	}{
		"Two":         {reason: "Documents are split at ---.", arg: yamlSource{Text: "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n"}, want: []string{"A", "B"}},
		"Empty":       {reason: "Empty documents are skipped.", arg: yamlSource{Text: "---\n# nothing\n---\napiVersion: v1\nkind: A\n"}, want: []string{"A"}},
		"NoKind":      {reason: "A partial block not marked as a fragment fails.", arg: yamlSource{Text: "spec:\n  mirror: {}\n"}, wantErr: true},
		"Fragment":    {reason: "A fragment is parsed, not returned.", arg: yamlSource{Text: "spec:\n  mirror: {}\n", Fragment: true}},
		"BadFragment": {reason: "A fragment must still be YAML.", arg: yamlSource{Text: "spec: [\n", Fragment: true}, wantErr: true},
		"FragmentOf":  {reason: "A fragment of a kind is merged into its base.", arg: yamlSource{Text: "spec:\n  forProvider: {commit: PerChange}\n", Fragment: true, Of: "Mirror"}, want: []string{"Mirror"}},
		"UnknownBase": {reason: "A fragment of a kind without a base fails.", arg: yamlSource{Text: "spec: {}\n", Fragment: true, Of: "Branch"}, wantErr: true},
		"DupKey":      {reason: "A key twice in a mapping fails.", arg: yamlSource{Text: "apiVersion: v1\nkind: A\nkind: B\n"}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs, err := objects(tc.arg)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nobjects(...): error %v, want error %t", tc.reason, err, tc.wantErr)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.GetKind())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nobjects(...) kinds: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMerged(t *testing.T) {
	cases := map[string]struct {
		reason string
		kind   string
		arg    string
		want   map[string]any
	}{
		"MergesMappings": {
			reason: "A fragment's mapping is merged into the base's: the base's other fields stay.",
			kind:   "Mirror",
			arg:    `{"spec":{"forProvider":{"commit":"PerChange"}}}`,
			want: map[string]any{
				"branch": "main", "path": "live", "commit": "PerChange",
				"resources": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}},
			},
		},
		"ReplacesLists": {
			reason: "A list of the fragment replaces the base's.",
			kind:   "Mirror",
			arg:    `{"spec":{"forProvider":{"resources":[{"apiVersion":"v1","kind":"Secret"}]}}}`,
			want: map[string]any{
				"branch": "main", "path": "live",
				"resources": []any{map[string]any{"apiVersion": "v1", "kind": "Secret"}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u, err := merged(tc.kind, []byte(tc.arg))
			if err != nil {
				t.Fatal(err)
			}
			got, _, _ := unstructured.NestedMap(u.Object, "spec", "forProvider")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nmerged(...).spec.forProvider: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
