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

package crossplanetest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Authoring checks: what a Composition author runs before anything reaches a
// cluster, `crossplane composition render` and `crossplane resource
// validate`, on every example this repository ships.

// renderTimeout bounds one render or validate run of the CLI.
const renderTimeout = 2 * time.Minute

// startRenderFunction runs function-patch-and-transform without TLS, as
// `crossplane composition render` reaches a Development-runtime function, and
// returns its address.
func startRenderFunction(t testing.TB, tl tools) string {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	p := start(t, "function-patch-and-transform", tl.function, nil, "--insecure", "--address="+addr)
	testenv.Eventually(t, time.Minute, func() error {
		if err := p.exited(); err != nil {
			return err
		}
		return listening(addr)()
	})
	return addr
}

// render renders xr with the Composition and functions of an example
// folder, the function reached at fnAddr, and returns the rendered objects:
// the XR first (in full, -x), then the composed resources.
func render(t testing.TB, tl tools, fnAddr string, ex example, xr string) []*unstructured.Unstructured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
	defer cancel()
	stdout, stderr, err := run(ctx, tl.cli, nil, "composition", "render", xr, ex.composition, ex.functions,
		"--xrd="+ex.definition,
		"--crossplane-binary="+tl.core,
		"--include-full-xr",
		"--function-annotations=render.crossplane.io/runtime=Development",
		"--function-annotations=render.crossplane.io/runtime-development-target="+fnAddr,
	)
	if err != nil {
		t.Fatalf("crossplane composition render %s: %v\n%s", xr, err, stderr)
	}
	return decodeAll(t, []byte(stdout))
}

// validate runs `crossplane resource validate` of resources against the
// provider's CRDs, the function's input CRD (so a Composition's function
// input is checked too), extensions and Crossplane's own CRDs (from core's
// module, seeded into the CLI's schema cache so nothing is downloaded). It
// returns the CLI's output and exit code.
func validate(t testing.TB, tl tools, extensions, resources []string) (string, int) {
	t.Helper()
	cache := t.TempDir()
	seedCoreSchemas(t, tl, cache)
	ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
	defer cancel()
	stdout, stderr, err := run(ctx, tl.cli, nil, "resource", "validate",
		"--cache-dir="+cache,
		"--crossplane-image=xpkg.crossplane.io/crossplane/crossplane:"+crossplaneVersion,
		strings.Join(append([]string{filepath.Join(tl.root, "package", "crds"), filepath.Join(tl.function+"-package", "input")}, extensions...), ","),
		strings.Join(resources, ","),
	)
	return stdout + stderr, exitCode(err)
}

