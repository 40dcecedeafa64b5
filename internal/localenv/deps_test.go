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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLinksNoTestBed keeps the test bed out of what runs outside tests: the
// provider binary, the local default ('make run') and this package, which the
// local default links. It lists who imports each forbidden package: none of
// this module's packages may, and a dependency only where it is known and
// harmless (importing testing registers no flags since testing.Init exists;
// it links code a binary does not need).
func TestLinksNoTestBed(t *testing.T) {
	const module = "github.com/crossplane-contrib/provider-git/"
	forbidden := map[string]bool{
		"testing":                   true,
		"net/http/httptest":         true,
		module + "internal/testenv": true,
	}
	// Dependencies allowed to import a forbidden package, and why.
	allowed := map[string]string{
		// SOPS's age key source asks testing.Testing() before a terminal
		// prompt the provider never reaches; SOPS writes the format.
		"github.com/getsops/sops/v3/age testing": "testing.Testing() guard",
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
			out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, tc.pkg).Output()
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				t.Fatalf("go list -deps %s: %v\n%s", tc.pkg, err, ee.Stderr)
			} else if err != nil {
				t.Fatalf("go list -deps %s: %v", tc.pkg, err)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				f := strings.Fields(line)
				if len(f) == 0 {
					continue
				}
				for _, imp := range f[1:] {
					if !forbidden[imp] {
						continue
					}
					if _, ok := allowed[f[0]+" "+imp]; ok && !strings.HasPrefix(f[0], module) {
						continue
					}
					got = append(got, f[0]+" imports "+imp)
				}
			}
			if diff := cmp.Diff([]string(nil), got); diff != "" {
				t.Errorf("%s\ngo list -deps %s: -want, +got:\n%s", tc.reason, tc.pkg, diff)
			}
		})
	}
}
