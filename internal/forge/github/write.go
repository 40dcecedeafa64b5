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
	"net/http"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/google/go-github/v89/github"

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
)

// Create is POST /pulls (head, base, title, body, draft), then one PATCH
// /issues/{n} setting labels and assignees together (one content-creating
// request instead of two, as GitHub's secondary limit counts them), then
// POST requested_reviewers. A reviewer of the form org/team is a team.
// When a follow-up fails the pull request is returned with the error: it
// exists, and the caller's next Create finds it (ErrExists) and Updates.
func (c *Client) Create(ctx context.Context, s forge.Spec) (forge.PullRequest, error) {
	ctx, err := c.begin(ctx)
	if err != nil {
		return forge.PullRequest{}, err
	}
	p, _, err := c.gh.PullRequests.Create(ctx, c.owner, c.name, &github.NewPullRequest{
		Title: &s.Title, Head: &s.Head, Base: &s.Base, Body: &s.Body, Draft: &s.Draft,
	})
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

// Update puts title, body, draft, labels, assignees and reviewers back to s
// and sends only what differs: PATCH /pulls/{n} (title, body; base is
// never changed), a GraphQL mutation for draft (REST cannot convert to
// draft), PATCH /issues/{n} (labels replaced, assignees set), POST and
// DELETE requested_reviewers. A declared reviewer who has already reviewed
// is not requested again; a requested reviewer not declared is removed.
func (c *Client) Update(ctx context.Context, number int64, s forge.Spec) (forge.PullRequest, error) {
	ctx, err := c.begin(ctx)
	if err != nil {
		return forge.PullRequest{}, err
	}
	info, err := c.pull(ctx, number)
	if err != nil {
		return forge.PullRequest{}, err
	}
	cur := info.pr
	if cur.Title != s.Title || cur.Body != s.Body {
		if _, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.name, int(number), &github.PullRequest{Title: &s.Title, Body: &s.Body}); err != nil {
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
		if err := c.setIssue(ctx, number, setLabels, setAssignees); err != nil {
			return forge.PullRequest{}, err
		}
	}
	reviews, err := c.reviews(ctx, number)
	if err != nil {
		return forge.PullRequest{}, err
	}
	want, seen := set(s.Reviewers), reviewers(info.requested, reviews)
	if add := minus(want, seen); len(add) > 0 {
		if err := c.request(ctx, number, add, true); err != nil {
			return forge.PullRequest{}, err
		}
	}
	if drop := minus(info.requested, want); len(drop) > 0 {
		if err := c.request(ctx, number, drop, false); err != nil {
			return forge.PullRequest{}, err
		}
	}
	return c.Get(ctx, number)
}

// setIssue is PATCH /issues/{n} with labels and assignees, each only when
// not nil (an empty list clears).
func (c *Client) setIssue(ctx context.Context, number int64, labels, assignees *[]string) error {
	req := &github.IssueRequest{Labels: labels, Assignees: assignees}
	for _, l := range []*[]string{labels, assignees} {
		if l != nil && *l == nil {
			*l = []string{} // send [], which clears, not null
		}
	}
	if _, _, err := c.gh.Issues.Edit(ctx, c.owner, c.name, int(number), req); err != nil {
		return c.fail(err, errIssue)
	}
	return nil
}

// request adds (POST) or removes (DELETE) requested reviewers; org/team
// names are teams.
func (c *Client) request(ctx context.Context, number int64, names []string, add bool) error {
	var rr github.ReviewersRequest
	for _, n := range names {
		if _, team, ok := strings.Cut(n, "/"); ok {
			rr.TeamReviewers = append(rr.TeamReviewers, team)
			continue
		}
		rr.Reviewers = append(rr.Reviewers, n)
	}
	if add {
		if _, _, err := c.gh.PullRequests.RequestReviewers(ctx, c.owner, c.name, int(number), rr); err != nil {
			return c.fail(err, errRequest)
		}
		return nil
	}
	if _, err := c.gh.PullRequests.RemoveReviewers(ctx, c.owner, c.name, int(number), rr); err != nil {
		return c.fail(err, errUnrequest)
	}
	return nil
}

// Close is PATCH /pulls/{n} with state closed.
func (c *Client) Close(ctx context.Context, number int64) error {
	ctx, err := c.begin(ctx)
	if err != nil {
		return err
	}
	closed := "closed"
	if _, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.name, int(number), &github.PullRequest{State: &closed}); err != nil {
		return c.fail(err, errClose)
	}
	return nil
}

