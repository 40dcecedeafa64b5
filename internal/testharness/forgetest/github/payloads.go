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
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
)

// The payloads below carry the fields of GitHub's REST reference
// (docs.github.com/rest, API version 2022-11-28) under their documented
// names; fields no client here reads are left out.

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of plain values are marshalled
	}
	return b
}

// NodeID is the GraphQL global ID the fake gives pull request number.
func NodeID(number int64) string {
	return "PR_" + base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "pull:%d", number))
}

func userID(login string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(login))
	return int64(h.Sum32())
}

func (s *Server) user(login string) map[string]any {
	return map[string]any{
		"login": login, "id": userID(login), "node_id": "U_" + login, "type": "User",
		"url": s.URL() + "users/" + login, "html_url": s.srv.URL + "/" + login, "site_admin": false,
	}
}

func (s *Server) users(logins []string) []map[string]any {
	out := make([]map[string]any, 0, len(logins))
	for _, l := range logins {
		out = append(out, s.user(l))
	}
	return out
}

func (s *Server) labelJSON(rp *repo, name string) map[string]any {
	return map[string]any{
		"id": userID("label:" + name), "node_id": "LA_" + name, "name": name, "color": "ededed",
		"description": nil, "default": false, "url": s.URL() + "repos/" + rp.owner + "/" + rp.name + "/labels/" + name,
	}
}

func (s *Server) repoJSON(rp *repo) map[string]any {
	full := rp.owner + "/" + rp.name
	return map[string]any{
		"id": rp.id, "node_id": fmt.Sprintf("R_%d", rp.id), "name": rp.name, "full_name": full,
		"owner": s.user(rp.owner), "private": false, "html_url": s.srv.URL + "/" + full,
		"url": s.URL() + "repos/" + full, "default_branch": "main", "allow_auto_merge": rp.allowAutoMerge,
	}
}

func (s *Server) ref(rp *repo, branch, sha string) map[string]any {
	return map[string]any{
		"label": rp.owner + ":" + branch, "ref": branch, "sha": sha,
		"user": s.user(rp.owner), "repo": s.repoJSON(rp),
	}
}

// pullJSON is a pull request as "Get a pull request" returns it; full=false
// drops the fields "List pull requests" leaves out (merged, mergeable,
// rebaseable, mergeable_state, merged_by, comments, commits, …).
func (s *Server) pullJSON(p *pull, full bool) map[string]any {
	rp := s.repo(p.owner, p.repo)
	api := s.URL() + fmt.Sprintf("repos/%s/%s/", p.owner, p.repo)
	html := s.srv.URL + fmt.Sprintf("/%s/%s/pull/%d", p.owner, p.repo, p.number)
	labels := make([]map[string]any, 0, len(p.labels))
	for _, l := range p.labels {
		labels = append(labels, s.labelJSON(rp, l))
	}
	teams := make([]map[string]any, 0, len(p.teams))
	for _, t := range p.teams {
		teams = append(teams, map[string]any{"id": userID("team:" + t), "slug": t, "name": t})
	}
	var assignee any
	if len(p.assignees) > 0 {
		assignee = s.user(p.assignees[0])
	}
	var autoMerge any
	if p.autoMerge != "" {
		autoMerge = map[string]any{"enabled_by": s.user("provider"), "merge_method": strings.ToLower(p.autoMerge),
			"commit_title": "", "commit_message": ""}
	}
	var mergeCommit, closed, mergedAt any
	if p.mergeCommit != "" {
		mergeCommit = p.mergeCommit
	}
	if p.closed != "" {
		closed = p.closed
	}
	if p.mergedAt != "" {
		mergedAt = p.mergedAt
	}
	m := map[string]any{
		"url": api + fmt.Sprintf("pulls/%d", p.number), "id": p.number + 1000, "node_id": NodeID(p.number),
		"html_url": html, "diff_url": html + ".diff", "patch_url": html + ".patch",
		"issue_url": api + fmt.Sprintf("issues/%d", p.number), "number": p.number, "state": p.state,
		"locked": false, "title": p.title, "user": s.user("provider"), "body": p.body, "labels": labels,
		"milestone": nil, "active_lock_reason": nil, "created_at": p.created, "updated_at": p.updated,
		"closed_at": closed, "merged_at": mergedAt, "merge_commit_sha": mergeCommit, "assignee": assignee,
		"assignees": s.users(p.assignees), "requested_reviewers": s.users(p.reviewers), "requested_teams": teams,
		"head": s.ref(s.repo(p.headOwner(), p.repo), p.head, p.headSHA), "base": s.ref(rp, p.base, p.baseSHA),
		"author_association": "CONTRIBUTOR", "auto_merge": autoMerge, "draft": p.draft,
	}
	if full {
		var mergeable any
		switch ms := p.mergeable(); ms {
		case StateUnknown:
		case StateDirty:
			mergeable = false
		default:
			mergeable = true
		}
		var mergedBy any
		if p.merged {
			mergedBy = s.user("reviewer")
		}
		m["merged"], m["mergeable"], m["rebaseable"], m["mergeable_state"] = p.merged, mergeable, mergeable, p.mergeable()
		m["merged_by"], m["comments"], m["review_comments"], m["maintainer_can_modify"] = mergedBy, 0, 0, false
		m["commits"], m["additions"], m["deletions"], m["changed_files"] = 1, 1, 0, 1
	}
	return m
}

