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
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// forgeRefusals are the words each forge's receive-pack says when a push
// meets branch protection, as their documentation quotes them, and the
// hook that says them on a loopback server (the forge's own receive hook
// prints them on stderr, which Git sends on the side band).
var forgeRefusals = map[string]struct {
	Hook  string
	Words []string
}{
	// https://docs.github.com/en/repositories/configuring-branches-and-merges-in-your-repository/managing-protected-branches/troubleshooting-required-status-checks
	"GitHub": {
		Hook: "echo 'error: GH006: Protected branch update failed for refs/heads/main.' >&2\n" +
			"echo 'error: Changes must be made through a pull request.' >&2\nexit 1",
		Words: []string{"GH006: Protected branch update failed for refs/heads/main.", "Changes must be made through a pull request."},
	},
	// https://docs.gitlab.com/user/project/repository/branches/protected/
	"GitLab": {
		Hook:  "echo 'GitLab: You are not allowed to push code to protected branches on this project.' >&2\nexit 1",
		Words: []string{"You are not allowed to push code to protected branches on this project."},
	},
}

// TestProtectedBranchWords: a push refused by a forge's branch protection
// is KindRejected (PushRejected) with the forge's own words in its message,
// from the real Gitea and from a loopback server whose pre-receive hook
// says what GitHub and GitLab say.
func TestProtectedBranchWords(t *testing.T) {
	t.Parallel()
	type target struct {
		remote Remote
		words  []string
	}
	cases := map[string]func(t *testing.T) target{
		"Gitea": func(t *testing.T) target {
			g := testenv.StartGitea(t)
			repo := g.CreateRepo(t, "protected")
			g.ProtectBranch(t, repo.Name, "main")
			return target{
				remote: Remote{URL: repo.CloneURL, Auth: &BasicAuth{Username: testenv.GiteaAdmin, Password: g.Token}},
				words:  []string{"Not allowed to push to protected branch main"},
			}
		},
	}
	for name, f := range forgeRefusals {
		cases[name] = func(t *testing.T) target {
			s := httpServer(t)
			s.repo.SetHook(t, "pre-receive", f.Hook)
			return target{remote: s.remote, words: f.Words}
		}
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			tg := setup(t)
			r, _ := newRepo(t, tg.remote, WithCommitWindow(time.Millisecond))
			err := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"direct.yaml": {Content: []byte("a: 1\n")}}}).Err
			if got := KindOf(err); got != KindRejected {
				t.Fatalf("a push %s's branch protection refuses: KindOf(%v) = %v, want %v", name, err, got, KindRejected)
			}
			for _, w := range tg.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal must carry %s's words %q, so its owner knows why:\n%v", name, w, err)
				}
			}
		})
	}
}
