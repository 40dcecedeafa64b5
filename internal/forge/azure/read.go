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
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errList     = "cannot list open pull requests on Azure DevOps"
	errGet      = "cannot get the pull request from Azure DevOps"
	errPolicies = "cannot list the pull request's policy evaluations on Azure DevOps"

	// headsPrefix starts a branch's ref name.
	headsPrefix = "refs/heads/"
	// listCut is where the list cuts a description ("description field
	// will be truncated up to 400 symbols in the result").
	listCut = 400
)

// ListOpen lists GET .../pullrequests?searchCriteria.status=active, every
// page. Azure answers without ETag, so notModified is always false.
func (c *Client) ListOpen(ctx context.Context) ([]forge.PullRequest, bool, error) {
	raw, err := pages[pullRequest](ctx, c, c.repoPath()+"pullrequests?searchCriteria.status=active", apiVersion, false)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", errList, err)
	}
	out := make([]forge.PullRequest, 0, len(raw))
	for i := range raw {
		pr := c.convert(&raw[i])
		pr.Body = c.whole(pr.Number, pr.Body)
		out = append(out, pr)
	}
	return out, false, nil
}

// whole is the full description of pull request n when cut, the list's
// answer, starts the one kept.
func (c *Client) whole(n int64, cut string) string {
	if len([]rune(cut)) < listCut-3 {
		return cut
	}
	c.mu.Lock()
	full, ok := c.bodies[n]
	c.mu.Unlock()
	prefix := strings.TrimRight(strings.TrimSuffix(cut, "…"), ".")
	if ok && strings.HasPrefix(full, prefix) {
		return full
	}
	return cut
}

// Get reads the pull request and its policy evaluations: two requests; a
// third cancels an auto-complete whose head moved since it was set
// (autocomplete.go).
func (c *Client) Get(ctx context.Context, number int64) (forge.PullRequest, error) {
	p, err := c.pull(ctx, number)
	if err != nil {
		return forge.PullRequest{}, err
	}
	if _, err := c.unpin(ctx, p); err != nil {
		return forge.PullRequest{}, err
	}
	pr := c.convert(p)
	if pr.State != forge.StateOpen {
		return pr, nil
	}
	project := c.project
	if p.Repository != nil && p.Repository.Project != nil && p.Repository.Project.ID != "" {
		project = p.Repository.Project.ID
	}
	evals, err := c.evaluations(ctx, project, number)
	if err != nil {
		return forge.PullRequest{}, err
	}
	pr.Checks = checks(evals)
	pr.ReviewDecision = decision(evals, p.Reviewers)
	return pr, nil
}

// pull reads pull request n as Azure answers it, and keeps its
// description.
func (c *Client) pull(ctx context.Context, n int64) (*pullRequest, error) {
	var p pullRequest
	if _, err := c.do(ctx, call{method: http.MethodGet, path: c.pullPath(n, "")}, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", errGet, err)
	}
	if p.Status == statusActive {
		c.keep(n, p.Description)
	} else {
		c.forget(n)
	}
	return &p, nil
}

// evaluations lists the policy evaluations of pull request n of the
// project (its id: the artifact id names the project by id).
func (c *Client) evaluations(ctx context.Context, project string, n int64) ([]evaluation, error) {
	artifact := "vstfs:///CodeReview/CodeReviewId/" + project + "/" + strconv.FormatInt(n, 10)
	path := url.PathEscape(c.project) + "/_apis/policy/evaluations?artifactId=" + url.QueryEscape(artifact)
	evals, err := pages[evaluation](ctx, c, path, previewVersion, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errPolicies, err)
	}
	return evals, nil
}

// pullPath is .../pullrequests/{n} and its sub-resources.
func (c *Client) pullPath(n int64, sub string) string {
	p := c.repoPath() + "pullrequests/" + strconv.FormatInt(n, 10)
	if sub != "" {
		p += "/" + sub
	}
	return p
}

// Pull request states and merge states, as Azure names them.
const (
	statusActive    = "active"
	statusAbandoned = "abandoned"
	statusCompleted = "completed"

	mergeSucceeded = "succeeded"
	mergeQueued    = "queued"
)

