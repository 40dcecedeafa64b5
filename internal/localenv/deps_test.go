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
// local default links. A package importing testing registers test flags and
// links the test runtime into a binary that is not a test.
func TestLinksNoTestBed(t *testing.T) {
	const module = "github.com/crossplane-contrib/provider-git/"
	forbidden := map[string]bool{
		"testing":                   true,
		"net/http/httptest":         true,
		module + "internal/testenv": true,
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
			out, err := exec.Command("go", "list", "-deps", tc.pkg).Output()
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				t.Fatalf("go list -deps %s: %v\n%s", tc.pkg, err, ee.Stderr)
			} else if err != nil {
				t.Fatalf("go list -deps %s: %v", tc.pkg, err)
			}
			var got []string
			for _, dep := range strings.Fields(string(out)) {
				if forbidden[dep] {
					got = append(got, dep)
				}
			}
			if diff := cmp.Diff([]string(nil), got); diff != "" {
				t.Errorf("%s\ngo list -deps %s: -want, +got:\n%s", tc.reason, tc.pkg, diff)
			}
		})
	}
}
