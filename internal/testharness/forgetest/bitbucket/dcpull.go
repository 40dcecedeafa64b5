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
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

func (s *DCServer) pullRoute(w http.ResponseWriter, r *http.Request, rest []string) {
	id, _ := strconv.ParseInt(rest[0], 10, 64)
	p, ok := s.pulls[id]
	if !ok {
		dcError(w, http.StatusNotFound, "pull.NoSuchPullRequestException", "Pull request "+rest[0]+" does not exist", nil)
		return
	}
	var b dcBody
	if r.Method != http.MethodGet {
		_ = json.NewDecoder(r.Body).Decode(&b)
	}
	// The version: the query parameter, else the body's.
	version := int64(-1)
	if v, err := strconv.ParseInt(r.URL.Query().Get("version"), 10, 64); err == nil {
		version = v
	} else if b.Version != nil {
		version = *b.Version
	}
	stale := func() bool {
		if version == p.Version {
			return false
		}
		dcError(w, http.StatusConflict, "pull.PullRequestOutOfDateException", "You are attempting to modify a pull request based on out-of-date information.",
			map[string]any{"currentVersion": p.Version, "expectedVersion": version, "pullRequest": s.payload(p)})
		return true
	}
	switch r.Method + " " + strings.Join(rest[1:], "/") {
	case "GET ":
		writeJSON(w, http.StatusOK, s.payload(p))
	case "PUT ":
		if !stale() {
			s.apply(p, b)
			p.Version++
			writeJSON(w, http.StatusOK, s.payload(p))
		}
	case "POST decline":
		if !stale() {
			p.State = "DECLINED"
			p.Version++
			writeJSON(w, http.StatusOK, s.payload(p))
		}
	case "GET merge":
		writeJSON(w, http.StatusOK, s.mergeability(p))
	case "POST merge":
		s.mergeRequest(w, p, b, stale)
	default:
		dcError(w, http.StatusNotFound, "NoSuchEntityException", "Not found", nil)
	}
}

func (s *DCServer) mergeability(p *DCPull) map[string]any {
	vetoes := make([]any, 0, len(p.Vetoes))
	for _, v := range p.Vetoes {
		vetoes = append(vetoes, map[string]any{"summaryMessage": v, "detailedMessage": v})
	}
	outcome := "CLEAN"
	if p.Conflicted {
		outcome = "CONFLICTED"
	}
	return map[string]any{"canMerge": !p.Conflicted && len(p.Vetoes) == 0, "conflicted": p.Conflicted, "outcome": outcome, "vetoes": vetoes}
}

func (s *DCServer) mergeRequest(w http.ResponseWriter, p *DCPull, b dcBody, stale func() bool) {
	switch {
	case p.State != "OPEN":
		dcError(w, http.StatusConflict, "pull.InvalidPullRequestStateException", "The pull request is not open", nil)
	case b.AutoMerge && !s.autoMerge:
		dcError(w, http.StatusForbidden, "pull.automerge.AutoMergeDisabledException", "Auto-merge is not enabled for this repository", nil)
	case stale():
	case b.AutoMerge && (p.Conflicted || len(p.Vetoes) > 0):
		p.AutoMerge, p.Strategy = p.HeadSHA, b.StrategyID
		writeJSON(w, http.StatusOK, s.payload(p))
	case p.Conflicted || len(p.Vetoes) > 0:
		dcError(w, http.StatusConflict, "pull.PullRequestMergeVetoedException", "Merging the pull request has been vetoed.",
			map[string]any{"conflicted": p.Conflicted, "vetoes": s.mergeability(p)["vetoes"]})
	default:
		s.merge(p, b.StrategyID)
		writeJSON(w, http.StatusOK, s.payload(p))
	}
}

func (s *DCServer) deleteBranch(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Name     string `json:"name"`
		EndPoint string `json:"endPoint"`
	}
	_ = json.NewDecoder(r.Body).Decode(&b)
	name := strings.TrimPrefix(b.Name, "refs/heads/")
	if sha, ok := s.branches[name]; ok && b.EndPoint != "" && sha != b.EndPoint {
		dcError(w, http.StatusBadRequest, "repository.InvalidRefNameException", "Branch "+name+" points to "+sha+", not "+b.EndPoint, nil)
		return
	}
	delete(s.branches, name)
	w.WriteHeader(http.StatusNoContent)
}

