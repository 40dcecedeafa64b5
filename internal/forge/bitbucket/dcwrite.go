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
	errDCCreate  = "cannot create the pull request on Bitbucket Data Center"
	errDCUpdate  = "cannot update the pull request on Bitbucket Data Center"
	errDCDecline = "cannot decline the pull request on Bitbucket Data Center"
	errDCMerge   = "cannot merge the pull request on Bitbucket Data Center"
	errDCAuto    = "cannot set the pull request to auto-merge on Bitbucket Data Center"
	errDCDelete  = "cannot delete the merged head branch on Bitbucket Data Center"
	errDCBranch  = "cannot read the repository's branches on Bitbucket Data Center"

	msgDCNoDraft    = "this Bitbucket Data Center keeps no draft pull requests (newer servers do): declare draft false"
	msgDCAutoDelete = "Bitbucket Data Center's auto-merge cannot delete the head branch: the provider merges once mergeable"

	// Data Center's exceptions the mapping matches on.
	exDuplicate = "DuplicatePullRequestException"
	exOutOfDate = "PullRequestOutOfDateException"
	refsHeads   = "refs/heads/"
	dcAttempts  = 2
	stateMerged = "MERGED"
	stateOpen   = "OPEN"
)

// dcStrategies maps the forge's merge methods to Data Center's strategy
// ids.
var dcStrategies = map[forge.MergeMethod]string{
	forge.MethodMerge:  "no-ff",
	forge.MethodSquash: "squash",
	forge.MethodRebase: "rebase-ff-only",
}

// Create POSTs pull-requests from refs/heads/{head} to refs/heads/{base}
// of this repository, with title, description, reviewers and, when
// declared, draft. Data Center's 409 DuplicatePullRequestException is
// ErrExists; a 404 naming a missing head or base ErrNoSuchBranch.
func (d *DataCenter) Create(ctx context.Context, s forge.Spec) (forge.PullRequest, error) {
	if msg := unkeepable(s); msg != "" {
		return forge.PullRequest{}, refuse(forge.ErrInvalidInput, msg, errDCCreate)
	}
	body := dcNewPull{Title: s.Title, Description: s.Body, Reviewers: dcUsers(s.Reviewers),
		FromRef: d.ref(s.Head), ToRef: d.ref(s.Base)}
	if s.Draft {
		body.Draft = ptr(true)
	}
	var p dcPull
	_, err := d.do(ctx, call{method: http.MethodPost, path: d.repoPath() + "pull-requests", body: body}, &p)
	if r := asRefusal(err); r != nil {
		switch {
		case r.status == http.StatusConflict && strings.HasSuffix(r.exception, exDuplicate):
			return forge.PullRequest{}, d.fail(err, errDCCreate, forge.ErrExists)
		case r.status == http.StatusNotFound:
			if b := d.missingBranch(ctx, s); b != "" {
				return forge.PullRequest{}, refuse(forge.ErrNoSuchBranch, fmt.Sprintf(msgNoBranchFmt, b, r.message), errDCCreate)
			}
		}
	}
	if err != nil {
		return forge.PullRequest{}, d.fail(err, errDCCreate)
	}
	pr := convertDC(&p)
	if s.Draft && p.Draft == nil {
		// Opened, not as a draft: the caller finds it and is told why.
		return pr, refuse(forge.ErrInvalidInput, msgDCNoDraft, errDCCreate)
	}
	return pr, nil
}

// ref is a branch of this repository as a pull request names it.
func (d *DataCenter) ref(branch string) *dcRef {
	r := &dcRef{ID: refsHeads + branch, Repository: &dcRepo{Slug: d.slug}}
	r.Repository.Project.Key = d.project
	return r
}

func dcUsers(names []string) []dcUser {
	names = set(names)
	out := make([]dcUser, 0, len(names))
	for _, n := range names {
		var u dcUser
		u.User.Name = n
		out = append(out, u)
	}
	return out
}

// missingBranch returns the head or base this repository lacks, "" when
// both exist (or it cannot tell).
func (d *DataCenter) missingBranch(ctx context.Context, s forge.Spec) string {
	for _, b := range []string{s.Head, s.Base} {
		refs, err := dcAll[dcRef](ctx, d, d.repoPath()+"branches?filterText="+url.QueryEscape(b))
		if err != nil {
			return ""
		}
		if !slices.ContainsFunc(refs, func(r dcRef) bool { return r.ID == refsHeads+b }) {
			return b
		}
	}
	return ""
}

