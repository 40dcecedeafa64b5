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
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

func TestCheckAndDefaultBranch(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			r, _ := newRepo(t, s.remote)
			if err := r.Check(ctx(t)); err != nil {
				t.Fatalf("Check with the right credentials: %v", err)
			}
			got, err := r.DefaultBranch(ctx(t))
			if err != nil {
				t.Fatalf("DefaultBranch: %v", err)
			}
			if diff := cmp.Diff("main", got); diff != "" {
				t.Errorf("DefaultBranch: -want, +got:\n%s", diff)
			}
		})
	}
	t.Run("HEADElsewhere", func(t *testing.T) {
		s := httpServer(t)
		s.repo.CreateBranch(t, "trunk", "main")
		if _, err := testenv.Git(s.repo.Dir, nil, "symbolic-ref", "HEAD", "refs/heads/trunk"); err != nil {
			t.Fatal(err)
		}
		r, _ := newRepo(t, s.remote)
		got, err := r.DefaultBranch(ctx(t))
		if err != nil {
			t.Fatalf("DefaultBranch: %v", err)
		}
		if diff := cmp.Diff("trunk", got); diff != "" {
			t.Errorf("DefaultBranch follows HEAD: -want, +got:\n%s", diff)
		}
	})
	t.Run("WrongPassword", func(t *testing.T) {
		s := httpServer(t)
		r, _ := newRepo(t, Remote{URL: s.remote.URL, Auth: &BasicAuth{Username: testUser, Password: "wrong"}})
		if err := r.Check(ctx(t)); KindOf(err) != KindAuth {
			t.Errorf("Check with a wrong password: want KindAuth, got %v (%v)", KindOf(err), err)
		}
	})
	t.Run("EmptyRepository", func(t *testing.T) {
		root := t.TempDir()
		repo := testenv.NewBareRepo(t, root, "empty.git", nil)
		srv := testenv.NewHTTPServer(t, root, testUser, testToken)
		r, _ := newRepo(t, Remote{URL: srv.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}})
		if err := r.Check(ctx(t)); err != nil {
			t.Errorf("Check of an empty repository: %v", err)
		}
		if _, err := r.DefaultBranch(ctx(t)); KindOf(err) != KindBranchNotFound {
			t.Errorf("DefaultBranch of an empty repository: want KindBranchNotFound, got %v", err)
		}
	})
}

// TestSetCommitWindow: a repository's own window (from its ProviderConfig)
// decides what one commit collects, not the cache's default.
func TestSetCommitWindow(t *testing.T) {
	s := httpServer(t)
	r, _ := newRepo(t, s.remote) // cache default: testWindow (200ms)
	r.SetCommitWindow(3 * time.Second)
	before := len(s.repo.Log(t, "main"))
	var wg sync.WaitGroup
	results := make([]Result, 2)
	submit := func(i int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.Submit(ctx(t), "main", Change{
				Puts:    map[string]File{fmt.Sprintf("w/%d.txt", i): {Content: []byte("x")}},
				Message: "window", Resource: Resource{Kind: "File", Namespace: "ns", Name: fmt.Sprint(i)},
			})
		}()
	}
	w := r.writerFor("main")
	submit(0)
	waitQueued(t, w, 1)
	// The elapsed time under test, not synchronisation: the second change
	// arrives 600ms after the first, later than the cache's window and well
	// within the repository's.
	time.Sleep(600 * time.Millisecond)
	submit(1)
	// Both queued together: the first was still waiting for its window.
	waitQueued(t, w, 2)
	wg.Wait()
	for i, res := range results {
		if res.Err != nil {
			t.Fatalf("change %d: %v", i, res.Err)
		}
	}
	if diff := cmp.Diff(results[0].Commit, results[1].Commit); diff != "" {
		t.Errorf("both changes must land in one commit: -first, +second:\n%s", diff)
	}
	if diff := cmp.Diff(before+1, len(s.repo.Log(t, "main"))); diff != "" {
		t.Errorf("commits added: -want, +got:\n%s", diff)
	}
}

