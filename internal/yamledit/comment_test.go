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

// TestEditCommentLines: a comment line at or left of an entry's column is
// inside the entry when its value goes on below it, and the next entry's
// otherwise; deeper, in a block scalar, it is content. (FuzzRoundTrip
// found an edit that removed a key but left its value, after a comment,
// behind.)
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
