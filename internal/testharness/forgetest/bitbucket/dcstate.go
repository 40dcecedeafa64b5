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
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
)

// The repository the Data Center fake serves: PROJECT/RepoSlug, id 1.
const (
	Project = "PLAT"
	repoID  = 1
)

// DCPull is a pull request as the Data Center fake holds it.
type DCPull struct {
	ID, Version int64
	// Fork, when not "", is the project key of the fork the head lives
	// in (repository id 2).
	Fork                string
	Head, Base, HeadSHA string
	Title, Description  string
	State               string // OPEN, MERGED, DECLINED
	Draft               bool
	Reviewers           []string
	// Votes are reviewers' statuses by name: APPROVED or NEEDS_WORK.
	Votes       map[string]string
	MergeCommit string
	Strategy    string
	// Vetoes are merge checks' refusals; Conflicted a merge conflict.
	Vetoes     []string
	Conflicted bool
	// AutoMerge holds the head auto-merge was asked at, "" when not.
	AutoMerge string
}

// DCServer is a fake Bitbucket Data Center.
type DCServer struct {
	recorder
	srv *httptest.Server

	// Guarded by recorder.mu.
	branches  map[string]string
	pulls     map[int64]*DCPull
	builds    map[string][3]int
	hooks     map[int64]*hookState
	noDrafts  bool
	autoMerge bool
	next      int64
	hookID    int64
}

// NewDC starts a fake Bitbucket Data Center and stops it when tb ends. Its
// repository has branch main at SHA("main"); auto-merge is on.
func NewDC(tb testing.TB) *DCServer {
	tb.Helper()
	s := &DCServer{branches: map[string]string{"main": SHA("main")}, pulls: map[int64]*DCPull{},
		builds: map[string][3]int{}, hooks: map[int64]*hookState{}, autoMerge: true}
	s.srv = httptest.NewServer(s)
	tb.Cleanup(s.srv.Close)
	return s
}

// URL is the REST 1.0 API's base, under the context path /bitbucket.
func (s *DCServer) URL() string { return s.srv.URL + "/bitbucket/rest/api/1.0/" }

// SetBranch creates or moves a branch; an open pull request from it is
// rescoped: its head moves and its version goes up, as Data Center does.
func (s *DCServer) SetBranch(name, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.branches[name] = sha
	for _, p := range s.pulls {
		if p.State == "OPEN" && p.Fork == "" && p.Head == name && p.HeadSHA != sha {
			p.HeadSHA, p.Version, p.AutoMerge = sha, p.Version+1, ""
		}
	}
}

// Branch returns a branch's head.
func (s *DCServer) Branch(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha, ok := s.branches[name]
	return sha, ok
}

// WithoutDrafts makes the server one before draft pull requests: no draft field.
func (s *DCServer) WithoutDrafts() { s.mu.Lock(); s.noDrafts = true; s.mu.Unlock() }

// SetAutoMerge turns the repository's auto-merge setting on or off.
func (s *DCServer) SetAutoMerge(on bool) { s.mu.Lock(); s.autoMerge = on; s.mu.Unlock() }

// SetBuilds sets the build statistics of sha: successful, failed, in
// progress.
func (s *DCServer) SetBuilds(sha string, successful, failed, inProgress int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.builds[sha] = [3]int{successful, failed, inProgress}
}

// Open opens a pull request as a person would, from a branch of the
// repository, or of fork (a project key) when not "". It returns the id.
func (s *DCServer) Open(fork, head, sha, base, title string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fork == "" {
		s.branches[head] = sha
	}
	return s.add(&DCPull{Fork: fork, Head: head, HeadSHA: sha, Base: base, Title: title, State: "OPEN"})
}

func (s *DCServer) add(p *DCPull) int64 {
	s.next++
	p.ID = s.next
	s.pulls[p.ID] = p
	return p.ID
}

// Pull returns pull request id as the fake holds it.
func (s *DCServer) Pull(id int64) (DCPull, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pulls[id]
	if !ok {
		return DCPull{}, false
	}
	c := *p
	c.Reviewers, c.Vetoes = slices.Clone(p.Reviewers), slices.Clone(p.Vetoes)
	return c, true
}

// Edit changes pull request id as a person would; its version goes up,
// and an auto-merge asked for merges once nothing vetoes it.
func (s *DCServer) Edit(id int64, fn func(*DCPull)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pulls[id]; ok {
		fn(p)
		p.Version++
		if p.State == "OPEN" && p.AutoMerge != "" && p.AutoMerge == p.HeadSHA && len(p.Vetoes) == 0 && !p.Conflicted {
			s.merge(p, p.Strategy)
		}
	}
}

func (s *DCServer) merge(p *DCPull, strategy string) {
	p.State, p.Strategy, p.AutoMerge = "MERGED", strategy, ""
	p.MergeCommit = SHA("merge/" + strconv.FormatInt(p.ID, 10) + "/" + p.HeadSHA)
	p.Version++
	s.branches[p.Base] = p.MergeCommit
}

// Hooks returns the repository's webhooks: URL and secret by id.
func (s *DCServer) Hooks() map[int64][2]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64][2]string{}
	for id, h := range s.hooks {
		out[id] = [2]string{h.URL, h.Secret}
	}
	return out
}
