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

package main

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
)

// crossplaneReasons are the reasons of Crossplane's core/v2 package the code
// may name, as constants or as the condition constructors that carry them.
// A name of that package this map lacks fails the test: nothing the code
// starts to use goes unlisted.
var crossplaneReasons = map[string]xpv2.ConditionReason{
	"ReasonAvailable":        xpv2.ReasonAvailable,
	"ReasonCreating":         xpv2.ReasonCreating,
	"ReasonDeleting":         xpv2.ReasonDeleting,
	"ReasonUnavailable":      xpv2.ReasonUnavailable,
	"ReasonReconcileSuccess": xpv2.ReasonReconcileSuccess,
	"ReasonReconcileError":   xpv2.ReasonReconcileError,
	"ReasonReconcilePaused":  xpv2.ReasonReconcilePaused,
	"ReasonUpdateRequested":  xpv2.ReasonUpdateRequested,
	"Available":              xpv2.ReasonAvailable,
	"Creating":               xpv2.ReasonCreating,
	"Deleting":               xpv2.ReasonDeleting,
	"Unavailable":            xpv2.ReasonUnavailable,
	"ReconcileSuccess":       xpv2.ReasonReconcileSuccess,
	"ReconcileError":         xpv2.ReasonReconcileError,
	"ReconcilePaused":        xpv2.ReasonReconcilePaused,
}

// crossplaneConditionFuncs are core/v2's functions that return a Condition
// with a reason of its own; those not in crossplaneReasons fail the test.
var crossplaneConditionFuncs = []string{
	"Available", "Creating", "Deleting", "Unavailable", "ReconcileSuccess", "ReconcileError", "ReconcilePaused",
}

// reasonSetters take a reason as their first argument.
var reasonSetters = []string{"Stalled", "Waiting", "Progressing"}

const crossplaneCore = "github.com/crossplane/crossplane/apis/v2/core/v2"

// TestREADMEListsEveryReason reads the shipped code (every non-test file of
// internal/ and cmd/provider, test beds aside) for the condition reasons it
// can set: its own constants named Reason…, and Crossplane's reasons it
// names. The README's reasons table must list exactly those.
func TestREADMEListsEveryReason(t *testing.T) {
	code := map[string]bool{}
	for _, root := range []string{"../../internal", "."} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				switch d.Name() {
				case "testenv", "localenv", "crossplanetest", "testkind":
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			reasonsOf(t, path, code)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	readme := readmeReasons(t, "../../README.md")
	if len(code) < 20 || len(readme) < 20 {
		t.Fatalf("found %d reasons in the code and %d in the README: the scan is broken", len(code), len(readme))
	}
	if diff := cmp.Diff(sorted(code), sorted(readme)); diff != "" {
		t.Errorf("the README's reasons table and the code disagree (-code, +README):\n%s", diff)
	}
}

// reasonsOf adds the reasons path can set to into.
func reasonsOf(t *testing.T, path string, into map[string]bool) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	core := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == crossplaneCore {
			core = "v2"
			if imp.Name != nil {
				core = imp.Name.Name
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			if n.Tok != token.CONST {
				return true
			}
			for _, spec := range n.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Reason") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Errorf("%s: %s is not a string literal: the scan cannot read it", path, name.Name)
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					into[v] = true
				}
			}
		case *ast.KeyValueExpr:
			// A reason spelled out where it is set would escape the scan.
			if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Reason" {
				if _, lit := n.Value.(*ast.BasicLit); lit {
					t.Errorf("%s: a literal Reason; name it as a constant Reason… so the README check sees it", path)
				}
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && len(n.Args) > 0 && slices.Contains(reasonSetters, sel.Sel.Name) {
				if _, lit := n.Args[0].(*ast.BasicLit); lit {
					t.Errorf("%s: %s with a literal reason; name it as a constant Reason… so the README check sees it", path, sel.Sel.Name)
				}
			}
		case *ast.SelectorExpr:
			x, ok := n.X.(*ast.Ident)
			if !ok || core == "" || x.Name != core {
				return true
			}
			name := n.Sel.Name
			if r, ok := crossplaneReasons[name]; ok {
				into[string(r)] = true
				return true
			}
			if strings.HasPrefix(name, "Reason") || slices.Contains(crossplaneConditionFuncs, name) {
				t.Errorf("%s uses %s.%s, which this test does not know: add it to crossplaneReasons", path, core, name)
			}
		}
		return true
	})
}

// readmeReasons returns the first column of the README's reasons table.
func readmeReasons(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	in := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Condition reasons"
		case in && strings.HasPrefix(line, "| `"):
			reason, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
			out[reason] = true
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