// seedCoreSchemas writes Crossplane's CRDs where validate looks for the
// schemas of the Crossplane image it is told to use.
func seedCoreSchemas(t testing.TB, tl tools, cache string) {
	t.Helper()
	dir := filepath.Join(cache, "xpkg.crossplane.io", "crossplane", "crossplane@"+crossplaneVersion)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	crds, err := filepath.Glob(filepath.Join(tl.coreCRDs, "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("no Crossplane CRDs in %s: %v", tl.coreCRDs, err)
	}
	var b strings.Builder
	for _, f := range crds {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteString("\n---\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "package.yaml"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRenderAndValidateExamples renders every composition example and
// validates every example file and every rendered object. For the examples
// this test knows, the rendered resources must be exactly what the XR asks.
func TestRenderAndValidateExamples(t *testing.T) {
	tl := requireTools(t)
	fn := startRenderFunction(t, tl)
	exs, files := examples(t, tl.root)
	if len(exs) == 0 {
		t.Fatal("examples/ holds no Composition")
	}

	extensions := make([]string, 0, len(exs))
	resources := append([]string(nil), files...)
	out := t.TempDir()
	for _, ex := range exs {
		extensions = append(extensions, ex.definition)
		for _, xr := range ex.xrs {
			name, err := filepath.Rel(filepath.Join(tl.root, "examples"), xr)
			if err != nil {
				t.Fatal(err)
			}
			t.Run("Render/"+name, func(t *testing.T) {
				rendered := render(t, tl, fn, ex, xr)
				if want, ok := wantRendered[name]; ok {
					got := composedSpecs(t, rendered)
					if diff := cmp.Diff(decodeSpecs(t, want), got); diff != "" {
						t.Errorf("crossplane composition render %s: composed resources' specs: -want, +got:\n%s", name, diff)
					}
				}
				f := filepath.Join(out, strings.ReplaceAll(name, string(filepath.Separator), "-"))
				writeAll(t, f, rendered)
				resources = append(resources, f)
			})
		}
	}
	if t.Failed() {
		return
	}
	t.Run("Validate", func(t *testing.T) {
		output, code := validate(t, tl, extensions, resources)
		if code != 0 {
			t.Fatalf("crossplane resource validate: exit %d\n%s", code, output)
		}
		// Every resource must have been checked against a schema: a kind
		// validate knows nothing about is only a warning.
		if !strings.Contains(output, " 0 missing schemas,") {
			t.Errorf("crossplane resource validate found resources without a schema:\n%s", output)
		}
	})
}

// TestValidateCatchesMistakes proves the validation above can fail: each
// case breaks one example the way an author might, and validate must refuse
// it with a message that names the problem.
func TestValidateCatchesMistakes(t *testing.T) {
	tl := requireTools(t)
	cases := map[string]struct {
		reason string
		yaml   string
		want   string
	}{
		"MisspelledField": {
			reason: "A misspelled field is reported, not dropped silently.",
			yaml: `
apiVersion: git.m.crossplane.io/v1alpha1
kind: File
metadata: {name: typo, namespace: default}
spec:
  forProvider: {branch: main, path: README.md, contnet: hello}
  providerConfigRef: {kind: ProviderConfig, name: gitops}
`,
			want: `unknown field: "contnet"`,
		},
		"MissingRequiredField": {
			reason: "A Branch without a branch name is refused.",
			yaml: `
apiVersion: git.m.crossplane.io/v1alpha1
kind: Branch
metadata: {name: nameless, namespace: default}
spec:
  forProvider: {from: main}
  providerConfigRef: {kind: ProviderConfig, name: gitops}
`,
			want: "spec.forProvider.branch: Required value",
		},
		"MisspelledFunctionInput": {
			reason: "A Composition's function input is validated against the function's input CRD.",
			yaml: `
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: typo}
spec:
  compositeTypeRef: {apiVersion: platform.example.org/v1alpha1, kind: AppEnvironment}
  mode: Pipeline
  pipeline:
    - step: one
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: branch
            patches:
              - type: FromCompositeFieldPath
                fromFieldPath: spec.environment
                toFeldPath: spec.forProvider.branch
`,
			want: `unknown field: "toFeldPath"`,
		},
		"PullRequestReadiness": {
			reason: "A PullRequest's readiness is Open or Merged, nothing a reviewer might call it.",
			yaml: `
apiVersion: git.m.crossplane.io/v1alpha1
kind: PullRequest
metadata: {name: approved, namespace: default}
spec:
  forProvider: {head: request/demo, base: main, title: Demo, readiness: Approved}
  providerConfigRef: {kind: ProviderConfig, name: gitops}
`,
			want: `Unsupported value: "Approved"`,
		},
		"MisspelledXRField": {
			reason: "An XR is validated against its XRD too.",
			yaml: `
apiVersion: platform.example.org/v1alpha1
kind: AppEnvironment
metadata: {name: typo, namespace: default}
spec: {app: demo, environment: staging, image: demo:1, replica: 2}
`,
			want: `unknown field: "replica"`,
		},
	}
	exs, _ := examples(t, tl.root)
	extensions := make([]string, 0, len(exs))
	for _, ex := range exs {
		extensions = append(extensions, ex.definition)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "broken.yaml")
			if err := os.WriteFile(f, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			output, code := validate(t, tl, extensions, []string{f})
			if code == 0 {
				t.Errorf("\n%s\ncrossplane resource validate accepted it:\n%s", tc.reason, output)
			}
			if !strings.Contains(output, tc.want) {
				t.Errorf("\n%s\ncrossplane resource validate: want %q in its output, got:\n%s", tc.reason, tc.want, output)
			}
		})
	}
}

// composedSpecs returns the spec of every composed resource of a render, by
// its composition resource name.
func composedSpecs(t testing.TB, rendered []*unstructured.Unstructured) map[string]any {
	t.Helper()
	got := map[string]any{}
	for _, u := range rendered[1:] {
		name := u.GetAnnotations()["crossplane.io/composition-resource-name"]
		got[name] = map[string]any{"kind": u.GetKind(), "spec": u.Object["spec"]}
	}
	return got
}

// decodeSpecs decodes YAML the way rendered output is decoded, so numbers
// compare equal.
func decodeSpecs(t testing.TB, s string) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// writeAll writes objects as one YAML stream.
func writeAll(t testing.TB, f string, objs []*unstructured.Unstructured) {
	t.Helper()
	var b strings.Builder
	for _, o := range objs {
		y, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "---\n%s", y)
	}
	if err := os.WriteFile(f, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}
