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

// Package azure is a fake Azure DevOps for tests: an httptest server
// answering the Git REST API 7.1 and Policy API calls the provider's Azure
// DevOps client makes, with the payloads, status codes and headers of
// Microsoft's REST reference (and, for the status of a refusal, the
// exception table of Azure DevOps Server 2022's Git API), over in-memory
// state. Only tests import it.
//
// What it serves, under /{Org}/ (project and repository by name or id):
//
//	GET    _apis/connectionData                          authenticatedUser
//	GET    _apis/identities?searchFilter=General&filterValue=
//	GET    {project}/_apis/git/repositories/{repo}/pullrequests
//	       searchCriteria.status, $top (at most PageSize), $skip; a
//	       description cut at 400 characters
//	POST   …/pullrequests                                201; 409 TF401179
//	       (GitPullRequestExistsException) for a second active one of the
//	       same source and target; 400 TF401398 for a missing branch
//	GET    …/pullrequests/{id}
//	PATCH  …/pullrequests/{id}                           title, description,
//	       isDraft, status (abandoned; completed with lastMergeSourceCommit:
//	       409 GitPullRequestStaleException when it is not the head, 403
//	       GitPullRequestUpdateRejectedByPolicyException while a blocking
//	       policy or a required reviewer has not approved), autoCompleteSetBy
//	       (the empty GUID cancels it) and completionOptions; auto-complete
//	       names no commit: it completes whatever head the source branch
//	       has once nothing blocks, a head pushed after it was set too
//	POST   …/pullrequests/{id}/labels                    (-preview)
//	DELETE …/pullrequests/{id}/labels/{name}             (-preview)
//	PUT    …/pullrequests/{id}/reviewers/{reviewerId}
//	GET    {project}/_apis/policy/evaluations?artifactId= (-preview), paged
//	       by x-ms-continuationtoken
//	GET    {project}/_apis/git/repositories/{repo}      ids of both
//	GET    _apis/hooks/subscriptions, POST, GET/PUT/DELETE …/{id};
//	POST   _apis/hooks/subscriptionsquery
//	       (hooks.go: a second user's token, and one without the Service
//	       Hooks scope)
//
// Every request needs api-version (a preview resource its -preview flag)
// and the PAT as basic authentication (any user name) or BearerToken;
// without them Azure's answers: 401, or with no X-TFS-FedAuthRedirect
// header 203 and the sign-in page. Throttle answers the next requests 429
// with Retry-After and the X-RateLimit-* headers, Delay one 200 with them;
// RedirectNext sends the next request elsewhere. Where Azure's reference
// gives no words (a policy's refusal), the fake's are its own, under
// Azure's typeKey.
package azure

