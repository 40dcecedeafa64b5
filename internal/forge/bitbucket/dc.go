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
	"strings"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errDCList     = "cannot list open pull requests on Bitbucket Data Center"
	errDCGet      = "cannot get the pull request from Bitbucket Data Center"
	errDCBuilds   = "cannot read the head commit's build statistics on Bitbucket Data Center"
	errDCMergeGet = "cannot read whether Bitbucket Data Center can merge the pull request"
	errDCAPIFmt   = "the Bitbucket Data Center API URL %q must end in /rest/api/1.0/ (or /rest/api/latest/)"
	errDCPages    = "Bitbucket Data Center's list did not end within the pages a list may take"

	// dcLimit is the page size asked of Data Center's lists (its
	// default is 25; page sizes up to 1,000 are served by default).
	dcLimit = 100
	// dcWait is how long a 429 without Retry-After holds requests: Data
	// Center's token bucket refills every second (5 a second by default).
	dcWait = 10 * time.Second
)

// dcAPISuffixes are where Data Center serves REST 1.0, under its root.
var dcAPISuffixes = []string{"rest/api/1.0/", "rest/api/latest/"}

// DataCenter is the forge.Client of one Bitbucket Data Center (or Server)
// repository: project key and repository slug. It is safe for concurrent
// use.
type DataCenter struct {
	*core
	// root is the server's root (with its context path), under which the
	// build-status and branch-utils APIs live beside REST 1.0.
	root          string
	project, slug string
}

var (
	_ forge.Client = (*DataCenter)(nil)
	_ forge.Hooks  = (*DataCenter)(nil)
)

// NewDataCenter is the forge.Opener of Bitbucket Data Center. c.APIURL is
// https://host[/context]/rest/api/1.0/; c.Owner the project key, c.Name
// the repository slug.
func NewDataCenter(c forge.Config) (forge.Client, error) { return NewDataCenterClient(c) }

// NewDataCenterClient returns the Client of the repository c names.
func NewDataCenterClient(c forge.Config, o ...Option) (*DataCenter, error) {
	api := c.APIURL
	if !strings.HasSuffix(api, "/") {
		api += "/"
	}
	root := ""
	for _, s := range dcAPISuffixes {
		if r, ok := strings.CutSuffix(api, "/"+s); ok {
			root = r + "/"
		}
	}
	if root == "" {
		return nil, fmt.Errorf(errDCAPIFmt, c.APIURL)
	}
	k, err := newCore(c, api, dcWait, o)
	if err != nil {
		return nil, err
	}
	return &DataCenter{core: k, root: root, project: c.Owner, slug: c.Name}, nil
}

// Type is BitbucketDataCenter.
func (d *DataCenter) Type() forge.Type { return forge.BitbucketDataCenter }

// repoPath is projects/{key}/repos/{slug}/ below REST 1.0.
func (d *DataCenter) repoPath() string {
	return "projects/" + url.PathEscape(d.project) + "/repos/" + url.PathEscape(d.slug) + "/"
}

func (d *DataCenter) pullPath(number int64, sub string) string {
	p := fmt.Sprintf("%spull-requests/%d", d.repoPath(), number)
	if sub != "" {
		p += "/" + sub
	}
	return p
}

// ListOpen lists GET pull-requests?state=OPEN (those into this
// repository, forks' included), every page until isLastPage.
func (d *DataCenter) ListOpen(ctx context.Context) ([]forge.PullRequest, bool, error) {
	pulls, err := dcAll[dcPull](ctx, d, d.repoPath()+"pull-requests?state=OPEN")
	if err != nil {
		return nil, false, d.fail(err, errDCList)
	}
	out := make([]forge.PullRequest, 0, len(pulls))
	for i := range pulls {
		out = append(out, convertDC(&pulls[i]))
	}
	return out, false, nil
}

// dcAll reads every page of a Data Center list at path (which has a
// query already or none).
func dcAll[T any](ctx context.Context, d *DataCenter, path string) ([]T, error) {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var all []T
	start := int64(0)
	for n := 0; ; n++ {
		if n == maxPages {
			return nil, &refusal{status: http.StatusOK, message: errDCPages}
		}
		var page dcPage[T]
		if _, err := d.do(ctx, call{method: http.MethodGet, path: fmt.Sprintf("%s%slimit=%d&start=%d", path, sep, dcLimit, start)}, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Values...)
		// A next page must start further on, or the walk would not end.
		if page.IsLastPage || page.NextPageStart <= start {
			return all, nil
		}
		start = page.NextPageStart
	}
}

