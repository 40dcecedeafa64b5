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

package github

import (
	"context"
	"fmt"
	"slices"

	gh "github.com/google/go-github/v75/github"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errList    = "cannot list open pull requests on GitHub"
	errGet     = "cannot get the pull request from GitHub"
	errStatus  = "cannot get the head commit's combined status from GitHub"
	errChecks  = "cannot list the head commit's check runs on GitHub"
	errReviews = "cannot list the pull request's reviews on GitHub"
	errSHAFmt  = "refusing the head commit %q GitHub reported: it is no commit ID"
)

// ListOpen lists GET /repos/{o}/{r}/pulls?state=open&per_page=100, every
// page, each conditional on its ETag. notModified is true only when every
// page answered 304 (a closed pull request on page 3 changes pages 3 and
// on, not page 1); prs is then the list kept from before. A page past the
// end answers [] and ends the walk, so a shrunken list is seen too.
func (c *Client) ListOpen(ctx context.Context) ([]forge.PullRequest, bool, error) {
	if err := c.begin(); err != nil {
		return nil, false, err
	}
	var all []forge.PullRequest
	notModified := true
	for page := 1; page != 0; {
		prs, next, nm, err := get(ctx, c, fmt.Sprintf("list/%d", page), func(ctx context.Context) ([]forge.PullRequest, *gh.Response, error) {
			ps, resp, err := c.gh.PullRequests.List(ctx, c.owner, c.name, &gh.PullRequestListOptions{
				State: "open", ListOptions: gh.ListOptions{Page: page, PerPage: perPage}})
			return c.fromPulls(ps), resp, err
		})
		if err != nil {
			return nil, false, c.fail(err, errList)
		}
		notModified = notModified && nm
		all = append(all, prs...)
		page = next
	}
	return all, notModified, nil
}

// pullInfo is a pull request as Get and the writes need it.
type pullInfo struct {
	pr     forge.PullRequest
	nodeID string
	// requested are the requested reviewers (users and org/team).
	requested []string
}

// review is a submitted review.
type review struct{ user, state string }

// Get reads the pull request, then its head commit's combined status and
// check runs, and its reviews; each read conditional on its ETag.
//
// Checks folds both sources: failure when any status is failure or error
// or any check run concluded failure, timed_out, cancelled,
// action_required, startup_failure or stale; else pending when any status
// is pending or any check run is not completed; else success when there is
// at least one of either; else "" (none reported). Only the first 100
// check runs are read.
//
// ReviewDecision approximates GraphQL's reviewDecision from the REST
// reviews: the latest APPROVED, CHANGES_REQUESTED or DISMISSED review per
// user counts; any CHANGES_REQUESTED gives CHANGES_REQUESTED, else any
// APPROVED gives APPROVED, else REVIEW_REQUIRED while reviewers are
// requested, else "". Unlike GraphQL it does not know whether the branch
// protection requires reviews, or how many.
//
// Reviewers are the requested reviewers and everyone who has submitted a
// review: GitHub removes a reviewer from requested_reviewers once they
// review, and the pull request is still kept as declared.
func (c *Client) Get(ctx context.Context, n int64) (forge.PullRequest, error) {
	if err := c.begin(); err != nil {
		return forge.PullRequest{}, err
	}
	info, err := c.pull(ctx, n)
	if err != nil {
		return forge.PullRequest{}, err
	}
	pr := info.pr
	if pr.HeadSHA != "" {
		if pr.Checks, err = c.checks(ctx, pr.HeadSHA); err != nil {
			return forge.PullRequest{}, err
		}
	}
	reviews, err := c.reviews(ctx, n)
	if err != nil {
		return forge.PullRequest{}, err
	}
	pr.ReviewDecision = decision(reviews, info.requested)
	pr.Reviewers = reviewers(info.requested, reviews)
	return pr, nil
}

func (c *Client) pull(ctx context.Context, n int64) (pullInfo, error) {
	info, _, _, err := get(ctx, c, fmt.Sprintf("pull/%d", n), func(ctx context.Context) (pullInfo, *gh.Response, error) {
		p, resp, err := c.gh.PullRequests.Get(ctx, c.owner, c.name, number(n))
		if err != nil {
			return pullInfo{}, resp, err
		}
		return c.info(p), resp, nil
	})
	if err != nil {
		return pullInfo{}, c.fail(err, errGet)
	}
	return info, nil
}

func (c *Client) checks(ctx context.Context, sha string) (forge.Checks, error) {
	if !commitID(sha) {
		return "", fmt.Errorf(errSHAFmt, sha)
	}
	st, _, _, err := get(ctx, c, "status/"+sha, func(ctx context.Context) (forge.Checks, *gh.Response, error) {
		s, resp, err := c.gh.Repositories.GetCombinedStatus(ctx, c.owner, c.name, sha, nil)
		switch {
		case err != nil:
			return "", resp, err
		case s.GetTotalCount() == 0:
			return "", resp, nil // GitHub says pending when there are no statuses
		case s.GetState() == "success":
			return forge.ChecksSuccess, resp, nil
		case s.GetState() == "pending":
			return forge.ChecksPending, resp, nil
		}
		return forge.ChecksFailure, resp, nil
	})
	if err != nil {
		return "", c.fail(err, errStatus)
	}
	runs, _, _, err := get(ctx, c, "checks/"+sha, func(ctx context.Context) (forge.Checks, *gh.Response, error) {
		r, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, c.owner, c.name, sha,
			&gh.ListCheckRunsOptions{ListOptions: gh.ListOptions{PerPage: perPage}})
		if err != nil {
			return "", resp, err
		}
		var got []forge.Checks
		for _, cr := range r.CheckRuns {
			got = append(got, runState(cr))
		}
		return fold(got...), resp, nil
	})
	if err != nil {
		return "", c.fail(err, errChecks)
	}
	return fold(st, runs), nil
}

