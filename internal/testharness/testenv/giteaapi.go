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
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// giteaCallTimeout bounds each API call a test makes as a person would.
const giteaCallTimeout = time.Minute

// GiteaRepo is a repository StartGitea's admin owns.
type GiteaRepo struct {
	Owner, Name string
	// CloneURL is the HTTP Git URL, without credentials (see AuthURL; the
	// admin's password and Token both work).
	CloneURL string
	// APIURL is the instance's API root, as forge.Config wants it.
	APIURL string
}

// GiteaUser is a second person on the forge: a reviewer, an assignee.
type GiteaUser struct {
	Name, Password, Token string
}

// Client returns an SDK client acting as the admin with ctx for its calls.
// The SDK asks the server's version on creation unless told one: "" skips
// every version gate (Gitea here is 1.26, newer than all of them).
func (g *Gitea) Client(ctx context.Context, tb testing.TB) *gitea.Client {
	tb.Helper()
	return g.clientAs(ctx, tb, gitea.SetToken(g.Token))
}

func (g *Gitea) clientAs(ctx context.Context, tb testing.TB, auth gitea.ClientOption) *gitea.Client {
	tb.Helper()
	c, err := gitea.NewClient(g.URL, auth, gitea.SetContext(ctx), gitea.SetGiteaVersion(""))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// call runs fn with the admin's client and a bounded context, failing the
// test on error.
func (g *Gitea) call(tb testing.TB, what string, fn func(c *gitea.Client) error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), giteaCallTimeout)
	defer cancel()
	if err := fn(g.Client(ctx, tb)); err != nil {
		tb.Fatalf("gitea: %s: %v", what, err)
	}
}

// CreateRepo creates a repository owned by the admin, with a README on
// main.
func (g *Gitea) CreateRepo(tb testing.TB, name string) GiteaRepo {
	tb.Helper()
	g.call(tb, "create repository "+name, func(c *gitea.Client) error {
		_, _, err := c.CreateRepo(gitea.CreateRepoOption{Name: name, AutoInit: true, DefaultBranch: "main", Readme: "Default"})
		return err
	})
	return GiteaRepo{Owner: GiteaAdmin, Name: name, CloneURL: g.URL + GiteaAdmin + "/" + name + ".git", APIURL: g.APIURL}
}

// ProtectBranch refuses every push to branch (also the admin's): changes
// land only through a merged pull request.
func (g *Gitea) ProtectBranch(tb testing.TB, repo, branch string) {
	tb.Helper()
	g.call(tb, "protect "+branch, func(c *gitea.Client) error {
		_, _, err := c.CreateBranchProtection(GiteaAdmin, repo, gitea.CreateBranchProtectionOption{RuleName: branch})
		return err
	})
}

// CommitFile writes path on branch through the contents API, creating
// branch from from when from is not "", and returns the new commit's SHA.
func (g *Gitea) CommitFile(tb testing.TB, repo, branch, from, path, content string) string {
	tb.Helper()
	var sha string
	g.call(tb, "commit "+path+" to "+branch, func(c *gitea.Client) error {
		opt := gitea.CreateFileOptions{
			FileOptions: gitea.FileOptions{Message: "write " + path, BranchName: branch},
			Content:     base64.StdEncoding.EncodeToString([]byte(content)),
		}
		if from != "" {
			opt.BranchName, opt.NewBranchName = from, branch
		}
		r, _, err := c.CreateFile(GiteaAdmin, repo, path, opt)
		if err == nil && r.Commit != nil {
			sha = r.Commit.SHA
		}
		return err
	})
	return sha
}

// CreateUser creates a person with a token of all scopes and write access
// to repos, so they may review, be assigned and merge there.
func (g *Gitea) CreateUser(tb testing.TB, name string, repos ...string) GiteaUser {
	tb.Helper()
	u := GiteaUser{Name: name, Password: GiteaAdminPassword + "-" + name}
	no := false
	g.call(tb, "create user "+name, func(c *gitea.Client) error {
		_, _, err := c.AdminCreateUser(gitea.CreateUserOption{
			Username: name, Email: name + "@example.com", Password: u.Password, MustChangePassword: &no,
		})
		return err
	})
	write := gitea.AccessModeWrite
	for _, r := range repos {
		g.call(tb, "add collaborator "+name, func(c *gitea.Client) error {
			_, err := c.AddCollaborator(GiteaAdmin, r, name, gitea.AddCollaboratorOption{Permission: &write})
			return err
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), giteaCallTimeout)
	defer cancel()
	t, _, err := g.clientAs(ctx, tb, gitea.SetBasicAuth(name, u.Password)).CreateAccessToken(gitea.CreateAccessTokenOption{
		Name: "test", Scopes: []gitea.AccessTokenScope{gitea.AccessTokenScopeAll},
	})
	if err != nil {
		tb.Fatalf("gitea: token for %s: %v", name, err)
	}
	u.Token = t.Token
	return u
}

// as runs fn as user (the admin when user is nil).
func (g *Gitea) as(tb testing.TB, user *GiteaUser, what string, fn func(c *gitea.Client) error) {
	tb.Helper()
	if user == nil {
		g.call(tb, what, fn)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), giteaCallTimeout)
	defer cancel()
	if err := fn(g.clientAs(ctx, tb, gitea.SetToken(user.Token))); err != nil {
		tb.Fatalf("gitea: %s as %s: %v", what, user.Name, err)
	}
}