// Get reads the pull request, its head's build statistics and, while
// open, whether Data Center can merge it.
func (d *DataCenter) Get(ctx context.Context, number int64) (forge.PullRequest, error) {
	p, err := d.pull(ctx, number)
	if err != nil {
		return forge.PullRequest{}, err
	}
	pr := convertDC(p)
	if pr.HeadSHA != "" {
		if pr.Checks, err = d.checks(ctx, pr.HeadSHA); err != nil {
			return forge.PullRequest{}, err
		}
	}
	if pr.State == forge.StateOpen {
		var m dcMergeability
		if _, err := d.do(ctx, call{method: http.MethodGet, path: d.pullPath(number, "merge")}, &m); err != nil {
			return forge.PullRequest{}, d.fail(err, errDCMergeGet)
		}
		pr.Mergeable = mergeableDC(m)
	}
	return pr, nil
}

func (d *DataCenter) pull(ctx context.Context, number int64) (*dcPull, error) {
	var p dcPull
	if _, err := d.do(ctx, call{method: http.MethodGet, path: d.pullPath(number, "")}, &p); err != nil {
		return nil, d.fail(err, errDCGet)
	}
	return &p, nil
}

// mergeableDC is canMerge (conflicts and merge-check vetoes both count);
// a server that leaves it out is read from outcome and vetoes; nil while
// the outcome is UNKNOWN (Data Center still computing).
func mergeableDC(m dcMergeability) *bool {
	switch {
	case m.CanMerge != nil:
		return ptr(*m.CanMerge)
	case m.Outcome == "UNKNOWN" || m.Outcome == "":
		return nil
	}
	return ptr(!m.Conflicted && m.Outcome == "CLEAN" && len(m.Vetoes) == 0)
}

// checks reads the build-status statistics of sha: any failed or
// cancelled fails, any in progress is pending, any successful passes;
// none is "".
func (d *DataCenter) checks(ctx context.Context, sha string) (forge.Checks, error) {
	var st dcBuildStats
	if _, err := d.do(ctx, call{method: http.MethodGet, path: d.root + "rest/build-status/1.0/commits/stats/" + url.PathEscape(sha)}, &st); err != nil {
		return "", d.fail(err, errDCBuilds)
	}
	var got []forge.Checks
	if st.Failed+st.Cancelled > 0 {
		got = append(got, forge.ChecksFailure)
	}
	if st.InProgress > 0 {
		got = append(got, forge.ChecksPending)
	}
	if st.Successful > 0 {
		got = append(got, forge.ChecksSuccess)
	}
	return fold(got...), nil
}

// convertDC is Data Center's pull request as the forge reports it.
func convertDC(p *dcPull) forge.PullRequest {
	pr := forge.PullRequest{
		Number: p.ID, State: forge.StateOpen, Title: p.Title, Body: p.Description,
		Head: p.FromRef.DisplayID, Base: p.ToRef.DisplayID, HeadSHA: p.FromRef.LatestCommit,
		Draft: p.Draft != nil && *p.Draft,
	}
	if len(p.Links.Self) > 0 {
		pr.URL = p.Links.Self[0].Href
	}
	if pr.Head == "" {
		pr.Head = strings.TrimPrefix(p.FromRef.ID, "refs/heads/")
	}
	if pr.Base == "" {
		pr.Base = strings.TrimPrefix(p.ToRef.ID, "refs/heads/")
	}
	switch p.State {
	case "MERGED":
		pr.State = forge.StateMerged
		if p.Properties.MergeCommit != nil {
			pr.MergeCommit = p.Properties.MergeCommit.ID
		}
	case "DECLINED":
		pr.State = forge.StateClosed
	}
	src, dst := p.FromRef.Repository, p.ToRef.Repository
	if src != nil {
		pr.HeadRepo = src.Project.Key + "/" + src.Slug
	}
	pr.HeadInRepo = src != nil && dst != nil && src.ID > 0 && src.ID == dst.ID
	var votes []vote
	names := make([]string, 0, len(p.Reviewers))
	for _, r := range p.Reviewers {
		names = append(names, r.User.Name)
		switch {
		case r.Status == "NEEDS_WORK":
			votes = append(votes, voteChanges)
		case r.Approved || r.Status == "APPROVED":
			votes = append(votes, voteApproved)
		}
	}
	pr.Reviewers = set(names)
	pr.ReviewDecision = decision(votes, len(pr.Reviewers))
	return pr
}
