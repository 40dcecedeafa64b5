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

// Package gitlab is a fake GitLab for tests: an httptest server answering
// the REST API v4 calls the provider's GitLab client makes, with the
// payloads, headers and refusals GitLab's documentation (and, where it is
// silent, its source) gives them, over in-memory state. Only tests import
// it.
//
// What it serves:
//
//	GET  /api/v4/projects/:id/merge_requests                  state, per_page (≤100), page;
//	                                                          X-Page, X-Per-Page, X-Next-Page,
//	                                                          X-Prev-Page, X-Total, X-Total-Pages,
//	                                                          Link; a weak ETag and 304 on If-None-Match
//	POST /api/v4/projects/:id/merge_requests                  201; 409 for a second open merge
//	                                                          request of a source branch; 422 for a
//	                                                          missing branch; 400 for a missing parameter
//	GET  /api/v4/projects/:id/merge_requests/:iid             head_pipeline; include_diverged_commits_count,
//	                                                          include_rebase_in_progress
//	PUT  /api/v4/projects/:id/merge_requests/:iid             title, description, labels,
//	                                                          reviewer_ids, assignee_ids, state_event
//	GET  /api/v4/projects/:id/merge_requests/:iid/approvals
//	PUT  /api/v4/projects/:id/merge_requests/:iid/merge       405, 422 "Branch cannot be merged",
//	                                                          auto_merge / merge_when_pipeline_succeeds
//	PUT  /api/v4/projects/:id/merge_requests/:iid/rebase      202 {"rebase_in_progress": true}
//	GET  /api/v4/users?username=
//	GET  /api/v4/projects/:id/hooks                           paginated as the list above, no ETag
//	POST /api/v4/projects/:id/hooks                           201; 400 without url; 422 "Invalid url given"
//	PUT  /api/v4/projects/:id/hooks/:hook_id                  200; a new url without token drops the token
//	DELETE /api/v4/projects/:id/hooks/:hook_id                204; 404 when gone
//
// Every request needs Token (PRIVATE-TOKEN or Authorization: Bearer), else
// 401; ReadOnlyToken (a read_api token) is refused writes with 403
// insufficient_scope; DeveloperToken (a Developer's) is refused the hooks
// with 403 Forbidden, as they need the Maintainer role; Throttle answers
// the next requests 429, ProxyError with a proxy's error page.
package gitlab

import (
	"crypto/sha1" //nolint:gosec // a fake commit id, not a secret.
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Credentials and the project the fake serves.
const (
	// Token is an api-scoped personal access token.
	Token = "glpat-provider-git-fake-api"
	// ReadOnlyToken is a read_api-scoped token: writes are 403.
	ReadOnlyToken = "glpat-provider-git-fake-read"
	// DeveloperToken is an api-scoped token of a user with the Developer
	// role: merge requests yes, the project's webhooks no (403).
	DeveloperToken = "glpat-provider-git-fake-developer"
	// Project is the project's full path.
	Project = "group/sub/project"
	// ProjectID is the project's numeric id, also accepted as :id.
	ProjectID = 42
)

// epoch is the fake's creation time of everything: its answers carry no
// wall clock.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// MergeRequest is a merge request as the fake holds it.
type MergeRequest struct {
	IID         int64
	Title       string
	Description string
	State       string // opened, closed, locked, merged
	// SourceProjectID is the project the source branch lives in: 0 (or
	// ProjectID) is this project, another id a fork's.
	SourceProjectID int64
	SourceBranch    string
	TargetBranch    string
	SHA             string
	Labels          []string
	Reviewers       []string
	Assignees       []string
	// MergeCommitSHA and SquashCommitSHA are set once merged.
	MergeCommitSHA  string
	SquashCommitSHA string
	// AutoMerge is merge_when_pipeline_succeeds.
	AutoMerge bool
	// Squash and RemoveSourceBranch are the last merge call's choices.
	Squash             bool
	RemoveSourceBranch bool
	// Pipeline is the head pipeline's status; "" is no pipeline.
	Pipeline string
	// MergeStatus, when set, overrides the computed detailed_merge_status.
	MergeStatus       string
	ApprovalsRequired int
	ApprovedBy        []string
	Diverged          int
	RebaseInProgress  bool
	MergeError        string
	// failMerge, when set, is the merge_error of the next merge call.
	failMerge string
	created   time.Time
}

// Draft is GitLab's draft status: a "Draft:", "[Draft]" or "(Draft)" title.
func (m MergeRequest) Draft() bool {
	t := strings.ToLower(strings.TrimSpace(m.Title))
	return strings.HasPrefix(t, "draft:") || strings.HasPrefix(t, "[draft]") || strings.HasPrefix(t, "(draft)")
}

// Server is a fake GitLab.
//
// mu guards every field below it.
type Server struct {
	srv *httptest.Server
	mux *http.ServeMux

	mu       sync.Mutex
	branches map[string]string
	users    map[string]int64
	logins   map[int64]string
	mrs      map[int64]*MergeRequest
	lastIID  int64
	hooks    map[int64]*Hook
	lastHook int64
	commits  int
	requests map[string]int
	etags    bool
	// autoParams are the merge parameters this GitLab reads as auto-merge.
	autoParams []string
	throttle   []throttle
}

// NewServer starts a fake GitLab with a main branch and user "root"; it
// stops when tb ends.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{
		branches:   map[string]string{},
		users:      map[string]int64{},
		logins:     map[int64]string{},
		mrs:        map[int64]*MergeRequest{},
		hooks:      map[int64]*Hook{},
		requests:   map[string]int{},
		etags:      true,
		autoParams: []string{"auto_merge", "merge_when_pipeline_succeeds"},
	}
	s.mux = s.routes()
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.srv.Close)
	s.AddBranch("main")
	s.AddUser("root")
	return s
}

