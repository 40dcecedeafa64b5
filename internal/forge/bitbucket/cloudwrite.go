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
	"slices"
	"strings"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errCloudCreate   = "cannot create the pull request on Bitbucket Cloud"
	errCloudUpdate   = "cannot update the pull request on Bitbucket Cloud"
	errCloudDecline  = "cannot decline the pull request on Bitbucket Cloud"
	errCloudMerge    = "cannot merge the pull request on Bitbucket Cloud"
	errCloudAuto     = "cannot enable auto-merge on Bitbucket Cloud"
	errCloudBranch   = "cannot read the head branch on Bitbucket Cloud"
	msgNotOpen       = "the pull request is not open"
	msgCloudNoAuto   = "Bitbucket Cloud's auto-merge exists only in its web UI: the provider merges once mergeable"
	msgStrategyFmt   = "the destination branch allows the merge strategies %s, not %s (spec.forProvider.merge.method)"
	msgNoBranchFmt   = "no branch %q: %s"
	msgCreateUpdated = "Bitbucket Cloud updated an open pull request of this head and base instead of creating one"
)

// cloudStrategies maps the forge's merge methods to Cloud's strategies.
var cloudStrategies = map[forge.MergeMethod]string{
	forge.MethodMerge:  "merge_commit",
	forge.MethodSquash: "squash",
	forge.MethodRebase: "rebase_fast_forward",
}

// Create looks for an open pull request of this repository with the same
// head and base first (Cloud would update it rather than refuse), then
// POSTs pullrequests with title, description, draft and reviewers. A 400
// naming a branch is ErrNoSuchBranch when that branch is indeed missing.
func (c *Cloud) Create(ctx context.Context, s forge.Spec) (forge.PullRequest, error) {
	if msg := unkeepable(s); msg != "" {
		return forge.PullRequest{}, refuse(forge.ErrInvalidInput, msg, errCloudCreate)
	}
	q := fmt.Sprintf(`source.branch.name=%s AND destination.branch.name=%s`, bbql(s.Head), bbql(s.Base))
	path := fmt.Sprintf("%spullrequests?state=OPEN&pagelen=%d&q=%s&%s", c.repoPath(), cloudPageLen, url.QueryEscape(q), listQuery)
	open, err := cloudAll[cloudPull](ctx, c, path)
	if err != nil {
		return forge.PullRequest{}, c.fail(err, errCloudCreate)
	}
	for i := range open {
		p := &open[i]
		if p.Source.Branch.Name == s.Head && p.Destination.Branch.Name == s.Base && sameRepo(p.Source.Repository, p.Destination.Repository) {
			return forge.PullRequest{}, fmt.Errorf("%s: %w", errCloudCreate, forge.ErrExists)
		}
	}
	repo := &cloudRepo{FullName: c.workspace + "/" + c.slug}
	body := cloudNewPull{Title: s.Title, Description: s.Body, Draft: s.Draft, Reviewers: accounts(s.Reviewers),
		Source: &cloudEndpoint{Repository: repo}, Destination: &cloudEndpoint{}}
	body.Source.Branch.Name, body.Destination.Branch.Name = s.Head, s.Base
	var p cloudPull
	status, err := c.do(ctx, call{method: http.MethodPost, path: c.repoPath() + "pullrequests", body: body}, &p)
	if r := asRefusal(err); r != nil && r.status == http.StatusBadRequest {
		if missing := c.missingBranch(ctx, s); missing != "" {
			return forge.PullRequest{}, refuse(forge.ErrNoSuchBranch, fmt.Sprintf(msgNoBranchFmt, missing, r.message), errCloudCreate)
		}
	}
	if err != nil {
		return forge.PullRequest{}, c.fail(err, errCloudCreate)
	}
	if status != http.StatusCreated {
		// 200: Cloud found one open for this head and base after all (a
		// race with the look above) and updated it to this body.
		return forge.PullRequest{}, refuse(forge.ErrExists, msgCreateUpdated, errCloudCreate)
	}
	return c.convert(ctx, &p)
}

