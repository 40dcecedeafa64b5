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
	"slices"
	"strconv"
	"strings"
)

func (s *CloudServer) pullRoute(w http.ResponseWriter, r *http.Request, rest []string) {
	id, _ := strconv.ParseInt(rest[0], 10, 64)
	p, ok := s.pulls[id]
	if !ok {
		cloudError(w, http.StatusNotFound, "Pull request not found", nil)
		return
	}
	sub := strings.Join(rest[1:], "/")
	switch r.Method + " " + sub {
	case "GET ":
		writeJSON(w, http.StatusOK, s.payload(p, true, true))
	case "PUT ":
		var b cloudBody
		if json.NewDecoder(r.Body).Decode(&b) != nil {
			cloudError(w, http.StatusBadRequest, "Bad request", nil)
			return
		}
		if p.State != "OPEN" {
			cloudError(w, http.StatusBadRequest, "Only open pull requests can be updated", nil)
			return
		}
		users, ok := s.reviewers(w, b)
		if !ok {
			return
		}
		s.apply(p, b, users)
		writeJSON(w, http.StatusOK, s.payload(p, true, true))
	case "POST decline":
		if p.State == "OPEN" {
			p.State = "DECLINED"
		}
		writeJSON(w, http.StatusOK, s.payload(p, true, true))
	case "POST merge":
		s.mergeRequest(w, r, p)
	case "GET conflicts":
		loc := s.URL() + "repositories/" + Workspace + "/" + RepoSlug + "/file-conflicts/" + p.HeadSHA + ".." + s.branches[p.Base]
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusFound)
	default:
		cloudError(w, http.StatusNotFound, "Resource not found", nil)
	}
}

func (s *CloudServer) mergeRequest(w http.ResponseWriter, r *http.Request, p *CloudPull) {
	var b struct {
		CloseSourceBranch bool   `json:"close_source_branch"`
		MergeStrategy     string `json:"merge_strategy"`
	}
	_ = json.NewDecoder(r.Body).Decode(&b)
	if b.MergeStrategy == "" {
		b.MergeStrategy = "merge_commit"
	}
	switch {
	case s.raceMerge:
		s.raceMerge = false
		cloudError(w, http.StatusConflict, "Unable to merge because one of the refs involved changed while attempting to merge", nil)
	case p.State != "OPEN":
		cloudError(w, http.StatusBadRequest, "You can't merge a pull request that is not open.", nil)
	case p.Draft:
		cloudError(w, http.StatusBadRequest, "You can't merge a draft pull request.", nil)
	case len(p.Conflicts) > 0:
		cloudError(w, http.StatusBadRequest, "You can't merge until you resolve all merge conflicts.", nil)
	case p.MergeChecks != nil && !*p.MergeChecks:
		cloudError(w, http.StatusBadRequest, "You can't merge until you resolve all merge checks.", nil)
	case !slices.Contains(s.strategies, b.MergeStrategy):
		cloudError(w, http.StatusBadRequest, "merge_strategy: "+b.MergeStrategy+" is not allowed", map[string][]string{"merge_strategy": {"not allowed"}})
	default:
		s.merge(p, b.MergeStrategy, b.CloseSourceBranch)
		writeJSON(w, http.StatusOK, s.payload(p, true, true))
	}
}

