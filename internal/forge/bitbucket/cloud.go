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

package bitbucket

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errCloudList      = "cannot list open pull requests on Bitbucket Cloud"
	errCloudGet       = "cannot get the pull request from Bitbucket Cloud"
	errCloudStatuses  = "cannot list the head commit's build statuses on Bitbucket Cloud"
	errCloudConflicts = "cannot list the pull request's file conflicts on Bitbucket Cloud"
	errCloudCommit    = "cannot read a commit on Bitbucket Cloud"
	errCloudPages     = "Bitbucket Cloud's list did not end within the pages a list may take"

	// cloudPageLen is the most Cloud's pull request lists return per page.
	cloudPageLen = 50
	// cloudWait is how long a 429 without Retry-After holds requests:
	// Cloud's window is a rolling hour, of which a minute's share comes
	// back each minute.
	cloudWait = time.Minute
	// maxFull bounds the kept expansions of abbreviated hashes: past it
	// the map starts afresh (the next list expands each head once more).
	maxFull = 4096
	// fullSHA is the length of a full SHA-1 commit ID.
	fullSHA = 40
)

// Cloud is the forge.Client of one Bitbucket Cloud repository
// (workspace/slug). It is safe for concurrent use.
type Cloud struct {
	*core
	workspace, slug string

	// mu guards full: abbreviated head hashes expanded, by
	// "repository@hash".
	mu   sync.Mutex
	full map[string]string
}

var (
	_ forge.Client = (*Cloud)(nil)
	_ forge.Hooks  = (*Cloud)(nil)
)

// NewCloud is the forge.Opener of Bitbucket Cloud. c.APIURL is
// https://api.bitbucket.org/2.0/ (another is taken as given, for tests);
// c.Owner the workspace, c.Name the repository slug.
func NewCloud(c forge.Config) (forge.Client, error) { return NewCloudClient(c) }

// NewCloudClient returns the Client of the repository c names.
func NewCloudClient(c forge.Config, o ...Option) (*Cloud, error) {
	api := c.APIURL
	if api == "" {
		api = "https://api.bitbucket.org/2.0/"
	}
	k, err := newCore(c, api, cloudWait, o)
	if err != nil {
		return nil, err
	}
	return &Cloud{core: k, workspace: c.Owner, slug: c.Name, full: map[string]string{}}, nil
}

// Type is BitbucketCloud.
func (c *Cloud) Type() forge.Type { return forge.BitbucketCloud }

// repoPath is repositories/{workspace}/{slug}/, both escaped.
func (c *Cloud) repoPath() string {
	return "repositories/" + url.PathEscape(c.workspace) + "/" + url.PathEscape(c.slug) + "/"
}

func (c *Cloud) pullPath(number int64, sub string) string {
	p := fmt.Sprintf("%spullrequests/%d", c.repoPath(), number)
	if sub != "" {
		p += "/" + sub
	}
	return p
}

// listQuery asks for the reviewers and participants too, which Cloud
// leaves out of its pull request lists unless asked (its "partial
// responses": fields=+values.reviewers).
const listQuery = "fields=%2Bvalues.reviewers%2C%2Bvalues.participants"

// ListOpen lists GET pullrequests?state=OPEN, every page through next.
// Each in-repository head whose hash Cloud abbreviated is expanded once.
func (c *Cloud) ListOpen(ctx context.Context) ([]forge.PullRequest, bool, error) {
	path := fmt.Sprintf("%spullrequests?state=OPEN&pagelen=%d&%s", c.repoPath(), cloudPageLen, listQuery)
	pulls, err := cloudAll[cloudPull](ctx, c, path)
	if err != nil {
		return nil, false, c.fail(err, errCloudList)
	}
	out := make([]forge.PullRequest, 0, len(pulls))
	for i := range pulls {
		pr, err := c.convert(ctx, &pulls[i])
		if err != nil {
			return nil, false, err
		}
		out = append(out, pr)
	}
	return out, false, nil
}

// cloudAll reads every page of a Cloud list, from path on through next.
func cloudAll[T any](ctx context.Context, c *Cloud, path string) ([]T, error) {
	var all []T
	for n := 0; path != ""; n++ {
		if n == maxPages {
			return nil, &refusal{status: http.StatusOK, message: errCloudPages}
		}
		var page cloudPage[T]
		if _, err := c.do(ctx, call{method: http.MethodGet, path: path}, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Values...)
		path = page.Next
	}
	return all, nil
}

// Get reads the pull request, its head's build statuses and, while open,
// its file conflicts.
func (c *Cloud) Get(ctx context.Context, number int64) (forge.PullRequest, error) {
	p, err := c.pull(ctx, number)
	if err != nil {
		return forge.PullRequest{}, err
	}
	pr, err := c.convert(ctx, p)
	if err != nil {
		return forge.PullRequest{}, err
	}
	if pr.HeadSHA != "" {
		if pr.Checks, err = c.checks(ctx, pr.HeadSHA); err != nil {
			return forge.PullRequest{}, err
		}
	}
	if pr.State == forge.StateOpen {
		if pr.Mergeable, err = c.mergeable(ctx, p); err != nil {
			return forge.PullRequest{}, err
		}
	}
	if pr.State == forge.StateMerged && p.MergeCommit != nil {
		if pr.MergeCommit, err = c.expand(ctx, c.workspace+"/"+c.slug, p.MergeCommit.Hash); err != nil {
			return forge.PullRequest{}, err
		}
	}
	return pr, nil
}