// issueJSON is a pull request seen through the issues API.
func (s *Server) issueJSON(p *pull) map[string]any {
	rp := s.repo(p.owner, p.repo)
	api := s.URL() + fmt.Sprintf("repos/%s/%s/", p.owner, p.repo)
	labels := make([]map[string]any, 0, len(p.labels))
	for _, l := range p.labels {
		labels = append(labels, s.labelJSON(rp, l))
	}
	return map[string]any{
		"id": p.number + 2000, "node_id": fmt.Sprintf("I_%d", p.number), "url": api + fmt.Sprintf("issues/%d", p.number),
		"number": p.number, "state": p.state, "title": p.title, "body": p.body, "user": s.user("provider"),
		"labels": labels, "assignees": s.users(p.assignees), "locked": false, "comments": 0,
		"pull_request": map[string]any{"url": api + fmt.Sprintf("pulls/%d", p.number)},
		"created_at":   p.created, "updated_at": p.updated,
	}
}

func (s *Server) reviewJSON(p *pull, r review) map[string]any {
	return map[string]any{
		"id": r.id, "node_id": fmt.Sprintf("PRR_%d_%d", p.number, r.id), "user": s.user(r.user), "body": "",
		"state": r.state, "submitted_at": r.at, "commit_id": r.sha, "author_association": "COLLABORATOR",
		"pull_request_url": s.URL() + fmt.Sprintf("repos/%s/%s/pulls/%d", p.owner, p.repo, p.number),
	}
}

// combined is "Get the combined status for a specific reference": failure
// if any status is error or failure, pending if there are none or any is
// pending, else success (GitHub's rules).
func (s *Server) combined(rp *repo, sha string, st []status) map[string]any {
	state := "success"
	if len(st) == 0 {
		state = "pending"
	}
	list := make([]map[string]any, 0, len(st))
	for _, x := range st {
		switch x.state {
		case "error", "failure":
			state = "failure"
		case "pending":
			if state != "failure" {
				state = "pending"
			}
		}
		list = append(list, map[string]any{"id": x.id, "node_id": fmt.Sprintf("SC_%d", x.id), "state": x.state,
			"context": x.context, "description": nil, "target_url": nil, "created_at": x.at, "updated_at": x.at})
	}
	return map[string]any{"state": state, "statuses": list, "sha": sha, "total_count": len(st),
		"repository": s.repoJSON(rp), "commit_url": s.URL() + "repos/" + rp.owner + "/" + rp.name + "/commits/" + sha}
}

func checkRunsJSON(sha string, runs []checkRun) map[string]any {
	list := make([]map[string]any, 0, len(runs))
	for _, c := range runs {
		var concl any
		if c.conclusion != "" {
			concl = c.conclusion
		}
		list = append(list, map[string]any{"id": c.id, "head_sha": sha, "node_id": fmt.Sprintf("CR_%d", c.id),
			"name": c.name, "status": c.status, "conclusion": concl, "external_id": "", "pull_requests": []any{},
			"output": map[string]any{"title": nil, "summary": nil, "text": nil, "annotations_count": 0}})
	}
	return map[string]any{"total_count": len(runs), "check_runs": list}
}
