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

package gitlab

import (
	"regexp"
	"strconv"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// mergeRequest is the part of GitLab's merge request entity read here;
// field names are the REST API's.
type mergeRequest struct {
	IID          int64  `json:"iid"`
	Title        string `json:"title"`
	Description  string `json:"description"`
	State        string `json:"state"`
	SourceBranch string `json:"source_branch"`
	TargetBranch string `json:"target_branch"`
	SHA          string `json:"sha"`
	// SourceProjectID differs from TargetProjectID for a fork's merge
	// request.
	SourceProjectID int64 `json:"source_project_id"`
	TargetProjectID int64 `json:"target_project_id"`
	// MergeCommitSHA is null for a fast-forward merge, SquashCommitSHA when
	// no squash happened.
	MergeCommitSHA  *string  `json:"merge_commit_sha"`
	SquashCommitSHA *string  `json:"squash_commit_sha"`
	Draft           bool     `json:"draft"`
	WorkInProgress  bool     `json:"work_in_progress"`
	Labels          []string `json:"labels"`
	Reviewers       []user   `json:"reviewers"`
	Assignees       []user   `json:"assignees"`
	WebURL          string   `json:"web_url"`
	// DetailedMergeStatus replaced merge_status in GitLab 15.6.
	DetailedMergeStatus       string `json:"detailed_merge_status"`
	MergeWhenPipelineSucceeds bool   `json:"merge_when_pipeline_succeeds"`
	// AutoMerge is not in today's answers (gitlab-org/gitlab#547634 asks
	// for it); read should it appear.
	AutoMerge *bool `json:"auto_merge"`
	// Only in the single merge request's answer.
	HeadPipeline *pipeline `json:"head_pipeline"`
	// Pipeline is head_pipeline's deprecated predecessor.
	Pipeline *pipeline `json:"pipeline"`
	// Only with include_diverged_commits_count / include_rebase_in_progress.
	DivergedCommitsCount int    `json:"diverged_commits_count"`
	RebaseInProgress     bool   `json:"rebase_in_progress"`
	MergeError           string `json:"merge_error"`
}

type user struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

type pipeline struct {
	Status string `json:"status"`
}

// approvals is the part of the approvals answer read here.
type approvals struct {
	Approved      bool `json:"approved"`
	ApprovalsLeft int  `json:"approvals_left"`
	ApprovedBy    []struct {
		User user `json:"user"`
	} `json:"approved_by"`
}

// draftPrefix is GitLab's draft marker at the start of a title:
// MergeRequest::DRAFT_REGEX accepts "Draft:", "[Draft]" and "(Draft)" in any
// case, with the whitespace after them.
var draftPrefix = regexp.MustCompile(`(?i)^\s*(\[draft\]|\(draft\)|draft:)\s*`)

// draftTitle is the title to send for s: "Draft: " marks a draft.
func draftTitle(title string, draft bool) string {
	t := draftPrefix.ReplaceAllString(title, "")
	if draft {
		return "Draft: " + t
	}
	return t
}

// states maps GitLab's states; locked is a merge in progress.
var states = map[string]forge.State{
	"opened": forge.StateOpen,
	"locked": forge.StateOpen,
	"merged": forge.StateMerged,
	"closed": forge.StateClosed,
}

// checks maps a pipeline's status to the combined check state.
var checks = map[string]forge.Checks{
	"success":              forge.ChecksSuccess,
	"failed":               forge.ChecksFailure,
	"canceled":             forge.ChecksFailure,
	"created":              forge.ChecksPending,
	"waiting_for_resource": forge.ChecksPending,
	"preparing":            forge.ChecksPending,
	"pending":              forge.ChecksPending,
	"running":              forge.ChecksPending,
	"scheduled":            forge.ChecksPending,
	"manual":               forge.ChecksPending,
}

// computing are the detailed merge statuses GitLab answers before it has
// decided whether the merge request can be merged.
var computing = map[string]bool{
	"":                  true,
	"unchecked":         true,
	"checking":          true,
	"preparing":         true,
	"approvals_syncing": true,
}

// pullRequest is the forge's view of mr, a merge request of project
// (its full path). GitLab names a fork's project by id only in this
// answer, so HeadRepo is "project <id>" for a fork.
func (mr mergeRequest) pullRequest(project string) forge.PullRequest {
	pr := forge.PullRequest{
		Number:    mr.IID,
		URL:       mr.WebURL,
		State:     states[mr.State],
		Head:      mr.SourceBranch,
		Base:      mr.TargetBranch,
		HeadSHA:   mr.SHA,
		Title:     draftPrefix.ReplaceAllString(mr.Title, ""),
		Body:      mr.Description,
		Draft:     mr.Draft || mr.WorkInProgress,
		Labels:    nonEmpty(mr.Labels),
		Reviewers: usernames(mr.Reviewers),
		Assignees: usernames(mr.Assignees),
		AutoMerge: mr.MergeWhenPipelineSucceeds || (mr.AutoMerge != nil && *mr.AutoMerge),
	}
	pr.HeadInRepo = mr.SourceProjectID != 0 && mr.SourceProjectID == mr.TargetProjectID
	pr.HeadRepo = project
	if !pr.HeadInRepo {
		pr.HeadRepo = "project " + itoa(mr.SourceProjectID)
	}
	if pr.State == "" {
		// An unknown state is not final: never report Closed or Merged on
		// a guess.
		pr.State = forge.StateOpen
	}
	if pr.State == forge.StateMerged {
		pr.MergeCommit = mergeCommit(mr)
	}
	if !computing[mr.DetailedMergeStatus] {
		m := mr.DetailedMergeStatus == "mergeable"
		pr.Mergeable = &m
	}
	p := mr.HeadPipeline
	if p == nil {
		p = mr.Pipeline
	}
	if p != nil {
		pr.Checks = checks[p.Status]
	}
	return pr
}

// mergeCommit is the commit a merge left on the target: the merge commit,
// else the squash commit (a fast-forward of a squash), else the head itself
// (a fast-forward).
func mergeCommit(mr mergeRequest) string {
	for _, s := range []*string{mr.MergeCommitSHA, mr.SquashCommitSHA} {
		if s != nil && *s != "" {
			return *s
		}
	}
	return mr.SHA
}

// reviewDecision is GitLab's review state in GitHub's words.
func reviewDecision(detailed string, a approvals) string {
	switch {
	case detailed == "requested_changes":
		return "CHANGES_REQUESTED"
	case a.ApprovalsLeft > 0:
		return "REVIEW_REQUIRED"
	case a.Approved && len(a.ApprovedBy) > 0:
		return "APPROVED"
	}
	return ""
}

func usernames(us []user) []string {
	if len(us) == 0 {
		return nil
	}
	out := make([]string, 0, len(us))
	for _, u := range us {
		out = append(out, u.Username)
	}
	return out
}

// nonEmpty is nil for an empty list, so a set compares the same whether
// GitLab answered [] or left it out.
func nonEmpty(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return l
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