func (c *Cloud) pull(ctx context.Context, number int64) (*cloudPull, error) {
	var p cloudPull
	if _, err := c.do(ctx, call{method: http.MethodGet, path: c.pullPath(number, "")}, &p); err != nil {
		return nil, c.fail(err, errCloudGet)
	}
	return &p, nil
}

// checks folds the head commit's build statuses: FAILED and STOPPED fail,
// INPROGRESS is pending, SUCCESSFUL passes; none is "".
func (c *Cloud) checks(ctx context.Context, sha string) (forge.Checks, error) {
	path := fmt.Sprintf("%scommit/%s/statuses?pagelen=100", c.repoPath(), url.PathEscape(sha))
	sts, err := cloudAll[cloudStatus](ctx, c, path)
	if err != nil {
		return "", c.fail(err, errCloudStatuses)
	}
	got := make([]forge.Checks, 0, len(sts))
	for _, s := range sts {
		switch s.State {
		case "SUCCESSFUL":
			got = append(got, forge.ChecksSuccess)
		case "INPROGRESS":
			got = append(got, forge.ChecksPending)
		default:
			got = append(got, forge.ChecksFailure)
		}
	}
	return fold(got...), nil
}

// mergeable: false for a draft, when Cloud says the merge checks fail, or
// when the pull request has file conflicts (the conflicts resource
// redirects, on the API's origin, to the file conflicts of its commits).
func (c *Cloud) mergeable(ctx context.Context, p *cloudPull) (*bool, error) {
	if p.Draft || (p.Mergeable != nil && !*p.Mergeable) {
		return ptr(false), nil
	}
	conflicts, err := cloudAll[cloudConflict](ctx, c, c.pullPath(p.ID, "conflicts"))
	if err != nil {
		return nil, c.fail(err, errCloudConflicts)
	}
	return ptr(len(conflicts) == 0), nil
}

// convert is Cloud's pull request as the forge reports it. Checks and
// Mergeable need requests of their own (Get).
func (c *Cloud) convert(ctx context.Context, p *cloudPull) (forge.PullRequest, error) {
	pr := forge.PullRequest{
		Number: p.ID, URL: p.Links.HTML.Href, State: forge.StateOpen, Title: p.Title, Body: p.Description,
		Head: p.Source.Branch.Name, Base: p.Destination.Branch.Name, Draft: p.Draft,
	}
	if p.Summary != nil && p.Summary.Raw != "" {
		pr.Body = p.Summary.Raw
	}
	switch p.State {
	case "MERGED":
		pr.State = forge.StateMerged
	case "DECLINED", "SUPERSEDED":
		pr.State = forge.StateClosed
	}
	src, dst := p.Source.Repository, p.Destination.Repository
	if src != nil {
		pr.HeadRepo = src.FullName
	}
	pr.HeadInRepo = sameRepo(src, dst)
	if p.Source.Commit != nil {
		pr.HeadSHA = p.Source.Commit.Hash
	}
	if pr.HeadInRepo && pr.State == forge.StateOpen {
		full, err := c.expand(ctx, src.FullName, pr.HeadSHA)
		if err != nil {
			return forge.PullRequest{}, err
		}
		pr.HeadSHA = full
	}
	var votes []vote
	var reviewers []string
	for _, r := range p.Reviewers {
		reviewers = append(reviewers, r.AccountID, r.UUID)
	}
	for _, pt := range p.Participants {
		v := voteNone
		switch {
		case pt.State != nil && *pt.State == "changes_requested":
			v = voteChanges
		case pt.Approved || (pt.State != nil && *pt.State == "approved"):
			v = voteApproved
		}
		if pt.Role == "REVIEWER" || v != voteNone {
			reviewers = append(reviewers, pt.User.AccountID, pt.User.UUID)
			votes = append(votes, v)
		}
	}
	pr.Reviewers = set(reviewers)
	pr.ReviewDecision = decision(votes, len(pr.Reviewers))
	return pr, nil
}

// sameRepo: both ends name one repository, by UUID where Cloud gives both,
// else by full name. Unknown is a fork.
func sameRepo(a, b *cloudRepo) bool {
	switch {
	case a == nil || b == nil:
		return false
	case a.UUID != "" && b.UUID != "":
		return a.UUID == b.UUID
	}
	return a.FullName != "" && strings.EqualFold(a.FullName, b.FullName)
}

// expand returns the full SHA of hash in repo (workspace/slug), asking
// Cloud once (GET commit/{hash}) and keeping the answer. An answer that is
// not a full SHA beginning with hash is not believed: hash stays.
func (c *Cloud) expand(ctx context.Context, repo, hash string) (string, error) {
	if len(hash) >= fullSHA || hash == "" {
		return hash, nil
	}
	key := repo + "@" + hash
	c.mu.Lock()
	full, ok := c.full[key]
	c.mu.Unlock()
	if ok {
		return full, nil
	}
	ws, slug, _ := strings.Cut(repo, "/")
	var got cloudCommit
	path := "repositories/" + url.PathEscape(ws) + "/" + url.PathEscape(slug) + "/commit/" + url.PathEscape(hash) + "?fields=hash"
	if _, err := c.do(ctx, call{method: http.MethodGet, path: path}, &got); err != nil {
		return "", c.fail(err, errCloudCommit)
	}
	if len(got.Hash) != fullSHA || !strings.HasPrefix(strings.ToLower(got.Hash), strings.ToLower(hash)) {
		return hash, nil
	}
	c.mu.Lock()
	if len(c.full) >= maxFull {
		c.full = map[string]string{}
	}
	c.full[key] = got.Hash
	c.mu.Unlock()
	return got.Hash, nil
}
