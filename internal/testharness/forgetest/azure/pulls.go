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
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// listCut is where a list cuts each description.
const listCut = 400

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	if !scope(w, r) {
		return
	}
	q := r.URL.Query()
	status := q.Get("searchCriteria.status")
	if status == "" {
		status = "active"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	top, _ := strconv.Atoi(q.Get("$top"))
	if top <= 0 || top > s.pageSize {
		top = s.pageSize
	}
	skip, _ := strconv.Atoi(q.Get("$skip"))
	var ids []int64
	for id, p := range s.prs {
		if status == "all" || p.Status == status {
			ids = append(ids, id)
		}
	}
	// Newest first, as Azure lists them.
	slices.SortFunc(ids, func(a, b int64) int { return int(b - a) })
	out := []any{}
	for i := skip; i < len(ids) && len(out) < top; i++ {
		v := s.payload(s.prs[ids[i]])
		if d := []rune(s.prs[ids[i]].Description); len(d) > listCut {
			v["description"] = string(d[:listCut])
		}
		out = append(out, v)
	}
	reply(w, http.StatusOK, map[string]any{"count": len(out), "value": out})
}

// createBody is what a create may send.
type createBody struct {
	SourceRefName string `json:"sourceRefName"`
	TargetRefName string `json:"targetRefName"`
	Title         string `json:"title"`
	Description   string `json:"description"`
	IsDraft       bool   `json:"isDraft"`
	Reviewers     []struct {
		ID         string `json:"id"`
		IsRequired bool   `json:"isRequired"`
	} `json:"reviewers"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	if !scope(w, r) {
		return
	}
	var b createBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.SourceRefName == "" || b.TargetRefName == "" {
		fail(w, http.StatusBadRequest, "InvalidArgumentValueException", "The sourceRefName and targetRefName of a pull request are required.")
		return
	}
	src, _ := strings.CutPrefix(b.SourceRefName, "refs/heads/")
	dst, _ := strings.CutPrefix(b.TargetRefName, "refs/heads/")
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.prs {
		if p.Status == "active" && p.Fork == "" && p.Source == src && p.Target == dst {
			fail(w, http.StatusConflict, "GitPullRequestExistsException", "TF401179: An active pull request for the source and target branch already exists.")
			return
		}
	}
	_, okSrc := s.branches[src]
	_, okDst := s.branches[dst]
	if !okSrc || !okDst {
		fail(w, http.StatusBadRequest, "GitPullRequestCannotBeActivated", "TF401398: The pull request cannot be activated because the source and/or the target branch no longer exists, or the requested refs are not branches")
		return
	}
	if len([]rune(b.Description)) > 4000 {
		fail(w, http.StatusBadRequest, "InvalidArgumentValueException", "The description of a pull request is limited to 4000 characters.")
		return
	}
	p := s.open(src, dst, b.Title)
	p.Description, p.Draft = b.Description, b.IsDraft
	for _, l := range b.Labels {
		p.Labels = append(p.Labels, l.Name)
	}
	for _, rv := range b.Reviewers {
		p.Reviewers = append(p.Reviewers, s.reviewer(rv.ID, rv.IsRequired))
	}
	reply(w, http.StatusCreated, s.payload(p))
}

// reviewer is the identity id as a reviewer. Callers hold mu.
func (s *Server) reviewer(id string, required bool) Reviewer {
	for _, i := range s.identities {
		if strings.EqualFold(i.ID, id) {
			i.Required = required
			return i
		}
	}
	return Reviewer{ID: id, Required: required}
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.find(w, r); p != nil {
		reply(w, http.StatusOK, s.payload(p))
	}
}

// patchBody is what an update may send.
type patchBody struct {
	Title                 *string `json:"title"`
	Description           *string `json:"description"`
	IsDraft               *bool   `json:"isDraft"`
	Status                string  `json:"status"`
	LastMergeSourceCommit *struct {
		CommitID string `json:"commitId"`
	} `json:"lastMergeSourceCommit"`
	AutoCompleteSetBy *struct {
		ID string `json:"id"`
	} `json:"autoCompleteSetBy"`
	CompletionOptions *struct {
		MergeStrategy      string `json:"mergeStrategy"`
		DeleteSourceBranch bool   `json:"deleteSourceBranch"`
	} `json:"completionOptions"`
}

func (s *Server) update(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.find(w, r)
	if p == nil {
		return
	}
	var b patchBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		fail(w, http.StatusBadRequest, "InvalidArgumentValueException", "The request body is not a pull request.")
		return
	}
	if p.Status != "active" {
		fail(w, http.StatusBadRequest, "GitPullRequestNotEditableException", "TF401181: The pull request cannot be edited due to its state.")
		return
	}
	// A refused request changes nothing.
	if b.Status == "completed" {
		if b.LastMergeSourceCommit == nil || b.LastMergeSourceCommit.CommitID != p.Head {
			fail(w, http.StatusConflict, "GitPullRequestStaleException", "TF401192: The pull request's source branch has changed since lastMergeSourceCommit.")
			return
		}
		if why := blockers(p); len(why) > 0 {
			fail(w, http.StatusForbidden, "GitPullRequestUpdateRejectedByPolicyException", "The completion is rejected: "+strings.Join(why, ", ")+".")
			return
		}
	}
	if b.Title != nil {
		p.Title = *b.Title
	}
	if b.Description != nil {
		p.Description = *b.Description
	}
	if b.IsDraft != nil {
		p.Draft = *b.IsDraft
	}
	if b.CompletionOptions != nil {
		p.MergeStrategy, p.DeleteSourceBranch = b.CompletionOptions.MergeStrategy, b.CompletionOptions.DeleteSourceBranch
	}
	if b.AutoCompleteSetBy != nil {
		// The empty GUID cancels auto-complete, as the web UI's "Cancel
		// auto-complete" sends it.
		p.AutoCompleteSetBy, p.AutoCompleteSetAt = b.AutoCompleteSetBy.ID, p.Head
		if p.AutoCompleteSetBy == NoIdentity {
			p.AutoCompleteSetBy, p.AutoCompleteSetAt = "", ""
		}
	}
	switch b.Status {
	case "abandoned":
		p.Status, p.AutoCompleteSetBy = "abandoned", ""
	case "completed":
		s.complete(p)
	}
	s.autoComplete(p)
	reply(w, http.StatusOK, s.payload(p))
}

func (s *Server) addLabel(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.find(w, r)
	if p == nil {
		return
	}
	var b struct {
		Name string `json:"name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.Name == "" {
		fail(w, http.StatusBadRequest, "GitPullRequestLabelNameInvalid", "The label name is not valid.")
		return
	}
	if !slices.Contains(p.Labels, b.Name) {
		p.Labels = append(p.Labels, b.Name)
	}
	reply(w, http.StatusOK, map[string]any{"id": labelID(b.Name), "name": b.Name, "active": true})
}