// bbql quotes v as a string of Cloud's query language.
func bbql(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// accounts names each reviewer by {UUID} or account ID, as Cloud takes.
func accounts(names []string) []cloudAccount {
	out := []cloudAccount{}
	for _, n := range set(names) {
		if strings.HasPrefix(n, "{") {
			out = append(out, cloudAccount{UUID: n})
			continue
		}
		out = append(out, cloudAccount{AccountID: n})
	}
	return out
}

// missingBranch returns the head or base that does not exist, "" when
// both do (or it cannot tell).
func (c *Cloud) missingBranch(ctx context.Context, s forge.Spec) string {
	for _, b := range []string{s.Head, s.Base} {
		_, err := c.do(ctx, call{method: http.MethodGet, path: c.repoPath() + "refs/branches/" + url.PathEscape(b)}, nil)
		if r := asRefusal(err); r != nil && r.status == http.StatusNotFound {
			return b
		}
	}
	return ""
}

// Update reads the pull request and, when title, description or draft
// differ or a declared reviewer is missing, PUTs them with the reviewers
// it has and those declared (Cloud replaces the list; none is removed).
func (c *Cloud) Update(ctx context.Context, number int64, s forge.Spec) (forge.PullRequest, error) {
	if msg := unkeepable(s); msg != "" {
		return forge.PullRequest{}, refuse(forge.ErrInvalidInput, msg, errCloudUpdate)
	}
	p, err := c.pull(ctx, number)
	if err != nil {
		return forge.PullRequest{}, err
	}
	cur, err := c.convert(ctx, p)
	if err != nil {
		return forge.PullRequest{}, err
	}
	missing := slices.ContainsFunc(set(s.Reviewers), func(r string) bool { return !slices.Contains(cur.Reviewers, r) })
	if cur.Title == s.Title && cur.Body == s.Body && cur.Draft == s.Draft && !missing {
		return c.Get(ctx, number)
	}
	keep := []cloudAccount{}
	for _, r := range p.Reviewers {
		keep = append(keep, cloudAccount{UUID: r.UUID, AccountID: r.AccountID})
	}
	for _, a := range accounts(s.Reviewers) {
		if !slices.ContainsFunc(keep, func(k cloudAccount) bool {
			return (a.UUID != "" && a.UUID == k.UUID) || (a.AccountID != "" && a.AccountID == k.AccountID)
		}) {
			keep = append(keep, a)
		}
	}
	body := cloudNewPull{Title: s.Title, Description: s.Body, Draft: s.Draft, Reviewers: keep}
	if _, err := c.do(ctx, call{method: http.MethodPut, path: c.pullPath(number, ""), body: body}, nil); err != nil {
		return forge.PullRequest{}, c.fail(err, errCloudUpdate)
	}
	return c.Get(ctx, number)
}

// Close is POST decline.
func (c *Cloud) Close(ctx context.Context, number int64) error {
	if _, err := c.do(ctx, call{method: http.MethodPost, path: c.pullPath(number, "decline")}, nil); err != nil {
		return c.fail(err, errCloudDecline)
	}
	return nil
}

// Merge reads the pull request and its head branch and merges only the
// judged head (see the package doc for the window that remains): 200 is
// merged; 202 (Cloud merges on, past its own timeout) is taken as merged
// at the next poll; 409 (a ref moved during the merge) ErrHeadMoved; 400
// (merge checks, conflicts, a draft) ErrNotMergeable; 555 (timed out) is
// retried at the next poll.
func (c *Cloud) Merge(ctx context.Context, number int64, m forge.Merge) error {
	p, err := c.pull(ctx, number)
	if err != nil {
		return fmt.Errorf("%s: %w", errCloudMerge, err)
	}
	switch p.State {
	case "MERGED":
		return nil
	case "OPEN":
	default:
		return refuse(forge.ErrNotMergeable, msgNotOpen, errCloudMerge)
	}
	strategy := cloudStrategies[m.Method]
	if allowed := p.Destination.Branch.MergeStrategies; strategy != "" && len(allowed) > 0 && !slices.Contains(allowed, strategy) {
		return refuse(forge.ErrInvalidInput, fmt.Sprintf(msgStrategyFmt, strings.Join(allowed, ", "), strategy), errCloudMerge)
	}
	if m.HeadSHA != "" {
		if err := c.headIs(ctx, p, m.HeadSHA); err != nil {
			return err
		}
	}
	// A fork's branch is not the provider's to close.
	closeSource := m.DeleteBranch && sameRepo(p.Source.Repository, p.Destination.Repository)
	body := cloudMerge{Type: "pullrequest", Message: m.Message, CloseSourceBranch: closeSource, MergeStrategy: strategy}
	_, err = c.do(ctx, call{method: http.MethodPost, path: c.pullPath(number, "merge"), body: body}, nil)
	if r := asRefusal(err); r != nil {
		switch r.status {
		case http.StatusConflict:
			return c.fail(err, errCloudMerge, forge.ErrHeadMoved)
		case http.StatusBadRequest:
			return c.fail(err, errCloudMerge, forge.ErrNotMergeable)
		}
	}
	if err != nil {
		return c.fail(err, errCloudMerge)
	}
	return nil
}

// headIs refuses (ErrHeadMoved) a pull request whose head is not judged:
// its source commit, and then its branch's head as Cloud reads it now.
func (c *Cloud) headIs(ctx context.Context, p *cloudPull, judged string) error {
	if p.Source.Commit == nil || !sameHead(judged, p.Source.Commit.Hash) || !sameRepo(p.Source.Repository, p.Destination.Repository) {
		return fmt.Errorf("%s: %w", errCloudMerge, forge.ErrHeadMoved)
	}
	var b cloudBranch
	_, err := c.do(ctx, call{method: http.MethodGet, path: c.repoPath() + "refs/branches/" + url.PathEscape(p.Source.Branch.Name)}, &b)
	if r := asRefusal(err); r != nil && r.status == http.StatusNotFound {
		return c.fail(err, errCloudBranch, forge.ErrNotMergeable)
	}
	if err != nil {
		return c.fail(err, errCloudBranch)
	}
	if !sameHead(judged, b.Target.Hash) {
		return fmt.Errorf("%s: %w", errCloudMerge, forge.ErrHeadMoved)
	}
	return nil
}

// AutoMerge is ErrUnsupported: Cloud offers no auto-merge through its API.
func (c *Cloud) AutoMerge(context.Context, int64, forge.Merge) error {
	return refuse(forge.ErrUnsupported, msgCloudNoAuto, errCloudAuto)
}
