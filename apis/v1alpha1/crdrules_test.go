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

package v1alpha1_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// TestCRDsEmbedTheDotGitPattern holds every CRD rule that keeps paths out of
// .git to the expression the code checks: the two cannot drift apart.
func TestCRDsEmbedTheDotGitPattern(t *testing.T) {
	// The rule is a CEL string literal, so each backslash of the expression
	// is written twice.
	want := `!self.matches('` + strings.ReplaceAll(validate.DotGitPattern, `\`, `\\`) + `')`
	for _, f := range []string{"git.m.crossplane.io_files.yaml", "git.m.crossplane.io_commitrequests.yaml", "git.m.crossplane.io_mirrors.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "package", "crds", f))
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		found := 0
		for _, v := range crd.Spec.Versions {
			walk(v.Schema.OpenAPIV3Schema, func(r apiextensionsv1.ValidationRule) {
				if !strings.Contains(r.Message, ".git directory") {
					return
				}
				found++
				if r.Rule != want {
					t.Errorf("%s: the .git rule is\n%s\nwant\n%s", f, r.Rule, want)
				}
			})
		}
		if found == 0 {
			t.Errorf("%s: no rule keeps paths out of .git", f)
		}
	}
}

func walk(s *apiextensionsv1.JSONSchemaProps, visit func(apiextensionsv1.ValidationRule)) {
	if s == nil {
		return
	}
	for _, r := range s.XValidations {
		visit(r)
	}
	for _, p := range s.Properties {
		walk(&p, visit)
	}
	if s.Items != nil {
		walk(s.Items.Schema, visit)
	}
}
