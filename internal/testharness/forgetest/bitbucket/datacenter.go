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

// The Data Center fake serves, under /bitbucket (its context path):
//
//	GET    rest/api/1.0/projects/PLAT/repos/gitops/pull-requests     state, limit, start;
//	                                  isLastPage, nextPageStart
//	POST   …/pull-requests            201; 409 DuplicatePullRequestException with
//	                                  existingPullRequest; 404 NoSuchBranchException
//	GET    …/pull-requests/{id}
//	PUT    …/pull-requests/{id}       version (409 PullRequestOutOfDateException when stale),
//	                                  title, description, reviewers, draft
//	POST   …/pull-requests/{id}/decline?version=
//	GET    …/pull-requests/{id}/merge canMerge, conflicted, outcome, vetoes
//	POST   …/pull-requests/{id}/merge?version=  strategyId, autoMerge (403 when the
//	                                  repository's auto-merge is off); 409 out of date, vetoed
//	GET    …/branches?filterText=
//	GET, POST …/webhooks; PUT, DELETE …/webhooks/{id}
//	GET    rest/build-status/1.0/commits/stats/{sha}
//	DELETE rest/branch-utils/1.0/projects/PLAT/repos/gitops/branches  name, endPoint (400
//	                                  when the branch points elsewhere)
//
// A request without Token (bearer) is 401; ReadOnlyToken's writes are 401
// AuthorisationException, as Data Center answers a lack of permission.

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// ReadOnlyToken is an HTTP access token with repository read permission.
const ReadOnlyToken = "bbtoken-provider-git-read"

const exPrefix = "com.atlassian.bitbucket."

func dcError(w http.ResponseWriter, status int, exception, msg string, extra map[string]any) {
	e := map[string]any{"context": nil, "message": msg, "exceptionName": exPrefix + exception}
	for k, v := range extra {
		e[k] = v
	}
	writeJSON(w, status, map[string]any{"errors": []any{e}})
}

// ServeHTTP routes one request.
func (s *DCServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.lock(r)
	defer s.mu.Unlock()
	auth := authKind(r, Token, false)
	readOnly := r.Header.Get("Authorization") == "Bearer "+ReadOnlyToken
	if readOnly {
		auth = "bearer"
	}
	rec := Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Authorization: auth}
	if s.preflight(w, r, &rec, func(w http.ResponseWriter) {
		dcError(w, http.StatusTooManyRequests, "ratelimit.RateLimitedException", "Too many requests: you have been rate limited.", nil)
	}) {
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	switch {
	case auth == "":
		dcError(sw, http.StatusUnauthorized, "auth.IncorrectPasswordAuthenticationException", "Authentication failed. Please check your credentials and try again.", nil)
	case readOnly && r.Method != http.MethodGet:
		dcError(sw, http.StatusUnauthorized, "AuthorisationException", "You are not permitted to access this resource", nil)
	default:
		s.route(sw, r)
	}
	rec.Status = sw.status
	s.log = append(s.log, rec)
}

func (s *DCServer) route(w http.ResponseWriter, r *http.Request) {
	seg := segments(strings.TrimPrefix(r.URL.EscapedPath(), "/bitbucket"))
	repo := []string{"projects", Project, "repos", RepoSlug}
	switch {
	case len(seg) == 6 && strings.Join(seg[:5], "/") == "rest/build-status/1.0/commits/stats":
		b := s.builds[seg[5]]
		writeJSON(w, http.StatusOK, map[string]int{"successful": b[0], "failed": b[1], "inProgress": b[2], "cancelled": 0, "unknown": 0})
	case len(seg) == 8 && strings.Join(seg[:3], "/") == "rest/branch-utils/1.0" && slices.Equal(seg[3:7], repo) && seg[7] == "branches" && r.Method == http.MethodDelete:
		s.deleteBranch(w, r)
	case len(seg) >= 8 && strings.Join(seg[:3], "/") == "rest/api/1.0" && slices.Equal(seg[3:7], repo):
		s.repoRoute(w, r, seg[7:])
	default:
		dcError(w, http.StatusNotFound, "NoSuchEntityException", "Repository "+strings.Join(seg, "/")+" does not exist.", nil)
	}
}