import (
	"crypto/sha1" //nolint:gosec // a fake commit id, not a secret.
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The organization, project, repository and credentials the fake serves.
const (
	Org       = "fabrikam"
	Project   = "Platform"
	ProjectID = "6ce954b1-ce1f-45d1-b94d-e6bf2464ba2c"
	Repo      = "gitops"
	RepoID    = "3411ebc1-d5aa-464f-9615-0b527bc66719"
	// PAT is a personal access token with Code (Read & write).
	PAT = "provider-git-fake-azure-devops-pat-0123456789abcdef"
	// BearerToken is an Entra ID access token (its form: a JWT).
	BearerToken = "eyJ0eXAiOiJKV1QifQ.eyJhdWQiOiI0OTliODRhYyJ9.c2ln"
	// MeID is the identity both tokens authenticate.
	MeID = "d6245f20-2af8-44f4-9451-8107cb2767db"
	// NoIdentity is the empty GUID: autoCompleteSetBy.id set to it cancels
	// auto-complete.
	NoIdentity = "00000000-0000-0000-0000-000000000000"
)

// Policy type ids (the built-in ones every organization has).
const (
	PolicyBuild            = "0609b952-1397-4640-95ec-e00a01b2c241"
	PolicyStatus           = "cbdc66da-9728-4af8-aada-9a5a32e4a226"
	PolicyMinimumReviewers = "fa4e907d-c16b-4a4c-9dfa-4906e5d171dd"
	PolicyRequiredReviewer = "fd2167ab-b0be-447a-8ec8-39368250530e"
)

// Reviewer is a reviewer of a pull request.
type Reviewer struct {
	ID, UniqueName, DisplayName string
	Vote                        int
	Required                    bool
}

// Policy is a policy's evaluation on a pull request.
type Policy struct {
	Type, Name string
	// Status is queued, running, approved, rejected, broken or
	// notApplicable.
	Status   string
	Blocking bool
}

// PullRequest is a pull request as the fake holds it.
type PullRequest struct {
	ID          int64
	Title       string
	Description string
	Draft       bool
	Source      string // branch name, without refs/heads/
	Target      string
	Status      string // active, completed, abandoned
	Head        string
	MergeCommit string
	// Fork is the repository the source lives in, "" for this one.
	Fork      string
	Labels    []string
	Reviewers []Reviewer
	Policies  []Policy
	// MergeStatus, when set, overrides succeeded.
	MergeStatus string
	// AutoCompleteSetBy is the identity that set auto-complete, "" none.
	AutoCompleteSetBy string
	// AutoCompleteSetAt is the head when auto-complete was last set: the
	// fake's record for tests (Azure reports no such thing, and
	// completes whatever head it then finds).
	AutoCompleteSetAt  string
	MergeStrategy      string
	DeleteSourceBranch bool
}

// Request is one request as the fake answered it.
type Request struct {
	Method, Path, Query string
	Status              int
	Auth                string
}

// Server is a fake Azure DevOps.
//
// mu guards every field below it.
type Server struct {
	srv *httptest.Server
	mux *http.ServeMux

	mu         sync.Mutex
	branches   map[string]string
	prs        map[int64]*PullRequest
	identities map[string]Reviewer
	next       int64
	commits    int
	pageSize   int
	throttle   []*time.Duration // nil: the request is served
	delay      time.Duration
	redirect   string
	requests   []Request
	subs       []Subscription
	nextSub    int
	dropped    []string
}

// An Option configures a Server.
type Option func(*options)

type options struct{ tls bool }

// WithTLS serves HTTPS (Client trusts it), as Azure DevOps does.
func WithTLS() Option { return func(o *options) { o.tls = true } }

// NewServer starts a fake Azure DevOps with a main branch and the users
// jane@fabrikam.com and raj@fabrikam.com; it stops when tb ends.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	var o options
	for _, fn := range opts {
		fn(&o)
	}
	s := &Server{branches: map[string]string{}, prs: map[int64]*PullRequest{}, identities: map[string]Reviewer{}, pageSize: 100}
	s.mux = s.routes()
	if o.tls {
		s.srv = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	} else {
		s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	}
	tb.Cleanup(s.srv.Close)
	s.AddBranch("main")
	s.AddIdentity("jane@fabrikam.com", "Jane Doe", "4e2a1bd2-47a2-46a3-9b0c-3b1b4bfc1f84")
	s.AddIdentity("raj@fabrikam.com", "Raj Kumar", "8c6d0f63-ec62-4c4f-b3c9-4a9d2a11f8b0")
	return s
}

// URL is the fake's base URL (http://127.0.0.1:port).
func (s *Server) URL() string { return s.srv.URL }

// Client is an HTTP client that trusts the fake.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// APIURL is the organization's URL, as a configuration's spec.forge.apiURL.
func (s *Server) APIURL() string { return s.srv.URL + "/" + Org + "/" }

// AddIdentity adds an identity the identities search finds.
func (s *Server) AddIdentity(uniqueName, displayName, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.identities[strings.ToLower(uniqueName)] = Reviewer{ID: id, UniqueName: uniqueName, DisplayName: displayName}
}

// AddBranch creates a branch, or pushes a new commit onto it; active pull
// requests from it see the new head. It returns the head.
func (s *Server) AddBranch(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha := s.commit()
	s.branches[name] = sha
	for _, p := range s.prs {
		if p.Source == name && p.Fork == "" && p.Status == "active" {
			p.Head = sha
		}
	}
	return sha
}

