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

// The Cloud fake serves, under /2.0/repositories/acme/gitops/:
//
//	GET    pullrequests            state, pagelen (≤50), page, q (source/destination
//	                               branch names), fields (+values.reviewers,
//	                               +values.participants; left out otherwise, as Cloud does);
//	                               next on every page but the last; hashes of 12 characters
//	POST   pullrequests            201 and Location; 200 with the updated pull request when one
//	                               of this head and base is open (observed); 400 with
//	                               error.fields for a missing branch or an unknown reviewer
//	GET    pullrequests/{id}       reviewers and participants, mergeable
//	PUT    pullrequests/{id}       title, description, draft, reviewers (replaced)
//	POST   pullrequests/{id}/decline
//	POST   pullrequests/{id}/merge merge_strategy, close_source_branch; 400 for a draft,
//	                               conflicts or failing merge checks or a strategy not
//	                               allowed; 409 when told a ref moved (RaceNextMerge)
//	GET    pullrequests/{id}/conflicts  302 to file-conflicts/{spec}
//	GET    file-conflicts/{spec}
//	GET    commit/{hash}           a hash of 7 or more characters of a known head
//	GET    commit/{sha}/statuses
//	GET    refs/branches/{name}
//	GET, POST hooks; PUT, DELETE hooks/{uid}
//
// A request without Token (bearer) or AppUser:AppPassword (basic) is
// 401; a throttled one 429 "Rate limit for this resource has been
// exceeded" with X-RateLimit-Limit and X-RateLimit-NearLimit.

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const (
	msgCloudLimited = "Rate limit for this resource has been exceeded"
	cloudShort      = 12
	cloudPageMax    = 50
)

func cloudError(w http.ResponseWriter, status int, msg string, fields map[string][]string) {
	e := map[string]any{"message": msg}
	if fields != nil {
		e["fields"] = fields
	}
	writeJSON(w, status, map[string]any{"type": "error", "error": e})
}

// ServeHTTP routes one request.
func (s *CloudServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.lock(r)
	defer s.mu.Unlock()
	rec := Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Authorization: authKind(r, Token, true)}
	if s.preflight(w, r, &rec, func(w http.ResponseWriter) {
		w.Header().Set("X-RateLimit-Limit", "1000")
		w.Header().Set("X-RateLimit-NearLimit", "true")
		cloudError(w, http.StatusTooManyRequests, msgCloudLimited, nil)
	}) {
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	s.route(sw, r, rec.Authorization)
	rec.Status = sw.status
	s.log = append(s.log, rec)
}

func (s *CloudServer) route(w http.ResponseWriter, r *http.Request, auth string) {
	if auth == "" {
		cloudError(w, http.StatusUnauthorized, "Unauthorized", nil)
		return
	}
	seg := segments(r.URL.EscapedPath())
	if len(seg) < 5 || seg[0] != "2.0" || seg[1] != "repositories" {
		cloudError(w, http.StatusNotFound, "Resource not found", nil)
		return
	}
	repo, rest := seg[2]+"/"+seg[3], seg[4:]
	if repo != Workspace+"/"+RepoSlug {
		if _, fork := s.forks[repo]; !fork || rest[0] != "commit" {
			cloudError(w, http.StatusNotFound, "Repository "+repo+" not found", nil)
			return
		}
	}
	m := r.Method + " " + rest[0]
	switch {
	case m == "GET pullrequests" && len(rest) == 1:
		s.list(w, r)
	case m == "POST pullrequests" && len(rest) == 1:
		s.create(w, r)
	case rest[0] == "pullrequests" && len(rest) >= 2:
		s.pullRoute(w, r, rest[1:])
	case m == "GET file-conflicts" && len(rest) == 2:
		s.conflicts(w, rest[1])
	case m == "GET commit" && len(rest) == 2:
		s.commit(w, repo, rest[1])
	case m == "GET commit" && len(rest) == 3 && rest[2] == "statuses":
		var vals []any
		for _, st := range s.statuses[rest[1]] {
			vals = append(vals, map[string]any{"type": "build", "key": "ci-" + strconv.Itoa(len(vals)), "state": st})
		}
		writeJSON(w, http.StatusOK, map[string]any{"pagelen": 100, "page": 1, "size": len(vals), "values": vals})
	case m == "GET refs" && len(rest) == 3 && rest[1] == "branches":
		sha, ok := s.branches[rest[2]]
		if !ok {
			cloudError(w, http.StatusNotFound, "Branch not found", nil)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"type": "branch", "name": rest[2], "target": map[string]any{"type": "commit", "hash": sha}})
	case rest[0] == "hooks":
		s.hook(w, r, rest[1:])
	default:
		cloudError(w, http.StatusNotFound, "Resource not found", nil)
	}
}

