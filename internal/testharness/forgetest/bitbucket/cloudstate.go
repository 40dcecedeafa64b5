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
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
)

// The repository the Cloud fake serves.
const (
	Workspace = "acme"
	RepoSlug  = "gitops"
	// repoUUID is the repository's UUID; a fork's is another.
	repoUUID = "{6f1b5c1e-0000-4000-8000-000000000001}"
)

// User is a Bitbucket Cloud account: an Atlassian account ID and a UUID.
type User struct {
	AccountID string
	UUID      string
}

// CloudPull is a pull request as the Cloud fake holds it.
type CloudPull struct {
	ID int64
	// Source is the repository the head lives in: Workspace/RepoSlug, or
	// a fork's full name.
	Source                string
	Head, Base, HeadSHA   string
	Title, Description    string
	State                 string // OPEN, MERGED, DECLINED
	Draft                 bool
	Reviewers             []User
	MergeCommit, Strategy string
	CloseSourceBranch     bool
	// Votes are reviewers' standings by account ID: approved or
	// changes_requested.
	Votes map[string]string
	// Conflicts are the paths in conflict; MergeChecks false fails
	// Cloud's merge checks (mergeable false, and a merge answers 400).
	Conflicts   []string
	MergeChecks *bool
}

// CloudServer is a fake Bitbucket Cloud.
type CloudServer struct {
	recorder
	srv *httptest.Server

	// Guarded by recorder.mu.
	branches   map[string]string
	forks      map[string]map[string]string
	users      []User
	pulls      map[int64]*CloudPull
	statuses   map[string][]string
	hooks      map[string]*hookState
	strategies []string
	raceMerge  bool
	next       int64
}

type hookState struct {
	URL, Secret string
	Active      bool
	Events      []string
}

// NewCloud starts a fake Bitbucket Cloud and stops it when tb ends. Its
// repository has branch main at SHA("main").
func NewCloud(tb testing.TB) *CloudServer {
	tb.Helper()
	s := &CloudServer{
		branches: map[string]string{"main": SHA("main")}, forks: map[string]map[string]string{},
		pulls: map[int64]*CloudPull{}, statuses: map[string][]string{}, hooks: map[string]*hookState{},
		strategies: []string{"merge_commit", "squash", "fast_forward", "squash_fast_forward", "rebase_fast_forward", "rebase_merge"},
	}
	s.srv = httptest.NewServer(s)
	tb.Cleanup(s.srv.Close)
	return s
}

// URL is the API's base, as forge.Config's APIURL takes it.
func (s *CloudServer) URL() string { return s.srv.URL + "/2.0/" }

// AddUser makes an account known, so it may be named a reviewer.
func (s *CloudServer) AddUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users = append(s.users, u)
}

// SetBranch creates or moves a branch of the repository; open pull
// requests from it take the new head, as on a push.
func (s *CloudServer) SetBranch(name, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.branches[name] = sha
	for _, p := range s.pulls {
		if p.State == "OPEN" && p.Source == Workspace+"/"+RepoSlug && p.Head == name {
			p.HeadSHA = sha
		}
	}
}

// Branch returns a branch's head.
func (s *CloudServer) Branch(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha, ok := s.branches[name]
	return sha, ok
}

// SetStrategies sets the merge strategies the repository allows.
func (s *CloudServer) SetStrategies(st ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.strategies = st
}

// RaceNextMerge makes the next merge answer 409, as Cloud does when a ref
// moves while it merges.
func (s *CloudServer) RaceNextMerge() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raceMerge = true
}

// SetStatus sets the build statuses (SUCCESSFUL, FAILED, INPROGRESS,
// STOPPED) of sha.
func (s *CloudServer) SetStatus(sha string, states ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses[sha] = states
}

// Open opens a pull request as a person would: from a branch of the
// repository, or of the fork named source (created with the branch at
// sha). It returns the id.
func (s *CloudServer) Open(source, head, sha, base, title string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if source == Workspace+"/"+RepoSlug {
		s.branches[head] = sha
	} else {
		if s.forks[source] == nil {
			s.forks[source] = map[string]string{}
		}
		s.forks[source][head] = sha
	}
	return s.add(&CloudPull{Source: source, Head: head, HeadSHA: sha, Base: base, Title: title, State: "OPEN"})
}

func (s *CloudServer) add(p *CloudPull) int64 {
	s.next++
	p.ID = s.next
	s.pulls[p.ID] = p
	return p.ID
}

// Pull returns pull request id as the fake holds it.
func (s *CloudServer) Pull(id int64) (CloudPull, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pulls[id]
	if !ok {
		return CloudPull{}, false
	}
	c := *p
	c.Reviewers, c.Conflicts = slices.Clone(p.Reviewers), slices.Clone(p.Conflicts)
	return c, true
}

// Edit changes pull request id as a person would.
func (s *CloudServer) Edit(id int64, fn func(*CloudPull)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pulls[id]; ok {
		fn(p)
	}
}

// Merge merges pull request id as a person would in the web UI.
func (s *CloudServer) Merge(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pulls[id]; ok && p.State == "OPEN" {
		s.merge(p, "merge_commit", false)
	}
}

func (s *CloudServer) merge(p *CloudPull, strategy string, closeSource bool) {
	p.State, p.Strategy, p.CloseSourceBranch = "MERGED", strategy, closeSource
	p.MergeCommit = SHA("merge/" + strconv.FormatInt(p.ID, 10) + "/" + p.HeadSHA)
	s.branches[p.Base] = p.MergeCommit
	if closeSource && p.Source == Workspace+"/"+RepoSlug {
		delete(s.branches, p.Head)
	}
}

// Hooks returns the repository's webhooks: URL and secret by UUID.
func (s *CloudServer) Hooks() map[string][2]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][2]string{}
	for id, h := range s.hooks {
		out[id] = [2]string{h.URL, h.Secret}
	}
	return out
}

// user finds a known account by account ID or {UUID}.
func (s *CloudServer) user(id string) (User, bool) {
	for _, u := range s.users {
		if u.AccountID == id || u.UUID == id {
			return u, true
		}
	}
	return User{}, false
}

// uuidOf is a repository's UUID: the repository's, or a fork's derived
// from its name.
func uuidOf(full string) string {
	if full == Workspace+"/"+RepoSlug {
		return repoUUID
	}
	h := SHA(full)
	return fmt.Sprintf("{%s-%s-4%s-8%s-%s}", h[:8], h[8:12], h[13:16], h[17:20], h[20:32])
}
