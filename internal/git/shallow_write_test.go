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
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// shallowWriteDepth is the history a clone in these tests holds: far less
// than the server's, so every write happens on a bounded clone.
const shallowWriteDepth = 10

// boundedClone opens a clone of s at shallowWriteDepth, fetched once, and
// checks that it is bounded.
func boundedClone(t *testing.T, s *server) *Repository {
	t.Helper()
	r, _ := newRepo(t, s.remote, WithHistoryDepth(shallowWriteDepth))
	r.SetCommitWindow(0)
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	if commits, shallow := clonedCommits(t, r); commits != shallowWriteDepth || shallow != 1 {
		t.Fatalf("the clone holds %d commits, %d shallow; want %d, 1", commits, shallow, shallowWriteDepth)
	}
	return r
}

// assertServerIntact checks that the server's repository is whole (git
// fsck: every push carried what it needed) and that every update of main
// was a fast-forward.
func assertServerIntact(t *testing.T, s *server) {
	t.Helper()
	if out, err := testenv.Git(s.repo.Dir, nil, "fsck", "--no-dangling"); err != nil {
		t.Errorf("git fsck of the server: %v: %s", err, out)
	}
	for _, u := range s.repo.Reflog(t, "main") {
		if u.Old != strings.Repeat("0", 40) && !s.repo.IsAncestor(t, u.Old, u.New) {
			t.Errorf("main moved %s -> %s without fast-forward", u.Old[:7], u.New[:7])
		}
	}
}

// TestWritesOnBoundedHistory: every write path lands on a clone that holds
// 10 of the branch's 200 commits, as a fast-forward of the server's head,
// and the server's repository stays whole.
func TestWritesOnBoundedHistory(t *testing.T) {
	t.Parallel()
	res := func(kind, name string) Resource {
		return Resource{Kind: kind, Namespace: "ns", Name: name, UID: "uid-" + name}
	}
	cases := map[string]struct {
		reason string
		// write does the write on r and returns the files main must hold
		// after it.
		write func(t *testing.T, s *server, r *Repository) map[string]string
	}{
		"File": {
			reason: "A File replaces a file it read, expecting the blob it read.",
			write: func(t *testing.T, s *server, r *Repository) map[string]string {
				b, err := r.ReadFile(ctx(t), mustHead(t, r, "main"), "log/0.txt")
				if err != nil {
					t.Fatal(err)
				}
				out := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"log/0.txt": {Content: []byte("file\n")}},
					Expect: map[string]string{"log/0.txt": b.SHA}, Message: "file", Resource: res("File", "f")})
				if out.Err != nil {
					t.Fatal(out.Err)
				}
				return map[string]string{"log/0.txt": "file\n"}
			},
		},
		"CommitRequest": {
			reason: "A CommitRequest is a commit of its own that writes and deletes; the trailer search finds it.",
			write: func(t *testing.T, s *server, r *Repository) map[string]string {
				out := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"req/a.txt": {Content: []byte("a\n")}},
					Deletes: []string{"log/1.txt"}, Message: "request", OwnCommit: true, Resource: res("CommitRequest", "c")})
				if out.Err != nil {
					t.Fatal(out.Err)
				}
				if c, found, err := r.FindCommitByUID(ctx(t), "main", "uid-c", searchWalk); err != nil || !found || c.SHA != out.Commit {
					t.Errorf("FindCommitByUID = %v, %v, %v; want %s", c.SHA, found, err, out.Commit)
				}
				return map[string]string{"req/a.txt": "a\n", "log/1.txt": ""}
			},
		},
		"Mirror": {
			reason: "A Mirror's change is parts, each a commit, each expecting what it read.",
			write: func(t *testing.T, s *server, r *Repository) map[string]string {
				out := r.Submit(ctx(t), "main", Change{Resource: res("Mirror", "m"), Parts: []Part{
					{Puts: map[string]File{"mirror/cm.yaml": {Content: []byte("kind: ConfigMap\n")}}, Expect: map[string]string{"mirror/cm.yaml": ""}, Message: "object"},
					{Puts: map[string]File{"mirror/.owner": {Content: []byte("m\n")}}, Expect: map[string]string{"mirror/.owner": ""}, Message: "owner"},
				}})
				if out.Err != nil {
					t.Fatal(out.Err)
				}
				return map[string]string{"mirror/cm.yaml": "kind: ConfigMap\n", "mirror/.owner": "m\n"}
			},
		},
		"Branch": {
			reason: "Branches start at the head, and at a commit below the clone's boundary; one is deleted again.",
			write: func(t *testing.T, s *server, r *Repository) map[string]string {
				old := s.rev(t, "main~150")
				for branch, from := range map[string]string{"feature": "main", "old": old, "gone": "main"} {
					if out := r.CreateBranch(ctx(t), branch, from); out.Err != nil {
						t.Fatalf("CreateBranch(%s, %s): %v", branch, from, out.Err)
					}
				}
				if out := r.DeleteBranch(ctx(t), "gone"); out.Err != nil {
					t.Fatal(out.Err)
				}
				got := map[string]string{"feature": s.rev(t, "feature"), "old": s.rev(t, "old")}
				want := map[string]string{"feature": s.rev(t, "main"), "old": old}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("branch heads on the server: -want, +got:\n%s", diff)
				}
				if _, err := testenv.Git(s.repo.Dir, nil, "rev-parse", "--verify", "-q", "refs/heads/gone"); err == nil {
					t.Error("branch gone was not deleted")
				}
				return nil
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := deepServer(t, 200)
			r := boundedClone(t, s)
			before := s.rev(t, "main")
			want := tc.write(t, s, r)
			files := s.repo.Files(t, "main")
			for p, content := range want {
				if files[p] != content {
					t.Errorf("%s\n%s on the server = %q, want %q", tc.reason, p, files[p], content)
				}
			}
			if !s.repo.IsAncestor(t, before, s.rev(t, "main")) {
				t.Errorf("%s\nthe server's head moved off %s", tc.reason, before[:7])
			}
			assertServerIntact(t, s)
		})
	}
}

