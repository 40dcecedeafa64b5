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
	"crypto/sha1" //nolint:gosec // a fake label id, not a secret.
	"fmt"
	"strconv"
	"strings"
)

// payload is p as Azure's GitPullRequest. Callers hold mu.
func (s *Server) payload(p *PullRequest) map[string]any {
	base := s.srv.URL + "/" + Org + "/"
	api := base + ProjectID + "/_apis/git/repositories/" + RepoID
	v := map[string]any{
		"pullRequestId": p.ID, "codeReviewId": p.ID, "status": p.Status,
		"createdBy":    map[string]any{"id": MeID, "displayName": "provider-git"},
		"creationDate": "2026-01-02T03:04:05.000Z",
		"title":        p.Title, "description": p.Description, "isDraft": p.Draft,
		"sourceRefName": "refs/heads/" + p.Source, "targetRefName": "refs/heads/" + p.Target,
		"mergeStatus": mergeStatus(p), "mergeId": fmt.Sprintf("f5fc8381-3fb2-49fe-8a0d-%012d", p.ID),
		"lastMergeSourceCommit": map[string]any{"commitId": p.Head, "url": api + "/commits/" + p.Head},
		"url":                   api + "/pullRequests/" + strconv.FormatInt(p.ID, 10),
		"supportsIterations":    true,
		"artifactId":            "vstfs:///Git/PullRequestId/" + ProjectID + "%2f" + RepoID + "%2f" + strconv.FormatInt(p.ID, 10),
		"repository":            repoPayload(base, Project, ProjectID, Repo, RepoID),
	}
	if p.MergeCommit != "" {
		v["lastMergeCommit"] = map[string]any{"commitId": p.MergeCommit, "url": api + "/commits/" + p.MergeCommit}
		v["closedDate"] = "2026-01-02T04:05:06.000Z"
	}
	if p.Fork != "" {
		project, name, _ := strings.Cut(p.Fork, "/")
		v["forkSource"] = map[string]any{"name": "refs/heads/" + p.Source,
			"repository": repoPayload(base, project, "0a7e2a52-8b2c-4a4f-9d7e-000000000002", name, "0a7e2a52-8b2c-4a4f-9d7e-000000000003")}
	}
	reviewers := make([]any, 0, len(p.Reviewers))
	for _, r := range p.Reviewers {
		reviewers = append(reviewers, reviewerPayload(r))
	}
	v["reviewers"] = reviewers
	labels := make([]any, 0, len(p.Labels))
	for _, l := range p.Labels {
		labels = append(labels, map[string]any{"id": labelID(l), "name": l, "active": true})
	}
	v["labels"] = labels
	if p.AutoCompleteSetBy != "" {
		v["autoCompleteSetBy"] = map[string]any{"id": p.AutoCompleteSetBy, "displayName": "provider-git"}
	}
	if p.MergeStrategy != "" || p.AutoCompleteSetBy != "" {
		v["completionOptions"] = map[string]any{"mergeStrategy": p.MergeStrategy, "deleteSourceBranch": p.DeleteSourceBranch}
	}
	return v
}

func repoPayload(base, project, projectID, name, id string) map[string]any {
	return map[string]any{
		"id": id, "name": name, "url": base + projectID + "/_apis/git/repositories/" + id,
		"project":   map[string]any{"id": projectID, "name": project, "state": "wellFormed", "visibility": "private"},
		"remoteUrl": base + project + "/_git/" + name, "webUrl": base + project + "/_git/" + name,
		"sshUrl": "git@ssh.dev.azure.com:v3/" + Org + "/" + project + "/" + name,
	}
}

func reviewerPayload(r Reviewer) map[string]any {
	return map[string]any{
		"id": r.ID, "uniqueName": r.UniqueName, "displayName": r.DisplayName,
		"vote": r.Vote, "isRequired": r.Required, "hasDeclined": false, "isFlagged": false,
	}
}

// mergeStatus is p's: its override, else succeeded.
func mergeStatus(p *PullRequest) string {
	if p.MergeStatus != "" {
		return p.MergeStatus
	}
	return "succeeded"
}

// labelID is a stable fake id of a label name.
func labelID(name string) string {
	h := sha1.Sum([]byte(strings.ToLower(name))) //nolint:gosec // a fake id.
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
