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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// emptyServers returns an HTTP and an SSH server, each serving one bare
// repository with no commit at all, as a forge creates it.
func emptyServers(t *testing.T) []*server {
	t.Helper()
	hroot := t.TempDir()
	hrepo := testenv.NewBareRepo(t, hroot, "empty.git", nil)
	h := testenv.NewHTTPServer(t, hroot, testUser, testToken)
	sroot := t.TempDir()
	srepo := testenv.NewBareRepo(t, sroot, "empty.git", nil)
	s := testenv.StartSSHServer(t, sroot)
	return []*server{
		{name: "HTTP", root: hroot, repo: hrepo, http: h,
			remote: Remote{URL: h.RepoURL(hrepo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}}},
		{name: "SSH", root: sroot, repo: srepo, ssh: s,
			remote: Remote{URL: s.RepoURL(srepo.Name), Auth: &SSHAuth{PrivateKey: s.ClientKeyPEM, KnownHosts: s.KnownHosts}}},
	}
}

// serverState is what a test reads back from the server: one branch's
// history as parent counts, newest first, and its files.
type serverState struct {
	Parents []int
	Files   map[string]string
}

func stateOf(t *testing.T, s *server, branch string) serverState {
	t.Helper()
	var st serverState
	for _, e := range s.repo.Log(t, branch) {
		st.Parents = append(st.Parents, len(e.Parents))
	}
	st.Files = s.repo.Files(t, branch)
	return st
}

func TestEmptyRepositoryFirstCommit(t *testing.T) {
	t.Parallel()
	type want struct {
		upToDate bool
		noCommit bool
		kind     Kind
		err      bool
		state    serverState
	}
	type args struct {
		// do is the one operation under test, on branch "main" of a
		// repository with no commit.
		do func(t *testing.T, r *Repository) Result
	}
	put := Change{Puts: map[string]File{"apps/a.yaml": {Content: []byte("a: 1\n")}}, Message: "add a",
		Resource: Resource{Kind: "File", Namespace: "ns", Name: "a", UID: "uid-a"}}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"BranchWithoutFrom": {
			reason: "A Branch with no start point creates the first commit: an empty tree, no parent.",
			args:   args{do: func(t *testing.T, r *Repository) Result { return r.CreateBranch(ctx(t), "main", "") }},
			want:   want{state: serverState{Parents: []int{0}, Files: map[string]string{}}},
		},
		"BranchFromAMissingBranch": {
			reason: "A start point that names a branch is missing in an empty repository too: nothing is created.",
			args:   args{do: func(t *testing.T, r *Repository) Result { return r.CreateBranch(ctx(t), "main", "trunk") }},
			want:   want{err: true, kind: KindBranchNotFound},
		},
		"FileChange": {
			reason: "A change to a branch of an empty repository becomes its first commit, holding the file.",
			args:   args{do: func(t *testing.T, r *Repository) Result { return r.Submit(ctx(t), "main", put) }},
			want:   want{state: serverState{Parents: []int{0}, Files: map[string]string{"apps/a.yaml": "a: 1\n"}}},
		},
		"OwnCommitChange": {
			reason: "A CommitRequest's change lands as the first commit with its own message.",
			args: args{do: func(t *testing.T, r *Repository) Result {
				c := put
				c.OwnCommit = true
				return r.Submit(ctx(t), "main", c)
			}},
			want: want{state: serverState{Parents: []int{0}, Files: map[string]string{"apps/a.yaml": "a: 1\n"}}},
		},
		"DeleteIsSatisfied": {
			reason: "A deletion in an empty repository is already satisfied: no commit, and no commit to name.",
			args: args{do: func(t *testing.T, r *Repository) Result {
				return r.Submit(ctx(t), "main", Change{Deletes: []string{"apps/a.yaml"}, Message: "rm"})
			}},
			want: want{upToDate: true, noCommit: true},
		},
	}
	for _, s := range emptyServers(t) {
		for name, tc := range cases {
			t.Run(s.name+"/"+name, func(t *testing.T) {
				srv := freshEmpty(t, s)
				r, _ := newRepo(t, srv.remote)
				res := tc.args.do(t, r)
				if tc.want.err {
					if KindOf(res.Err) != tc.want.kind || res.Err == nil {
						t.Fatalf("%s\nwant an error of kind %v, got %v", tc.reason, tc.want.kind, res.Err)
					}
					if h := srv.repo.Head(t, "main"); h != "" {
						t.Errorf("%s\nthe branch exists after a failed creation", tc.reason)
					}
					return
				}
				if res.Err != nil {
					t.Fatalf("%s\n%v", tc.reason, res.Err)
				}
				if diff := cmp.Diff(tc.want.upToDate, res.UpToDate); diff != "" {
					t.Errorf("%s\nUpToDate: -want, +got:\n%s", tc.reason, diff)
				}
				if tc.want.noCommit {
					if res.Commit != "" {
						t.Errorf("%s\nCommit: want none, got %q", tc.reason, res.Commit)
					}
					return
				}
				if diff := cmp.Diff(srv.repo.Head(t, "main"), res.Commit); diff != "" {
					t.Errorf("%s\nCommit is the server's head: -want, +got:\n%s", tc.reason, diff)
				}
				if diff := cmp.Diff(tc.want.state, stateOf(t, srv, "main"), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s\nserver: -want, +got:\n%s", tc.reason, diff)
				}
				if r.Empty() {
					t.Errorf("%s\nEmpty() after the first commit landed: want false", tc.reason)
				}
			})
		}
	}
}