// Merge is PUT /pulls/{n}/merge with merge_method. GitHub's 405 ("Pull
// Request is not mergeable") and 409 ("Head branch was modified") are
// ErrNotMergeable. With DeleteBranch the head branch is then deleted
// (DELETE /git/refs/heads/{head}); one already gone (the repository
// deletes merged heads itself) is fine.
func (c *Client) Merge(ctx context.Context, number int64, m forge.Merge) error {
	ctx, err := c.begin(ctx)
	if err != nil {
		return err
	}
	_, _, err = c.gh.PullRequests.Merge(ctx, c.owner, c.name, int(number), m.Message,
		&github.PullRequestOptions{MergeMethod: string(m.Method)})
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil &&
		(er.Response.StatusCode == http.StatusMethodNotAllowed || er.Response.StatusCode == http.StatusConflict) {
		return errors.Wrap(&forge.APIError{Status: er.Response.StatusCode, Message: er.Message, Kind: forge.ErrNotMergeable}, errMerge)
	}
	if err != nil {
		return c.fail(err, errMerge)
	}
	if !m.DeleteBranch {
		return nil
	}
	info, err := c.pull(ctx, number)
	if err != nil {
		return err
	}
	_, err = c.gh.Git.DeleteRef(ctx, c.owner, c.name, "heads/"+info.pr.Head)
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity {
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
func (c *Client) AutoMerge(ctx context.Context, number int64, m forge.Merge) error {
	ctx, err := c.begin(ctx)
	if err != nil {
		return err
	}
	info, err := c.pull(ctx, number)
	if err != nil {
		return err
	}
	switch {
	case info.pr.State == forge.StateMerged || info.pr.AutoMerge:
		return nil
	case info.pr.State == forge.StateClosed:
		return errors.Wrap(&forge.APIError{Status: http.StatusOK, Message: errNotOpen, Kind: forge.ErrNotMergeable}, errAutoMerge)
	}
	method := strings.ToUpper(string(m.Method))
	if method == "" {
		method = "MERGE"
	}
	input := map[string]any{"pullRequestId": info.nodeID, "mergeMethod": method}
	if m.Message != "" {
		input["commitBody"] = m.Message
	}
	return c.mutate(ctx, "enablePullRequestAutoMerge", "EnablePullRequestAutoMergeInput", input, errAutoMerge)
}

// draft flips draft with convertPullRequestToDraft or
// markPullRequestReadyForReview.
func (c *Client) draft(ctx context.Context, nodeID string, draft bool) error {
	name, typ := "markPullRequestReadyForReview", "MarkPullRequestReadyForReviewInput"
	if draft {
		name, typ = "convertPullRequestToDraft", "ConvertPullRequestToDraftInput"
	}
	return c.mutate(ctx, name, typ, map[string]any{"pullRequestId": nodeID}, errDraft)
}

// mutate posts one mutation to the GraphQL endpoint through go-github (so
// authentication, secondary limits and HTTP errors are handled as REST's)
// and maps GraphQL's errors.
func (c *Client) mutate(ctx context.Context, name, inputType string, input map[string]any, what string) error {
	q := "mutation($input: " + inputType + "!) {\n  " + name +
		"(input: $input) { pullRequest { id number isDraft autoMergeRequest { mergeMethod } } }\n}"
	req, err := c.gh.NewRequest(ctx, http.MethodPost, c.graphqlURL, map[string]any{"query": q, "variables": map[string]any{"input": input}})
	if err != nil {
		return errors.Wrap(err, what)
	}
	var out struct {
		Errors []gqlErr `json:"errors"`
	}
	resp, err := c.gh.Do(req, &out)
	if err != nil {
		return c.fail(err, what)
	}
	if len(out.Errors) > 0 {
		return c.fail(&gqlError{status: resp.StatusCode, header: resp.Header, errs: out.Errors}, what)
	}
	return nil
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
