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
	"fmt"
	"strings"
	"time"
)

// The JSON the fake answers, with GitLab's field names (doc/api/merge_requests.md,
// doc/api/users.md, doc/api/merge_request_approvals.md).

type userJSON struct {
	ID        int64  `json:"id"`
	Username  string `json:"username"`
	Name      string `json:"name"`
	State     string `json:"state"`
	Locked    bool   `json:"locked"`
	AvatarURL string `json:"avatar_url"`
	WebURL    string `json:"web_url"`
}

type pipelineJSON struct {
	ID        int64  `json:"id"`
	IID       int64  `json:"iid"`
	ProjectID int64  `json:"project_id"`
	SHA       string `json:"sha"`
	Ref       string `json:"ref"`
	Status    string `json:"status"`
	Source    string `json:"source"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	WebURL    string `json:"web_url"`
}

type referencesJSON struct {
	Short    string `json:"short"`
	Relative string `json:"relative"`
	Full     string `json:"full"`
}

// mrJSON is the merge request entity of the list; the single merge
// request's answer adds the fields of mrDetailJSON.
type mrJSON struct {
	ID                          int64          `json:"id"`
	IID                         int64          `json:"iid"`
	ProjectID                   int64          `json:"project_id"`
	Title                       string         `json:"title"`
	Description                 string         `json:"description"`
	State                       string         `json:"state"`
	CreatedAt                   string         `json:"created_at"`
	UpdatedAt                   string         `json:"updated_at"`
	MergedBy                    *userJSON      `json:"merged_by"`
	MergeUser                   *userJSON      `json:"merge_user"`
	MergedAt                    *string        `json:"merged_at"`
	ClosedBy                    *userJSON      `json:"closed_by"`
	ClosedAt                    *string        `json:"closed_at"`
	TargetBranch                string         `json:"target_branch"`
	SourceBranch                string         `json:"source_branch"`
	UserNotesCount              int            `json:"user_notes_count"`
	Upvotes                     int            `json:"upvotes"`
	Downvotes                   int            `json:"downvotes"`
	Author                      userJSON       `json:"author"`
	Assignees                   []userJSON     `json:"assignees"`
	Assignee                    *userJSON      `json:"assignee"`
	Reviewers                   []userJSON     `json:"reviewers"`
	SourceProjectID             int64          `json:"source_project_id"`
	TargetProjectID             int64          `json:"target_project_id"`
	Labels                      []string       `json:"labels"`
	Draft                       bool           `json:"draft"`
	WorkInProgress              bool           `json:"work_in_progress"`
	Milestone                   any            `json:"milestone"`
	MergeWhenPipelineSucceeds   bool           `json:"merge_when_pipeline_succeeds"`
	MergeStatus                 string         `json:"merge_status"`
	DetailedMergeStatus         string         `json:"detailed_merge_status"`
	SHA                         string         `json:"sha"`
	MergeCommitSHA              *string        `json:"merge_commit_sha"`
	SquashCommitSHA             *string        `json:"squash_commit_sha"`
	DiscussionLocked            *bool          `json:"discussion_locked"`
	ShouldRemoveSourceBranch    *bool          `json:"should_remove_source_branch"`
	ForceRemoveSourceBranch     bool           `json:"force_remove_source_branch"`
	Reference                   string         `json:"reference"`
	References                  referencesJSON `json:"references"`
	WebURL                      string         `json:"web_url"`
	Squash                      bool           `json:"squash"`
	SquashOnMerge               bool           `json:"squash_on_merge"`
	HasConflicts                bool           `json:"has_conflicts"`
	BlockingDiscussionsResolved bool           `json:"blocking_discussions_resolved"`
}

type mrDetailJSON struct {
	mrJSON
	Subscribed           bool          `json:"subscribed"`
	ChangesCount         string        `json:"changes_count"`
	LatestBuildStartedAt *string       `json:"latest_build_started_at"`
	FirstContribution    bool          `json:"first_contribution"`
	Pipeline             *pipelineJSON `json:"pipeline"`
	HeadPipeline         *pipelineJSON `json:"head_pipeline"`
	DiffRefs             any           `json:"diff_refs"`
	MergeError           *string       `json:"merge_error"`
	User                 struct {
		CanMerge bool `json:"can_merge"`
	} `json:"user"`
	DivergedCommitsCount *int  `json:"diverged_commits_count,omitempty"`
	RebaseInProgress     *bool `json:"rebase_in_progress,omitempty"`
}

type approvedByJSON struct {
	User userJSON `json:"user"`
}

type approvalsJSON struct {
	ID                             int64            `json:"id"`
	IID                            int64            `json:"iid"`
	ProjectID                      int64            `json:"project_id"`
	Title                          string           `json:"title"`
	Description                    string           `json:"description"`
	State                          string           `json:"state"`
	CreatedAt                      string           `json:"created_at"`
	UpdatedAt                      string           `json:"updated_at"`
	MergeStatus                    string           `json:"merge_status"`
	Approved                       bool             `json:"approved"`
	ApprovalsRequired              int              `json:"approvals_required"`
	ApprovalsLeft                  int              `json:"approvals_left"`
	RequirePasswordToApprove       bool             `json:"require_password_to_approve"`
	ApprovedBy                     []approvedByJSON `json:"approved_by"`
	SuggestedApprovers             []userJSON       `json:"suggested_approvers"`
	Approvers                      []userJSON       `json:"approvers"`
	ApproverGroups                 []any            `json:"approver_groups"`
	UserHasApproved                bool             `json:"user_has_approved"`
	UserCanApprove                 bool             `json:"user_can_approve"`
	HasApprovalRules               bool             `json:"has_approval_rules"`
	MergeRequestApproversAvailable bool             `json:"merge_request_approvers_available"`
	MultipleApprovalRulesAvailable bool             `json:"multiple_approval_rules_available"`
	InvalidApproversRules          []any            `json:"invalid_approvers_rules"`
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// user is the entity of a user name. Callers hold mu.
func (s *Server) user(name string) userJSON {
	return userJSON{
		ID: s.users[strings.ToLower(name)], Username: name, Name: name, State: "active",
		AvatarURL: s.srv.URL + "/uploads/-/system/user/avatar/" + name + ".png",
		WebURL:    s.srv.URL + "/" + name,
	}
}

func (s *Server) userList(names []string) []userJSON {
	out := make([]userJSON, 0, len(names))
	for _, n := range names {
		out = append(out, s.user(n))
	}
	return out
}

// entity is m as the list answers it. Callers hold mu.
func (s *Server) entity(m *MergeRequest) mrJSON {
	detailed := s.detailed(m)
	mergeStatus := "can_be_merged"
	if detailed == "conflict" {
		mergeStatus = "cannot_be_merged"
	}
	labels := m.Labels
	if labels == nil {
		labels = []string{}
	}
	e := mrJSON{
		ID: 1000 + m.IID, IID: m.IID, ProjectID: ProjectID,
		Title: m.Title, Description: m.Description, State: m.State,
		CreatedAt: stamp(m.created), UpdatedAt: stamp(m.created),
		TargetBranch: m.TargetBranch, SourceBranch: m.SourceBranch,
		Author:    s.user("root"),
		Assignees: s.userList(m.Assignees), Reviewers: s.userList(m.Reviewers),
		SourceProjectID: ProjectID, TargetProjectID: ProjectID,
		Labels: labels, Draft: m.Draft(), WorkInProgress: m.Draft(),
		MergeWhenPipelineSucceeds: m.AutoMerge,
		MergeStatus:               mergeStatus, DetailedMergeStatus: detailed,
		SHA:       m.SHA,
		Reference: fmt.Sprintf("!%d", m.IID),
		References: referencesJSON{
			Short: fmt.Sprintf("!%d", m.IID), Relative: fmt.Sprintf("!%d", m.IID),
			Full: fmt.Sprintf("%s!%d", Project, m.IID),
		},
		WebURL:                      fmt.Sprintf("%s/%s/-/merge_requests/%d", s.srv.URL, Project, m.IID),
		Squash:                      m.Squash,
		HasConflicts:                detailed == "conflict",
		BlockingDiscussionsResolved: true,
	}
	if !m.inProject() {
		e.SourceProjectID = m.SourceProjectID
	}
	if len(e.Assignees) > 0 {
		e.Assignee = &e.Assignees[0]
	}
	if m.MergeCommitSHA != "" {
		e.MergeCommitSHA = &m.MergeCommitSHA
	}
	if m.SquashCommitSHA != "" {
		e.SquashCommitSHA = &m.SquashCommitSHA
	}
	if m.State == "merged" {
		root := s.user("root")
		at := stamp(m.created.Add(time.Minute))
		e.MergedBy, e.MergeUser, e.MergedAt = &root, &root, &at
	}
	if m.State == "closed" {
		root := s.user("root")
		at := stamp(m.created.Add(time.Minute))
		e.ClosedBy, e.ClosedAt = &root, &at
	}
	return e
}

// detail is m as the single merge request's answer has it. Callers hold mu.
func (s *Server) detail(m *MergeRequest, diverged, rebase bool) mrDetailJSON {
	d := mrDetailJSON{mrJSON: s.entity(m), ChangesCount: "1"}
	d.User.CanMerge = true
	if m.Pipeline != "" {
		p := &pipelineJSON{
			ID: 5000 + m.IID, IID: m.IID, ProjectID: ProjectID, SHA: m.SHA, Ref: m.SourceBranch,
			Status: m.Pipeline, Source: "merge_request_event",
			CreatedAt: stamp(m.created), UpdatedAt: stamp(m.created),
			WebURL: fmt.Sprintf("%s/%s/-/pipelines/%d", s.srv.URL, Project, 5000+m.IID),
		}
		d.Pipeline, d.HeadPipeline = p, p
	}
	if m.MergeError != "" {
		d.MergeError = &m.MergeError
	}
	if diverged {
		d.DivergedCommitsCount = &m.Diverged
	}
	if rebase {
		d.RebaseInProgress = &m.RebaseInProgress
	}
	return d
}

// approvals is m's approval state. Callers hold mu.
func (s *Server) approvals(m *MergeRequest) approvalsJSON {
	left := max(m.ApprovalsRequired-len(m.ApprovedBy), 0)
	a := approvalsJSON{
		ID: 1000 + m.IID, IID: m.IID, ProjectID: ProjectID, Title: m.Title,
		Description: m.Description, State: m.State,
		CreatedAt: stamp(m.created), UpdatedAt: stamp(m.created),
		MergeStatus: "can_be_merged", Approved: left == 0,
		ApprovalsRequired: m.ApprovalsRequired, ApprovalsLeft: left,
		ApprovedBy: []approvedByJSON{}, SuggestedApprovers: []userJSON{}, Approvers: []userJSON{},
		ApproverGroups: []any{}, UserCanApprove: true, HasApprovalRules: m.ApprovalsRequired > 0,
		MergeRequestApproversAvailable: true, MultipleApprovalRulesAvailable: true,
		InvalidApproversRules: []any{},
	}
	for _, u := range m.ApprovedBy {
		a.ApprovedBy = append(a.ApprovedBy, approvedByJSON{User: s.user(u)})
	}
	return a
}
