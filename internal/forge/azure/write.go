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

package azure

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errCreate      = "cannot open the pull request on Azure DevOps"
	errUpdateFmt   = "cannot update pull request %d on Azure DevOps"
	errLabelFmt    = "cannot set the labels of pull request %d on Azure DevOps"
	errReviewerFmt = "cannot add a reviewer to pull request %d on Azure DevOps"
	errCloseFmt    = "cannot abandon pull request %d on Azure DevOps"
	errMergeFmt    = "cannot complete pull request %d on Azure DevOps"
	errAutoFmt     = "cannot set auto-complete on pull request %d on Azure DevOps"
	msgAssignees   = "Azure DevOps has no assignees: name them as reviewers"
)

// strategies maps a merge method to Azure's mergeStrategy.
var strategies = map[forge.MergeMethod]string{
	forge.MethodMerge:  "noFastForward",
	forge.MethodSquash: "squash",
	forge.MethodRebase: "rebase",
}

// Create opens the pull request with its reviewers (required) and labels
// in one request. Azure's 409 for an open one of the same source and
// target is ErrExists.
func (c *Client) Create(ctx context.Context, s forge.Spec) (forge.PullRequest, error) {
	if len(s.Assignees) > 0 {
		return forge.PullRequest{}, fmt.Errorf("%s: %w", errCreate, assignees())
	}
	b := createBody{SourceRefName: headsPrefix + s.Head, TargetRefName: headsPrefix + s.Base,
		Title: s.Title, Description: s.Body, IsDraft: s.Draft}
	for _, r := range []struct {
		names    []string
		required bool
	}{{s.Reviewers, true}, {s.OptionalReviewers, false}} {
		ids, err := c.identities(ctx, r.names)
		if err != nil {
			return forge.PullRequest{}, fmt.Errorf("%s: %w", errCreate, err)
		}
		for _, id := range ids {
			if !slices.ContainsFunc(b.Reviewers, func(h reviewerRef) bool { return strings.EqualFold(h.ID, id) }) {
				b.Reviewers = append(b.Reviewers, reviewerRef{ID: id, IsRequired: r.required})
			}
		}
	}
	for _, l := range s.Labels {
		b.Labels = append(b.Labels, label{Name: l})
	}
	var p pullRequest
	if _, err := c.do(ctx, call{method: http.MethodPost, path: c.repoPath() + "pullrequests", body: b}, &p); err != nil {
		return forge.PullRequest{}, fmt.Errorf("%s: %w", errCreate, err)
	}
	c.keep(p.PullRequestID, p.Description)
	return c.convert(&p), nil
}

// Update puts title, description and draft back in one PATCH when any
// differs, adds and removes labels one request each, and adds the
// declared reviewers who are not reviewers yet (required or optional, as
// declared). It reads the pull request first, and again after a change.
func (c *Client) Update(ctx context.Context, number int64, s forge.Spec) (forge.PullRequest, error) {
	if len(s.Assignees) > 0 {
		return forge.PullRequest{}, fmt.Errorf(errUpdateFmt+": %w", number, assignees())
	}
	cur, err := c.Get(ctx, number)
	if err != nil {
		return forge.PullRequest{}, err
	}
	changed := false
	var b updateBody
	if cur.Title != s.Title {
		b.Title, changed = &s.Title, true
	}
	if cur.Body != s.Body {
		b.Description, changed = &s.Body, true
	}
	if cur.Draft != s.Draft {
		b.IsDraft, changed = &s.Draft, true
	}
	if changed {
		if _, err := c.do(ctx, call{method: http.MethodPatch, path: c.pullPath(number, ""), body: b}, nil); err != nil {
			return forge.PullRequest{}, fmt.Errorf(errUpdateFmt+": %w", number, err)
		}
		c.keep(number, s.Body)
	}
	labelled, err := c.labels(ctx, number, cur.Labels, s.Labels)
	if err != nil {
		return forge.PullRequest{}, err
	}
	added, err := c.addReviewers(ctx, number, cur.Reviewers, s.Reviewers, true)
	if err != nil {
		return forge.PullRequest{}, err
	}
	addedOptional, err := c.addReviewers(ctx, number, cur.Reviewers, s.OptionalReviewers, false)
	if err != nil {
		return forge.PullRequest{}, err
	}
	if !changed && !labelled && !added && !addedOptional {
		return cur, nil
	}
	return c.Get(ctx, number)
}

// labels adds the labels of want not in have and removes those of have
// not in want; true when it changed any.
func (c *Client) labels(ctx context.Context, number int64, have, want []string) (bool, error) {
	changed := false
	for _, l := range want {
		if slices.Contains(have, l) {
			continue
		}
		if _, err := c.do(ctx, call{method: http.MethodPost, path: c.pullPath(number, "labels"), version: previewVersion, body: label{Name: l}}, nil); err != nil {
			return false, fmt.Errorf(errLabelFmt+": %w", number, err)
		}
		changed = true
	}
	for _, l := range have {
		if slices.Contains(want, l) {
			continue
		}
		err := c.deleteLabel(ctx, number, l)
		if err != nil && !errors.Is(err, forge.ErrNotFound) {
			return false, fmt.Errorf(errLabelFmt+": %w", number, err)
		}
		changed = true
	}
	return changed, nil
}

func (c *Client) deleteLabel(ctx context.Context, number int64, name string) error {
	_, err := c.do(ctx, call{method: http.MethodDelete, path: c.pullPath(number, "labels/"+url.PathEscape(name)), version: previewVersion}, nil)
	return err
}