// convert is a pull request as forge reports it; Checks and
// ReviewDecision need the policy evaluations (see Get).
func (c *Client) convert(p *pullRequest) forge.PullRequest {
	pr := forge.PullRequest{
		Number: p.PullRequestID, URL: c.webURL(p), State: forge.StateOpen,
		Title: p.Title, Body: p.Description, Draft: p.IsDraft,
		Head: strings.TrimPrefix(p.SourceRefName, headsPrefix), Base: strings.TrimPrefix(p.TargetRefName, headsPrefix),
		AutoMerge: p.AutoCompleteSetBy != nil && p.AutoCompleteSetBy.ID != "",
	}
	switch p.Status {
	case statusCompleted:
		pr.State = forge.StateMerged
		if p.LastMergeCommit != nil {
			pr.MergeCommit = p.LastMergeCommit.CommitID
		}
	case statusAbandoned:
		pr.State = forge.StateClosed
	default:
		pr.Mergeable = mergeable(p)
	}
	if p.LastMergeSourceCommit != nil {
		pr.HeadSHA = p.LastMergeSourceCommit.CommitID
	}
	// A fork's source branch lives in another repository: forkSource
	// names it. Only a pull request without one, whose repository is this
	// one, has its head here.
	pr.HeadRepo = repoName(p.Repository)
	pr.HeadInRepo = p.ForkSource == nil && p.Repository != nil && strings.EqualFold(p.Repository.Name, c.repo)
	if p.ForkSource != nil {
		pr.HeadRepo = repoName(p.ForkSource.Repository)
		pr.Head = strings.TrimPrefix(p.ForkSource.Name, headsPrefix)
		if pr.Head == "" {
			pr.Head = strings.TrimPrefix(p.SourceRefName, headsPrefix)
		}
	}
	for _, l := range p.Labels {
		if l.Active == nil || *l.Active {
			pr.Labels = append(pr.Labels, l.Name)
		}
	}
	pr.Reviewers = c.reviewerNames(p.Reviewers)
	return pr
}

// mergeable reads mergeStatus; a draft cannot be completed.
func mergeable(p *pullRequest) *bool {
	var v bool
	switch {
	case p.IsDraft:
	case p.MergeStatus == mergeSucceeded:
		v = true
	case p.MergeStatus == "conflicts", p.MergeStatus == "rejectedByPolicy", p.MergeStatus == "failure":
	default:
		return nil // queued, notSet: not computed yet
	}
	return &v
}

// repoName is project/repository, "" when Azure no longer knows it.
func repoName(r *repository) string {
	switch {
	case r == nil || r.Name == "":
		return ""
	case r.Project != nil && r.Project.Name != "":
		return r.Project.Name + "/" + r.Name
	}
	return r.Name
}

// webURL is the pull request's page: its repository's web URL, else the
// one built from the organization's.
func (c *Client) webURL(p *pullRequest) string {
	n := strconv.FormatInt(p.PullRequestID, 10)
	if l, ok := p.Links["web"]; ok && l.Href != "" {
		return l.Href
	}
	if p.Repository != nil && p.Repository.WebURL != "" {
		return strings.TrimSuffix(p.Repository.WebURL, "/") + "/pullrequest/" + n
	}
	u := *c.base
	u.User = nil
	return u.String() + url.PathEscape(c.project) + "/_git/" + url.PathEscape(c.repo) + "/pullrequest/" + n
}

// reviewerNames are each reviewer's unique name and id, and the declared
// names this client resolved to one of them.
func (c *Client) reviewerNames(rs []reviewer) []string {
	if len(rs) == 0 {
		return nil
	}
	ids := map[string]bool{}
	var out []string
	for _, r := range rs {
		ids[strings.ToLower(r.ID)] = true
		out = appendNew(out, r.UniqueName, r.ID)
	}
	c.mu.Lock()
	for name, id := range c.names {
		if ids[strings.ToLower(id)] {
			out = appendNew(out, name)
		}
	}
	c.mu.Unlock()
	return out
}

func appendNew(out []string, ss ...string) []string {
	for _, s := range ss {
		if s == "" {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == s
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}
