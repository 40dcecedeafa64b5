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

package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOrderedVersions: writes follow resourceVersion as numbers; versions
// that are not numbers leave the order to the path, and deletions follow.
func TestOrderedVersions(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     []Change
		want   []string
	}{
		"Numeric": {
			reason: "100 is newer than 99, whatever the strings say.",
			in:     []Change{{File: "a", RV: "100"}, {File: "b", RV: "99"}},
			want:   []string{"b", "a"},
		},
		"Opaque": {
			reason: "Versions that are not numbers tell nothing: by path.",
			in:     []Change{{File: "b", RV: "x2"}, {File: "a", RV: "x1"}},
			want:   []string{"a", "b"},
		},
		"DeletionsLast": {
			reason: "A deletion, whose time the snapshot does not keep, comes after every write.",
			in:     []Change{{File: "a", Verb: VerbDelete}, {File: "z", RV: "7", Verb: VerbUpdate}, {File: "b", Verb: VerbDelete}},
			want:   []string{"z", "a", "b"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, c := range Ordered(tc.in) {
				got = append(got, c.File)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
