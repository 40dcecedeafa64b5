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

package gitea

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errList       = "cannot list the open pull requests"
	errGetFmt     = "cannot get pull request %d"
	errChecksFmt  = "cannot get the checks of pull request %d"
	errReviewsFmt = "cannot get the reviews of pull request %d"
	errCreate     = "cannot open the pull request"
	errUpdateFmt  = "cannot update pull request %d"
	errReviewFmt  = "cannot request reviews of pull request %d"
	errCloseFmt   = "cannot close pull request %d"
	errMergeFmt   = "cannot merge pull request %d"
	errAutoFmt    = "cannot schedule the merge of pull request %d"
	errBranchFmt  = "no branch %q: %s"
)

// pageSize is Gitea's largest page by default (MAX_RESPONSE_ITEMS); a
// server with a smaller one answers smaller pages, and paging goes on.
const pageSize = 50

// wipPrefix marks a draft: the first of Gitea's default
// WORK_IN_PROGRESS_PREFIXES, which Forgejo shares.
const wipPrefix = "WIP: "

// wipPrefixes are Gitea's default work-in-progress prefixes, stripped from
// a draft's title as read back.
var wipPrefixes = []string{"WIP:", "[WIP]"}

func (c *client) ListOpen(ctx context.Context) ([]forge.PullRequest, bool, error) {
	cl, err := c.sdk(ctx)
	if err != nil {
		return nil, false, err
	}
	var out []forge.PullRequest
	for page := 1; page > 0; {
		var prs []*sdk.PullRequest
		var resp *sdk.Response
		if err := c.run(cl, errList, func(s *sdk.Client) (*sdk.Response, error) {
			var err error
			prs, resp, err = s.ListRepoPullRequests(c.owner, c.name, sdk.ListPullRequestsOptions{
				ListOptions: sdk.ListOptions{Page: page, PageSize: pageSize}, State: sdk.StateOpen,
			})
			return resp, err
		}); err != nil {
			return nil, false, err
		}
		for _, p := range prs {
			out = append(out, convert(p))
		}
		page = nextPage(resp, page, len(prs))
	}
	return out, false, nil
}

func (c *client) Get(ctx context.Context, number int64) (forge.PullRequest, error) {
	cl, err := c.sdk(ctx)
	if err != nil {
		return forge.PullRequest{}, err
	}
	return c.get(cl, number)
}

// get reads a pull request, the combined status of its head commit and its
// reviews: three requests.
func (c *client) get(cl *call, number int64) (forge.PullRequest, error) {
	var p *sdk.PullRequest
	if err := c.run(cl, fmt.Sprintf(errGetFmt, number), func(s *sdk.Client) (r *sdk.Response, err error) {
		p, r, err = s.GetPullRequest(c.owner, c.name, number)
		return r, err
	}); err != nil {
		return forge.PullRequest{}, err
	}
	pr := convert(p)
	if pr.HeadSHA != "" {
		var st *sdk.CombinedStatus
		if err := c.run(cl, fmt.Sprintf(errChecksFmt, number), func(s *sdk.Client) (r *sdk.Response, err error) {
			st, r, err = s.GetCombinedStatus(c.owner, c.name, pr.HeadSHA)
			return r, err
		}); err != nil {
			return forge.PullRequest{}, err
		}
		pr.Checks = checks(st)
	}
	reviews, err := c.reviews(cl, number)
	if err != nil {
		return forge.PullRequest{}, err
	}
	pr.ReviewDecision = decision(reviews, len(pr.Reviewers) > 0)
	pr.Reviewers = union(pr.Reviewers, reviewers(reviews))
	return pr, nil
}

func (c *client) reviews(cl *call, number int64) ([]*sdk.PullReview, error) {
	var all []*sdk.PullReview
	for page := 1; page > 0; {
		var rs []*sdk.PullReview
		var resp *sdk.Response
		if err := c.run(cl, fmt.Sprintf(errReviewsFmt, number), func(s *sdk.Client) (*sdk.Response, error) {
			var err error
			rs, resp, err = s.ListPullReviews(c.owner, c.name, number, sdk.ListPullReviewsOptions{ListOptions: sdk.ListOptions{Page: page, PageSize: pageSize}})
			return resp, err
		}); err != nil {
			return nil, err
		}
		all = append(all, rs...)
		page = nextPage(resp, page, len(rs))
	}
	return all, nil
}

func (c *client) Create(ctx context.Context, s forge.Spec) (forge.PullRequest, error) {
	cl, err := c.sdk(ctx)
	if err != nil {
		return forge.PullRequest{}, err
	}
	labels, err := c.labelIDs(cl, s.Labels)
	if err != nil {
		return forge.PullRequest{}, err
	}
	var p *sdk.PullRequest
	err = c.run(cl, errCreate, func(sc *sdk.Client) (r *sdk.Response, err error) {
		p, r, err = sc.CreatePullRequest(c.owner, c.name, sdk.CreatePullRequestOption{
			Head: s.Head, Base: s.Base, Title: title(s), Body: s.Body,
			Assignees: s.Assignees, Reviewers: s.Reviewers, Labels: labels,
		})
		return r, err
	}, func(e *forge.APIError) {
		if e.Status == http.StatusConflict {
			// "pull request already exists for these targets [id: …]"
			e.Kind = forge.ErrExists
		}
	})
	var ae *forge.APIError
	if errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusInternalServerError) {
		return forge.PullRequest{}, c.missingBranch(cl, s, ae, err)
	}
	if err != nil {
		return forge.PullRequest{}, err
	}
	return convert(p), nil
}