func (s *DCServer) hook(w http.ResponseWriter, r *http.Request, rest []string) {
	var b struct {
		URL           string            `json:"url"`
		Active        bool              `json:"active"`
		Events        []string          `json:"events"`
		Configuration map[string]string `json:"configuration"`
	}
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		if json.NewDecoder(r.Body).Decode(&b) != nil || b.URL == "" {
			dcError(w, http.StatusBadRequest, "webhook.InvalidWebhookException", "The webhook's URL is required", nil)
			return
		}
	}
	show := func(id int64, h *hookState) map[string]any {
		return map[string]any{"id": id, "name": "provider-git", "url": h.URL, "active": h.Active, "events": h.Events, "configuration": map[string]any{}}
	}
	id, _ := strconv.ParseInt(strings.Join(rest, ""), 10, 64)
	switch {
	case r.Method == http.MethodGet && len(rest) == 0:
		var vals []any
		for hid, h := range s.hooks {
			vals = append(vals, show(hid, h))
		}
		page(w, r, vals)
	case r.Method == http.MethodPost && len(rest) == 0:
		s.hookID++
		h := &hookState{URL: b.URL, Active: b.Active, Events: b.Events, Secret: b.Configuration["secret"]}
		s.hooks[s.hookID] = h
		writeJSON(w, http.StatusOK, show(s.hookID, h))
	case len(rest) == 1 && s.hooks[id] == nil:
		dcError(w, http.StatusNotFound, "webhook.NoSuchWebhookException", "No webhook with id "+rest[0]+" exists", nil)
	case r.Method == http.MethodPut:
		h := s.hooks[id]
		h.URL, h.Active, h.Events, h.Secret = b.URL, b.Active, b.Events, b.Configuration["secret"]
		writeJSON(w, http.StatusOK, show(id, h))
	case r.Method == http.MethodDelete:
		delete(s.hooks, id)
		w.WriteHeader(http.StatusNoContent)
	default:
		dcError(w, http.StatusNotFound, "NoSuchEntityException", "Not found", nil)
	}
}

// payload is a pull request as Data Center answers it.
func (s *DCServer) payload(p *DCPull) map[string]any {
	repo := func(fork string) map[string]any {
		id, key := repoID, Project
		if fork != "" {
			id, key = repoID+1, fork
		}
		return map[string]any{"id": id, "slug": RepoSlug, "name": RepoSlug, "project": map[string]any{"key": key}}
	}
	reviewers := make([]any, 0, len(p.Reviewers))
	for _, n := range p.Reviewers {
		st := p.Votes[n]
		if st == "" {
			st = "UNAPPROVED"
		}
		reviewers = append(reviewers, map[string]any{"user": map[string]any{"name": n, "slug": n}, "role": "REVIEWER", "approved": st == "APPROVED", "status": st})
	}
	out := map[string]any{
		"id": p.ID, "version": p.Version, "title": p.Title, "description": p.Description, "state": p.State,
		"open": p.State == "OPEN", "closed": p.State != "OPEN",
		"fromRef":   map[string]any{"id": "refs/heads/" + p.Head, "displayId": p.Head, "latestCommit": p.HeadSHA, "repository": repo(p.Fork)},
		"toRef":     map[string]any{"id": "refs/heads/" + p.Base, "displayId": p.Base, "latestCommit": s.branches[p.Base], "repository": repo("")},
		"reviewers": reviewers, "participants": []any{},
		"links": map[string]any{"self": []any{map[string]any{"href": s.srv.URL + "/bitbucket/projects/" + Project + "/repos/" + RepoSlug + "/pull-requests/" + strconv.FormatInt(p.ID, 10)}}},
	}
	if !s.noDrafts {
		out["draft"] = p.Draft
	}
	if p.MergeCommit != "" {
		out["properties"] = map[string]any{"mergeCommit": map[string]any{"id": p.MergeCommit, "displayId": p.MergeCommit[:11]}}
	}
	return out
}
