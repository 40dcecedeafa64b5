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
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	gh "github.com/google/go-github/v75/github"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errCreate     = "cannot create the pull request on GitHub"
	errEdit       = "cannot update the pull request on GitHub"
	errIssue      = "cannot set the pull request's labels and assignees on GitHub"
	errRequest    = "cannot request reviewers on GitHub"
	errUnrequest  = "cannot remove requested reviewers on GitHub"
	errDraft      = "cannot change the pull request's draft state on GitHub"
	errClose      = "cannot close the pull request on GitHub"
	errMerge      = "cannot merge the pull request on GitHub"
	errDeleteHead = "cannot delete the merged head branch on GitHub"
	errAutoMerge  = "cannot enable auto-merge on GitHub"
	errNotOpen    = "the pull request is closed"
	errRefFmt     = "refusing to delete the head branch %q GitHub reported: it is no branch name"
)

// Create is POST /pulls (head, base, title, body, draft), then one PATCH
// /issues/{n} setting labels and assignees together (one content-creating
// request instead of two, as GitHub's secondary limit counts them), then
// POST requested_reviewers. A reviewer of the form org/team is a team.
// When a follow-up fails the pull request is returned with the error: it
// exists, and the caller's next Create finds it (ErrExists) and Updates.
func (c *Client) Create(ctx context.Context, s forge.Spec) (forge.PullRequest, error) {
	if err := c.begin(); err != nil {
		return forge.PullRequest{}, err
	}
	p, _, err := c.gh.PullRequests.Create(ctx, c.owner, c.name,
		&gh.NewPullRequest{Title: &s.Title, Head: &s.Head, Base: &s.Base, Body: &s.Body, Draft: &s.Draft})
	if err != nil {
		return forge.PullRequest{}, c.fail(err, errCreate)
	}
	pr := c.info(p).pr
	labels, assignees := set(s.Labels), set(s.Assignees)
	if len(labels) > 0 || len(assignees) > 0 {
		if err := c.setIssue(ctx, pr.Number, &labels, &assignees); err != nil {
			return pr, err
		}
		pr.Labels, pr.Assignees = set(labels), set(assignees)
	}
	if add := set(s.Reviewers); len(add) > 0 {
		if err := c.request(ctx, pr.Number, add, true); err != nil {
			return pr, err
		}
		pr.Reviewers = add
	}
	return pr, nil
}

// CreateCost is how many content-creating requests Create makes for s, as
// GitHub's secondary limit counts them: the create, the PATCH of labels
// and assignees when there are any, the review request when there are
// reviewers.
func (c *Client) CreateCost(s forge.Spec) int {
	n := 1
	if len(s.Labels) > 0 || len(s.Assignees) > 0 {
		n++
	}
	if len(s.Reviewers) > 0 {
		n++
	}
	return n
}

// Update puts title, body, draft, labels, assignees and reviewers back to s
// and sends only what differs: PATCH /pulls/{n} (title, body; base is
// never changed), a GraphQL mutation for draft (REST cannot convert to
// draft), PATCH /issues/{n} (labels replaced, assignees set), POST and
// DELETE requested_reviewers. A declared reviewer who has already reviewed
// is not requested again; a requested reviewer not declared is removed.
func (c *Client) Update(ctx context.Context, n int64, s forge.Spec) (forge.PullRequest, error) {
	if err := c.begin(); err != nil {
		return forge.PullRequest{}, err
	}
	info, err := c.pull(ctx, n)
	if err != nil {
		return forge.PullRequest{}, err
	}
	cur := info.pr
	if cur.Title != s.Title || cur.Body != s.Body {
		if _, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.name, number(n), &gh.PullRequest{Title: &s.Title, Body: &s.Body}); err != nil {
			return forge.PullRequest{}, c.fail(err, errEdit)
		}
	}
	if cur.Draft != s.Draft {
		if err := c.draft(ctx, info.nodeID, s.Draft); err != nil {
			return forge.PullRequest{}, err
		}
	}
	labels, assignees := set(s.Labels), set(s.Assignees)
	var setLabels, setAssignees *[]string
	if !slices.Equal(cur.Labels, labels) {
		setLabels = &labels
	}
	if !slices.Equal(cur.Assignees, assignees) {
		setAssignees = &assignees
	}
	if setLabels != nil || setAssignees != nil {
		if err := c.setIssue(ctx, n, setLabels, setAssignees); err != nil {
			return forge.PullRequest{}, err
		}
	}
	reviews, err := c.reviews(ctx, n)
	if err != nil {
		return forge.PullRequest{}, err
	}
	want, seen := set(s.Reviewers), reviewers(info.requested, reviews)
	if add := minus(want, seen); len(add) > 0 {
		if err := c.request(ctx, n, add, true); err != nil {
			return forge.PullRequest{}, err
		}
	}
	if drop := minus(info.requested, want); len(drop) > 0 {
		if err := c.request(ctx, n, drop, false); err != nil {
			return forge.PullRequest{}, err
		}
	}
	return c.Get(ctx, n)
}

// setIssue is PATCH /issues/{n} with labels and assignees, each only when
// not nil (an empty list clears).
func (c *Client) setIssue(ctx context.Context, n int64, labels, assignees *[]string) error {
	for _, l := range []*[]string{labels, assignees} {
		if l != nil && *l == nil {
			*l = []string{} // send [], which clears, not null
		}
	}
	if _, _, err := c.gh.Issues.Edit(ctx, c.owner, c.name, number(n), &gh.IssueRequest{Labels: labels, Assignees: assignees}); err != nil {
		return c.fail(err, errIssue)
	}
	return nil
}