// missingBranch tells which branch a create's 404 or 500 was about: Gitea
// answers a missing head or base with the same 404 as a missing
// repository, Forgejo (10) a missing head with a 500 of Git's words
// ("fatal: bad revision 'refs/heads/main...head'"). Where both branches
// exist, the forge's own error stands.
func (c *client) missingBranch(cl *call, s forge.Spec, refused *forge.APIError, createErr error) error {
	if err := c.run(cl, errCreate, func(sc *sdk.Client) (r *sdk.Response, err error) {
		_, r, err = sc.GetRepo(c.owner, c.name)
		return r, err
	}); err != nil {
		return createErr
	}
	for _, b := range []string{s.Head, s.Base} {
		err := c.run(cl, errCreate, func(sc *sdk.Client) (r *sdk.Response, err error) {
			_, r, err = sc.GetRepoBranch(c.owner, c.name, b)
			return r, err
		})
		var ae *forge.APIError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return fmt.Errorf("%s: %w", errCreate, &forge.APIError{
				Status: refused.Status, Message: fmt.Sprintf(errBranchFmt, b, refused.Message), Kind: forge.ErrNoSuchBranch,
			})
		}
	}
	return createErr
}

func (c *client) Close(ctx context.Context, number int64) error {
	cl, err := c.sdk(ctx)
	if err != nil {
		return err
	}
	closed := sdk.StateClosed
	return c.run(cl, fmt.Sprintf(errCloseFmt, number), func(s *sdk.Client) (r *sdk.Response, err error) {
		_, r, err = s.EditPullRequest(c.owner, c.name, number, sdk.EditPullRequestOption{State: &closed})
		return r, err
	})
}

// Merge merges now, naming m.HeadSHA as the head the merge must be of:
// Gitea refuses a moved head with 409 "head out of date" (ErrHeadMoved).
// msgHeadOutOfDate is Gitea's 409 to a merge naming a head that is no
// longer the pull request's.
const msgHeadOutOfDate = "head out of date"

func (c *client) Merge(ctx context.Context, number int64, m forge.Merge) error {
	return c.merge(ctx, number, m, m.HeadSHA, false)
}

// AutoMerge schedules Gitea's "merge when checks succeed". Where nothing is
// left to wait for (the head's checks passed, or it has none) it merges at
// once instead, as Gitea 1.26 does by itself: Forgejo (10) only schedules,
// and merges on the next commit status, which may never come. That merge
// names the head whose checks were judged, so a head pushed meanwhile is
// refused (409) and scheduled, to be judged by the forge. Then a pull
// request not mergeable (Gitea still checking, a draft, conflicts) is
// ErrNotMergeable, asked again later, not scheduled: Forgejo accepts the
// schedule of one still checking and then waits for a status that never
// comes, and both refuse a draft's (405, "Work in progress"). A merge the
// forge refuses for another reason (reviews) is scheduled after all.
// Asking again while scheduled is no error.
//
// With m.HeadSHA (the head the caller judged) a pull request whose head
// is another is ErrHeadMoved before anything is sent, and so is the direct
// merge Gitea refuses as "head out of date": the caller judges the new
// head. Gitea's schedule itself names no head; it is asked only of the
// head just read.
func (c *client) AutoMerge(ctx context.Context, number int64, m forge.Merge) error {
	pr, err := c.Get(ctx, number)
	if err != nil {
		return err
	}
	if m.HeadSHA != "" && pr.State == forge.StateOpen && pr.HeadSHA != m.HeadSHA {
		return fmt.Errorf(errAutoFmt+": %w", number, forge.ErrHeadMoved)
	}
	if pr.State == forge.StateOpen && (pr.Checks == "" || pr.Checks == forge.ChecksSuccess) {
		if pr.Mergeable == nil || !*pr.Mergeable {
			return fmt.Errorf(errAutoFmt+": %w", number, forge.ErrNotMergeable)
		}
		err := c.merge(ctx, number, m, pr.HeadSHA, false)
		if !errors.Is(err, forge.ErrNotMergeable) {
			return err
		}
	}
	return c.merge(ctx, number, m, "", true)
}

// merge merges number now, or schedules its merge when its checks succeed
// (auto); head, when not "", is the head commit the merge must be of.
func (c *client) merge(ctx context.Context, number int64, m forge.Merge, head string, auto bool) error {
	cl, err := c.sdk(ctx)
	if err != nil {
		return err
	}
	what := errMergeFmt
	if auto {
		what = errAutoFmt
	}
	style := sdk.MergeStyle(m.Method)
	if style == "" {
		style = sdk.MergeStyleMerge
	}
	msgTitle, msgBody, _ := strings.Cut(m.Message, "\n")
	del := m.DeleteBranch
	scheduled := false
	err = c.run(cl, fmt.Sprintf(what, number), func(s *sdk.Client) (r *sdk.Response, err error) {
		_, r, err = s.MergePullRequest(c.owner, c.name, number, sdk.MergePullRequestOption{
			Style: style, Title: msgTitle, Message: strings.TrimSpace(msgBody),
			DeleteBranchAfterMerge: &del, MergeWhenChecksSucceed: auto, HeadCommitId: head,
		})
		return r, err
	}, func(e *forge.APIError) {
		switch {
		case auto && e.Status == http.StatusConflict && strings.Contains(e.Message, "already scheduled"):
			scheduled = true
		case e.Status == http.StatusConflict && strings.Contains(e.Message, msgHeadOutOfDate) && m.HeadSHA != "":
			e.Kind = forge.ErrHeadMoved
		case e.Status == http.StatusMethodNotAllowed, e.Status == http.StatusConflict:
			// 405: checks, reviews, work in progress, "Please try again
			// later" while Gitea computes mergeability, already merged;
			// 409: conflicts, head out of date.
			e.Kind = forge.ErrNotMergeable
		}
	})
	if scheduled {
		return nil
	}
	return err
}
