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
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// rest routes /api/v3/repos/{owner}/{repo}/… to its handler.
func (s *Server) rest(w *buffered, r *http.Request, seg []string) {
	if len(seg) < 4 || seg[0] != "repos" {
		w.json(http.StatusNotFound, errBody(msgNotFound, docRoot))
		return
	}
	rp, ok := s.repos[seg[1]+"/"+seg[2]]
	if !ok {
		w.json(http.StatusNotFound, errBody(msgNotFound, docRoot))
		return
	}
	res, rest := seg[3], seg[4:]
	switch {
	case res == "hooks":
		s.hooksAPI(w, r, rp, rest)
	case res == "git" && s.gitData(w, r, rp, rest):
	case res == "pulls" && len(rest) == 0 && r.Method == http.MethodGet:
		s.listPulls(w, r, rp)
	case res == "pulls" && len(rest) == 0 && r.Method == http.MethodPost:
		s.createPull(w, r, rp)
	case res == "git" && len(rest) >= 3 && rest[0] == "refs" && rest[1] == "heads" && r.Method == http.MethodDelete:
		s.deleteRef(w, rp, strings.Join(rest[2:], "/"))
	case res == "commits" && len(rest) == 2 && rest[1] == "status" && r.Method == http.MethodGet:
		w.json(http.StatusOK, s.combined(rp, rest[0], s.statuses[key(rp.owner, rp.name, rest[0])]))
	case res == "commits" && len(rest) == 2 && rest[1] == "check-runs" && r.Method == http.MethodGet:
		w.json(http.StatusOK, checkRunsJSON(rest[0], s.checks[key(rp.owner, rp.name, rest[0])]))
	case (res == "pulls" || res == "issues") && len(rest) >= 1:
		n, err := strconv.ParseInt(rest[0], 10, 64)
		p, ok := s.pulls[n]
		if err != nil || !ok || p.owner != rp.owner || p.repo != rp.name {
			w.json(http.StatusNotFound, errBody(msgNotFound, docRoot))
			return
		}
		s.onPull(w, r, res+"/"+strings.Join(rest[1:], "/"), p)
	default:
		w.json(http.StatusNotFound, errBody(msgNotFound, docRoot))
	}
}

func (s *Server) onPull(w *buffered, r *http.Request, route string, p *pull) {
	switch r.Method + " " + route {
	case "GET pulls/":
		w.json(http.StatusOK, s.pullJSON(p, true))
	case "PATCH pulls/":
		s.editPull(w, r, p)
	case "PUT pulls/merge":
		s.mergePull(w, r, p)
	case "GET pulls/merge":
		if p.merged {
			w.empty(http.StatusNoContent)
			return
		}
		w.json(http.StatusNotFound, errBody(msgNotFound, docRoot))
	case "GET pulls/reviews":
		list := make([]map[string]any, 0, len(p.reviews))
		for _, rv := range p.reviews {
			list = append(list, s.reviewJSON(p, rv))
		}
		w.json(http.StatusOK, list)
	case "POST pulls/requested_reviewers", "DELETE pulls/requested_reviewers":
		var in struct {
			Reviewers     []string `json:"reviewers"`
			TeamReviewers []string `json:"team_reviewers"`
		}
		if !decode(w, r, &in) {
			return
		}
		status := http.StatusCreated
		if r.Method == http.MethodPost {
			p.reviewers, p.teams = union(p.reviewers, in.Reviewers), union(p.teams, in.TeamReviewers)
		} else {
			p.reviewers, p.teams = minus(p.reviewers, in.Reviewers), minus(p.teams, in.TeamReviewers)
			status = http.StatusOK
		}
		p.updated = s.now()
		w.json(status, s.pullJSON(p, false))
	case "PATCH issues/":
		var in struct {
			Labels    *[]string `json:"labels"`
			Assignees *[]string `json:"assignees"`
			State     *string   `json:"state"`
		}
		if !decode(w, r, &in) {
			return
		}
		if in.Labels != nil {
			p.labels = union(nil, *in.Labels)
		}
		if in.Assignees != nil {
			p.assignees = union(nil, *in.Assignees)
		}
		p.updated = s.now()
		w.json(http.StatusOK, s.issueJSON(p))
	case "POST issues/labels", "PUT issues/labels":
		var in struct {
			Labels []string `json:"labels"`
		}
		if !decode(w, r, &in) {
			return
		}
		if r.Method == http.MethodPut {
			p.labels = nil
		}
		p.labels, p.updated = union(p.labels, in.Labels), s.now()
		rp := s.repo(p.owner, p.repo)
		out := make([]map[string]any, 0, len(p.labels))
		for _, l := range p.labels {
			out = append(out, s.labelJSON(rp, l))
		}
		w.json(http.StatusOK, out)
	default:
		w.json(http.StatusNotFound, errBody(msgNotFound, docRoot))
	}
}