// MergeAsReviewer merges pull request number as a reviewer would in the web
// UI: a merge commit, the head branch kept. reviewer nil is the admin.
func (g *Gitea) MergeAsReviewer(tb testing.TB, reviewer *GiteaUser, repo string, number int64) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), giteaCallTimeout)
	defer cancel()
	who, token := GiteaAdmin, g.Token
	if reviewer != nil {
		who, token = reviewer.Name, reviewer.Token
	}
	tick := time.NewTicker(mergeRetry)
	defer tick.Stop()
	if err := merge(ctx, g.clientAs(ctx, tb, gitea.SetToken(token)), repo, number, tick.C); err != nil {
		tb.Fatalf("gitea: merge as %s: %v", who, err)
	}
}

// mergeRetry is how soon a merge Gitea refused for now is asked again.
const mergeRetry = 500 * time.Millisecond

// merge merges pull request number of repo as a person would: asked
// again at every tick while Gitea answers 405 (the mergeability check runs
// again after a push, a review or another merge into the base: "Please try
// again later"), until ctx (c's) ends. The SDK reports a refused merge
// as false with no error; taken for a merge, a refusal left the pull
// request open while the test waited for the provider to see it merged
// (MergedByAReviewer, failed under load).
func merge(ctx context.Context, c *gitea.Client, repo string, number int64, tick <-chan time.Time) error {
	var refused error
	for {
		merged, resp, err := c.MergePullRequest(GiteaAdmin, repo, number, gitea.MergePullRequestOption{Style: gitea.MergeStyleMerge})
		switch {
		case err != nil && refused != nil && ctx.Err() != nil:
			return fmt.Errorf("%w, asked again until %w", refused, ctx.Err())
		case err != nil:
			return err
		case merged:
			return nil
		}
		refused = fmt.Errorf(errMergeRefusedFmt, number, resp.Status)
		if resp.StatusCode != http.StatusMethodNotAllowed {
			return refused
		}
		select {
		case <-tick:
		case <-ctx.Done():
			return fmt.Errorf("%w, asked again until %w", refused, ctx.Err())
		}
	}
}

// errMergeRefusedFmt: Gitea answered a merge with another status than 200.
const errMergeRefusedFmt = "gitea refused the merge of pull request #%d: %s"

// Approve submits an approving review as reviewer.
func (g *Gitea) Approve(tb testing.TB, reviewer GiteaUser, repo string, number int64) {
	tb.Helper()
	g.as(tb, &reviewer, "approve", func(c *gitea.Client) error {
		_, _, err := c.CreatePullReview(GiteaAdmin, repo, number, gitea.CreatePullReviewOptions{State: gitea.ReviewStateApproved, Body: "LGTM"})
		return err
	})
}

// ClosePR closes pull request number without merging, as a person would.
func (g *Gitea) ClosePR(tb testing.TB, repo string, number int64) {
	tb.Helper()
	closed := gitea.StateClosed
	g.call(tb, "close", func(c *gitea.Client) error {
		_, _, err := c.EditPullRequest(GiteaAdmin, repo, number, gitea.EditPullRequestOption{State: &closed})
		return err
	})
}

// EditTitle changes pull request number's title, as a person would.
func (g *Gitea) EditTitle(tb testing.TB, repo string, number int64, title string) {
	tb.Helper()
	g.call(tb, "edit title", func(c *gitea.Client) error {
		_, _, err := c.EditPullRequest(GiteaAdmin, repo, number, gitea.EditPullRequestOption{Title: title})
		return err
	})
}

// PR returns pull request number as the forge reports it.
func (g *Gitea) PR(tb testing.TB, repo string, number int64) *gitea.PullRequest {
	tb.Helper()
	var pr *gitea.PullRequest
	g.call(tb, "get pull request", func(c *gitea.Client) (err error) {
		pr, _, err = c.GetPullRequest(GiteaAdmin, repo, number)
		return err
	})
	return pr
}

