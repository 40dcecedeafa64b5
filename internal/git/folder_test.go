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

package git

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestListFiles(t *testing.T) {
	t.Parallel()
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			r, _ := newRepo(t, s.remote)
			if err := r.Refresh(ctx(t), time.Minute, "main"); err != nil {
				t.Fatal(err)
			}
			head, err := r.Head("main")
			if err != nil {
				t.Fatal(err)
			}
			sha := func(c string) string { return hashObject(t, c) }
			apps := map[string]string{"apps/a.yaml": sha("a: 1\n"), "apps/b.yaml": sha("b: 1\n"), "apps/c.yaml": sha("c: 1\n")}
			all := map[string]string{"README.md": sha("hello\n")}
			for p, h := range apps {
				all[p] = h
			}
			cases := map[string]struct {
				reason string
				prefix string
				want   map[string]string
				kind   Kind
			}{
				"Folder":        {reason: "A folder lists its files by full path.", prefix: "apps", want: apps},
				"TrailingSlash": {reason: "A trailing slash names the same folder.", prefix: "apps/", want: apps},
				"Root":          {reason: "The empty prefix is the whole tree.", prefix: "", want: all},
				"Dot":           {reason: "'.' is the whole tree too.", prefix: ".", want: all},
				"Missing":       {reason: "A folder that does not exist is empty, not an error.", prefix: "nothing/here", want: map[string]string{}},
				"File":          {reason: "A folder path that is a file cannot hold a folder.", prefix: "README.md", kind: KindPathConflict},
				"ThroughFile":   {reason: "Nor can a path through a file.", prefix: "README.md/x", kind: KindPathConflict},
			}
			for name, tc := range cases {
				t.Run(name, func(t *testing.T) {
					got, err := r.ListFiles(head, tc.prefix)
					if KindOf(err) != tc.kind || (tc.kind == KindTransient && err != nil) {
						t.Fatalf("%s\nListFiles(%q): error %v (kind %v), want kind %v", tc.reason, tc.prefix, err, KindOf(err), tc.kind)
					}
					if diff := cmp.Diff(tc.want, got); tc.kind == KindTransient && diff != "" {
						t.Errorf("%s\nListFiles(%q): -want, +got:\n%s", tc.reason, tc.prefix, diff)
					}
				})
			}
		})
	}
}

// A folder's whole rewrite is one Change of many puts and deletes: it lands
// as one commit, and the listing afterwards holds exactly what it asked,
// with blob SHAs equal to BlobSHA of the content.
func TestFolderChangeOfManyPutsAndDeletes(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	if err := r.Refresh(ctx(t), time.Minute, "main"); err != nil {
		t.Fatal(err)
	}
	before := s.repo.Head(t, "main")
	const n = 500
	c := Change{Puts: map[string]File{}, Deletes: []string{"apps/a.yaml", "apps/b.yaml", "apps/gone.yaml"}, Message: "mirror"}
	want := map[string]string{"apps/c.yaml": hashObject(t, "c: 1\n")}
	for i := range n {
		p := fmt.Sprintf("apps/ns/core/configmap/cm-%04d.yaml", i)
		content := fmt.Sprintf("index: %d\n", i)
		c.Puts[p] = File{Content: []byte(content)}
		want[p] = BlobSHA([]byte(content))
	}
	res := r.Submit(ctx(t), "main", c)
	if res.Err != nil || res.UpToDate {
		t.Fatalf("Submit: %+v", res)
	}
	got, err := r.ListFiles(res.Commit, "apps")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListFiles after the change: -want, +got:\n%s", diff)
	}
	if got, want := got["apps/c.yaml"], hashObject(t, "c: 1\n"); got != want {
		t.Errorf("untouched file's SHA %s, want git hash-object's %s", got, want)
	}
	// One commit on the server, parented on the head before.
	if log := s.repo.Log(t, "main"); len(log) < 2 || log[0].SHA != res.Commit || log[1].SHA != before {
		t.Errorf("the change did not land as one commit on %s: %+v", before, log[:min(len(log), 2)])
	}
	// Again: already satisfied, nothing committed.
	if again := r.Submit(ctx(t), "main", c); again.Err != nil || !again.UpToDate {
		t.Errorf("the same change again: %+v, want UpToDate", again)
	}
}

func TestBlobSHA(t *testing.T) {
	t.Parallel()
	for _, content := range []string{"", "hello\n", strings.Repeat("x", 70000)} {
		if got, want := BlobSHA([]byte(content)), hashObject(t, content); got != want {
			t.Errorf("BlobSHA(%d bytes) = %s, git hash-object says %s", len(content), got, want)
		}
	}
}