func (s *DCServer) repoRoute(w http.ResponseWriter, r *http.Request, rest []string) {
	switch {
	case rest[0] == "pull-requests" && len(rest) == 1 && r.Method == http.MethodGet:
		var vals []any
		for _, id := range s.ids() {
			if p := s.pulls[id]; r.URL.Query().Get("state") == "" || p.State == r.URL.Query().Get("state") {
				vals = append(vals, s.payload(p))
			}
		}
		page(w, r, vals)
	case rest[0] == "pull-requests" && len(rest) == 1 && r.Method == http.MethodPost:
		s.create(w, r)
	case rest[0] == "pull-requests":
		s.pullRoute(w, r, rest[1:])
	case rest[0] == "branches" && r.Method == http.MethodGet:
		var vals []any
		for name, sha := range s.branches {
			if strings.Contains(name, r.URL.Query().Get("filterText")) {
				vals = append(vals, map[string]any{"id": "refs/heads/" + name, "displayId": name, "type": "BRANCH", "latestCommit": sha})
			}
		}
		page(w, r, vals)
	case rest[0] == "webhooks":
		s.hook(w, r, rest[1:])
	default:
		dcError(w, http.StatusNotFound, "NoSuchEntityException", "Not found", nil)
	}
}

// page answers vals as a Data Center page of limit (default 25) from
// start.
func page(w http.ResponseWriter, r *http.Request, vals []any) {
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit <= 0 {
		limit = 25
	}
	start, _ := strconv.Atoi(r.URL.Query().Get("start"))
	from, to := min(start, len(vals)), min(start+limit, len(vals))
	out := map[string]any{"size": to - from, "limit": limit, "start": start, "isLastPage": to == len(vals), "values": append([]any{}, vals[from:to]...)}
	if to < len(vals) {
		out["nextPageStart"] = to
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *DCServer) ids() []int64 {
	ids := make([]int64, 0, len(s.pulls))
	for id := range s.pulls {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// dcBody is what a create, an update or a merge sends.
type dcBody struct {
	Version     *int64  `json:"version"`
	Title       *string `json:"title"`
	Description *string `json:"description"`
	Draft       *bool   `json:"draft"`
	FromRef     *struct {
		ID string `json:"id"`
	} `json:"fromRef"`
	ToRef *struct {
		ID string `json:"id"`
	} `json:"toRef"`
	Reviewers *[]struct {
		User struct {
			Name string `json:"name"`
		} `json:"user"`
	} `json:"reviewers"`
	StrategyID string `json:"strategyId"`
	AutoMerge  bool   `json:"autoMerge"`
}

func (s *DCServer) create(w http.ResponseWriter, r *http.Request) {
	var b dcBody
	if json.NewDecoder(r.Body).Decode(&b) != nil || b.Title == nil || b.FromRef == nil || b.ToRef == nil {
		dcError(w, http.StatusBadRequest, "validation.ArgumentValidationException", "The request is malformed", nil)
		return
	}
	head, base := strings.TrimPrefix(b.FromRef.ID, "refs/heads/"), strings.TrimPrefix(b.ToRef.ID, "refs/heads/")
	for _, br := range []string{head, base} {
		if _, ok := s.branches[br]; !ok {
			dcError(w, http.StatusNotFound, "repository.NoSuchBranchException", "Repository \""+RepoSlug+"\" of project \""+Project+"\" has no branch \""+br+"\"", nil)
			return
		}
	}
	for _, id := range s.ids() {
		if p := s.pulls[id]; p.State == "OPEN" && p.Fork == "" && p.Head == head && p.Base == base {
			dcError(w, http.StatusConflict, "pull.DuplicatePullRequestException", "Only one pull request may be open for a given source and target branch",
				map[string]any{"existingPullRequest": s.payload(p)})
			return
		}
	}
	p := &DCPull{Head: head, Base: base, HeadSHA: s.branches[head], State: "OPEN"}
	s.apply(p, b)
	s.add(p)
	writeJSON(w, http.StatusCreated, s.payload(p))
}

func (s *DCServer) apply(p *DCPull, b dcBody) {
	if b.Title != nil {
		p.Title = *b.Title
	}
	if b.Description != nil {
		p.Description = *b.Description
	}
	if b.Draft != nil && !s.noDrafts {
		p.Draft = *b.Draft
	}
	if b.Reviewers != nil {
		p.Reviewers = nil
		for _, u := range *b.Reviewers {
			p.Reviewers = append(p.Reviewers, u.User.Name)
		}
	}
}
