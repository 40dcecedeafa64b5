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

package testenv

import (
	"encoding/base64"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// OpenFromFork does what a stranger with no rights on repo can: fork it,
// push branch (one commit of path) to the fork, and open a pull request
// from the fork's branch into base. It returns the pull request's number
// and the fork branch's head.
func (g *Gitea) OpenFromFork(tb testing.TB, stranger GiteaUser, repo, branch, base, path string) (int64, string) {
	tb.Helper()
	var sha string
	var number int64
	g.as(tb, &stranger, "fork "+repo, func(c *gitea.Client) error {
		_, _, err := c.CreateFork(GiteaAdmin, repo, gitea.CreateForkOption{})
		return err
	})
	g.as(tb, &stranger, "push "+branch+" to the fork", func(c *gitea.Client) error {
		r, _, err := c.CreateFile(stranger.Name, repo, path, gitea.CreateFileOptions{
			FileOptions: gitea.FileOptions{Message: "a stranger's change", BranchName: base, NewBranchName: branch},
			Content:     base64.StdEncoding.EncodeToString([]byte("from: a fork\n")),
		})
		if err == nil && r.Commit != nil {
			sha = r.Commit.SHA
		}
		return err
	})
	g.as(tb, &stranger, "open a pull request from the fork", func(c *gitea.Client) error {
		pr, _, err := c.CreatePullRequest(GiteaAdmin, repo, gitea.CreatePullRequestOption{
			Head: stranger.Name + ":" + branch, Base: base, Title: "Please merge " + branch,
		})
		if err == nil {
			number = pr.Index
		}
		return err
	})
	return number, sha
}