// SetBranch points a branch at sha, as a push of the provider's would.
func (s *Server) SetBranch(name, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.branches[name] = sha
	for _, p := range s.prs {
		if p.Source == name && p.Fork == "" && p.Status == "active" {
			p.Head = sha
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

// Open adds an active pull request as a person would, bypassing the API.
func (s *Server) Open(source, target, title string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open(source, target, title).ID
}

// OpenFromFork opens a pull request as a stranger would, from branch
// source at sha of the fork (project/repository) into target.
func (s *Server) OpenFromFork(fork, source, sha, target, title string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.open(source, target, title)
	p.Fork, p.Head = fork, sha
	return p.ID
}

// PR returns a copy of pull request id.
func (s *Server) PR(id int64) (PullRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.prs[id]
	if !ok {
		return PullRequest{}, false
	}
	c := *p
	c.Labels = slices.Clone(p.Labels)
	c.Reviewers = slices.Clone(p.Reviewers)
	c.Policies = slices.Clone(p.Policies)
	return c, true
}

// Edit changes pull request id as a person would; an auto-complete set
// completes once the change allows it.
func (s *Server) Edit(id int64, fn func(*PullRequest)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.prs[id]
	if !ok {
		panic(fmt.Sprintf("fake Azure DevOps: no pull request %d", id))
	}
	fn(p)
	s.autoComplete(p)
}

// Complete completes pull request id as a reviewer would, whatever its
// policies.
func (s *Server) Complete(id int64) {
	s.Edit(id, func(p *PullRequest) { s.complete(p) })
}

// SetPageSize sets the most items one page of a list holds.
func (s *Server) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = n
}

// Throttle answers the next n requests 429, blocked, with Retry-After
// (when retryAfter > 0) and the X-RateLimit-* headers.
func (s *Server) Throttle(n int, retryAfter time.Duration) {
	s.ThrottleAfter(0, n, retryAfter)
}

// ThrottleAfter serves the next skip requests, then throttles n as
// Throttle does: Azure blocking an identity part way through a sequence.
func (s *Server) ThrottleAfter(skip, n int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range skip {
		s.throttle = append(s.throttle, nil)
	}
	for range n {
		s.throttle = append(s.throttle, &retryAfter)
	}
}

// Delay answers the next request as Azure answers a delayed one: served,
// with Retry-After and X-RateLimit-Delay.
func (s *Server) Delay(retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = retryAfter
}

// RedirectNext answers the next request 302 to base with the request's
// path and query, as a moved organization or a hostile proxy would.
func (s *Server) RedirectNext(base string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redirect = base
}

// Requests returns the requests answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ResetRequests forgets the requests answered so far.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// commit is a new fake commit id. Callers hold mu.
func (s *Server) commit() string {
	s.commits++
	h := sha1.Sum([]byte(fmt.Sprintf("commit %d", s.commits))) //nolint:gosec // a fake commit id.
	return hex.EncodeToString(h[:])
}

// open adds an active pull request. Callers hold mu.
func (s *Server) open(source, target, title string) *PullRequest {
	s.next++
	p := &PullRequest{ID: s.next, Title: title, Source: source, Target: target, Status: "active", Head: s.branches[source]}
	s.prs[p.ID] = p
	return p
}

// blockers names what keeps p from completing: a blocking policy not
// approved, a required reviewer who has not approved, a draft, conflicts.
// Callers hold mu.
func blockers(p *PullRequest) []string {
	var out []string
	if p.Draft {
		out = append(out, "draft")
	}
	if p.MergeStatus != "" && p.MergeStatus != "succeeded" {
		out = append(out, "merge status "+p.MergeStatus)
	}
	for _, pol := range p.Policies {
		if pol.Blocking && pol.Status != "approved" && pol.Status != "notApplicable" {
			out = append(out, pol.Name)
		}
	}
	for _, r := range p.Reviewers {
		if r.Required && r.Vote < 5 {
			out = append(out, "required reviewer "+r.UniqueName)
		}
	}
	return out
}

// complete merges p into its target. Callers hold mu.
func (s *Server) complete(p *PullRequest) {
	p.Status = "completed"
	p.MergeCommit = s.commit()
	s.branches[p.Target] = p.MergeCommit
	if p.DeleteSourceBranch && p.Fork == "" {
		delete(s.branches, p.Source)
	}
}

// autoComplete completes p when auto-complete is set and nothing blocks
// it, as Azure does. Callers hold mu.
func (s *Server) autoComplete(p *PullRequest) {
	if p.Status == "active" && p.AutoCompleteSetBy != "" && len(blockers(p)) == 0 {
		s.complete(p)
	}
}
