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
	"net/http"
	"strings"
)

// GraphQL messages GitHub answers with (as the gh CLI prints them, e.g.
// "GraphQL: Auto merge is not allowed for this repository
// (enablePullRequestAutoMerge)").
const (
	MsgAutoMergeNotAllowed = "Auto merge is not allowed for this repository"
	MsgCleanStatus         = "Pull request Pull request is in clean status"
	msgNoNode              = "Could not resolve to a node with the global id of '%s'"
)

// The mutations served, by name. Each takes its input in a variable
// ($input) and answers the selection the provider's client asks for:
// pullRequest { id number isDraft autoMergeRequest { mergeMethod } }.
var mutations = []string{"enablePullRequestAutoMerge", "convertPullRequestToDraft", "markPullRequestReadyForReview"}

// graphql answers a mutation with GitHub's shape: HTTP 200 and either
// {"data": {...}} or {"data": {"<name>": null}, "errors": [{"type",
// "path", "locations", "message"}]}.
func (s *Server) graphql(w *buffered, r *http.Request, rec *Request) {
	var in struct {
		Query     string `json:"query"`
		Variables struct {
			Input struct {
				PullRequestID string `json:"pullRequestId"`
				MergeMethod   string `json:"mergeMethod"`
				// ExpectedHeadOid pins the head the merge may take.
				ExpectedHeadOid string `json:"expectedHeadOid"`
			} `json:"input"`
		} `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		w.json(http.StatusBadRequest, errBody("Problems parsing JSON", "https://docs.github.com/graphql"))
		return
	}
	name := ""
	for _, m := range mutations {
		if strings.Contains(in.Query, m+"(") {
			name = m
		}
	}
	rec.Mutation = name
	if name == "" {
		w.json(http.StatusOK, gqlError("", "INTERNAL", "the fake serves only "+strings.Join(mutations, ", ")))
		return
	}
	var p *pull
	for _, x := range s.pulls {
		if NodeID(x.number) == in.Variables.Input.PullRequestID {
			p = x
		}
	}
	if p == nil {
		w.json(http.StatusOK, gqlError(name, "NOT_FOUND", strings.Replace(msgNoNode, "%s", in.Variables.Input.PullRequestID, 1)))
		return
	}
	switch name {
	case "enablePullRequestAutoMerge":
		switch {
		case !s.repo(p.owner, p.repo).allowAutoMerge:
			w.json(http.StatusOK, gqlError(name, "UNPROCESSABLE", MsgAutoMergeNotAllowed))
			return
		case p.state != "open":
			w.json(http.StatusOK, gqlError(name, "UNPROCESSABLE", "Pull request is not open"))
			return
		case in.Variables.Input.ExpectedHeadOid != "" && in.Variables.Input.ExpectedHeadOid != p.headSHA:
			w.json(http.StatusOK, gqlError(name, "UNPROCESSABLE", msgHeadModified))
			return
		case p.mergeable() == StateClean:
			w.json(http.StatusOK, gqlError(name, "UNPROCESSABLE", MsgCleanStatus))
			return
		}
		p.autoMerge = in.Variables.Input.MergeMethod
		if p.autoMerge == "" {
			p.autoMerge = "MERGE"
		}
	case "convertPullRequestToDraft":
		p.draft = true
	case "markPullRequestReadyForReview":
		p.draft = false
	}
	p.updated = s.now()
	var am any
	if p.autoMerge != "" {
		am = map[string]any{"mergeMethod": p.autoMerge}
	}
	w.json(http.StatusOK, map[string]any{"data": map[string]any{name: map[string]any{"pullRequest": map[string]any{
		"id": NodeID(p.number), "number": p.number, "isDraft": p.draft, "autoMergeRequest": am}}}})
}

func gqlError(name, typ, msg string) map[string]any {
	e := map[string]any{"type": typ, "message": msg, "locations": []map[string]int{{"line": 2, "column": 3}}}
	data := map[string]any{}
	if name != "" {
		e["path"] = []string{name}
		data[name] = nil
	}
	return map[string]any{"data": data, "errors": []any{e}}
}
