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
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestConcurrentChangesLandInFewCommits(t *testing.T) {
	t.Parallel()
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			r, _ := newRepo(t, s.remote)
			before := s.repo.Head(t, "main")
			const n = 200
			results := make([]Result, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] = r.Submit(ctx(t), "main", Change{
						Puts:     map[string]File{fmt.Sprintf("gen/f%03d.yaml", i): {Content: []byte(fmt.Sprintf("i: %d\n", i))}},
						Message:  fmt.Sprintf("set f%03d", i),
						Resource: Resource{Kind: "File", Namespace: "ns", Name: fmt.Sprintf("f%03d", i), UID: fmt.Sprintf("uid-%03d", i)},
					})
				}()
			}
			wg.Wait()
			filesAt := map[string]map[string]string{}
			for i, res := range results {
				if res.Err != nil || res.UpToDate || res.Commit == "" {
					t.Fatalf("change %d: %+v", i, res)
				}
				if filesAt[res.Commit] == nil {
					filesAt[res.Commit] = s.repo.Files(t, res.Commit)
				}
				p := fmt.Sprintf("gen/f%03d.yaml", i)
				if got := filesAt[res.Commit][p]; got != fmt.Sprintf("i: %d\n", i) {
					t.Errorf("commit %s reported for change %d holds %q at %s", res.Commit[:7], i, got, p)
				}
			}
			log := s.repo.Log(t, "main")
			var commits int
			for _, e := range log {
				if e.SHA == before {
					break
				}
				commits++
			}
			if commits < 1 || commits > 3 {
				t.Errorf("200 concurrent changes made %d commits, want 1..3", commits)
			}
			if got := len(log[0].Trailers[TrailerUID]); commits == 1 && got != n {
				t.Errorf("merged commit carries %d UID trailers, want %d", got, n)
			}
			if got := len(s.repo.Files(t, "main")); got != 4+n {
				t.Errorf("server holds %d files, want %d", got, 4+n)
			}
		})
	}
}

func TestSatisfiedChangeIsUpToDate(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	head := s.repo.Head(t, "main")
	s.http.ResetCounts()
	got := r.Submit(ctx(t), "main", Change{
		Puts:    map[string]File{"apps/a.yaml": {Content: []byte("a: 1\n")}},
		Deletes: []string{"apps/never-existed.yaml"},
	})
	if diff := cmp.Diff(Result{Commit: head, UpToDate: true}, got); diff != "" {
		t.Errorf("Submit(satisfied): -want, +got:\n%s", diff)
	}
	if c := s.http.Counts(); c.ReceivePackPosts != 0 || s.repo.Head(t, "main") != head {
		t.Errorf("a satisfied change pushed: %+v", c)
	}
	// Changing only the executable bit is a change.
	got = r.Submit(ctx(t), "main", Change{Puts: map[string]File{"apps/a.yaml": {Content: []byte("a: 1\n"), Executable: true}}})
	if got.Err != nil || got.UpToDate {
		t.Fatalf("Submit(mode change) = %+v", got)
	}
	if b, err := r.ReadFile(ctx(t), got.Commit, "apps/a.yaml"); err != nil || !b.Executable {
		t.Errorf("ReadFile after mode change = %+v, %v; want executable", b, err)
	}
}