// commitID is a SHA-1 or SHA-256 object ID in hex, as GitHub reports a
// head: anything else is refused before it becomes part of a path.
func commitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') && (r < 'A' || r > 'F') {
			return false
		}
	}
	return true
}

func runState(cr *gh.CheckRun) forge.Checks {
	if cr.GetStatus() != "completed" {
		return forge.ChecksPending
	}
	switch cr.GetConclusion() {
	case "success", "neutral", "skipped":
		return forge.ChecksSuccess
	}
	return forge.ChecksFailure
}

// fold is failure over pending over success over none.
func fold(cs ...forge.Checks) forge.Checks {
	switch {
	case slices.Contains(cs, forge.ChecksFailure):
		return forge.ChecksFailure
	case slices.Contains(cs, forge.ChecksPending):
		return forge.ChecksPending
	case slices.Contains(cs, forge.ChecksSuccess):
		return forge.ChecksSuccess
	}
	return ""
}

func (c *Client) reviews(ctx context.Context, n int64) ([]review, error) {
	var all []review
	for page := 1; page != 0; {
		rs, next, _, err := get(ctx, c, fmt.Sprintf("reviews/%d/%d", n, page), func(ctx context.Context) ([]review, *gh.Response, error) {
			in, resp, err := c.gh.PullRequests.ListReviews(ctx, c.owner, c.name, number(n), &gh.ListOptions{Page: page, PerPage: perPage})
			if err != nil {
				return nil, resp, err
			}
			out := make([]review, 0, len(in))
			for _, r := range in {
				if r.GetState() != "PENDING" {
					out = append(out, review{user: r.GetUser().GetLogin(), state: r.GetState()})
				}
			}
			return out, resp, nil
		})
		if err != nil {
			return nil, c.fail(err, errReviews)
		}
		all = append(all, rs...)
		page = next
	}
	return all, nil
}

// decision: see Get.
func decision(reviews []review, requested []string) string {
	latest := map[string]string{}
	for _, r := range reviews { // oldest first, as GitHub lists them
		switch r.state {
		case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
			latest[r.user] = r.state
		}
	}
	states := make([]string, 0, len(latest))
	for _, s := range latest {
		states = append(states, s)
	}
	switch {
	case slices.Contains(states, "CHANGES_REQUESTED"):
		return "CHANGES_REQUESTED"
	case slices.Contains(states, "APPROVED"):
		return "APPROVED"
	case len(requested) > 0:
		return "REVIEW_REQUIRED"
	}
	return ""
}

func reviewers(requested []string, reviews []review) []string {
	out := slices.Clone(requested)
	for _, r := range reviews {
		out = append(out, r.user)
	}
	return set(out)
}

func (c *Client) fromPulls(in []*gh.PullRequest) []forge.PullRequest {
	out := make([]forge.PullRequest, 0, len(in))
	for _, p := range in {
		out = append(out, c.info(p).pr)
	}
	return out
}

// info converts GitHub's pull request. HeadInRepo is true only when head
// and base name the same repository by a non-zero id (a deleted fork's
// head has none). Mergeable is true only when mergeable_state is clean (or
// has_hooks, Enterprise's clean with pre-receive hooks): then a merge
// succeeds now. It is false when GitHub says not mergeable or the state is
// dirty, blocked, behind, unstable or draft, and nil while GitHub computes
// it (unknown, or a list, which carries no mergeable_state). MergeCommit is
// set only once merged (an open pull request's merge_commit_sha is
// GitHub's test merge).
func (c *Client) info(p *gh.PullRequest) pullInfo {
	head, base := p.GetHead(), p.GetBase()
	pr := forge.PullRequest{
		Number: int64(p.GetNumber()), URL: p.GetHTMLURL(), State: forge.StateOpen,
		Head: head.GetRef(), Base: base.GetRef(), HeadSHA: head.GetSHA(), HeadRepo: head.GetRepo().GetFullName(),
		HeadInRepo: head.GetRepo().GetID() != 0 && head.GetRepo().GetID() == base.GetRepo().GetID(),
		Title:      p.GetTitle(), Body: p.GetBody(), Draft: p.GetDraft(), AutoMerge: p.AutoMerge != nil,
	}
	switch {
	case p.GetMerged() || p.MergedAt != nil:
		pr.State, pr.MergeCommit = forge.StateMerged, p.GetMergeCommitSHA()
	case p.GetState() == "closed":
		pr.State = forge.StateClosed
	}
	for _, l := range p.Labels {
		pr.Labels = append(pr.Labels, l.GetName())
	}
	for _, a := range p.Assignees {
		pr.Assignees = append(pr.Assignees, a.GetLogin())
	}
	var requested []string
	for _, u := range p.RequestedReviewers {
		requested = append(requested, u.GetLogin())
	}
	for _, t := range p.RequestedTeams {
		requested = append(requested, c.org+"/"+t.GetSlug())
	}
	pr.Labels, pr.Assignees, requested = set(pr.Labels), set(pr.Assignees), set(requested)
	pr.Reviewers = requested
	switch p.GetMergeableState() {
	case "clean", "has_hooks":
		pr.Mergeable = ptr(true)
	case "dirty", "blocked", "behind", "unstable", "draft":
		pr.Mergeable = ptr(false)
	default:
		if p.Mergeable != nil && !*p.Mergeable {
			pr.Mergeable = ptr(false)
		}
	}
	return pullInfo{pr: pr, nodeID: p.GetNodeID(), requested: requested}
}

// set sorts and deduplicates; nil when empty, so equal sets compare equal.
func set(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}
