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
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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

// troubleshooting is the page whose "Reasons" table lists every reason.
var troubleshooting = filepath.Join(root, "docs", "operations", "troubleshooting.md")

// TestDocsListEveryReason reads the shipped code (every non-test file of
// internal/ and cmd/provider, test beds aside) for the condition reasons it
// can set: its own constants named Reason…, and Crossplane's reasons it
// names. The troubleshooting page's reasons table must list exactly those,
// and each kind's reference page exactly those that table says the kind
// can show. (It was TestREADMEListsEveryReason while the table was in the
// README.)
func TestDocsListEveryReason(t *testing.T) {
	code := map[string]bool{}
	for _, dir := range []string{"internal", filepath.Join("cmd", "provider")} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
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
	table := map[string]bool{}
	shownBy := map[string]map[string]bool{}
	for _, r := range tableRows(t, troubleshooting, "Reasons") {
		reason, ok := codeSpan(r[0])
		if !ok || len(r) < 3 {
			t.Errorf("%s: row %q does not start with a `Reason` and name its kinds in the third cell", troubleshooting, r)
			continue
		}
		table[reason] = true
		for _, k := range kindsOf(t, reason, r[2]) {
			if shownBy[k] == nil {
				shownBy[k] = map[string]bool{}
			}
			shownBy[k][reason] = true
		}
	}
	if len(code) < 20 || len(table) < 20 {
		t.Fatalf("found %d reasons in the code and %d on the troubleshooting page: the scan is broken", len(code), len(table))
	}
	if diff := cmp.Diff(sorted(code), sorted(table)); diff != "" {
		t.Errorf("%s's reasons table and the code disagree (-code, +page):\n%s", troubleshooting, diff)
	}
	for _, k := range referenceKinds {
		page := referencePage(k)
		if diff := cmp.Diff(sorted(shownBy[k]), sorted(keys(t, page, "Reasons"))); diff != "" {
			t.Errorf("%s's reasons and the troubleshooting table's rows naming %s disagree (-troubleshooting, +%s):\n%s", page, k, page, diff)
		}
	}
}

// The kinds with a reference page, and the groups the troubleshooting
// table's "kinds" cells may name.
var (
	managedKinds   = []string{"Branch", "File", "CommitRequest", "Mirror", "PullRequest"}
	configKinds    = []string{"ProviderConfig", "ClusterProviderConfig"}
	referenceKinds = append(slices.Clone(managedKinds), configKinds...)
)

// referencePage is kind's page under docs/reference.
func referencePage(kind string) string {
	return filepath.Join(root, "docs", "reference", strings.ToLower(kind)+".md")
}

// kindsOf reads a "kinds" cell: "all", "managed resources",
// "configurations", "none", or kinds by name, separated by commas.
func kindsOf(t *testing.T, reason, cell string) []string {
	t.Helper()
	var out []string
	for _, k := range strings.Split(cell, ",") {
		switch k = strings.TrimSpace(k); {
		case k == "all":
			out = append(out, referenceKinds...)
		case k == "managed resources":
			out = append(out, managedKinds...)
		case k == "configurations":
			out = append(out, configKinds...)
		case k == "none":
		case slices.Contains(referenceKinds, k):
			out = append(out, k)
		default:
			t.Errorf("%s: the kinds of %s name %q: not a kind, all, managed resources, configurations or none", troubleshooting, reason, k)
		}
	}
	return out
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
					t.Errorf("%s: a literal Reason; name it as a constant Reason… so the docs check sees it", path)
				}
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && len(n.Args) > 0 && slices.Contains(reasonSetters, sel.Sel.Name) {
				if _, lit := n.Args[0].(*ast.BasicLit); lit {
					t.Errorf("%s: %s with a literal reason; name it as a constant Reason… so the docs check sees it", path, sel.Sel.Name)
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

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
