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

package inplace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// TestPlanInPlaceUneditable: a document found for an object that an edit
// could not keep is refused naming why, whichever the reason.
func TestPlanInPlaceUneditable(t *testing.T) {
	const head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: shop\n"
	cases := map[string]struct {
		reason string
		file   string
		want   string
	}{
		"Anchors": {
			reason: "Anchors and aliases an edit would lose.",
			file:   head + "data: &d {k: v}\nother: *d\n",
			want:   "document 1 (line 1) uses YAML anchors or aliases, which an edit could not keep",
		},
		"Deep": {
			reason: "A document nesting past yamledit.MaxDepth.",
			file:   head + "spec: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
			want:   "document 1 (line 1) nests deeper than 128 levels",
		},
		"BareCR": {
			reason: "A carriage return alone as a line break.",
			file:   head + "data:\r  k: v\n",
			want:   "document 1 (line 1) breaks a line with a carriage return alone, which an edit could not keep",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := NewIndex()
			if err := x.Update(map[string]string{"a.yaml": "blob"}, func(string) ([]byte, error) { return []byte(tc.file), nil }); err != nil {
				t.Fatal(err)
			}
			_, err := x.Plan(Mirror{Path: ".", Namespace: "shop", Prune: true}, []mirror.Object{live(t, head+"data:\n  k: w\n", "", nil)}, nil)
			want := (&UnsupportedLayoutError{Feature: "a document an edit could not keep (" + tc.want + ")", File: "a.yaml"}).Error()
			if diff := cmp.Diff(want, errText(err)); diff != "" {
				t.Errorf("%s\nPlan: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