// TestRebaseOnBoundedHistory: a clone of 10 commits writes on a head the
// server left 30 commits behind. The push is refused (the branch moved),
// the engine fetches the new head, whose history the clone does not reach,
// re-applies the change there and lands it; the others' commits all stay,
// and a change computed on what the others since changed fails alone
// instead of overwriting it.
func TestRebaseOnBoundedHistory(t *testing.T) {
	t.Parallel()
	s := deepServer(t, 200)
	r := boundedClone(t, s)
	stale := mustHead(t, r, "main")
	b, err := r.ReadFile(ctx(t), stale, "log/3.txt")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		s.fastImport(t, fmt.Sprintf("other %d", i), map[string]string{fmt.Sprintf("other/%02d.txt", i): "x\n", "log/3.txt": fmt.Sprintf("other %d\n", i)})
	}
	moved := s.rev(t, "main")

	put := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"mine.txt": {Content: []byte("mine\n")}}, Message: "mine",
		Resource: Resource{Kind: "File", Namespace: "ns", Name: "mine", UID: "uid-mine"}})
	if put.Err != nil {
		t.Fatalf("Submit after the remote moved: %v", put.Err)
	}
	stalePut := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"log/3.txt": {Content: []byte("mine\n")}},
		Expect: map[string]string{"log/3.txt": b.SHA}, Message: "stale",
		Resource: Resource{Kind: "File", Namespace: "ns", Name: "stale", UID: "uid-stale"}})
	var pe *PreconditionError
	if KindOf(stalePut.Err) != KindPathConflict || !errors.As(stalePut.Err, &pe) {
		t.Errorf("a change computed on log/3.txt before the others changed it: %v, want a *PreconditionError", stalePut.Err)
	}

	log := s.repo.Log(t, "main")
	if len(log) < 2 || log[0].SHA != put.Commit || log[1].SHA != moved {
		t.Fatalf("main on the server is %v, want %s on top of %s", log[:min(2, len(log))], put.Commit[:7], moved[:7])
	}
	files := s.repo.Files(t, "main")
	for i := range 30 {
		if p := fmt.Sprintf("other/%02d.txt", i); files[p] != "x\n" {
			t.Errorf("the others' %s is lost", p)
		}
	}
	if files["log/3.txt"] != "other 29\n" || files["mine.txt"] != "mine\n" {
		t.Errorf("log/3.txt = %q, mine.txt = %q; want the others' last write and mine", files["log/3.txt"], files["mine.txt"])
	}
	assertServerIntact(t, s)
}

// TestCompactionOnBoundedHistory: past maxPacks packs a bounded clone is
// compacted like any other, the walk stopping at its boundary (go-git's
// RepackObjects fails on the first parent the clone lacks); every file
// still reads, the boundary is still recorded, and a search still walks to
// it and deepens past it.
func TestCompactionOnBoundedHistory(t *testing.T) {
	t.Parallel()
	s := deepServer(t, 200)
	r := boundedClone(t, s)
	pushes := maxPacks + 2
	for i := range pushes {
		out := r.Submit(ctx(t), "main", Change{Puts: map[string]File{fmt.Sprintf("p/%02d.txt", i): {Content: []byte(fmt.Sprint(i))}},
			Message: "pack", Resource: Resource{Kind: "File", Namespace: "ns", Name: fmt.Sprint(i), UID: fmt.Sprint("uid-p", i)}})
		if out.Err != nil {
			t.Fatalf("push %d: %v", i, out.Err)
		}
	}
	packs, err := r.st.ObjectPacks()
	if err != nil {
		t.Fatal(err)
	}
	if len(packs) > maxPacks {
		t.Errorf("%d packs after %d pushes, want at most %d", len(packs), pushes, maxPacks)
	}
	commits, shallow := clonedCommits(t, r)
	if diff := cmp.Diff([2]int{shallowWriteDepth + pushes, 1}, [2]int{commits, shallow}); diff != "" {
		t.Errorf("commits and shallow commits after compaction: -want, +got:\n%s", diff)
	}
	assertReadsLikeServer(t, r, s, mustHead(t, r, "main"))
	if c, found, err := r.FindCommitByUID(ctx(t), "main", "uid-150", searchWalk); err != nil || !found || c.SHA != s.rev(t, fmt.Sprintf("main~%d", pushes+49)) {
		t.Errorf("FindCommitByUID(uid-150) after compaction = %v, %v, %v", c.SHA, found, err)
	}
	assertServerIntact(t, s)
}
