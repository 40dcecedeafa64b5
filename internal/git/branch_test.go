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
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestBranchCreateDelete(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	main := s.repo.Head(t, "main")
	cases := []struct {
		name string
		do   func() Result
		want Result
		head string
	}{
		{"CreateFromBranch", func() Result { return r.CreateBranch(ctx(t), "feature", "main") }, Result{Commit: main}, main},
		{"CreateExisting", func() Result { return r.CreateBranch(ctx(t), "feature", "main") }, Result{Commit: main, UpToDate: true}, main},
		{"Delete", func() Result { return r.DeleteBranch(ctx(t), "feature") }, Result{}, ""},
		{"DeleteMissing", func() Result { return r.DeleteBranch(ctx(t), "feature") }, Result{UpToDate: true}, ""},
		{"CreateFromSHA", func() Result { return r.CreateBranch(ctx(t), "feature", main) }, Result{Commit: main}, main},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, tc.do()); diff != "" {
			t.Errorf("%s: -want, +got:\n%s", tc.name, diff)
		}
		if got := s.repo.Head(t, "feature"); got != tc.head {
			t.Errorf("%s: server head of feature = %q, want %q", tc.name, got, tc.head)
		}
	}
	// Changes go to the new branch through the same writer.
	res := r.Submit(ctx(t), "feature", Change{Puts: map[string]File{"f": {Content: []byte("f")}}})
	if res.Err != nil || s.repo.Files(t, "feature")["f"] != "f" || s.repo.Head(t, "main") != main {
		t.Errorf("Submit to feature = %+v", res)
	}
}

// TestCreateBranchFromUnfetchedCommit: a branch created at a commit the
// clone never downloaded must not leave a local ref at a missing object,
// which would break every later read and fetch of the repository.
func TestCreateBranchFromUnfetchedCommit(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	// A commit on a branch no resource uses: the engine never fetched it.
	s.repo.CreateBranch(t, "hidden", "main")
	sha, err := s.repo.Commit("hidden", testenv.CommitSpec{Message: "hidden", Files: map[string]string{"h.txt": "h"}})
	if err != nil {
		t.Fatal(err)
	}
	if res := r.CreateBranch(ctx(t), "from-sha", sha); res.Err != nil {
		t.Fatalf("CreateBranch from %s: %v", sha, res.Err)
	}
	// The repository keeps working: a fetch, a write to main, and the new
	// branch once fetched.
	if err := r.Refresh(ctx(t), 0, "main", "from-sha"); err != nil {
		t.Fatalf("Refresh after creating a branch at an unfetched commit: %v", err)
	}
	head, err := r.Head("from-sha")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sha, head); diff != "" {
		t.Errorf("from-sha head: -want, +got:\n%s", diff)
	}
	if b, err := r.ReadFile(ctx(t), head, "h.txt"); err != nil || string(b.Content) != "h" {
		t.Errorf("ReadFile(h.txt) at the new branch: %q, %v", b.Content, err)
	}
	res := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"after.txt": {Content: []byte("a")}}, Message: "after",
		Resource: Resource{Kind: "File", Namespace: "ns", Name: "after"}})
	if res.Err != nil {
		t.Errorf("Submit to main after creating a branch at an unfetched commit: %v", res.Err)
	}
}