func TestBatchShapes(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r := newWindowRepo(t, s.remote, 2*time.Second)
	before := s.repo.Head(t, "main")
	changes := []Change{
		{Puts: map[string]File{"a": {Content: []byte("1")}}, Message: "put a", Resource: Resource{Kind: "File", Namespace: "ns", Name: "a", UID: "ua"}},
		{Deletes: []string{"README.md"}, Message: "drop readme", Resource: Resource{Kind: "File", Namespace: "ns", Name: "readme", UID: "ur"}},
		{Puts: map[string]File{"release/v1": {Content: []byte("v1")}}, Message: "Release v1\n\nBody.", OwnCommit: true,
			Author: Signature{Name: "Alice", Email: "alice@example.com"}, Resource: Resource{Kind: "CommitRequest", Namespace: "ns", Name: "rel", UID: "uc"}},
		{Puts: map[string]File{"../escape": {Content: []byte("x")}}, Resource: Resource{Kind: "File", Namespace: "ns", Name: "bad", UID: "ub"}},
	}
	results := submitInOrder(t, r, "main", changes)
	if KindOf(results[3].Err) != KindInvalidChange {
		t.Errorf("path escaping the repository: error %v, want KindInvalidChange", results[3].Err)
	}
	log := s.repo.Log(t, "main")
	want := []testenv.LogEntry{
		{SHA: results[2].Commit, Message: "Release v1\n\nBody.\n\nProvider-Git-Resource: CommitRequest/ns/rel\nProvider-Git-UID: uc",
			Trailers: map[string][]string{TrailerResource: {"CommitRequest/ns/rel"}, TrailerUID: {"uc"}}},
		{SHA: results[0].Commit, Message: "Apply 2 changes\n\n- File/ns/a: put a\n- File/ns/readme: drop readme\n\nProvider-Git-Resource: File/ns/a\nProvider-Git-UID: ua\nProvider-Git-Resource: File/ns/readme\nProvider-Git-UID: ur",
			Trailers: map[string][]string{TrailerResource: {"File/ns/a", "File/ns/readme"}, TrailerUID: {"ua", "ur"}}},
	}
	if len(log) < 3 || log[2].SHA != before {
		t.Fatalf("want exactly 2 new commits on %s, log: %+v", before[:7], log)
	}
	if diff := cmp.Diff(want, log[:2], cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Parents" }, cmp.Ignore())); diff != "" {
		t.Errorf("commits: -want, +got:\n%s", diff)
	}
	if results[1].Commit != results[0].Commit {
		t.Errorf("plain changes landed in different commits: %s, %s", results[0].Commit, results[1].Commit)
	}
	out, err := testenv.Git(s.repo.Dir, nil, "log", "-1", "--format=%an <%ae>|%cn", results[2].Commit)
	if err != nil || strings.TrimSpace(out) != "Alice <alice@example.com>|provider-git" {
		t.Errorf("own commit author|committer = %q, %v", out, err)
	}
	if s.http.Counts().ReceivePackPosts != 1 {
		t.Errorf("batch used %d pushes, want 1", s.http.Counts().ReceivePackPosts)
	}
}

// TestRejectedChangeDoesNotBlockItsBatch: when the server refuses a batch
// because of one change (here a hook refusing anything under bad/), the
// other changes of the batch still land and only that one reports the
// refusal.
func TestRejectedChangeDoesNotBlockItsBatch(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	s.repo.SetHook(t, "pre-receive", `while read old new ref; do
  if git diff --name-only "$old" "$new" | grep -q '^bad/'; then echo "bad/ is protected" >&2; exit 1; fi
done`)
	r := newWindowRepo(t, s.remote, 500*time.Millisecond)
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

// TestRejectedChangeIsFoundByHalving: one refused change among sixteen
// costs a push per halving on each side, not one per change: the batch is
// split in halves until the culprit stands alone, and every half without it
// lands in one push.
func TestRejectedChangeIsFoundByHalving(t *testing.T) {
	t.Parallel()
	const n = 16
	s := httpServer(t)
	s.repo.SetHook(t, "pre-receive", `while read old new ref; do
  if git diff --name-only "$old" "$new" | grep -q '^bad/'; then echo "bad/ is protected" >&2; exit 1; fi
done`)
	r := newWindowRepo(t, s.remote, 2*time.Second)
	changes := make([]Change, n)
	for i := range changes {
		p := fmt.Sprintf("good/%02d.txt", i)
		if i == 5 {
			p = "bad/x.txt"
		}
		changes[i] = Change{Puts: map[string]File{p: {Content: []byte(p)}}, Message: p,
			Resource: Resource{Kind: "File", Namespace: "ns", Name: fmt.Sprint(i)}}
	}
	posts0 := s.http.Counts().ReceivePackPosts
	results := submitInOrder(t, r, "main", changes)
	for i, res := range results {
		if got := KindOf(res.Err) == KindRejected; got != (i == 5) || (i != 5 && res.Err != nil) {
			t.Errorf("change %d: err %v, want rejected=%v", i, res.Err, i == 5)
		}
	}
	// The whole batch, then two halves at each of log2(16) levels.
	if got, most := s.http.Counts().ReceivePackPosts-posts0, int64(1+2*4); got > most {
		t.Errorf("one refused change among %d cost %d pushes, want at most %d", n, got, most)
	}
	if got := len(s.repo.Files(t, "main")); got < n-1 {
		t.Errorf("main holds %d files, want the %d allowed changes and the seed", got, n-1)
	}
}

// TestSatisfiedChangeIsCreditedToACommitThatHoldsIt: a change already met
// reports a commit holding its content, even when a later change in the
// same batch rewrites the same path.
func TestSatisfiedChangeIsCreditedToACommitThatHoldsIt(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r := newWindowRepo(t, s.remote, time.Second)
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