// Update reads the pull request and, when title, description or draft
// differ or a declared reviewer is missing, PUTs them with its version and
// the reviewers it has and those declared (the list is replaced; none is
// removed). A version gone stale meanwhile is read again, once.
func (d *DataCenter) Update(ctx context.Context, number int64, s forge.Spec) (forge.PullRequest, error) {
	if msg := unkeepable(s); msg != "" {
		return forge.PullRequest{}, refuse(forge.ErrInvalidInput, msg, errDCUpdate)
	}
	for attempt := 1; ; attempt++ {
		p, err := d.pull(ctx, number)
		if err != nil {
			return forge.PullRequest{}, err
		}
		cur := convertDC(p)
		if s.Draft && p.Draft == nil {
			return forge.PullRequest{}, refuse(forge.ErrInvalidInput, msgDCNoDraft, errDCUpdate)
		}
		missing := slices.ContainsFunc(set(s.Reviewers), func(r string) bool { return !slices.Contains(cur.Reviewers, r) })
		if cur.Title == s.Title && cur.Body == s.Body && cur.Draft == s.Draft && !missing {
			return d.Get(ctx, number)
		}
		body := dcNewPull{Version: &p.Version, Title: s.Title, Description: s.Body,
			Reviewers: dcUsers(append(slices.Clone(cur.Reviewers), s.Reviewers...))}
		if p.Draft != nil {
			body.Draft = ptr(s.Draft)
		}
		_, err = d.do(ctx, call{method: http.MethodPut, path: d.pullPath(number, ""), body: body}, nil)
		if r := asRefusal(err); r != nil && strings.HasSuffix(r.exception, exOutOfDate) && attempt < dcAttempts {
			continue
		}
		if err != nil {
			return forge.PullRequest{}, d.fail(err, errDCUpdate)
		}
		return d.Get(ctx, number)
	}
}

// Close declines the pull request at its current version (read first); a
// version gone stale meanwhile is read again, once.
func (d *DataCenter) Close(ctx context.Context, number int64) error {
	for attempt := 1; ; attempt++ {
		p, err := d.pull(ctx, number)
		if err != nil {
			return err
		}
		path := fmt.Sprintf("%s?version=%d", d.pullPath(number, "decline"), p.Version)
		_, err = d.do(ctx, call{method: http.MethodPost, path: path, body: map[string]int64{"version": p.Version}}, nil)
		if r := asRefusal(err); r != nil && strings.HasSuffix(r.exception, exOutOfDate) && attempt < dcAttempts {
			continue
		}
		if err != nil {
			return d.fail(err, errDCDecline)
		}
		return nil
	}
}

// Merge merges the judged head at the version read with it; see merge.
// With DeleteBranch the head is then deleted where it lives in this
// repository, only if it still points at the merged head.
func (d *DataCenter) Merge(ctx context.Context, number int64, m forge.Merge) error {
	p, done, err := d.merge(ctx, number, m, false, errDCMerge)
	if err != nil || done || !m.DeleteBranch {
		return err
	}
	pr := convertDC(p)
	if !pr.HeadInRepo {
		return nil
	}
	del := dcBranchDelete{Name: refsHeads + pr.Head, EndPoint: pr.HeadSHA}
	_, err = d.do(ctx, call{method: http.MethodDelete, path: d.root + "rest/branch-utils/1.0/" + d.repoPath() + "branches", body: del}, nil)
	if r := asRefusal(err); r != nil && r.status == http.StatusBadRequest {
		return nil // moved since the merge: someone's new commits stay
	}
	if err != nil {
		return d.fail(err, errDCDelete)
	}
	return nil
}

// AutoMerge asks Data Center's auto-merge (in its REST reference of 9.2) to merge the judged
// head when its merge checks pass, pinned to the version read with it.
// See the package doc for when it is ErrUnsupported.
func (d *DataCenter) AutoMerge(ctx context.Context, number int64, m forge.Merge) error {
	if m.DeleteBranch {
		return refuse(forge.ErrUnsupported, msgDCAutoDelete, errDCAuto)
	}
	_, _, err := d.merge(ctx, number, m, true, errDCAuto)
	return err
}

// merge reads the pull request, refuses a head other than m.HeadSHA, and
// POSTs merge with the version read (and autoMerge when auto). done is
// true when there was nothing to merge (merged already). A stale version
// is ErrHeadMoved; another 409 (conflicts, a merge check's veto)
// ErrNotMergeable; a 403 to auto-merge ErrUnsupported.
func (d *DataCenter) merge(ctx context.Context, number int64, m forge.Merge, auto bool, what string) (*dcPull, bool, error) {
	p, err := d.pull(ctx, number)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", what, err)
	}
	switch p.State {
	case stateMerged:
		return p, true, nil
	case stateOpen:
	default:
		return nil, false, refuse(forge.ErrNotMergeable, msgNotOpen, what)
	}
	if m.HeadSHA != "" && !sameHead(m.HeadSHA, p.FromRef.LatestCommit) {
		return nil, false, fmt.Errorf("%s: %w", what, forge.ErrHeadMoved)
	}
	body := dcMerge{Version: p.Version, Message: m.Message, StrategyID: dcStrategies[m.Method], AutoMerge: auto}
	path := fmt.Sprintf("%s?version=%d", d.pullPath(number, "merge"), p.Version)
	_, err = d.do(ctx, call{method: http.MethodPost, path: path, body: body}, nil)
	if r := asRefusal(err); r != nil {
		switch {
		case r.status == http.StatusConflict && strings.HasSuffix(r.exception, exOutOfDate):
			return nil, false, d.fail(err, what, forge.ErrHeadMoved)
		case r.status == http.StatusConflict:
			return nil, false, d.fail(err, what, forge.ErrNotMergeable)
		case auto && r.status == http.StatusForbidden:
			return nil, false, d.fail(err, what, forge.ErrUnsupported)
		}
	}
	if err != nil {
		return nil, false, d.fail(err, what)
	}
	return p, false, nil
}
