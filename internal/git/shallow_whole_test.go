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
	"bytes"
	"fmt"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestWholeHistoryUnboundsAClone: a clone a bounded configuration left on
// disk is made whole by the first fetch of a configuration that fetches
// the whole history, though no branch moved.
func TestWholeHistoryUnboundsAClone(t *testing.T) {
	t.Parallel()
	s := deepServer(t, 200)
	dir := t.TempDir()
	open := func(opts ...Option) *Repository {
		r, _ := newRepoIn(t, dir, s.remote, opts...)
		if err := r.Refresh(ctx(t), 0, "main"); err != nil {
			t.Fatal(err)
		}
		return r
	}
	bounded := open(WithHistoryDepth(10))
	if commits, shallow := clonedCommits(t, bounded); commits != 10 || shallow != 1 {
		t.Fatalf("bounded clone: %d commits, %d shallow; want 10, 1", commits, shallow)
	}
	bounded.cache.Close()
	whole := open(WithHistoryDepth(0))
	if whole.dir != bounded.dir {
		t.Fatalf("the second cache opened %s, not the bounded clone %s", whole.dir, bounded.dir)
	}
	if commits, shallow := clonedCommits(t, whole); commits != 200 || shallow != 0 {
		t.Errorf("after a whole-history fetch: %d commits, %d shallow; want 200, 0", commits, shallow)
	}
}

// orphanBranch writes branch on the server: n commits of a history of its
// own, unrelated to main's (git fast-import, as someone else's push).
func (s *server) orphanBranch(t testing.TB, branch string, n int) {
	t.Helper()
	var stream bytes.Buffer
	for i := range n {
		msg, data := fmt.Sprintf("%s %d", branch, i), fmt.Sprintf("%d\n", i)
		fmt.Fprintf(&stream, "commit refs/heads/%s\ncommitter Other <other@example.org> %d +0000\ndata %d\n%s\nM 100644 inline %s.txt\ndata %d\n%s\n",
			branch, 1800000000+i*60, len(msg), msg, branch, len(data), data)
	}
	cmd := exec.CommandContext(ctx(t), "git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = s.repo.Dir, &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v: %s", err, out)
	}
}

// TestWholeHistoryLeftoverBoundary: a clone a bounded configuration left
// with a boundary the server no longer holds (a branch deleted there, and
// its history collected), opened by a configuration that fetches the whole
// history, keeps that boundary: git's upload-pack unshallows the clone's
// shallow commits it holds and ignores the others. The first fetch makes
// main whole; after it, a poll of main that has not moved is an
// advertisement only, not a pack request each time, and a move is one
// request.
func TestWholeHistoryLeftoverBoundary(t *testing.T) {
	t.Parallel()
	s := deepServer(t, 200)
	s.orphanBranch(t, "side", 30)
	dir := t.TempDir()
	bounded, _ := newRepoIn(t, dir, s.remote, WithHistoryDepth(10))
	if err := bounded.Refresh(ctx(t), 0, "main", "side"); err != nil {
		t.Fatal(err)
	}
	if commits, shallow := clonedCommits(t, bounded); commits != 20 || shallow != 2 {
		t.Fatalf("bounded clone: %d commits, %d shallow; want 20, 2", commits, shallow)
	}
	bounded.cache.Close()
	for _, args := range [][]string{{"update-ref", "-d", "refs/heads/side"}, {"reflog", "expire", "--expire=now", "--all"}, {"gc", "-q", "--prune=now"}} {
		if _, err := testenv.Git(s.repo.Dir, nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := newRepoIn(t, dir, s.remote, WithHistoryDepth(0))

	type want struct {
		requests int64 // upload-pack requests the refresh made
		commits  int   // commits in the clone after it
		shallow  int   // of them shallow
	}
	steps := []struct {
		reason string
		push   bool // someone pushes one commit on main first
		want   want
	}{
		{reason: "The first fetch of the whole-history configuration makes main whole; side's boundary, which the server no longer holds, stays.",
			want: want{requests: 1, commits: 210, shallow: 1}},
		{reason: "main is whole and has not moved: the poll is an advertisement only, though side's boundary remains.",
			want: want{requests: 0, commits: 210, shallow: 1}},
		{reason: "Again: a leftover boundary costs no pack request per poll.",
			want: want{requests: 0, commits: 210, shallow: 1}},
		{reason: "main moved: one request brings the new commit.",
			push: true, want: want{requests: 1, commits: 211, shallow: 1}},
		{reason: "Up to date again: no request.",
			want: want{requests: 0, commits: 211, shallow: 1}},
	}
	for i, st := range steps {
		if st.push {
			s.fastImport(t, fmt.Sprintf("push %d", i), map[string]string{"pushed.txt": fmt.Sprint(i)})
		}
		before := s.fetches()
		if err := r.Refresh(ctx(t), 0, "main"); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		commits, shallow := clonedCommits(t, r)
		got := want{requests: s.fetches() - before, commits: commits, shallow: shallow}
		if diff := cmp.Diff(st.want, got, cmp.AllowUnexported(want{})); diff != "" {
			t.Errorf("step %d: %s\n-want, +got:\n%s", i, st.reason, diff)
		}
	}
}