// bbqlTerm reads the q filter the client sends: name="value" terms.
var bbqlTerm = regexp.MustCompile(`([a-z_.]+)="((?:[^"\\]|\\.)*)"`)

func (s *CloudServer) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	want := map[string]string{}
	for _, t := range bbqlTerm.FindAllStringSubmatch(q.Get("q"), -1) {
		want[t[1]] = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(t[2])
	}
	fields := q.Get("fields")
	var all []*CloudPull
	for _, id := range s.ids() {
		p := s.pulls[id]
		if st := q.Get("state"); st != "" && p.State != st {
			continue
		}
		if v, ok := want["source.branch.name"]; ok && p.Head != v {
			continue
		}
		if v, ok := want["destination.branch.name"]; ok && p.Base != v {
			continue
		}
		all = append(all, p)
	}
	pagelen, _ := strconv.Atoi(q.Get("pagelen"))
	if pagelen <= 0 || pagelen > cloudPageMax {
		pagelen = 10
	}
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	from, to := min((page-1)*pagelen, len(all)), min(page*pagelen, len(all))
	vals := make([]any, 0, to-from)
	for _, p := range all[from:to] {
		vals = append(vals, s.payload(p, strings.Contains(fields, "+values.reviewers"), strings.Contains(fields, "+values.participants")))
	}
	out := map[string]any{"pagelen": pagelen, "page": page, "size": len(all), "values": vals}
	if to < len(all) {
		q.Set("page", strconv.Itoa(page+1))
		out["next"] = s.srv.URL + r.URL.Path + "?" + q.Encode()
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *CloudServer) ids() []int64 {
	ids := make([]int64, 0, len(s.pulls))
	for id := range s.pulls {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// cloudBody is what a create or update sends.
type cloudBody struct {
	Title       *string `json:"title"`
	Description *string `json:"description"`
	Draft       *bool   `json:"draft"`
	Source      *struct {
		Branch struct {
			Name string `json:"name"`
		} `json:"branch"`
		Repository *struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	} `json:"source"`
	Destination *struct {
		Branch struct {
			Name string `json:"name"`
		} `json:"branch"`
	} `json:"destination"`
	Reviewers *[]struct {
		UUID      string `json:"uuid"`
		AccountID string `json:"account_id"`
	} `json:"reviewers"`
}

// reviewers resolves a body's reviewers; ok false answered 400.
func (s *CloudServer) reviewers(w http.ResponseWriter, b cloudBody) ([]User, bool) {
	var out []User
	if b.Reviewers == nil {
		return nil, true
	}
	for _, r := range *b.Reviewers {
		u, ok := s.user(r.UUID)
		if r.UUID == "" {
			u, ok = s.user(r.AccountID)
		}
		if !ok || (r.AccountID != "" && u.AccountID != r.AccountID) {
			cloudError(w, http.StatusBadRequest, "reviewers: Malformed reviewers list", map[string][]string{"reviewers": {"Malformed reviewers list"}})
			return nil, false
		}
		out = append(out, u)
	}
	return out, true
}

func (s *CloudServer) create(w http.ResponseWriter, r *http.Request) {
	var b cloudBody
	if json.NewDecoder(r.Body).Decode(&b) != nil || b.Title == nil || b.Source == nil {
		cloudError(w, http.StatusBadRequest, "Bad request", nil)
		return
	}
	head, base := b.Source.Branch.Name, "main"
	if b.Destination != nil {
		base = b.Destination.Branch.Name
	}
	for _, br := range []string{head, base} {
		if _, ok := s.branches[br]; !ok {
			cloudError(w, http.StatusBadRequest, "source: Branch not found: "+br, map[string][]string{"source": {"Branch not found"}})
			return
		}
	}
	users, ok := s.reviewers(w, b)
	if !ok {
		return
	}
	for _, id := range s.ids() {
		p := s.pulls[id]
		if p.State == "OPEN" && p.Source == Workspace+"/"+RepoSlug && p.Head == head && p.Base == base {
			s.apply(p, b, users)
			writeJSON(w, http.StatusOK, s.payload(p, true, true))
			return
		}
	}
	p := &CloudPull{Source: Workspace + "/" + RepoSlug, Head: head, Base: base, HeadSHA: s.branches[head], State: "OPEN"}
	s.apply(p, b, users)
	s.add(p)
	w.Header().Set("Location", s.URL()+"repositories/"+Workspace+"/"+RepoSlug+"/pullrequests/"+strconv.FormatInt(p.ID, 10))
	writeJSON(w, http.StatusCreated, s.payload(p, true, true))
}

func (s *CloudServer) apply(p *CloudPull, b cloudBody, users []User) {
	if b.Title != nil {
		p.Title = *b.Title
	}
	if b.Description != nil {
		p.Description = *b.Description
	}
	if b.Draft != nil {
		p.Draft = *b.Draft
	}
	if b.Reviewers != nil {
		p.Reviewers = users
	}
}