// URL is the fake's base URL (http://127.0.0.1:port).
func (s *Server) URL() string { return s.srv.URL }

// APIURL is the API's base, as a configuration's spec.forge.apiURL.
func (s *Server) APIURL() string { return s.srv.URL + "/api/v4/" }

// Client is an HTTP client for the fake.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// AddBranch creates a branch, or pushes a new commit onto it; open merge
// requests from it see the new head. It returns the head's SHA.
func (s *Server) AddBranch(name string) string {
	s.mu.Lock()
	sha := s.commit()
	s.mu.Unlock()
	s.SetBranch(name, sha)
	return sha
}

// SetBranch points a branch at sha, as a push of the provider's would;
// open merge requests from it see the new head.
func (s *Server) SetBranch(name, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.branches[name] = sha
	for _, m := range s.mrs {
		if m.SourceBranch == name && m.State == "opened" && m.inProject() {
			m.SHA = sha
		}
	}
}

// Branch returns a branch's head and whether it exists.
func (s *Server) Branch(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha, ok := s.branches[name]
	return sha, ok
}

// AddUser adds a user and returns its id.
func (s *Server) AddUser(username string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.users[strings.ToLower(username)]; ok {
		return id
	}
	id := int64(len(s.users) + 1)
	s.users[strings.ToLower(username)] = id
	s.logins[id] = username
	return id
}

// MR returns a copy of merge request iid.
func (s *Server) MR(iid int64) (MergeRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.mrs[iid]
	if !ok {
		return MergeRequest{}, false
	}
	c := *m
	c.Labels = append([]string(nil), m.Labels...)
	c.Reviewers = append([]string(nil), m.Reviewers...)
	c.Assignees = append([]string(nil), m.Assignees...)
	c.ApprovedBy = append([]string(nil), m.ApprovedBy...)
	return c, true
}

// OpenFromFork opens a merge request as a stranger would, from branch
// source at sha of the fork forkID into target of this project.
func (s *Server) OpenFromFork(forkID int64, source, sha, target, title string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.open(source, target, title)
	m.SourceProjectID, m.SHA = forkID, sha
	return m.IID
}

// inProject says the source branch lives in this project.
func (m *MergeRequest) inProject() bool {
	return m.SourceProjectID == 0 || m.SourceProjectID == ProjectID
}

// Open adds an open merge request as a person would, bypassing the API.
func (s *Server) Open(source, target, title string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open(source, target, title).IID
}

// Merge merges merge request iid as a reviewer would, whatever its checks.
func (s *Server) Merge(iid int64) {
	s.edit(iid, func(m *MergeRequest) { s.mergeNow(m) })
}

// EditTitle changes the title as a person would.
func (s *Server) EditTitle(iid int64, title string) {
	s.edit(iid, func(m *MergeRequest) { m.Title = title })
}

// EditDescription changes the description as a person would.
func (s *Server) EditDescription(iid int64, d string) {
	s.edit(iid, func(m *MergeRequest) { m.Description = d })
}

// SetLabels sets the labels as a person would.
func (s *Server) SetLabels(iid int64, labels ...string) {
	s.edit(iid, func(m *MergeRequest) { m.Labels = labels })
}

// Close closes merge request iid as a person would.
func (s *Server) Close(iid int64) {
	s.edit(iid, func(m *MergeRequest) { m.State = "closed" })
}

// SetPipeline sets the head pipeline's status (success, failed, running,
// …). A success merges a merge request set to auto-merge, as GitLab does.
func (s *Server) SetPipeline(iid int64, status string) {
	s.edit(iid, func(m *MergeRequest) {
		m.Pipeline = status
		if m.AutoMerge && s.detailed(m) == "mergeable" {
			s.mergeNow(m)
		}
	})
}

