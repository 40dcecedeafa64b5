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
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errList        = "cannot list GitLab's open merge requests"
	errPagesFmt    = "GitLab's list goes on past %d pages"
	errGetFmt      = "cannot get GitLab merge request !%d"
	errApprovals   = "cannot get the merge request's approvals"
	errCreate      = "cannot open a GitLab merge request"
	errUpdateFmt   = "cannot update GitLab merge request !%d"
	errCloseFmt    = "cannot close GitLab merge request !%d"
	errUsers       = "cannot look GitLab users up"
	errNoUserFmt   = "no GitLab user is named %q"
	errUserLookFmt = "cannot look GitLab user %q up"
)

// perPage is GitLab's largest page size.
const perPage = 100

// maxPages stops a list whose next page never ends (100,000 open merge
// requests is far past any repository this serves).
const maxPages = 1000

// listPage is one page of the open list as last answered, kept for its
// ETag.
type listPage struct {
	etag string
	prs  []forge.PullRequest
	next int64
}

// ListOpen returns every open merge request, following X-Next-Page (or the
// Link header's next) over all pages. Each page is asked for with the ETag
// its last answer had; it is notModified only when every page answered 304.
func (c *Client) ListOpen(ctx context.Context) ([]forge.PullRequest, bool, error) {
	c.mu.Lock()
	cached := c.pages
	c.mu.Unlock()

	var prs []forge.PullRequest
	seen := map[int64]listPage{}
	notModified := true
	for page := int64(1); page != 0; {
		if len(seen) >= maxPages {
			return nil, false, fmt.Errorf("%s: %w", errList, fmt.Errorf(errPagesFmt, maxPages))
		}
		prev, had := cached[page]
		lp, unchanged, err := c.listPage(ctx, page, prev, had)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", errList, err)
		}
		notModified = notModified && unchanged
		seen[page] = lp
		prs = append(prs, lp.prs...)
		page = lp.next
	}
	c.mu.Lock()
	c.pages = seen
	c.mu.Unlock()
	return prs, notModified, nil
}

// listPage asks for one page of open merge requests, with prev's ETag when
// had; a 304 answers prev again.
func (c *Client) listPage(ctx context.Context, page int64, prev listPage, had bool) (listPage, bool, error) {
	opt := &gl.ListProjectMergeRequestsOptions{
		ListOptions: gl.ListOptions{PerPage: perPage, Page: page},
		State:       gl.Ptr("opened"),
	}
	var more []gl.RequestOptionFunc
	if had && prev.etag != "" {
		more = append(more, gl.WithHeader("If-None-Match", prev.etag))
	}
	mrs, resp, err := c.api.MergeRequests.ListProjectMergeRequests(c.path, opt, c.opts(ctx, more...)...)
	if resp != nil && resp.StatusCode == http.StatusNotModified && had {
		// client-go decodes a 304's empty body and says io.EOF.
		if err == nil || errors.Is(err, io.EOF) {
			return prev, true, nil
		}
	}
	if err != nil {
		return listPage{}, false, err
	}
	lp := listPage{etag: resp.Header.Get("ETag"), next: nextPage(resp.Header, page)}
	for _, mr := range mrs {
		lp.prs = append(lp.prs, pullRequest(mr, c.path))
	}
	return lp, false, nil
}

// nextPage is the page after page: X-Next-Page (empty on the last page),
// or when a proxy dropped it, the page parameter of the Link header's
// next; 0 ends the list. A next page that does not move forward ends it
// too.
func nextPage(h http.Header, page int64) int64 {
	next := linkNext(h.Get("Link"))
	if v, ok := h[http.CanonicalHeaderKey("X-Next-Page")]; ok && len(v) > 0 {
		next = strings.TrimSpace(v[0])
	}
	n, err := strconv.ParseInt(next, 10, 64)
	if err != nil || n <= page {
		return 0
	}
	return n
}

// linkNext is the page parameter of the rel="next" link in an RFC 8288
// Link header.
func linkNext(link string) string {
	for _, l := range strings.Split(link, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(l), ";")
		if !ok || !strings.Contains(strings.ReplaceAll(params, " ", ""), `rel="next"`) {
			continue
		}
		u, err := url.Parse(strings.Trim(strings.TrimSpace(target), "<>"))
		if err != nil {
			return ""
		}
		return u.Query().Get("page")
	}
	return ""
}

// Get returns one merge request with its head pipeline's status and its
// review decision.
func (c *Client) Get(ctx context.Context, number int64) (forge.PullRequest, error) {
	mr, _, err := c.api.MergeRequests.GetMergeRequest(c.path, number, nil, c.opts(ctx)...)
	if err != nil {
		return forge.PullRequest{}, fmt.Errorf(errGetFmt+": %w", number, err)
	}
	pr := detailed(mr, c.path)
	a, _, err := c.api.MergeRequests.GetMergeRequestApprovals(c.path, number, c.opts(ctx)...)
	switch {
	case errors.Is(err, forge.ErrNotFound), errors.Is(err, forge.ErrForbidden):
		// An instance or token without approvals: no decision to tell.
		a = nil
	case err != nil:
		return forge.PullRequest{}, fmt.Errorf(errGetFmt+": %w", number, fmt.Errorf("%s: %w", errApprovals, err))
	}
	pr.ReviewDecision = reviewDecision(mr.DetailedMergeStatus, a)
	return pr, nil
}