// addReviewers adds, as required or optional reviewers, the declared ones
// not among have (unique names, ids and names resolved before); true when
// it added any. One there already keeps what Azure holds: a person who
// made a reviewer required or optional decided.
func (c *Client) addReviewers(ctx context.Context, number int64, have, want []string, required bool) (bool, error) {
	var missing []string
	for _, r := range want {
		if !slices.Contains(have, r) {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return false, nil
	}
	ids, err := c.identities(ctx, missing)
	if err != nil {
		return false, fmt.Errorf(errReviewerFmt+": %w", number, err)
	}
	vote := 0
	for _, id := range ids {
		if slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, id) }) {
			continue // resolved to a reviewer already there
		}
		body := reviewerRef{ID: id, IsRequired: required, Vote: &vote}
		if _, err := c.do(ctx, call{method: http.MethodPut, path: c.pullPath(number, "reviewers/"+url.PathEscape(id)), body: body}, nil); err != nil {
			return false, fmt.Errorf(errReviewerFmt+": %w", number, err)
		}
	}
	return true, nil
}

// Close abandons the pull request.
func (c *Client) Close(ctx context.Context, number int64) error {
	if _, err := c.do(ctx, call{method: http.MethodPatch, path: c.pullPath(number, ""), body: updateBody{Status: statusAbandoned}}, nil); err != nil {
		return fmt.Errorf(errCloseFmt+": %w", number, err)
	}
	c.forget(number)
	return nil
}

// Merge completes the pull request now at m.HeadSHA (the head read now
// when empty). Azure refuses a moved head (409, ErrHeadMoved) and one a
// policy blocks (403, ErrNotMergeable). An answer still active is a
// completion Azure queued (nil), or refused for conflicts or a policy
// (ErrNotMergeable).
func (c *Client) Merge(ctx context.Context, number int64, m forge.Merge) error {
	head := m.HeadSHA
	if head == "" {
		p, err := c.pull(ctx, number)
		if err != nil {
			return fmt.Errorf(errMergeFmt+": %w", number, err)
		}
		if p.LastMergeSourceCommit != nil {
			head = p.LastMergeSourceCommit.CommitID
		}
	}
	b := updateBody{Status: statusCompleted, LastMergeSourceCommit: &commitRef{CommitID: head}, CompletionOptions: options(m)}
	var p pullRequest
	if _, err := c.do(ctx, call{method: http.MethodPatch, path: c.pullPath(number, ""), body: b}, &p); err != nil {
		return fmt.Errorf(errMergeFmt+": %w", number, err)
	}
	switch {
	case p.Status == statusCompleted:
		c.forget(number)
		return nil
	case p.LastMergeSourceCommit != nil && p.LastMergeSourceCommit.CommitID != head:
		return fmt.Errorf(errMergeFmt+": %w", number, forge.ErrHeadMoved)
	case p.Status == statusActive && (p.MergeStatus == mergeQueued || p.MergeStatus == mergeSucceeded):
		return nil
	}
	return fmt.Errorf(errMergeFmt+": %w", number, &forge.APIError{Status: http.StatusOK, Message: "the pull request is " + p.Status + ", merge status " + p.MergeStatus, Kind: forge.ErrNotMergeable})
}

// AutoMerge sets auto-complete, by the token's identity, with m's
// completion options; Azure completes once every blocking policy passes.
// The head is read first: one other than m.HeadSHA is ErrHeadMoved, a
// draft (which Azure does not complete) ErrNotMergeable; set already with
// the same options, nothing is sent. Either way it is pinned to that head
// (autocomplete.go).
func (c *Client) AutoMerge(ctx context.Context, number int64, m forge.Merge) error {
	p, err := c.pull(ctx, number)
	if err != nil {
		return fmt.Errorf(errAutoFmt+": %w", number, err)
	}
	if p.Status != statusActive {
		return nil // completed or abandoned since: the next read says which
	}
	if m.HeadSHA != "" && (p.LastMergeSourceCommit == nil || p.LastMergeSourceCommit.CommitID != m.HeadSHA) {
		return fmt.Errorf(errAutoFmt+": %w", number, forge.ErrHeadMoved)
	}
	if p.IsDraft {
		return fmt.Errorf(errAutoFmt+": %w", number, forge.ErrNotMergeable)
	}
	head := ""
	if p.LastMergeSourceCommit != nil {
		head = p.LastMergeSourceCommit.CommitID
	}
	opts := options(m)
	if p.AutoCompleteSetBy != nil && p.AutoCompleteSetBy.ID != "" && p.AutoCompleteSetBy.ID != noIdentity && p.CompletionOptions != nil &&
		p.CompletionOptions.MergeStrategy == opts.MergeStrategy && p.CompletionOptions.DeleteSourceBranch == opts.DeleteSourceBranch {
		c.pin(number, head)
		return nil
	}
	me, err := c.whoAmI(ctx)
	if err != nil {
		return fmt.Errorf(errAutoFmt+": %w", number, err)
	}
	b := updateBody{AutoCompleteSetBy: &identityRef{ID: me}, CompletionOptions: opts}
	if _, err := c.do(ctx, call{method: http.MethodPatch, path: c.pullPath(number, ""), body: b}, nil); err != nil {
		return fmt.Errorf(errAutoFmt+": %w", number, err)
	}
	c.pin(number, head)
	return nil
}

// options are m's completion options: its method's strategy (a merge
// commit when none), deleteSourceBranch, and the merge commit's message.
func options(m forge.Merge) *completionOptions {
	s, ok := strategies[m.Method]
	if !ok {
		s = strategies[forge.MethodMerge]
	}
	return &completionOptions{MergeStrategy: s, DeleteSourceBranch: m.DeleteBranch, MergeCommitMessage: m.Message}
}

func assignees() error {
	return &forge.APIError{Status: http.StatusBadRequest, Message: msgAssignees, Kind: forge.ErrInvalidInput}
}