// SetStatus sets a commit status (a CI check named context) on sha.
func (g *Gitea) SetStatus(tb testing.TB, repo, sha, context string, state gitea.StatusState) {
	tb.Helper()
	g.call(tb, "set status", func(c *gitea.Client) error {
		_, _, err := c.CreateStatus(GiteaAdmin, repo, sha, gitea.CreateStatusOption{State: state, Context: context})
		return err
	})
}

// CreateLabel creates a label on repo.
func (g *Gitea) CreateLabel(tb testing.TB, repo, name string) {
	tb.Helper()
	g.call(tb, "create label "+name, func(c *gitea.Client) error {
		_, _, err := c.CreateLabel(GiteaAdmin, repo, gitea.CreateLabelOption{Name: name, Color: "#00aabb"})
		return err
	})
}

// PushBranches makes each branch of heads one commit on top of from and
// pushes them to repo, as a person with a clone would, and returns their
// heads. A hundred branches through CommitFile cost a hundred commits of
// Gitea's contents API, each in a work tree of its own; a push costs only
// Gitea's processing of each ref (its hooks), in pushes of pushBatch refs,
// each well within the git CLI's timeout on a loaded machine.
func (g *Gitea) PushBranches(tb testing.TB, repo GiteaRepo, from string, heads map[string]CommitSpec) map[string]string {
	tb.Helper()
	url := AuthURL(repo.CloneURL, GiteaAdmin, g.Token)
	local := NewBareRepo(tb, tb.TempDir(), "push.git", nil)
	if _, err := Git(local.Dir, nil, "fetch", "--quiet", url, "+refs/heads/"+from+":refs/heads/"+from); err != nil {
		tb.Fatal(err)
	}
	out := local.Branch(tb, from, heads)
	names := slices.Sorted(maps.Keys(out))
	for batch := range slices.Chunk(names, pushBatch) {
		args := make([]string, 0, 3+len(batch))
		args = append(args, "push", "--quiet", url)
		for _, b := range batch {
			args = append(args, "refs/heads/"+b+":refs/heads/"+b)
		}
		if _, err := Git(local.Dir, nil, args...); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// pushBatch is how many refs one push of PushBranches carries: Gitea's
// hooks took over two minutes for a hundred on a loaded machine.
const pushBatch = 20

// AddHook has Gitea deliver repo's push and pull request events to url,
// signed with secret, as a repository's owner sets one up.
func (g *Gitea) AddHook(tb testing.TB, repo, url, secret string) {
	tb.Helper()
	g.call(tb, "add webhook", func(c *gitea.Client) error {
		_, _, err := c.CreateRepoHook(GiteaAdmin, repo, gitea.CreateHookOption{
			Type: gitea.HookTypeGitea, Active: true, Events: []string{"push", "pull_request", "pull_request_review_approved"},
			Config: map[string]string{"url": url, "content_type": "json", "secret": secret},
		})
		return err
	})
}

// Hooks returns the URLs of repo's active webhooks by id, as its owner's
// settings page lists them.
func (g *Gitea) Hooks(tb testing.TB, repo string) map[int64]string {
	tb.Helper()
	out := map[int64]string{}
	g.call(tb, "list webhooks", func(c *gitea.Client) error {
		hs, _, err := c.ListRepoHooks(GiteaAdmin, repo, gitea.ListHooksOptions{})
		for _, h := range hs {
			if h.Active {
				out[h.ID] = h.Config["url"]
			}
		}
		return err
	})
	return out
}

// OverwriteFile replaces path on branch through the contents API, as a
// person editing it on the forge would, and returns the new commit's SHA.
func (g *Gitea) OverwriteFile(tb testing.TB, repo, branch, path, content string) string {
	tb.Helper()
	var sha string
	g.call(tb, "overwrite "+path+" on "+branch, func(c *gitea.Client) error {
		cur, _, err := c.GetContents(GiteaAdmin, repo, branch, path)
		if err != nil {
			return err
		}
		r, _, err := c.UpdateFile(GiteaAdmin, repo, path, gitea.UpdateFileOptions{
			FileOptions: gitea.FileOptions{Message: "edit " + path, BranchName: branch},
			SHA:         cur.SHA, Content: base64.StdEncoding.EncodeToString([]byte(content)),
		})
		if err == nil && r.Commit != nil {
			sha = r.Commit.SHA
		}
		return err
	})
	return sha
}

// FileContent reads path on branch; "" when it is not there.
func (g *Gitea) FileContent(tb testing.TB, repo, branch, path string) string {
	tb.Helper()
	var out []byte
	g.call(tb, "read "+path, func(c *gitea.Client) error {
		b, resp, err := c.GetFile(GiteaAdmin, repo, branch, path)
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return nil
		}
		out = b
		return err
	})
	return string(out)
}
