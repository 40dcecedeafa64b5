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
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// crds returns the CRDs in package/crds by kind.
func crds(t *testing.T) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "package", "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(crd.Spec.Versions) != 1 {
			t.Fatalf("%s serves %d versions: the reference pages describe one", f, len(crd.Spec.Versions))
		}
		out[crd.Spec.Names.Kind] = crd
	}
	return out
}

// fieldPaths returns the path of every field under spec and status of s,
// an object's schema: spec.forProvider.resources[].kind for a field of
// the items of a list. A type Kubernetes or Crossplane documents (a label
// selector, the conditions) is one field: its own fields are theirs.
func fieldPaths(s apiextensionsv1.JSONSchemaProps) []string {
	var out []string
	var walk func(path string, s apiextensionsv1.JSONSchemaProps)
	walk = func(path string, s apiextensionsv1.JSONSchemaProps) {
		if path != "spec" && path != "status" {
			out = append(out, path)
		}
		if path == "status.conditions" || isLabelSelector(s) {
			return
		}
		for name, p := range s.Properties {
			walk(path+"."+name, p)
		}
		if s.Items != nil && s.Items.Schema != nil {
			for name, p := range s.Items.Schema.Properties {
				walk(path+"[]."+name, p)
			}
		}
	}
	for _, top := range []string{"spec", "status"} {
		if p, ok := s.Properties[top]; ok {
			walk(top, p)
		}
	}
	slices.Sort(out)
	return out
}

func isLabelSelector(s apiextensionsv1.JSONSchemaProps) bool {
	_, labels := s.Properties["matchLabels"]
	_, exprs := s.Properties["matchExpressions"]
	return labels && exprs
}

// TestReferenceHasEveryField holds each kind's reference page to its CRD:
// its "Fields" table lists every field path of the schema (spec.… and
// status.…) and no other, and its "Printer columns" table every column
// kubectl prints. A field added to the API without its line fails here.
func TestReferenceHasEveryField(t *testing.T) {
	all := crds(t)
	for _, kind := range referenceKinds {
		crd, ok := all[kind]
		if !ok {
			t.Errorf("package/crds has no CRD of kind %s", kind)
			continue
		}
		page := referencePage(kind)
		want := fieldPaths(*crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
		if len(want) < 5 {
			t.Fatalf("%s: found %d fields: the walk is broken", kind, len(want))
		}
		if diff := cmp.Diff(want, sorted(keys(t, page, "Fields"))); diff != "" {
			t.Errorf("%s's Fields table and the %s CRD disagree (-CRD, +page):\n%s", page, kind, diff)
		}
		var cols []string
		for _, c := range crd.Spec.Versions[0].AdditionalPrinterColumns {
			cols = append(cols, c.Name)
		}
		if diff := cmp.Diff(sorted(toSet(cols)), sorted(keys(t, page, "Printer columns"))); diff != "" {
			t.Errorf("%s's Printer columns table and the %s CRD disagree (-CRD, +page):\n%s", page, kind, diff)
		}
	}
}

// TestManagedKindsShareColumns: `kubectl get managed` lists every managed
// kind in one table, so each prints the same first columns from the same
// fields, the configuration it uses among them.
func TestManagedKindsShareColumns(t *testing.T) {
	want := []apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "READY", Type: "string", JSONPath: ".status.conditions[?(@.type=='Ready')].status"},
		{Name: "SYNCED", Type: "string", JSONPath: ".status.conditions[?(@.type=='Synced')].status"},
		{Name: "REASON", Type: "string", JSONPath: ".status.conditions[?(@.type=='Ready')].reason"},
		{Name: "CONFIG", Type: "string", JSONPath: ".spec.providerConfigRef.name"},
	}
	all := crds(t)
	for _, kind := range managedKinds {
		crd, ok := all[kind]
		if !ok {
			t.Errorf("package/crds has no CRD of kind %s", kind)
			continue
		}
		got := crd.Spec.Versions[0].AdditionalPrinterColumns
		if diff := cmp.Diff(want, got[:min(len(got), len(want))]); diff != "" {
			t.Errorf("%s's first printer columns: -want, +got:\n%s", kind, diff)
		}
	}
}

func toSet(s []string) map[string]bool {
	out := map[string]bool{}
	for _, v := range s {
		out[v] = true
	}
	return out
}
