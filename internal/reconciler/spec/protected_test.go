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

package spec

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestProtectedBranchStalls: a push the forge refuses for branch protection
// stalls PushRejected with the forge's own words and the way out (write to
// a branch, open a PullRequest), from real pushes: to the real Gitea, and
// to a loopback server whose pre-receive hook says what GitHub, GitLab and
// Bitbucket say, and through a proxy that refuses the ref as Azure DevOps
// does. A refusal for another reason gets no such hint.
func TestProtectedBranchStalls(t *testing.T) {
	const azureRefusal = "TF402455: Pushes to this branch are not permitted; you must use a pull request to update this branch."
	const user, pass = "git", "s3cret"
	hooked := func(hook string) func(t *testing.T) git.Remote {
		return func(t *testing.T) git.Remote {
			root := t.TempDir()
			repo := testenv.NewBareRepo(t, root, "repo.git", map[string][]testenv.CommitSpec{
				"main": {{Message: "seed", Files: map[string]string{"README.md": "hello\n"}}},
			})
			repo.SetHook(t, "pre-receive", hook)
			s := testenv.NewHTTPServer(t, root, user, pass)
			return git.Remote{URL: s.RepoURL(repo.Name), Auth: &git.BasicAuth{Username: user, Password: pass}}
		}
	}
	cases := map[string]struct {
		reason string
		remote func(t *testing.T) git.Remote
		words  []string
		hint   bool
	}{
		"Gitea": {
			reason: "Gitea's protected branch refuses a direct push, even the admin's.",
			remote: func(t *testing.T) git.Remote {
				g := testenv.StartGitea(t)
				repo := g.CreateRepo(t, "protected")
				g.ProtectBranch(t, repo.Name, "main")
				return git.Remote{URL: repo.CloneURL, Auth: &git.BasicAuth{Username: testenv.GiteaAdmin, Password: g.Token}}
			},
			words: []string{"Not allowed to push to protected branch main"},
			hint:  true,
		},
		"GitHub": {
			reason: "GitHub's documented GH006 refusal.",
			remote: hooked("echo 'error: GH006: Protected branch update failed for refs/heads/main.' >&2\n" +
				"echo 'error: Changes must be made through a pull request.' >&2\nexit 1"),
			words: []string{"GH006: Protected branch update failed for refs/heads/main."},
			hint:  true,
		},
		"GitLab": {
			reason: "GitLab's documented refusal.",
			remote: hooked("echo 'GitLab: You are not allowed to push code to protected branches on this project.' >&2\nexit 1"),
			words:  []string{"You are not allowed to push code to protected branches on this project."},
			hint:   true,
		},
		"AzureDevOps": {
			reason: "Azure DevOps refuses a push its branch policy forbids in the ref's report status, TF402455.",
			remote: func(t *testing.T) git.Remote {
				remote := hooked("exit 0")(t)
				u, _ := strings.CutSuffix(remote.URL, "/repo.git")
				p := testenv.NewAzureProxy(t, u)
				p.RefusePushes(azureRefusal)
				remote.URL = p.RepoURL("repo.git")
				return remote
			},
			words: []string{azureRefusal},
			hint:  true,
		},
		"BitbucketCloud": {
			reason: "Bitbucket Cloud's branch restriction, in the words its receive hook says.",
			remote: hooked("echo 'Permission denied to update branch main.' >&2\nexit 1"),
			words:  []string{"Permission denied to update branch main."},
			hint:   true,
		},
		"BitbucketDataCenter": {
			reason: "Bitbucket Data Center's branch permission that takes changes only through pull requests.",
			remote: hooked("echo 'Branch refs/heads/main can only be modified through pull requests.' >&2\n" +
				"echo 'Check your branch permissions configuration with the project administrator.' >&2\nexit 1"),
			words: []string{"Branch refs/heads/main can only be modified through pull requests."},
			hint:  true,
		},
		"OtherHook": {
			reason: "A hook refusing for its own policy is PushRejected in its words, without the pull request hint.",
			remote: hooked("echo 'policy: every commit must name a ticket' >&2\nexit 1"),
			words:  []string{"policy: every commit must name a ticket"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			remote := tc.remote(t)
			c, err := git.NewCache(t.TempDir(), git.WithCommitWindow(time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			r, err := c.Repository(remote)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res := r.Submit(ctx, "main", git.Change{Puts: map[string]git.File{"direct.yaml": {Content: []byte("a: 1\n")}}})
			got := GitError(res.Err)
			t.Logf("%s: %v", name, got)
			reason, _ := managed.StalledReason(got)
			if diff := cmp.Diff(ReasonPushRejected, reason); diff != "" {
				t.Fatalf("%s\nGitError(%v): -want reason, +got reason:\n%s", tc.reason, res.Err, diff)
			}
			for _, w := range tc.words {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("%s\nthe condition must carry the forge's words %q:\n%v", tc.reason, w, got)
				}
			}
			if has := strings.Contains(got.Error(), "write to a branch and open a PullRequest"); has != tc.hint {
				t.Errorf("%s\nhint %q in the message = %v, want %v:\n%v", tc.reason, "write to a branch and open a PullRequest", has, tc.hint, got)
			}
		})
	}
}
