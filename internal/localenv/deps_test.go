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

package localenv_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLinksNoTestBed keeps the test bed out of what runs outside tests: the
// provider binary, the local default ('make run') and this package, which the
// local default links. It lists who imports each forbidden package: none of
// this module's packages may, nor any dependency (the SOPS library's age
// key source did, until the provider stopped linking that library).
func TestLinksNoTestBed(t *testing.T) {
	const module = "github.com/crossplane-contrib/provider-git/"
	forbidden := map[string]bool{
		"testing":                               true,
		"net/http/httptest":                     true,
		module + "internal/testharness/testenv": true,
		// The controller tests' harness: it imports testing and the test bed.
		module + "internal/testharness/e2e": true,
	}
	cases := map[string]struct {
		reason string
		pkg    string
	}{
		"Provider":     {reason: "The provider binary must not link the test bed.", pkg: module + "cmd/provider"},
		"LocalDefault": {reason: "The local default must not link the test bed.", pkg: module + "cmd/local"},
		"LocalEnv":     {reason: "localenv must stay free of testing so binaries can link it.", pkg: module + "internal/localenv"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			imports := goListDeps(t, tc.pkg)
			var got []string
			for _, p := range imports {
				for _, imp := range p.imports {
					if forbidden[imp] {
						got = append(got, p.path+" imports "+imp)
					}
				}
			}
			if diff := cmp.Diff([]string(nil), got); diff != "" {
				t.Errorf("%s\ngo list -deps %s: -want, +got:\n%s", tc.reason, tc.pkg, diff)
			}
		})
	}
}

// TestEngineAndForgesLinkNoKubernetes keeps the Git engine (internal/git)
// and the forge clients (internal/forge/...) free of Kubernetes and its
// controller machinery, transitively: depguard sees a package's own
// imports only, and crossplane-runtime's errors package, imported by them
// all until December 2026, brought client-go, apimachinery and
// controller-runtime (18 MiB of RSS before the engine's own process opened
// anything; docs/concepts/clones.md). k8s.io/utils/clock may stay: it
// imports the standard library only. The failure names the package that
// brings a forbidden one in.
func TestEngineAndForgesLinkNoKubernetes(t *testing.T) {
	const module = "github.com/crossplane-contrib/provider-git/"
	forbidden := []string{"k8s.io/apimachinery/", "k8s.io/client-go/", "k8s.io/api/", "sigs.k8s.io/controller-runtime/"}
	isForbidden := func(path string) bool {
		for _, prefix := range forbidden {
			if strings.HasPrefix(path+"/", prefix) {
				return true
			}
		}
		return false
	}
	cases := map[string]struct {
		reason string
		pkg    string
	}{
		"Engine": {reason: "The Git engine links no Kubernetes package.", pkg: module + "internal/git"},
		"Forges": {reason: "The forge clients link no Kubernetes package.", pkg: module + "internal/forge/..."},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, p := range goListDeps(t, tc.pkg) {
				if isForbidden(p.path) {
					continue
				}
				for _, imp := range p.imports {
					if isForbidden(imp) {
						got = append(got, p.path+" imports "+imp)
					}
				}
			}
			if diff := cmp.Diff([]string(nil), got); diff != "" {
				t.Errorf("%s\ngo list -deps %s: -want, +got:\n%s", tc.reason, tc.pkg, diff)
			}
		})
	}
}

// MaxModules is the most modules the provider binary may link. It links 96
// since it writes SOPS documents itself: the SOPS library brought 98 more
// (every key service's SDK), 194 in all. Raise it only for a module the
// provider needs, knowing each is a dependency users' image scanners report.
const MaxModules = 110

// TestLinksNoCloudSDK keeps key-service and database clients out of the
// provider binary, and its module count under MaxModules: a package of
// these families enters only through an importer listed in allowed, and the
// failure names the importer that brought it.
func TestLinksNoCloudSDK(t *testing.T) {
	const module = "github.com/crossplane-contrib/provider-git"
	// Import path prefixes of families the provider has no use for.
	forbidden := []string{
		"github.com/getsops/",
		"github.com/aws/",
		"cloud.google.com/",
		"google.golang.org/api/",
		"github.com/Azure/",
		"github.com/AzureAD/",
		"github.com/hashicorp/vault",
		"github.com/huaweicloud/",
		"go.mongodb.org/",
		"github.com/lib/pq",
		"github.com/jackc/pgx",
		"github.com/envoyproxy/",
		"google.golang.org/grpc",
	}
	// Importers allowed to bring in a family ("importer prefix"), and why.
	allowed := map[string]string{
		// crossplane-runtime's managed reconciler carries the change-log
		// gRPC client (--enable-change-logs); every provider links it.
		"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed google.golang.org/grpc":         "change logs",
		"github.com/crossplane/crossplane-runtime/v2/apis/changelogs/proto/v1alpha1 google.golang.org/grpc": "change logs",
	}
	// family is the forbidden prefix path falls under, or "".
	family := func(path string) string {
		for _, prefix := range forbidden {
			if strings.HasPrefix(path, prefix) {
				return prefix
			}
		}
		return ""
	}
	pkgs := goListDeps(t, module+"/cmd/provider")
	var got []string
	modules := map[string]bool{}
	for _, p := range pkgs {
		if p.module != "" && p.module != module {
			modules[p.module] = true
		}
		if family(p.path) != "" {
			continue
		}
		for _, imp := range p.imports {
			f := family(imp)
			if _, ok := allowed[p.path+" "+f]; f != "" && !ok {
				got = append(got, p.path+" imports "+imp)
			}
		}
	}
	if diff := cmp.Diff([]string(nil), got); diff != "" {
		t.Errorf("go list -deps ./cmd/provider: the provider links a cloud SDK or database client: -want, +got:\n%s", diff)
	}
	if len(modules) > MaxModules {
		names := make([]string, 0, len(modules))
		for m := range modules {
			names = append(names, m)
		}
		slices.Sort(names)
		t.Errorf("the provider links %d modules, more than %d:\n%s", len(modules), MaxModules, strings.Join(names, "\n"))
	}
}

// pkg is one package of go list -deps.
type pkg struct {
	path, module string
	imports      []string
}

// goListDeps lists pkg and every package it depends on.
func goListDeps(t *testing.T, p string) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{with .Module}}{{.Path}}{{else}}-{{end}}{{range .Imports}} {{.}}{{end}}`, p).Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		t.Fatalf("go list -deps %s: %v\n%s", p, err, ee.Stderr)
	} else if err != nil {
		t.Fatalf("go list -deps %s: %v", p, err)
	}
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		m := f[1]
		if m == "-" {
			m = ""
		}
		pkgs = append(pkgs, pkg{path: f[0], module: m, imports: f[2:]})
	}
	return pkgs
}
