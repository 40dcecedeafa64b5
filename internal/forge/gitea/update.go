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
	"slices"
	"strings"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errLabels     = "cannot list the repository's labels"
	errNoLabelFmt = "no label %q on %s/%s or its organisation"
)

// Update puts the title, body, draft prefix, labels and assignees back to s
// in one edit when any differs, and requests the declared reviewers who are
// neither requested nor have reviewed. It reads the pull request first and
// after: Gitea's edit replaces labels and assignees only when sent, so
// only what differs is sent.
func (c *client) Update(ctx context.Context, number int64, s forge.Spec) (forge.PullRequest, error) {
	cl, err := c.sdk(ctx)
	if err != nil {
		return forge.PullRequest{}, err
	}
	cur, err := c.get(cl, number)
	if err != nil {
		return forge.PullRequest{}, err
	}
	what := fmt.Sprintf(errUpdateFmt, number)
	var opt sdk.EditPullRequestOption
	edit := false
	if cur.Title != s.Title || cur.Draft != s.Draft {
		opt.Title, edit = title(s), true
	}
	if cur.Body != s.Body {
		body := s.Body
		opt.Body, edit = &body, true
	}
	if !sameSet(cur.Labels, s.Labels) {
		ids, err := c.labelIDs(cl, s.Labels)
		if err != nil {
			return forge.PullRequest{}, err
		}
		// Never nil: an empty list clears, nil would leave them.
		opt.Labels, edit = append([]int64{}, ids...), true
	}
	if !sameSet(cur.Assignees, s.Assignees) {
		opt.Assignees, edit = append([]string{}, s.Assignees...), true
	}
	if edit {
		if err := c.run(cl, what, func(sc *sdk.Client) (r *sdk.Response, err error) {
			_, r, err = sc.EditPullRequest(c.owner, c.name, number, opt)
			return r, err
		}); err != nil {
			return forge.PullRequest{}, err
		}
	}
	var missing []string
	for _, r := range s.Reviewers {
		if !slices.Contains(cur.Reviewers, r) {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		if err := c.run(cl, fmt.Sprintf(errReviewFmt, number), func(sc *sdk.Client) (*sdk.Response, error) {
			return sc.CreateReviewRequests(c.owner, c.name, number, sdk.PullReviewRequestOptions{Reviewers: missing})
		}); err != nil {
			return forge.PullRequest{}, err
		}
	}
	if !edit && len(missing) == 0 {
		return cur, nil
	}
	return c.get(cl, number)
}

// labelIDs resolves label names to ids: the repository's labels, then its
// organisation's (a user's repository has none: 404 is no error).
func (c *client) labelIDs(cl *call, names []string) ([]int64, error) {
	if len(names) == 0 {
		return nil, nil
	}
	byName := map[string]int64{}
	add := func(ls []*sdk.Label) {
		for _, l := range ls {
			if _, ok := byName[l.Name]; !ok {
				byName[l.Name] = l.ID
			}
		}
	}
	for page := 1; page > 0; {
		var ls []*sdk.Label
		var resp *sdk.Response
		if err := c.run(cl, errLabels, func(s *sdk.Client) (*sdk.Response, error) {
			var err error
			ls, resp, err = s.ListRepoLabels(c.owner, c.name, sdk.ListLabelsOptions{ListOptions: sdk.ListOptions{Page: page, PageSize: pageSize}})
			return resp, err
		}); err != nil {
			return nil, err
		}
		add(ls)
		page = nextPage(resp, page, len(ls))
	}
	if !hasAll(byName, names) {
		for page := 1; page > 0; {
			var ls []*sdk.Label
			var resp *sdk.Response
			err := c.run(cl, errLabels, func(s *sdk.Client) (*sdk.Response, error) {
				var err error
				ls, resp, err = s.ListOrgLabels(c.owner, sdk.ListOrgLabelsOptions{ListOptions: sdk.ListOptions{Page: page, PageSize: pageSize}})
				return resp, err
			})
			var ae *forge.APIError
			if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
				break
			}
			if err != nil {
				return nil, err
			}
			add(ls)
			page = nextPage(resp, page, len(ls))
		}
	}
	ids := make([]int64, 0, len(names))
	for _, n := range names {
		id, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("%s: %w", errLabels, &forge.APIError{
				Status: http.StatusUnprocessableEntity, Message: fmt.Sprintf(errNoLabelFmt, n, c.owner, c.name), Kind: forge.ErrInvalidInput,
			})
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// nextPage is the page after page per the Link header, 0 at the end.
func nextPage(resp *sdk.Response, page, n int) int {
	if resp != nil && resp.NextPage > page && n > 0 {
		return resp.NextPage
	}
	return 0
}

func hasAll(m map[string]int64, names []string) bool {
	for _, n := range names {
		if _, ok := m[n]; !ok {
			return false
		}
	}
	return true
}

// title is the title Gitea is given: a draft's carries the WIP prefix.
func title(s forge.Spec) string {
	if s.Draft && !isWIP(s.Title) {
		return wipPrefix + s.Title
	}
	return s.Title
}

func isWIP(t string) bool {
	u := strings.ToUpper(t)
	for _, p := range wipPrefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// stripWIP is a draft's title without its WIP prefix.
func stripWIP(t string) string {
	u := strings.ToUpper(t)
	for _, p := range wipPrefixes {
		if strings.HasPrefix(u, p) {
			return strings.TrimSpace(t[len(p):])
		}
	}
	return t
}

// convert is a pull request as forge reports it; Checks and
// ReviewDecision need requests of their own (see get).
func convert(p *sdk.PullRequest) forge.PullRequest {
	pr := forge.PullRequest{
		Number: p.Index, URL: p.HTMLURL, State: forge.StateOpen,
		Title: p.Title, Body: p.Body, Draft: p.Draft,
	}
	if p.Draft {
		pr.Title = stripWIP(p.Title)
	}
	switch {
	case p.HasMerged:
		pr.State = forge.StateMerged
		if p.MergedCommitID != nil {
			pr.MergeCommit = *p.MergedCommitID
		}
	case p.State == sdk.StateClosed:
		pr.State = forge.StateClosed
	default:
		m := p.Mergeable
		pr.Mergeable = &m
	}
	if p.Head != nil {
		pr.Head, pr.HeadSHA = p.Head.Ref, p.Head.Sha
		if strings.HasPrefix(p.Head.Ref, pullRefPrefix) && p.Head.Name != "" {
			// The head branch is gone (deleted on merge): Gitea then
			// answers the pull request's own ref, and the branch's name
			// as the label.
			pr.Head = p.Head.Name
		}
		if p.Head.Repository != nil {
			pr.HeadRepo = p.Head.Repository.FullName
		}
		// A fork's head lives in another repository; a deleted fork's has
		// repo_id -1 and no repo. Gitea's list answers repo_id -1 for a
		// head whose repository it did not load, with the base's repo
		// when head and base share it: the repository's id decides.
		base := branchRepoID(p.Base)
		pr.HeadInRepo = base > 0 && branchRepoID(p.Head) == base
	}
	if p.Base != nil {
		pr.Base = p.Base.Ref
	}
	for _, l := range p.Labels {
		pr.Labels = append(pr.Labels, l.Name)
	}
	for _, u := range p.Assignees {
		pr.Assignees = append(pr.Assignees, u.UserName)
	}
	for _, u := range p.RequestedReviewers {
		pr.Reviewers = append(pr.Reviewers, u.UserName)
	}
	return pr
}

// checks maps Gitea's combined status. No statuses is "" (the forge
// reports none); warning counts as a failure, as Gitea's required checks
// pass only on success; skipped passes.
// branchRepoID is the id of the repository a head or base lives in, as
// its repo says (else repo_id); 0 when neither says.
func branchRepoID(b *sdk.PRBranchInfo) int64 {
	switch {
	case b == nil:
		return 0
	case b.Repository != nil && b.Repository.ID > 0:
		return b.Repository.ID
	case b.RepoID > 0:
		return b.RepoID
	}
	return 0
}

// pullRefPrefix starts the ref Gitea names a head by once its branch is
// gone (refs/pull/<n>/head).
const pullRefPrefix = "refs/pull/"

func checks(st *sdk.CombinedStatus) forge.Checks {
	if st == nil || st.TotalCount == 0 {
		return ""
	}
	switch st.State {
	case sdk.StatusSuccess, "skipped":
		return forge.ChecksSuccess
	case sdk.StatusPending:
		return forge.ChecksPending
	case "":
		return ""
	default:
		return forge.ChecksFailure
	}
}

// decision is GitHub's reviewDecision from Gitea's reviews: each
// reviewer's latest approving or change-requesting review that is not
// dismissed counts; REVIEW_REQUIRED while reviews are requested and none
// counts.
func decision(reviews []*sdk.PullReview, requested bool) string {
	latest := map[string]sdk.ReviewStateType{}
	for _, r := range reviews {
		if r.Reviewer == nil || r.Dismissed {
			continue
		}
		switch r.State {
		case sdk.ReviewStateApproved, sdk.ReviewStateRequestChanges:
			latest[r.Reviewer.UserName] = r.State
		}
	}
	approved := false
	for _, s := range latest {
		if s == sdk.ReviewStateRequestChanges {
			return "CHANGES_REQUESTED"
		}
		approved = true
	}
	switch {
	case approved:
		return "APPROVED"
	case requested:
		return "REVIEW_REQUIRED"
	}
	return ""
}

// reviewers are the people with a review on the pull request.
func reviewers(reviews []*sdk.PullReview) []string {
	var out []string
	for _, r := range reviews {
		if r.Reviewer != nil {
			out = append(out, r.Reviewer.UserName)
		}
	}
	return out
}

// union is a and b without duplicates, in order of first appearance.
func union(a, b []string) []string {
	var out []string
	for _, s := range slices.Concat(a, b) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}
