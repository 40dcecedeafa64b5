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

package yamledit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEditCommentLines: which lines are an entry's. A comment line at or
// left of an entry's column is inside the entry when its value goes on
// below it, and the next entry's otherwise; deeper, in a block scalar, it
// is content; a value's own lines are the entry's whatever their column.
// (FuzzRoundTrip found an edit that removed a key but left its value,
// after a comment, behind, and one that added a label between a key and
// its value.)
func TestEditCommentLines(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		want   string
		out    string
	}{
		"ValueAfterComment": {
			reason: "Removing k takes its value, which follows a comment, with it.",
			in:     object + "data:\n  k:\n  # why\n    v\n  j: x\n",
			want:   object + "data:\n  j: x\n",
			out:    object + "data:\n  j: x\n",
		},
		"CommentOfNext": {
			reason: "A comment above the next key stays with it.",
			in:     object + "data:\n  k: v\n  # about j\n  j: x\n",
			want:   object + "data:\n  j: x\n",
			out:    object + "data:\n  # about j\n  j: x\n",
		},
		"BlockScalar": {
			reason: "A # line inside a block scalar is its content: removing the next key leaves it.",
			in:     object + "data:\n  k: |\n    a\n    # b\n  j: x\n",
			want:   object + "data:\n  k: |\n    a\n    # b\n",
			out:    object + "data:\n  k: |\n    a\n    # b\n",
		},
		"ValueAtKeyColumn": {
			reason: "A value that starts on the next line at the key's column (a block scalar's indicator) is the entry's: a label goes after it.",
			in:     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  k:\n  |\n",
			want:   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  k: \"\"\n  labels:\n    x: \"y\"\n",
			out:    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  k:\n  |\n  labels:\n    x: \"y\"\n",
		},
		"LastItemValueAfterComment": {
			reason: "Removing a sequence's last item takes the lines of its value after a comment at its dash.",
			in:     object + "list:\n- a\n- k:\n# why\n    v\n",
			want:   object + "list:\n- a\n",
			out:    object + "list:\n- a\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			want, err := ParseValue([]byte(tc.want))
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := f.Edit(0, All{}, want)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.out, string(out)); diff != "" {
				t.Errorf("%s\nEdit: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