func (s *Server) removeLabel(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.find(w, r)
	if p == nil {
		return
	}
	i := slices.Index(p.Labels, r.PathValue("name"))
	if i < 0 {
		fail(w, http.StatusNotFound, "GitPullRequestLabelNotFoundException", "The label was not found on the pull request.")
		return
	}
	p.Labels = slices.Delete(p.Labels, i, i+1)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) addReviewer(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.find(w, r)
	if p == nil {
		return
	}
	var b struct {
		Vote       int  `json:"vote"`
		IsRequired bool `json:"isRequired"`
	}
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		fail(w, http.StatusBadRequest, "InvalidArgumentValueException", "The reviewer is not valid.")
		return
	}
	id := r.PathValue("reviewer")
	rv := s.reviewer(id, b.IsRequired)
	if i := slices.IndexFunc(p.Reviewers, func(x Reviewer) bool { return strings.EqualFold(x.ID, id) }); i >= 0 {
		p.Reviewers[i].Required = b.IsRequired
		rv = p.Reviewers[i]
	} else {
		p.Reviewers = append(p.Reviewers, rv)
	}
	reply(w, http.StatusOK, reviewerPayload(rv))
}

// evaluations lists a pull request's policy evaluations, a page at a time
// with x-ms-continuationtoken (the index of the next one).
func (s *Server) evaluations(w http.ResponseWriter, r *http.Request) {
	if !scope(w, r) {
		return
	}
	q := r.URL.Query()
	prefix := "vstfs:///CodeReview/CodeReviewId/" + ProjectID + "/"
	n, ok := strings.CutPrefix(q.Get("artifactId"), prefix)
	id, err := strconv.ParseInt(n, 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.prs[id]
	if !ok || err != nil || p == nil {
		fail(w, http.StatusBadRequest, "InvalidArgumentValueException", "The artifactId is not a pull request of this project: want "+prefix+"{pullRequestId}.")
		return
	}
	from, _ := strconv.Atoi(q.Get("continuationToken"))
	top, _ := strconv.Atoi(q.Get("$top"))
	if top <= 0 || top > s.pageSize {
		top = s.pageSize
	}
	out := []any{}
	i := from
	for ; i < len(p.Policies) && len(out) < top; i++ {
		pol := p.Policies[i]
		out = append(out, map[string]any{
			"evaluationId": "e" + strconv.Itoa(i), "artifactId": q.Get("artifactId"), "status": pol.Status,
			"configuration": map[string]any{"id": i + 1, "isEnabled": true, "isBlocking": pol.Blocking,
				"type": map[string]any{"id": pol.Type, "displayName": pol.Name}},
		})
	}
	if i < len(p.Policies) {
		w.Header().Set("X-Ms-Continuationtoken", strconv.Itoa(i))
	}
	reply(w, http.StatusOK, map[string]any{"count": len(out), "value": out})
}