// request adds (POST) or removes (DELETE) requested reviewers; org/team
// names are teams. go-github sends reviewers [] when only teams go, as
// GitHub refuses null there.
func (c *Client) request(ctx context.Context, n int64, names []string, add bool) error {
	var r gh.ReviewersRequest
	for _, name := range names {
		if _, team, ok := strings.Cut(name, "/"); ok {
			r.TeamReviewers = append(r.TeamReviewers, team)
			continue
		}
		r.Reviewers = append(r.Reviewers, name)
	}
	if add {
		if _, _, err := c.gh.PullRequests.RequestReviewers(ctx, c.owner, c.name, number(n), r); err != nil {
			return c.fail(err, errRequest)
		}
		return nil
	}
	if _, err := c.gh.PullRequests.RemoveReviewers(ctx, c.owner, c.name, number(n), r); err != nil {
		return c.fail(err, errUnrequest)
	}
	return nil
}

// Close is PATCH /pulls/{n} with state closed.
func (c *Client) Close(ctx context.Context, n int64) error {
	if err := c.begin(); err != nil {
		return err
	}
	if _, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.name, number(n), &gh.PullRequest{State: ptr("closed")}); err != nil {
		return c.fail(err, errClose)
	}
	return nil
}

// Merge is PUT /pulls/{n}/merge with merge_method and sha, the judged
// head. GitHub's 405 ("Pull Request is not mergeable") is ErrNotMergeable,
// its 409 ("Head branch was modified") ErrHeadMoved. With DeleteBranch the
// head branch is then deleted (DELETE /git/refs/heads/{head}) when it
// lives in this repository (a fork's branch is not ours to delete; a
// same-named branch here is not the one merged); one already gone (the
// repository deletes merged heads itself) is fine.
func (c *Client) Merge(ctx context.Context, n int64, m forge.Merge) error {
	if err := c.begin(); err != nil {
		return err
	}
	_, _, err := c.gh.PullRequests.Merge(ctx, c.owner, c.name, number(n), m.Message,
		&gh.PullRequestOptions{MergeMethod: string(m.Method), SHA: m.HeadSHA})
	var re *respError
	if err = refusal(err); errors.As(err, &re) && (re.status == http.StatusMethodNotAllowed || re.status == http.StatusConflict) {
		kind := forge.ErrNotMergeable
		if re.status == http.StatusConflict {
			kind = forge.ErrHeadMoved
		}
		return fmt.Errorf("%s: %w", errMerge, &forge.APIError{Status: re.status, Message: re.body.Message, Kind: kind})
	}
	if err != nil {
		return c.fail(err, errMerge)
	}
	if !m.DeleteBranch {
		return nil
	}
	info, err := c.pull(ctx, n)
	if err != nil {
		return err
	}
	if !info.pr.HeadInRepo {
		return nil
	}
	if !pathSafe(info.pr.Head) {
		return fmt.Errorf(errRefFmt, info.pr.Head)
	}
	_, err = c.gh.Git.DeleteRef(ctx, c.owner, c.name, "heads/"+info.pr.Head)
	if err = refusal(err); errors.As(err, &re) && re.status == http.StatusUnprocessableEntity {
		return nil // "Reference does not exist"
	}
	if err != nil {
		return c.fail(err, errDeleteHead)
	}
	return nil
}

// AutoMerge is GraphQL's enablePullRequestAutoMerge with the pull
// request's node_id. Where the repository does not allow auto-merge, or
// the pull request may be merged now ("in clean status"), it returns
// ErrUnsupported: the caller merges itself once Mergeable is true (which
// it is only when mergeable_state is clean). Already enabled is done;
// merged is done. m.DeleteBranch is left to the repository's "Automatically
// delete head branches" setting, as GitHub offers nothing per merge.
func (c *Client) AutoMerge(ctx context.Context, n int64, m forge.Merge) error {
	if err := c.begin(); err != nil {
		return err
	}
	info, err := c.pull(ctx, n)
	if err != nil {
		return err
	}
	switch {
	case info.pr.State == forge.StateMerged || info.pr.AutoMerge:
		return nil
	case info.pr.State == forge.StateClosed:
		return fmt.Errorf("%s: %w", errAutoMerge, &forge.APIError{Status: http.StatusOK, Message: errNotOpen, Kind: forge.ErrNotMergeable})
	case m.HeadSHA != "" && info.pr.HeadSHA != m.HeadSHA:
		return fmt.Errorf("%s: %w", errAutoMerge, forge.ErrHeadMoved)
	}
	method := strings.ToUpper(string(m.Method))
	if method == "" {
		method = "MERGE"
	}
	input := gqlInput{PullRequestID: info.nodeID, MergeMethod: method, CommitBody: m.Message, ExpectedHeadOid: m.HeadSHA}
	err = c.mutate(ctx, "enablePullRequestAutoMerge", "EnablePullRequestAutoMergeInput", input, errAutoMerge)
	if errors.Is(err, forge.ErrInvalidInput) && m.HeadSHA != "" {
		// GitHub documents expectedHeadOid but not the words of its
		// refusal: a head that moved since is told by the head itself.
		if now, gerr := c.pull(ctx, n); gerr == nil && now.pr.HeadSHA != m.HeadSHA {
			return fmt.Errorf("%s: %w", errAutoMerge, forge.ErrHeadMoved)
		}
	}
	return err
}

// minus is a without b (both sets).
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