// listPulls is "List pull requests": state (default open), sorted by
// creation, newest first, per_page (default 30, at most 100) and page, with
// a Link header as GitHub's.
func (s *Server) listPulls(w *buffered, r *http.Request, rp *repo) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	perPage, page := atoi(q.Get("per_page"), 30), atoi(q.Get("page"), 1)
	perPage = min(max(perPage, 1), 100)
	var all []*pull
	for _, p := range s.pulls {
		if p.owner == rp.owner && p.repo == rp.name && (state == "all" || p.state == state) {
			all = append(all, p)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].number > all[j].number })
	last := max((len(all)+perPage-1)/perPage, 1)
	from, to := min((page-1)*perPage, len(all)), min(page*perPage, len(all))
	list := make([]map[string]any, 0, to-from)
	for _, p := range all[from:to] {
		list = append(list, s.pullJSON(p, false))
	}
	base := fmt.Sprintf("%srepos/%s/%s/pulls?state=%s&per_page=%d&page=", s.URL(), rp.owner, rp.name, state, perPage)
	if l := pageLinks(base, page, last); l != "" {
		w.header.Set("Link", l)
	}
	w.json(http.StatusOK, list)
}

// createPull is "Create a pull request": 422 with field head or base
// invalid when a branch does not exist, and the custom "A pull request
// already exists for owner:head." when one is open for head and base.
func (s *Server) createPull(w *buffered, r *http.Request, rp *repo) {
	var in struct {
		Title, Head, Base, Body string
		Draft                   bool
	}
	if !decode(w, r, &in) {
		return
	}
	head := in.Head
	if o, b, ok := strings.Cut(head, ":"); ok && o == rp.owner {
		head = b
	}
	if in.Title == "" {
		w.json(http.StatusUnprocessableEntity, validation(docCreatePR,
			map[string]any{"resource": "PullRequest", "field": "title", "code": "missing_field"}))
		return
	}
	for _, f := range []struct{ field, branch string }{{"base", in.Base}, {"head", head}} {
		if _, ok := rp.branches[f.branch]; !ok {
			w.json(http.StatusUnprocessableEntity, validation(docCreatePR,
				map[string]any{"resource": "PullRequest", "field": f.field, "code": "invalid"}))
			return
		}
	}
	for _, p := range s.pulls {
		if p.owner == rp.owner && p.repo == rp.name && p.forkOwner == "" && p.state == "open" && p.head == head && p.base == in.Base {
			w.json(http.StatusUnprocessableEntity, validation(docCreatePR, map[string]any{"resource": "PullRequest",
				"code": "custom", "message": fmt.Sprintf("A pull request already exists for %s:%s.", rp.owner, head)}))
			return
		}
	}
	s.next++
	p := &pull{number: s.next, owner: rp.owner, repo: rp.name, state: "open", title: in.Title, body: in.Body,
		head: head, base: in.Base, headSHA: rp.branches[head], baseSHA: rp.branches[in.Base], draft: in.Draft,
		created: s.now(), updated: s.now()}
	s.pulls[p.number] = p
	w.header.Set("Location", s.URL()+fmt.Sprintf("repos/%s/%s/pulls/%d", rp.owner, rp.name, p.number))
	w.json(http.StatusCreated, s.pullJSON(p, true))
}

// editPull is "Update a pull request": title, body, state, base.
func (s *Server) editPull(w *buffered, r *http.Request, p *pull) {
	var in struct {
		Title, Body, State, Base *string
	}
	if !decode(w, r, &in) {
		return
	}
	if in.Title != nil {
		p.title = *in.Title
	}
	if in.Body != nil {
		p.body = *in.Body
	}
	if in.Base != nil {
		p.base = *in.Base
	}
	if in.State != nil && !p.merged {
		p.state = *in.State
		if p.state == "closed" {
			p.closed, p.autoMerge = s.now(), ""
		} else {
			p.closed = ""
		}
	}
	p.updated = s.now()
	w.json(http.StatusOK, s.pullJSON(p, true))
}

// mergePull is "Merge a pull request": 405 when not mergeable, 409 when
// sha is not the head.
func (s *Server) mergePull(w *buffered, r *http.Request, p *pull) {
	var in struct {
		SHA         string `json:"sha"`
		MergeMethod string `json:"merge_method"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.SHA != "" && in.SHA != p.headSHA {
		w.json(http.StatusConflict, errBody(msgHeadModified, docMergePR))
		return
	}
	switch p.mergeable() {
	case StateClean, StateUnstable, "has_hooks":
	default:
		w.json(http.StatusMethodNotAllowed, errBody(msgNotMergeable, docMergePR))
		return
	}
	switch in.MergeMethod {
	case "", "merge", "squash", "rebase":
	default:
		w.json(http.StatusUnprocessableEntity, validation(docMergePR,
			map[string]any{"resource": "PullRequest", "field": "merge_method", "code": "invalid"}))
		return
	}
	s.merge(p)
	w.json(http.StatusOK, map[string]any{"sha": p.mergeCommit, "merged": true, "message": "Pull Request successfully merged"})
}

func (s *Server) deleteRef(w *buffered, rp *repo, branch string) {
	if _, ok := rp.branches[branch]; !ok {
		w.json(http.StatusUnprocessableEntity, errBody("Reference does not exist", docDeleteRef))
		return
	}
	delete(rp.branches, branch)
	w.empty(http.StatusNoContent)
}

func decode(w *buffered, r *http.Request, v any) bool {
	if r.Body == nil || r.ContentLength == 0 {
		return true
	}
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		w.json(http.StatusBadRequest, errBody("Problems parsing JSON", docRoot))
		return false
	}
	return true
}

func atoi(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n
	}
	return def
}

// union appends to a what b adds, keeping a's order and no duplicates.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func minus(a, b []string) []string {
	return slices.DeleteFunc(slices.Clone(a), func(x string) bool { return slices.Contains(b, x) })
}