// TestPacksAreCompacted: every push adds a pack to the clone; past maxPacks
// they are merged into one, and every file is still readable.
func TestPacksAreCompacted(t *testing.T) {
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	r.SetCommitWindow(0)
	pushes := maxPacks + 8
	for i := range pushes {
		res := r.Submit(ctx(t), "main", Change{
			Puts:    map[string]File{fmt.Sprintf("p/%02d.txt", i): {Content: []byte(fmt.Sprint(i))}},
			Message: "pack", Resource: Resource{Kind: "File", Namespace: "ns", Name: fmt.Sprint(i), UID: fmt.Sprint("uid-", i)},
		})
		if res.Err != nil {
			t.Fatalf("push %d: %v", i, res.Err)
		}
	}
	packs, err := r.st.ObjectPacks()
	if err != nil {
		t.Fatal(err)
	}
	if len(packs) > maxPacks {
		t.Errorf("%d packs after %d pushes, want at most %d", len(packs), pushes, maxPacks)
	}
	head, err := r.Head("main")
	if err != nil {
		t.Fatal(err)
	}
	for i := range pushes {
		b, err := r.ReadFile(head, fmt.Sprintf("p/%02d.txt", i))
		if err != nil {
			t.Fatalf("read after compaction: %v", err)
		}
		if diff := cmp.Diff(fmt.Sprint(i), string(b.Content)); diff != "" {
			t.Errorf("p/%02d.txt: -want, +got:\n%s", i, diff)
		}
	}
	// History survives too: the first change is found by its UID.
	if _, found, err := r.FindCommitByUID("main", "uid-0", 100); err != nil || !found {
		t.Errorf("FindCommitByUID after compaction: found=%v, err=%v", found, err)
	}
}

// TestCreateBranchFromUnfetchedCommit: a branch created at a commit the
// clone never downloaded must not leave a local ref at a missing object,
// which would break every later read and fetch of the repository.
func TestCreateBranchFromUnfetchedCommit(t *testing.T) {
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
	if b, err := r.ReadFile(head, "h.txt"); err != nil || string(b.Content) != "h" {
		t.Errorf("ReadFile(h.txt) at the new branch: %q, %v", b.Content, err)
	}
	res := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"after.txt": {Content: []byte("a")}}, Message: "after",
		Resource: Resource{Kind: "File", Namespace: "ns", Name: "after"}})
	if res.Err != nil {
		t.Errorf("Submit to main after creating a branch at an unfetched commit: %v", res.Err)
	}
}

// TestRejectedChangeDoesNotBlockItsBatch: when the server refuses a batch
// because of one change (here a hook refusing anything under bad/), the
// other changes of the batch still land and only that one reports the
// refusal.
func TestRejectedChangeDoesNotBlockItsBatch(t *testing.T) {
	s := httpServer(t)
	s.repo.SetHook(t, "pre-receive", `while read old new ref; do
  if git diff --name-only "$old" "$new" | grep -q '^bad/'; then echo "bad/ is protected" >&2; exit 1; fi
done`)
	r, _ := newRepo(t, s.remote)
	r.SetCommitWindow(500 * time.Millisecond)
	paths := []string{"good/1.txt", "bad/x.txt", "good/2.txt"}
	changes := make([]Change, len(paths))
	for i, p := range paths {
		changes[i] = Change{Puts: map[string]File{p: {Content: []byte(p)}}, Message: p,
			Resource: Resource{Kind: "File", Namespace: "ns", Name: fmt.Sprint(i)}}
	}
	// Queued together, so the server sees them as one batch first.
	results := submitInOrder(t, r, "main", changes)
	for i, p := range paths {
		wantRejected := p == "bad/x.txt"
		if got := KindOf(results[i].Err) == KindRejected; got != wantRejected || (!wantRejected && results[i].Err != nil) {
			t.Errorf("%s: err %v, want rejected=%v", p, results[i].Err, wantRejected)
		}
	}
	files := s.repo.Files(t, "main")
	for _, p := range []string{"good/1.txt", "good/2.txt"} {
		if files[p] != p {
			t.Errorf("%s did not land", p)
		}
	}
	if _, ok := files["bad/x.txt"]; ok {
		t.Errorf("bad/x.txt landed despite the hook")
	}
}

// TestSatisfiedChangeIsCreditedToACommitThatHoldsIt: a change already met
// reports a commit holding its content, even when a later change in the
// same batch rewrites the same path.
func TestSatisfiedChangeIsCreditedToACommitThatHoldsIt(t *testing.T) {
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	r.SetCommitWindow(time.Second)
	base := s.repo.Head(t, "main")
	changes := []Change{
		// Already on main (the seed): up to date against the base.
		{Puts: map[string]File{"README.md": {Content: []byte("hello\n")}}, Message: "same", Resource: Resource{Kind: "File", Namespace: "ns", Name: "same"}},
		// Then someone's own commit rewrites that path.
		{Puts: map[string]File{"README.md": {Content: []byte("rewritten\n")}}, Message: "rewrite", OwnCommit: true, Resource: Resource{Kind: "CommitRequest", Namespace: "ns", Name: "rw", UID: "rw"}},
	}
	results := submitInOrder(t, r, "main", changes)
	if results[0].Err != nil || !results[0].UpToDate {
		t.Fatalf("first change: %+v, want up to date", results[0])
	}
	if diff := cmp.Diff(base, results[0].Commit); diff != "" {
		t.Errorf("an up-to-date change is credited to the commit that held it: -want, +got:\n%s", diff)
	}
	if results[1].Err != nil || results[1].Commit == results[0].Commit {
		t.Errorf("second change: %+v, want its own commit", results[1])
	}
}