// SetMergeStatus overrides detailed_merge_status ("conflict",
// "requested_changes", "checking", …); "" computes it again.
func (s *Server) SetMergeStatus(iid int64, status string) {
	s.edit(iid, func(m *MergeRequest) { m.MergeStatus = status })
}

// RequireApprovals sets the approvals a merge needs.
func (s *Server) RequireApprovals(iid int64, n int) {
	s.edit(iid, func(m *MergeRequest) { m.ApprovalsRequired = n })
}

// Approve records username's approval.
func (s *Server) Approve(iid int64, username string) {
	s.edit(iid, func(m *MergeRequest) { m.ApprovedBy = append(m.ApprovedBy, username) })
}

// SetDiverged sets how many commits the target has that the source lacks.
func (s *Server) SetDiverged(iid int64, n int) {
	s.edit(iid, func(m *MergeRequest) { m.Diverged = n })
}

// FinishRebase ends a rebase GitLab runs in the background: the source
// branch gets a new head, no longer behind the target. A non-empty
// failure leaves it behind with that merge_error instead.
func (s *Server) FinishRebase(iid int64, failure string) {
	s.edit(iid, func(m *MergeRequest) {
		m.RebaseInProgress = false
		if failure != "" {
			m.MergeError = failure
			return
		}
		m.MergeError, m.Diverged = "", 0
		m.SHA = s.commit()
		s.branches[m.SourceBranch] = m.SHA
	})
}

// FailMerge makes the next merge call of iid fail as GitLab's merge
// service does (a pre-receive hook, a lost race): 200 with the merge
// request still open and merge_error set.
func (s *Server) FailMerge(iid int64, mergeError string) {
	s.edit(iid, func(m *MergeRequest) { m.failMerge = mergeError })
}

// SetAutoMergeParams sets which merge parameters ask for auto-merge, as a
// GitLab version reads them: both (17.11 and later, the default), only
// "merge_when_pipeline_succeeds" (before 17.11), or only "auto_merge" (once
// the deprecated one is gone). Others are ignored, as Grape ignores unknown
// parameters.
func (s *Server) SetAutoMergeParams(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.autoParams = names
}

// SetETags turns ETags (and 304 answers) on the list on or off.
func (s *Server) SetETags(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.etags = on
}

// Requests returns how many requests each route answered, keyed like
// "GET /projects/:id/merge_requests", and "" for the total.
func (s *Server) Requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.requests))
	for k, v := range s.requests {
		out[k] = v
	}
	return out
}

// ResetRequests sets every counter to zero.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = map[string]int{}
}

func (s *Server) edit(iid int64, fn func(*MergeRequest)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.mrs[iid]
	if !ok {
		panic(fmt.Sprintf("fake GitLab: no merge request !%d", iid))
	}
	fn(m)
}

// commit is a new fake commit id. Callers hold mu.
func (s *Server) commit() string {
	s.commits++
	h := sha1.Sum([]byte(fmt.Sprintf("commit %d", s.commits))) //nolint:gosec // a fake commit id.
	return hex.EncodeToString(h[:])
}

// open adds a merge request. Callers hold mu.
func (s *Server) open(source, target, title string) *MergeRequest {
	s.lastIID++
	m := &MergeRequest{
		IID: s.lastIID, Title: title, State: "opened",
		SourceBranch: source, TargetBranch: target, SHA: s.branches[source],
		created: epoch.Add(time.Duration(s.lastIID) * time.Second),
	}
	s.mrs[m.IID] = m
	return m
}

// mergeNow merges m. Callers hold mu.
func (s *Server) mergeNow(m *MergeRequest) {
	m.State = "merged"
	m.AutoMerge = false
	if m.Squash {
		m.SquashCommitSHA = s.commit()
	}
	m.MergeCommitSHA = s.commit()
	s.branches[m.TargetBranch] = m.MergeCommitSHA
	if m.RemoveSourceBranch && m.inProject() {
		delete(s.branches, m.SourceBranch)
	}
}

// detailed is GitLab's detailed_merge_status of m. Callers hold mu.
func (s *Server) detailed(m *MergeRequest) string {
	switch {
	case m.MergeStatus != "":
		return m.MergeStatus
	case m.State != "opened":
		return "not_open"
	case m.Draft():
		return "draft_status"
	case m.Pipeline == "failed" || m.Pipeline == "canceled":
		return "ci_must_pass"
	case m.Pipeline != "" && m.Pipeline != "success" && m.Pipeline != "skipped":
		return "ci_still_running"
	case len(m.ApprovedBy) < m.ApprovalsRequired:
		return "not_approved"
	}
	return "mergeable"
}
