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
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/crossplane-contrib/provider-git/internal/localenv"
)

// example is one composition example: a folder of examples/ holding an XRD,
// a Composition, the Functions it runs and XRs, one object per file.
type example struct {
	dir         string
	definition  string
	composition string
	functions   string
	xrs         []string
}

// examples finds every composition example under examples/ and returns it
// with the list of every example file.
func examples(t testing.TB, root string) ([]example, []string) {
	t.Helper()
	byDir := map[string]*example{}
	kinds := map[string]string{} // XR kind by folder, from its XRD
	var files []string
	objs := map[string][]*unstructured.Unstructured{}
	err := filepath.WalkDir(filepath.Join(root, "examples"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p == filepath.Join(root, "examples", "inplace") {
			// The contents of a repository a Mirror edits in place
			// (kustomizations among them), not objects to apply: the
			// Mirror's tests read them as test data.
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
			return err
		}
		files = append(files, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		objs[p] = decodeAll(t, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		dir := filepath.Dir(f)
		for _, o := range objs[f] {
			ex := byDir[dir]
			if ex == nil {
				ex = &example{dir: dir}
			}
			switch o.GetKind() {
			case "CompositeResourceDefinition":
				ex.definition = f
				kinds[dir], _, _ = unstructured.NestedString(o.Object, "spec", "names", "kind")
			case "Composition":
				ex.composition = f
			case "Function":
				ex.functions = f
			default:
				continue
			}
			byDir[dir] = ex
		}
	}
	var out []example
	for _, f := range files {
		dir := filepath.Dir(f)
		ex, ok := byDir[dir]
		if !ok || ex.composition == "" {
			continue
		}
		for _, o := range objs[f] {
			if o.GetKind() == kinds[dir] {
				ex.xrs = append(ex.xrs, f)
			}
		}
	}
	for _, ex := range byDir {
		if ex.composition == "" {
			continue
		}
		if ex.definition == "" || ex.functions == "" || len(ex.xrs) == 0 {
			t.Fatalf("%s: a composition example needs an XRD, Functions and at least one XR, each in its own file", ex.dir)
		}
		out = append(out, *ex)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out, files
}

// decodeAll decodes a YAML stream, skipping empty documents.
func decodeAll(t testing.TB, data []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// wantRendered is what each known XR example must render to: the kind and
// spec of every composed resource, by composition resource name. It pins
// down the patches: names, namespaces and labels come from the XR, paths
// are unique per XR namespace and name, nothing is left a placeholder.
var wantRendered = map[string]string{
	filepath.Join("composition", "xr.yaml"): `
branch:
  kind: Branch
  spec:
    managementPolicies: [Observe, Create, Update, LateInitialize]
    forProvider:
      branch: environments/staging
      from: main
    providerConfigRef: {kind: ProviderConfig, name: gitops}
deployment:
  kind: File
  spec:
    forProvider:
      branch: environments/staging
      path: apps/default/demo-staging/deployment.yaml
      object:
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: demo
          namespace: default
          labels:
            app.kubernetes.io/name: demo
            platform.example.org/environment: staging
        spec:
          replicas: 2
          selector:
            matchLabels:
              app.kubernetes.io/name: demo
          template:
            metadata:
              labels:
                app.kubernetes.io/name: demo
            spec:
              containers:
                - name: app
                  image: ghcr.io/example/demo:1.4.2
    providerConfigRef: {kind: ProviderConfig, name: gitops}
readme:
  kind: File
  spec:
    forProvider:
      branch: environments/staging
      path: apps/default/demo-staging/README.md
      content: |
        # demo in staging

        Written by Crossplane for the AppEnvironment default/demo-staging.
        Edits made here are put back: change the AppEnvironment instead.
    providerConfigRef: {kind: ProviderConfig, name: gitops}
onboarding:
  kind: CommitRequest
  spec:
    forProvider:
      branch: environments/staging
      message: |
        Onboard demo to staging

        Requested by the AppEnvironment default/demo-staging.
      files:
        - path: onboarding/default/demo-staging.yaml
          content: |
            app: demo
            environment: staging
            appEnvironment: default/demo-staging
    providerConfigRef: {kind: ProviderConfig, name: gitops}
`,
	filepath.Join("composition", "request", "xr.yaml"): `
branch:
  kind: Branch
  spec:
    forProvider:
      branch: request/default/payments-preview
      from: main
    providerConfigRef: {kind: ProviderConfig, name: gitops}
manifest:
  kind: File
  spec:
    managementPolicies: [Observe, Create, Update, LateInitialize]
    forProvider:
      branch: request/default/payments-preview
      path: environments/payments-preview/namespace.yaml
      object:
        apiVersion: v1
        kind: Namespace
        metadata:
          name: payments-preview
          labels:
            platform.example.org/team: payments
          annotations:
            platform.example.org/requested-by: default/payments-preview
    providerConfigRef: {kind: ProviderConfig, name: gitops}
pull-request:
  kind: PullRequest
  spec:
    forProvider:
      head: request/default/payments-preview
      base: main
      title: Environment payments-preview for payments
      body: |
        The EnvironmentRequest default/payments-preview asks for the environment payments-preview, owned by the team payments.

        Files on this branch:
        {{ range .Files }}- {{ .Path }}
        {{ end }}
        Merging makes the request Ready. Closing without merging refuses it: the request stays not Ready until it is deleted.
      readiness: Merged
      merge: {strategy: Manual}
    providerConfigRef: {kind: ProviderConfig, name: gitops}
`,
}

// TestExampleFunctionsAgree: each composition example ships its Functions so
// that it renders on its own, and a user installs them side by side. A
// Function named in two examples must therefore be one package: applying
// the second would silently move the first example to another version.
func TestExampleFunctionsAgree(t *testing.T) {
	root, err := localenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	exs, _ := examples(t, root)
	pkgs := map[string]string{} // package by Function name
	from := map[string]string{} // the file that named it first
	for _, ex := range exs {
		data, err := os.ReadFile(ex.functions)
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range decodeAll(t, data) {
			pkg, _, _ := unstructured.NestedString(fn.Object, "spec", "package")
			if first, ok := pkgs[fn.GetName()]; ok && first != pkg {
				t.Errorf("Function %s is %s in %s but %s in %s", fn.GetName(), first, from[fn.GetName()], pkg, ex.functions)
				continue
			}
			pkgs[fn.GetName()], from[fn.GetName()] = pkg, ex.functions
		}
	}
	if len(exs) < 2 {
		t.Errorf("%d composition examples, want at least 2 (examples/composition and examples/composition/request)", len(exs))
	}
}
