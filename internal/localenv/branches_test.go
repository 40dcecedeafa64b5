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

package localenv

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBranch(t *testing.T) {
	type want struct {
		files   map[string]map[string]string
		parents map[string]bool
		err     bool
	}
	cases := map[string]struct {
		reason string
		heads  map[string]CommitSpec
		want   want
	}{
		"OneCommitEach": {
			reason: "Each branch is one commit on main's head holding main's files and its own changes.",
			heads: map[string]CommitSpec{
				"request/a": {Message: "a", Files: map[string]string{"a.txt": "a\n"}},
				"request/b": {Message: "b", Files: map[string]string{"b/b.txt": "b\n"}, Deletes: []string{"README.md"}},
			},
			want: want{
				files: map[string]map[string]string{
					"request/a": {"README.md": "seed\n", "a.txt": "a\n"},
					"request/b": {"b/b.txt": "b\n"},
				},
				parents: map[string]bool{"request/a": true, "request/b": true},
			},
		},
		"Exists": {
			reason: "A branch that exists is not moved.",
			heads:  map[string]CommitSpec{"main": {Files: map[string]string{"x": "x"}}},
			want:   want{err: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := NewBareRepo(t.TempDir(), "r.git", map[string][]CommitSpec{"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}}})
			if err != nil {
				t.Fatal(err)
			}
			main, err := r.Head("main")
			if err != nil {
				t.Fatal(err)
			}
			heads, err := r.Branch("main", tc.heads)
			if (err != nil) != tc.want.err {
				t.Fatalf("%s\nBranch(...): error %v, want error %v", tc.reason, err, tc.want.err)
			}
			if err != nil {
				if got, _ := r.Head("main"); got != main {
					t.Errorf("%s\nmain moved to %s from %s", tc.reason, got, main)
				}
				return
			}
			got := want{files: map[string]map[string]string{}, parents: map[string]bool{}}
			for b, h := range heads {
				if rev, _ := r.Head(b); rev != h {
					t.Errorf("%s\nBranch returned %s for %s, the branch is at %s", tc.reason, h, b, rev)
				}
				if got.files[b], err = r.Files(b); err != nil {
					t.Fatal(err)
				}
				p, _ := r.Head(b + "^")
				got.parents[b] = p == main
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nBranch(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