// fields are what Create and Update send: every one, so an empty list
// clears labels, reviewers or assignees a person added.
type fields struct {
	title, description string
	labels             *gl.LabelOptions
	reviewers          *[]int64
	assignees          *[]int64
}

func (c *Client) fields(ctx context.Context, s forge.Spec) (fields, error) {
	rv, err := c.userIDs(ctx, s.Reviewers)
	if err != nil {
		return fields{}, err
	}
	as, err := c.userIDs(ctx, s.Assignees)
	if err != nil {
		return fields{}, err
	}
	// A nil LabelOptions is sent as null, which keeps GitLab's labels; an
	// empty one as "", which clears them.
	labels := append(gl.LabelOptions{}, s.Labels...)
	return fields{
		title:       draftTitle(s.Title, s.Draft),
		description: s.Body,
		labels:      &labels,
		reviewers:   &rv,
		assignees:   &as,
	}, nil
}

// Create opens a merge request from s.Head into s.Base. GitLab allows one
// open merge request per source branch: another is ErrExists.
func (c *Client) Create(ctx context.Context, s forge.Spec) (forge.PullRequest, error) {
	f, err := c.fields(ctx, s)
	if err != nil {
		return forge.PullRequest{}, fmt.Errorf("%s: %w", errCreate, err)
	}
	opt := &gl.CreateMergeRequestOptions{
		SourceBranch: gl.Ptr(s.Head), TargetBranch: gl.Ptr(s.Base),
		Title: gl.Ptr(f.title), Description: gl.Ptr(f.description),
		Labels: f.labels, ReviewerIDs: f.reviewers, AssigneeIDs: f.assignees,
	}
	mr, _, err := c.api.MergeRequests.CreateMergeRequest(c.path, opt, c.opts(ctx)...)
	if err != nil {
		return forge.PullRequest{}, fmt.Errorf("%s: %w", errCreate, err)
	}
	return detailed(mr, c.path), nil
}

// Update puts title (with its draft prefix), description, labels,
// reviewers and assignees back to s.
func (c *Client) Update(ctx context.Context, number int64, s forge.Spec) (forge.PullRequest, error) {
	f, err := c.fields(ctx, s)
	if err != nil {
		return forge.PullRequest{}, fmt.Errorf(errUpdateFmt+": %w", number, err)
	}
	opt := &gl.UpdateMergeRequestOptions{
		Title: gl.Ptr(f.title), Description: gl.Ptr(f.description),
		Labels: f.labels, ReviewerIDs: f.reviewers, AssigneeIDs: f.assignees,
	}
	mr, _, err := c.api.MergeRequests.UpdateMergeRequest(c.path, number, opt, c.opts(ctx)...)
	if err != nil {
		return forge.PullRequest{}, fmt.Errorf(errUpdateFmt+": %w", number, err)
	}
	return detailed(mr, c.path), nil
}

// Close closes the merge request (state_event close).
func (c *Client) Close(ctx context.Context, number int64) error {
	opt := &gl.UpdateMergeRequestOptions{StateEvent: gl.Ptr("close")}
	if _, _, err := c.api.MergeRequests.UpdateMergeRequest(c.path, number, opt, c.opts(ctx)...); err != nil {
		return fmt.Errorf(errCloseFmt+": %w", number, err)
	}
	return nil
}

// userIDs returns the ids of user names, each looked up once per Client:
// a GitLab user's id never changes.
func (c *Client) userIDs(ctx context.Context, names []string) ([]int64, error) {
	ids := make([]int64, 0, len(names))
	for _, n := range names {
		c.mu.Lock()
		id, ok := c.users[strings.ToLower(n)]
		c.mu.Unlock()
		if !ok {
			var err error
			if id, err = c.lookUp(ctx, n); err != nil {
				return nil, fmt.Errorf("%s: %w", errUsers, err)
			}
			c.mu.Lock()
			c.users[strings.ToLower(n)] = id
			c.mu.Unlock()
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// lookUp asks GitLab for a user's id. GitLab user names are case
// insensitive; an unknown name is invalid input (it is not cached, so a
// user created later is found).
func (c *Client) lookUp(ctx context.Context, name string) (int64, error) {
	us, _, err := c.api.Users.ListUsers(&gl.ListUsersOptions{Username: gl.Ptr(name)}, c.opts(ctx)...)
	if err != nil {
		return 0, fmt.Errorf(errUserLookFmt+": %w", name, err)
	}
	for _, u := range us {
		if u != nil && strings.EqualFold(u.Username, name) {
			return u.ID, nil
		}
	}
	return 0, fmt.Errorf(errNoUserFmt+": %w", name, forge.ErrInvalidInput)
}
