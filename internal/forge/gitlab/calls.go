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
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errList        = "cannot list GitLab's open merge requests"
	errPagesFmt    = "GitLab's list of open merge requests goes on past %d pages"
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
	next string
}

// ListOpen returns every open merge request, following X-Next-Page (or the
// Link header's next) over all pages.
func (c *Client) ListOpen(ctx context.Context) ([]forge.PullRequest, bool, error) {
	c.mu.Lock()
	cached := c.pages
	c.mu.Unlock()

	var prs []forge.PullRequest
	seen := map[string]listPage{}
	notModified := true
	for page := "1"; page != ""; {
		if len(seen) >= maxPages {
			return nil, false, errors.Errorf(errPagesFmt, maxPages)
		}
		q := url.Values{"state": {"opened"}, "per_page": {strconv.Itoa(perPage)}, "page": {page}}
		prev, had := cached[page]
		r := request{method: http.MethodGet, path: c.mrPath(0), query: q}
		if had {
			r.etag = prev.etag
		}
		var mrs []mergeRequest
		a, err := c.do(ctx, r, &mrs)
		if err != nil {
			return nil, false, errors.Wrap(err, errList)
		}
		var lp listPage
		if a.status == http.StatusNotModified && had {
			lp = prev
		} else {
			notModified = false
			lp = listPage{etag: a.header.Get("ETag"), next: nextPage(a.header, page)}
			for _, mr := range mrs {
				lp.prs = append(lp.prs, mr.pullRequest(c.path))
			}
		}
		seen[page] = lp
		prs = append(prs, lp.prs...)
		page = lp.next
	}
	c.mu.Lock()
	c.pages = seen
	c.mu.Unlock()
	if notModified {
		return prs, true, nil
	}
	return prs, false, nil
}

// nextPage is the page after page: X-Next-Page ("" on the last page), or
// when a proxy dropped it, the page parameter of the Link header's next.
// A next page that does not move forward ends the list.
func nextPage(h http.Header, page string) string {
	next := linkNext(h.Get("Link"))
	if v, ok := h[http.CanonicalHeaderKey("X-Next-Page")]; ok && len(v) > 0 {
		next = strings.TrimSpace(v[0])
	}
	n, err := strconv.Atoi(next)
	cur, _ := strconv.Atoi(page)
	if err != nil || n <= cur {
		return ""
	}
	return next
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
	var mr mergeRequest
	if _, err := c.do(ctx, request{method: http.MethodGet, path: c.mrPath(number)}, &mr); err != nil {
		return forge.PullRequest{}, errors.Wrapf(err, errGetFmt, number)
	}
	pr := mr.pullRequest(c.path)
	var a approvals
	_, err := c.do(ctx, request{method: http.MethodGet, path: c.mrPath(number, "approvals")}, &a)
	switch {
	case errors.Is(err, forge.ErrNotFound), errors.Is(err, forge.ErrForbidden):
		// An instance or token without approvals: no decision to tell.
		a = approvals{}
	case err != nil:
		return forge.PullRequest{}, errors.Wrapf(errors.Wrap(err, errApprovals), errGetFmt, number)
	}
	pr.ReviewDecision = reviewDecision(mr.DetailedMergeStatus, a)
	return pr, nil
}

// mrBody is what Create and Update send. Update sends every field, so an
// empty list clears labels, reviewers or assignees a person added.
type mrBody struct {
	SourceBranch string  `json:"source_branch,omitempty"`
	TargetBranch string  `json:"target_branch,omitempty"`
	Title        string  `json:"title"`
	Description  string  `json:"description"`
	Labels       string  `json:"labels"`
	ReviewerIDs  []int64 `json:"reviewer_ids"`
	AssigneeIDs  []int64 `json:"assignee_ids"`
}

func (c *Client) body(ctx context.Context, s forge.Spec) (mrBody, error) {
	rv, err := c.userIDs(ctx, s.Reviewers)
	if err != nil {
		return mrBody{}, err
	}
	as, err := c.userIDs(ctx, s.Assignees)
	if err != nil {
		return mrBody{}, err
	}
	return mrBody{
		Title:       draftTitle(s.Title, s.Draft),
		Description: s.Body,
		Labels:      strings.Join(s.Labels, ","),
		ReviewerIDs: rv,
		AssigneeIDs: as,
	}, nil
}

// Create opens a merge request from s.Head into s.Base. GitLab allows one
// open merge request per source branch: another is ErrExists.
func (c *Client) Create(ctx context.Context, s forge.Spec) (forge.PullRequest, error) {
	b, err := c.body(ctx, s)
	if err != nil {
		return forge.PullRequest{}, errors.Wrap(err, errCreate)
	}
	b.SourceBranch, b.TargetBranch = s.Head, s.Base
	var mr mergeRequest
	if _, err := c.do(ctx, request{method: http.MethodPost, path: c.mrPath(0), body: b}, &mr); err != nil {
		return forge.PullRequest{}, errors.Wrap(err, errCreate)
	}
	return mr.pullRequest(c.path), nil
}

// Update puts title (with its draft prefix), description, labels,
// reviewers and assignees back to s.
func (c *Client) Update(ctx context.Context, number int64, s forge.Spec) (forge.PullRequest, error) {
	b, err := c.body(ctx, s)
	if err != nil {
		return forge.PullRequest{}, errors.Wrapf(err, errUpdateFmt, number)
	}
	var mr mergeRequest
	if _, err := c.do(ctx, request{method: http.MethodPut, path: c.mrPath(number), body: b}, &mr); err != nil {
		return forge.PullRequest{}, errors.Wrapf(err, errUpdateFmt, number)
	}
	return mr.pullRequest(c.path), nil
}

// Close closes the merge request (state_event close).
func (c *Client) Close(ctx context.Context, number int64) error {
	b := map[string]string{"state_event": "close"}
	if _, err := c.do(ctx, request{method: http.MethodPut, path: c.mrPath(number), body: b}, nil); err != nil {
		return errors.Wrapf(err, errCloseFmt, number)
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
				return nil, errors.Wrap(err, errUsers)
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
	var us []user
	r := request{method: http.MethodGet, path: "users", query: url.Values{"username": {name}}}
	if _, err := c.do(ctx, r, &us); err != nil {
		return 0, errors.Wrapf(err, errUserLookFmt, name)
	}
	for _, u := range us {
		if strings.EqualFold(u.Username, name) {
			return u.ID, nil
		}
	}
	return 0, errors.Wrapf(forge.ErrInvalidInput, errNoUserFmt, name)
}