// freshEmpty returns s with a new empty repository of its own on the same
// server, so table cases do not see each other's commits.
func freshEmpty(t *testing.T, s *server) *server {
	t.Helper()
	repo := testenv.NewBareRepo(t, s.root, strings.ReplaceAll(t.Name(), "/", "-")+".git", nil)
	c := *s
	c.repo = repo
	c.remote = s.remote
	if s.http != nil {
		c.remote.URL = s.http.RepoURL(repo.Name)
	} else {
		c.remote.URL = s.ssh.RepoURL(repo.Name)
	}
	return &c
}

// TestEmptyRepositoryOnlyFirstWriteIsRoot proves a first commit lands only
// while the repository has no branch: once another branch exists, a write
// to a missing branch is BranchNotFound again (which commit it starts from
// is a Branch's to say), and a Branch without from starts at the default
// branch.
func TestEmptyRepositoryOnlyFirstWriteIsRoot(t *testing.T) {
	t.Parallel()
	s := emptyServers(t)[0]
	r, _ := newRepo(t, s.remote)
	if err := r.Refresh(ctx(t), 0, "main", "staging"); err != nil {
		t.Fatal(err)
	}
	if !r.Empty() {
		t.Fatal("Empty() after fetching an empty repository: want true")
	}
	// Someone else creates main behind our back; our clone still believes
	// the repository is empty.
	seedOver(t, s)
	res := r.Submit(ctx(t), "staging", Change{Puts: map[string]File{"x": {Content: []byte("x")}}, Message: "x"})
	if KindOf(res.Err) != KindBranchNotFound {
		t.Fatalf("write to a missing branch once the repository has a branch: want KindBranchNotFound, got %v", res.Err)
	}
	if h := s.repo.Head(t, "staging"); h != "" {
		t.Error("an unrelated root commit was pushed to staging")
	}
	res = r.CreateBranch(ctx(t), "staging", "")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if diff := cmp.Diff(s.repo.Head(t, "main"), res.Commit); diff != "" {
		t.Errorf("Branch without from in a repository that became non-empty starts at the default branch: -want, +got:\n%s", diff)
	}
}

// seedOver pushes one commit to main of s's repository with the git CLI.
func seedOver(t *testing.T, s *server) {
	t.Helper()
	work := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=x", "-c", "user.email=x@example.com", "commit", "-q", "--allow-empty", "-m", "theirs"},
		{"push", "-q", s.repo.Dir, "main"},
	} {
		if _, err := testenv.Git(work, nil, args...); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEmptyRepositoryFirstCommitIdentity: a Branch's first commit in an
// empty repository follows the rule every commit does: the asking
// configuration authors it, and commits it too when it signs (a forge shows
// a signature as verified by the committer's e-mail).
func TestEmptyRepositoryFirstCommitIdentity(t *testing.T) {
	t.Parallel()
	bot := Signature{Name: "Platform Bot", Email: "platform-bot@example.org"}
	cases := map[string]struct {
		reason string
		signed bool
		author Signature
		want   string
	}{
		"Unsigned": {reason: "Unsigned, the configuration authors it and the provider commits it, as a batch.",
			author: bot, want: "Platform Bot <platform-bot@example.org>\nprovider-git <provider-git@crossplane.io>"},
		"Signed": {reason: "Signed, the configuration authors and commits it.",
			signed: true, author: bot, want: "Platform Bot <platform-bot@example.org>\nPlatform Bot <platform-bot@example.org>"},
		"NoAuthor": {reason: "No author: the cache's committer, as before.",
			want: "provider-git <provider-git@crossplane.io>\nprovider-git <provider-git@crossplane.io>"},
	}
	base := emptyServers(t)[0]
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := freshEmpty(t, base)
			remote := s.remote
			if tc.signed {
				remote.Signer = newSigner(t)
			}
			r, _ := newRepo(t, remote)
			if res := r.CreateBranchAs(ctx(t), "main", "", tc.author); res.Err != nil {
				t.Fatal(res.Err)
			}
			got, err := testenv.Git(s.repo.Dir, nil, "log", "-1", "--format=%an <%ae>%n%cn <%ce>", "main")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, strings.TrimSpace(got)); diff != "" {
				t.Errorf("%s\nauthor and committer: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
