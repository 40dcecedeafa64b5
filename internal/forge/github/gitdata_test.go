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

package github_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	gh "github.com/crossplane-contrib/provider-git/internal/forge/github"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// gitEnv is env with the Git data API of acme/gitops backed by a bare
// repository holding main.
type gitEnv struct {
	env
	repo *testenv.BareRepo
}

func newGitEnv(t *testing.T, o ...gh.Option) gitEnv {
	t.Helper()
	e := newEnv(t)
	repo := testenv.NewBareRepo(t, t.TempDir(), "gitops.git", map[string][]testenv.CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"}}},
	})
	e.s.ServeGitData(owner, "gitops", repo.Dir)
	c, err := gh.NewClient(forge.Config{
		Type: forge.GitHub, APIURL: e.s.URL(), Owner: owner, Name: "gitops", HTTPClient: e.s.Client(),
		Token: func(context.Context) (string, error) { return fake.Token, nil },
	}, append([]gh.Option{gh.WithClock(e.clk), gh.WithTimer(e.clk)}, o...)...)
	if err != nil {
		t.Fatal(err)
	}
	e.c = c
	return gitEnv{env: e, repo: repo}
}

func (e gitEnv) git(t *testing.T, args ...string) string {
	t.Helper()
	out, err := testenv.Git(e.repo.Dir, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// TestGitData: each call of the commit path, and GitHub's rules the fake
// enforces: what the client sends, what it makes of the answers.
func TestGitData(t *testing.T) {
	testenv.Integration(t)
	ctx := context.Background()
	e := newGitEnv(t)
	e.calls()
	main := e.git(t, "rev-parse", "main")
	base := e.git(t, "rev-parse", "main^{tree}")

	bin := string([]byte{0, 1, 2, 0xff})
	blob, err := e.c.CreateBlob(ctx, []byte(bin))
	if err != nil {
		t.Fatal(err)
	}
	if got := e.git(t, "cat-file", "-p", blob); got != strings.TrimSpace(bin) {
		t.Errorf("blob %s holds %q, want the bytes sent", blob, got)
	}
	text := "c\n"
	tree, err := e.c.CreateTree(ctx, base, []gh.TreeEntry{
		{Path: "bin/x", SHA: blob, Executable: true},
		{Path: "c.txt", Content: &text},
		{Path: "dir/b.txt", Delete: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("100644 blob a.txt\n100755 blob bin/x\n100644 blob c.txt", e.git(t, "ls-tree", "-r", "--format=%(objectmode) %(objecttype) %(path)", tree)); diff != "" {
		t.Errorf("tree: -want, +got:\n%s", diff)
	}
	commit, err := e.c.CreateCommit(ctx, gh.NewCommit{Message: "m\n\nProvider-Git-UID: u\n", Tree: tree, Parent: main})
	if err != nil {
		t.Fatal(err)
	}
	if !e.s.Verified(commit) {
		t.Errorf("commit %s not Verified: the request must name no author or committer", commit)
	}
	moved, err := e.c.UpdateBranch(ctx, "main", commit)
	if moved || err != nil {
		t.Fatalf("fast-forward: moved %v, %v", moved, err)
	}
	want := []string{
		"POST /repos/acme/gitops/git/blobs 201", "POST /repos/acme/gitops/git/trees 201",
		"POST /repos/acme/gitops/git/commits 201", "PATCH /repos/acme/gitops/git/refs/heads/main 200",
	}
	if diff := cmp.Diff(want, e.calls()); diff != "" {
		t.Errorf("calls: -want, +got:\n%s", diff)
	}

	cases := map[string]struct {
		reason string
		do     func() (bool, error)
		moved  bool
		kind   error
	}{
		"NotFastForward": {
			reason: "A commit that does not descend from the head is GitHub's 422 'Update is not a fast forward': moved.",
			do:     func() (bool, error) { return e.c.UpdateBranch(ctx, "main", main) },
			moved:  true,
		},
		"NoBranch": {
			reason: "A branch that does not exist is a refusal, not a moved head.",
			do:     func() (bool, error) { return e.c.UpdateBranch(ctx, "gone", commit) },
			kind:   forge.ErrInvalidInput,
		},
		"BadBase": {
			reason: "A base_tree GitHub does not hold is refused.",
			do: func() (bool, error) {
				_, err := e.c.CreateTree(ctx, fake.SHA("nothing"), []gh.TreeEntry{{Path: "c.txt", Content: &text}})
				return false, err
			},
			kind: forge.ErrInvalidInput,
		},
		"BadBlob": {
			reason: "An entry naming a blob GitHub does not hold is refused.",
			do: func() (bool, error) {
				_, err := e.c.CreateTree(ctx, base, []gh.TreeEntry{{Path: "c.txt", SHA: fake.SHA("nothing")}})
				return false, err
			},
			kind: forge.ErrInvalidInput,
		},
		"BadParent": {
			reason: "A parent GitHub does not hold is refused.",
			do: func() (bool, error) {
				_, err := e.c.CreateCommit(ctx, gh.NewCommit{Message: "m", Tree: tree, Parent: fake.SHA("nothing")})
				return false, err
			},
			kind: forge.ErrInvalidInput,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			moved, err := tc.do()
			if moved != tc.moved {
				t.Errorf("%s\nmoved: want %v, got %v (%v)", tc.reason, tc.moved, moved, err)
			}
			if diff := cmp.Diff(tc.kind, kind(err)); diff != "" {
				t.Errorf("%s\nkind: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	e.calls()
	if moved, err := e.c.UpdateBranch(ctx, "../tags/v1", commit); moved || err == nil || len(e.calls()) != 0 {
		t.Errorf("a branch name climbing out of refs/heads: moved %v, %v; want refused before any request", moved, err)
	}
	if got := e.git(t, "rev-parse", "main"); got != commit {
		t.Errorf("main moved to %s by a refused update; want %s", got, commit)
	}
}

// TestGitDataPace: content-creating requests go at most 20 at once and 60
// a minute after, so no minute holds GitHub's 80; the 21st waits for the
// clock, not for a request GitHub would refuse.
func TestGitDataPace(t *testing.T) {
	testenv.Integration(t)
	ctx := context.Background()
	e := newGitEnv(t)
	e.calls()
	for i := range 20 {
		if _, err := e.c.CreateBlob(ctx, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.c.CreateBlob(ctx, []byte("21st"))
		done <- err
	}()
	for !e.clk.HasWaiters() {
		runtime.Gosched()
		select {
		case err := <-done:
			t.Fatalf("the 21st request went at once (%v)", err)
		default:
		}
	}
	if n := len(e.calls()); n != 20 {
		t.Errorf("%d requests sent before the clock moved, want 20", n)
	}
	e.clk.Step(time.Second) // 60 a minute: one a second
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(e.calls()); n != 1 {
		t.Errorf("%d requests after a second, want 1", n)
	}
}

// TestGitDataSecondaryLimit: GitHub's secondary limit on a content-creating
// request is a RateLimitError at Retry-After, and no request goes before.
func TestGitDataSecondaryLimit(t *testing.T) {
	testenv.Integration(t)
	ctx := context.Background()
	e := newGitEnv(t, gh.WithPacer(forge.NewPacer(testingclock.NewFakeClock(epoch)), "acme"))
	e.s.SetSecondaryLimit(0, time.Minute)
	e.calls()
	limited := &forge.RateLimitError{At: epoch.Add(time.Minute), Msg: fake.MsgSecondaryLimit}
	for i, want := range [][]string{{"POST /repos/acme/gitops/git/blobs 403"}, nil} {
		_, err := e.c.CreateBlob(ctx, []byte("x"))
		if diff := cmp.Diff(limited, kind(err)); diff != "" {
			t.Errorf("request %d: kind: -want, +got:\n%s", i, diff)
		}
		if diff := cmp.Diff(want, e.calls()); diff != "" {
			t.Errorf("request %d: calls: -want, +got:\n%s", i, diff)
		}
	}
}