func (s *CloudServer) conflicts(w http.ResponseWriter, spec string) {
	var vals []any
	for _, p := range s.pulls {
		if p.State == "OPEN" && strings.HasPrefix(spec, p.HeadSHA+"..") {
			for _, c := range p.Conflicts {
				vals = append(vals, map[string]any{"path": c, "scenario": "content", "message": "File modified in both source and destination"})
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"pagelen": 500, "page": 1, "size": len(vals), "values": vals})
}

// commit answers a known head (of the repository, or of the fork repo)
// by a prefix of at least 7 characters.
func (s *CloudServer) commit(w http.ResponseWriter, repo, hash string) {
	heads := s.branches
	if repo != Workspace+"/"+RepoSlug {
		heads = s.forks[repo]
	}
	if len(hash) >= 7 {
		for _, sha := range heads {
			if strings.HasPrefix(sha, hash) {
				writeJSON(w, http.StatusOK, map[string]any{"type": "commit", "hash": sha})
				return
			}
		}
	}
	cloudError(w, http.StatusNotFound, "Commit not found", nil)
}

func (s *CloudServer) hook(w http.ResponseWriter, r *http.Request, rest []string) {
	var b struct {
		URL    string   `json:"url"`
		Active bool     `json:"active"`
		Events []string `json:"events"`
		Secret *string  `json:"secret"`
	}
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		if json.NewDecoder(r.Body).Decode(&b) != nil || b.URL == "" {
			cloudError(w, http.StatusBadRequest, "url: This field is required.", nil)
			return
		}
	}
	show := func(id string, h *hookState) map[string]any {
		return map[string]any{"uuid": id, "url": h.URL, "active": h.Active, "events": h.Events, "secret_set": h.Secret != "", "subject_type": "repository"}
	}
	switch {
	case r.Method == http.MethodGet && len(rest) == 0:
		var vals []any
		for id, h := range s.hooks {
			vals = append(vals, show(id, h))
		}
		writeJSON(w, http.StatusOK, map[string]any{"pagelen": 100, "page": 1, "size": len(vals), "values": vals})
	case r.Method == http.MethodPost && len(rest) == 0:
		id := uuidOf("hook/" + strconv.Itoa(len(s.hooks)) + b.URL)
		h := &hookState{URL: b.URL, Active: b.Active, Events: b.Events}
		if b.Secret != nil {
			h.Secret = *b.Secret
		}
		s.hooks[id] = h
		writeJSON(w, http.StatusCreated, show(id, h))
	case len(rest) == 1 && s.hooks[rest[0]] == nil:
		cloudError(w, http.StatusNotFound, "Webhook not found", nil)
	case r.Method == http.MethodPut && len(rest) == 1:
		h := s.hooks[rest[0]]
		h.URL, h.Active, h.Events = b.URL, b.Active, b.Events
		if b.Secret != nil { // left out: unchanged, as Cloud documents
			h.Secret = *b.Secret
		}
		writeJSON(w, http.StatusOK, show(rest[0], h))
	case r.Method == http.MethodDelete && len(rest) == 1:
		delete(s.hooks, rest[0])
		w.WriteHeader(http.StatusNoContent)
	default:
		cloudError(w, http.StatusNotFound, "Resource not found", nil)
	}
}

// payload is a pull request as Cloud answers it: hashes of 12
// characters; reviewers and participants only where asked.
func (s *CloudServer) payload(p *CloudPull, reviewers, participants bool) map[string]any {
	account := func(u User) map[string]any {
		return map[string]any{"type": "user", "uuid": u.UUID, "account_id": u.AccountID, "display_name": u.AccountID}
	}
	repo := func(full string) map[string]any {
		return map[string]any{"type": "repository", "full_name": full, "uuid": uuidOf(full), "name": RepoSlug}
	}
	out := map[string]any{
		"type": "pullrequest", "id": p.ID, "title": p.Title, "description": p.Description,
		"summary": map[string]any{"type": "rendered", "raw": p.Description, "markup": "markdown"},
		"state":   p.State, "draft": p.Draft, "close_source_branch": p.CloseSourceBranch,
		"source": map[string]any{"branch": map[string]any{"name": p.Head}, "commit": map[string]any{"type": "commit", "hash": p.HeadSHA[:cloudShort]},
			"repository": repo(p.Source)},
		"destination": map[string]any{"branch": map[string]any{"name": p.Base, "merge_strategies": s.strategies, "default_merge_strategy": "merge_commit"},
			"commit": map[string]any{"type": "commit", "hash": s.branches[p.Base][:min(cloudShort, len(s.branches[p.Base]))]}, "repository": repo(Workspace + "/" + RepoSlug)},
		"merge_commit": nil,
		"links":        map[string]any{"html": map[string]any{"href": "https://bitbucket.org/" + Workspace + "/" + RepoSlug + "/pull-requests/" + strconv.FormatInt(p.ID, 10)}},
	}
	if p.MergeChecks != nil {
		out["mergeable"] = *p.MergeChecks
	}
	if p.MergeCommit != "" {
		out["merge_commit"] = map[string]any{"type": "commit", "hash": p.MergeCommit[:cloudShort]}
	}
	if reviewers {
		rs := make([]any, 0, len(p.Reviewers))
		for _, u := range p.Reviewers {
			rs = append(rs, account(u))
		}
		out["reviewers"] = rs
	}
	if participants {
		ps := make([]any, 0, len(p.Reviewers))
		for _, u := range p.Reviewers {
			v := p.Votes[u.AccountID]
			var state any
			if v != "" {
				state = v
			}
			ps = append(ps, map[string]any{"type": "participant", "user": account(u), "role": "REVIEWER", "approved": v == "approved", "state": state})
		}
		out["participants"] = ps
	}
	return out
}
