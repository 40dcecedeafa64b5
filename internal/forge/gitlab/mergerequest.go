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

	gl "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

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

// pullRequest is the forge's view of mr, a merge request of project (its
// full path) as the list answers it. GitLab names a fork's project by id
// only in this answer, so HeadRepo is "project <id>" for a fork.
func pullRequest(mr *gl.BasicMergeRequest, project string) forge.PullRequest {
	pr := forge.PullRequest{
		Number:    mr.IID,
		URL:       mr.WebURL,
		State:     states[mr.State],
		Head:      mr.SourceBranch,
		Base:      mr.TargetBranch,
		HeadSHA:   mr.SHA,
		Title:     draftPrefix.ReplaceAllString(mr.Title, ""),
		Body:      mr.Description,
		Draft:     mr.Draft,
		Labels:    nonEmpty(mr.Labels),
		Reviewers: usernames(mr.Reviewers),
		Assignees: usernames(mr.Assignees),
		AutoMerge: mr.MergeWhenPipelineSucceeds,
	}
	// A fork's merge request has the fork as its source project: never
	// taken for the project's own, whatever its branch is called.
	pr.HeadInRepo = mr.SourceProjectID != 0 && mr.SourceProjectID == mr.TargetProjectID
	pr.HeadRepo = project
	if !pr.HeadInRepo {
		pr.HeadRepo = "project " + strconv.FormatInt(mr.SourceProjectID, 10)
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
	return pr
}

// detailed is the view of the single merge request's answer: the list's,
// with the head pipeline's status as its checks.
func detailed(mr *gl.MergeRequest, project string) forge.PullRequest {
	pr := pullRequest(&mr.BasicMergeRequest, project)
	switch {
	case mr.HeadPipeline != nil:
		pr.Checks = checks[mr.HeadPipeline.Status]
	case mr.Pipeline != nil:
		// pipeline is head_pipeline's deprecated predecessor.
		pr.Checks = checks[mr.Pipeline.Status]
	}
	return pr
}

// mergeCommit is the commit a merge left on the target: the merge commit,
// else the squash commit (a fast-forward of a squash), else the head itself
// (a fast-forward).
func mergeCommit(mr *gl.BasicMergeRequest) string {
	for _, s := range []string{mr.MergeCommitSHA, mr.SquashCommitSHA} {
		if s != "" {
			return s
		}
	}
	return mr.SHA
}

// reviewDecision is GitLab's review state in GitHub's words.
func reviewDecision(detailed string, a *gl.MergeRequestApprovals) string {
	switch {
	case detailed == "requested_changes":
		return "CHANGES_REQUESTED"
	case a == nil:
		return ""
	case a.ApprovalsLeft > 0:
		return "REVIEW_REQUIRED"
	case a.Approved && len(a.ApprovedBy) > 0:
		return "APPROVED"
	}
	return ""
}

func usernames(us []*gl.BasicUser) []string {
	if len(us) == 0 {
		return nil
	}
	out := make([]string, 0, len(us))
	for _, u := range us {
		if u != nil {
			out = append(out, u.Username)
		}
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
