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

package validate

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// crdField is one string field of a CRD, checked as the API server checks
// it: its maxLength and its CEL rules (transition rules need an old object
// and do not apply to a create).
type crdField struct {
	minLength int
	maxLength int
	validator *cel.Validator
	structure *schema.Structural
}

// loadField reads the schema of spec.forProvider.<name> from a CRD in
// package/crds, the files the provider ships.
func loadField(t testing.TB, file, name string) crdField {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "package", "crds", file))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	v1 := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["forProvider"].Properties[name]
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, internal, nil); err != nil {
		t.Fatal(err)
	}
	s, err := schema.NewStructural(internal)
	if err != nil {
		t.Fatal(err)
	}
	f := crdField{maxLength: -1, structure: s, validator: cel.NewValidator(s, false, celconfig.PerCallLimit)}
	if v1.MinLength != nil {
		f.minLength = int(*v1.MinLength)
	}
	if v1.MaxLength != nil {
		f.maxLength = int(*v1.MaxLength)
	}
	return f
}

// admits reports whether the API server would store value in the field.
func (f crdField) admits(value string) bool {
	if n := utf8.RuneCountInString(value); n < f.minLength || f.maxLength >= 0 && n > f.maxLength {
		return false
	}
	errs, _ := f.validator.Validate(context.Background(), field.NewPath("x"), f.structure, value, nil, celconfig.RuntimeCELCostBudget)
	return len(errs) == 0
}

// FuzzPathAgreesWithCRD: the CRD's rules and Path reach the same verdict on
// every path, for File and CommitRequest alike.
func FuzzPathAgreesWithCRD(f *testing.F) {
	file := loadField(f, "git.m.crossplane.io_files.yaml", "path")
	for _, seed := range []string{
		"a/b.txt", ".git/config", "a/.GIT./x", ".git\u200c/x", "\ufeff.git/x", ".g\u206ait/x", ".git::$INDEX_ALLOCATION/x",
		`a\.git\x`, "git~1/x", "git~2/x", ".gitx/y", "a//b", "/a", "a/", "a/../b", "a/./b", "a\tb", "a\x7fb", "über/ä.md",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !utf8.ValidString(p) {
			return // the API server refuses invalid UTF-8 before any rule runs
		}
		crd, code := file.admits(p), Path(p) == nil
		if crd != code {
			t.Fatalf("path %q: CRD admits %v, Path admits %v (%v)", p, crd, code, Path(p))
		}
	})
}

// FuzzBranchAgreesWithCRD: the CRD's rules and BranchName reach the same
// verdict on every branch name.
func FuzzBranchAgreesWithCRD(f *testing.F) {
	branch := loadField(f, "git.m.crossplane.io_branches.yaml", "branch")
	for _, seed := range []string{
		"main", "release/v1.2", "HEAD", "refs/heads/x", "feature/HEAD", "a..b", "a.lock", "a.lock/b", "-x", "a/.b", "a.", "/a", "a/", "a//b", "a b", "a@{1}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b string) {
		if !utf8.ValidString(b) {
			return // the API server refuses invalid UTF-8 before any rule runs
		}
		crd, code := branch.admits(b), BranchName(b) == nil
		if crd != code {
			t.Fatalf("branch %q: CRD admits %v, BranchName admits %v (%v)", b, crd, code, BranchName(b))
		}
	})
}

// TestCRDFieldsAreChecked proves the fuzz targets' stand-in for the API
// server runs the rules at all: it refuses what the CRD refuses.
func TestCRDFieldsAreChecked(t *testing.T) {
	path := loadField(t, "git.m.crossplane.io_files.yaml", "path")
	branch := loadField(t, "git.m.crossplane.io_branches.yaml", "branch")
	for _, c := range []struct {
		f     crdField
		value string
		want  bool
	}{
		{path, "a/b.txt", true}, {path, "", false}, {path, ".git/config", false}, {path, "a/../b", false}, {path, string(make([]byte, 1025)), false},
		{branch, "main", true}, {branch, "HEAD", false}, {branch, "a..b", false},
	} {
		if got := c.f.admits(c.value); got != c.want {
			t.Errorf("admits(%q) = %v, want %v", c.value, got, c.want)
		}
	}
}
