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

package kustomize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// bomb is YAML whose aliases expand to 10^levels scalars, indented under
// a key: kustomize inflates every alias of what it reads (kyaml's
// DeAnchor copies the anchored tree for each), so a layout that reached
// Verify with it would take exponential time and memory.
func bomb(levels int) string {
	var b strings.Builder
	b.WriteString("  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [*l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d]\n", i, i, i-1)
	}
	return b.String()
}

// TestBuildRefusesAnchors: a layout whose kustomization or resource uses
// anchors or aliases is refused when it is built, before kustomize itself
// reads it in Verify.
func TestBuildRefusesAnchors(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	cases := map[string]struct {
		reason string
		files  map[string]string
		want   string
	}{
		"Kustomization": {
			reason: "A kustomization's metadata may hold anything kustomize ignores; aliases there are refused all the same.",
			files: map[string]string{
				"kustomization.yaml": "resources:\n- cm.yaml\nmetadata:\n  name: k\n  annotations:\n" + strings.ReplaceAll(bomb(9), "  l", "    l"),
				"cm.yaml":            cm,
			},
			want: (&UnsupportedError{Feature: "a document an edit could not keep (document 1 (line 1) uses YAML anchors or aliases, which an edit could not keep)", File: "kustomization.yaml"}).Error(),
		},
		"Resource": {
			reason: "A resource document with aliases is refused.",
			files: map[string]string{
				"kustomization.yaml": "resources:\n- cm.yaml\n",
				"cm.yaml":            cm + "data:\n" + bomb(9),
			},
			want: (&UnsupportedError{Feature: "a document that is not an object, or uses YAML anchors", File: "cm.yaml"}).Error(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fs := Files{}
			for p, c := range tc.files {
				f, err := yamledit.Parse([]byte(c))
				if err != nil {
					t.Fatal(err)
				}
				fs[p] = f
			}
			_, err := Build(fs)
			if diff := cmp.Diff(tc.want, errString(err)); diff != "" {
				t.Errorf("%s\nBuild: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
