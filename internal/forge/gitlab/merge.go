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

package gitlab

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	gl "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errMergeFmt       = "cannot merge GitLab merge request !%d"
	errAutoMergeFmt   = "cannot set GitLab merge request !%d to merge automatically"
	errRebaseFmt      = "cannot rebase GitLab merge request !%d"
	errRebasing       = "GitLab is rebasing the source branch; merge again once it is done"
	errRebaseFailFmt  = "GitLab is rebasing the source branch again; its last rebase failed: %s"
	errAutoMergeUnset = "GitLab answered without merging or setting auto-merge"
	errMethodFmt      = "unknown merge method %q: one of merge, squash, rebase"
	errNotMergedFmt   = "GitLab answered the merge but did not merge: %s"
)

// Merge merges now, by the project's merge method (squashed for
// MethodSquash, after a rebase for MethodRebase).
func (c *Client) Merge(ctx context.Context, number int64, m forge.Merge) error {
	mr, err := c.merge(ctx, number, m, false)
	if err != nil {
		return fmt.Errorf(errMergeFmt+": %w", number, err)
	}
	// GitLab's merge service records a failed merge (a refused push, a
	// lost race) on the merge request and the API still answers 200.
	if mr.State != "merged" && mr.State != "locked" {
		why := mr.MergeError
		if why == "" {
			why = "state " + mr.State
		}
		return fmt.Errorf(errMergeFmt+": %w", number, fmt.Errorf(errNotMergedFmt+": %w", why, forge.ErrNotMergeable))
	}
	return nil
}

// AutoMerge asks GitLab to merge once the pipeline succeeds (and, on
// GitLab 17.11 and later, once every merge check passes).
func (c *Client) AutoMerge(ctx context.Context, number int64, m forge.Merge) error {
	mr, err := c.merge(ctx, number, m, true)
	if err != nil {
		return fmt.Errorf(errAutoMergeFmt+": %w", number, err)
	}
	switch {
	case mr.MergeWhenPipelineSucceeds || mr.State == "merged" || mr.State == "locked":
		return nil
	case mr.MergeError != "":
		// It merged at once, and that merge failed.
		return fmt.Errorf(errAutoMergeFmt+": %w", number, fmt.Errorf(errNotMergedFmt+": %w", mr.MergeError, forge.ErrNotMergeable))
	}
	return fmt.Errorf(errAutoMergeFmt+": %w", number, fmt.Errorf("%s: %w", errAutoMergeUnset, forge.ErrUnsupported))
}

// merge sends the merge call with the judged head as sha, which makes
// GitLab refuse (409) a source branch whose head is no longer it: 409 is
// ErrHeadMoved. 405 (not open, draft, pipeline or checks), 406 (conflicts,
// older GitLab) and 422 ("Branch cannot be merged") are ErrNotMergeable.
func (c *Client) merge(ctx context.Context, number int64, m forge.Merge, auto bool) (*gl.MergeRequest, error) {
	opt := &gl.AcceptMergeRequestOptions{ShouldRemoveSourceBranch: gl.Ptr(m.DeleteBranch), Squash: gl.Ptr(false)}
	if m.HeadSHA != "" {
		opt.SHA = gl.Ptr(m.HeadSHA)
	}
	if auto {
		// GitLab before 17.11 reads only the deprecated parameter.
		opt.AutoMerge, opt.MergeWhenPipelineSucceeds = gl.Ptr(true), gl.Ptr(true) //nolint:staticcheck // see above.
	}
	var msg **string
	switch m.Method {
	case forge.MethodMerge, "":
		msg = &opt.MergeCommitMessage
	case forge.MethodSquash:
		opt.Squash, msg = gl.Ptr(true), &opt.SquashCommitMessage
	case forge.MethodRebase:
		msg = &opt.MergeCommitMessage
		if err := c.rebase(ctx, number); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf(errMethodFmt+": %w", m.Method, forge.ErrInvalidInput)
	}
	if m.Message != "" {
		*msg = gl.Ptr(m.Message)
	}
	mr, _, err := c.api.MergeRequests.AcceptMergeRequest(c.path, number, opt, c.opts(ctx)...)
	var e *forge.APIError
	if errors.As(err, &e) {
		switch e.Status {
		case http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusUnprocessableEntity:
			e.Kind = forge.ErrNotMergeable
		case http.StatusConflict:
			// "SHA does not match HEAD of source branch".
			e.Kind = forge.ErrHeadMoved
		}
	}
	if err != nil {
		return nil, err
	}
	return mr, nil
}

// rebase starts GitLab's rebase of the source branch onto the target when
// the branch is behind it, and answers ErrNotMergeable while one runs: the
// rebase is asynchronous, and merging before it ends would merge the old
// head.
func (c *Client) rebase(ctx context.Context, number int64) error {
	opt := &gl.GetMergeRequestsOptions{IncludeDivergedCommitsCount: gl.Ptr(true), IncludeRebaseInProgress: gl.Ptr(true)}
	mr, _, err := c.api.MergeRequests.GetMergeRequest(c.path, number, opt, c.opts(ctx)...)
	if err != nil {
		return fmt.Errorf(errRebaseFmt+": %w", number, err)
	}
	switch {
	case mr.RebaseInProgress:
		return fmt.Errorf("%s: %w", errRebasing, forge.ErrNotMergeable)
	case mr.State != "opened" || (mr.DivergedCommitsCount == 0 && mr.DetailedMergeStatus != "need_rebase"):
		// Nothing to rebase: the merge call answers for the rest.
		return nil
	}
	if _, err := c.api.MergeRequests.RebaseMergeRequest(c.path, number, nil, c.opts(ctx)...); err != nil {
		return fmt.Errorf(errRebaseFmt+": %w", number, err)
	}
	if mr.MergeError != "" {
		return fmt.Errorf(errRebaseFailFmt+": %w", mr.MergeError, forge.ErrNotMergeable)
	}
	return fmt.Errorf("%s: %w", errRebasing, forge.ErrNotMergeable)
}
