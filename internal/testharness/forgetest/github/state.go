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
	"slices"
	"strconv"
)

// Mergeable states GitHub reports in mergeable_state.
const (
	StateClean    = "clean"
	StateBlocked  = "blocked"
	StateDirty    = "dirty"
	StateUnknown  = "unknown"
	StateUnstable = "unstable"
	StateDraft    = "draft"
)

type repo struct {
	owner, name    string
	id             int64
	branches       map[string]string
	allowAutoMerge bool
	hooks          []*Hook
	// gitDir, when set, is the bare repository behind the Git data API
	// (gitdata.go).
	gitDir string
}

type review struct {
	id    int64
	user  string
	state string
	at    string
	sha   string
}

type status struct {
	id      int64
	context string
	state   string
	at      string
}

type checkRun struct {
	id         int64
	name       string
	status     string
	conclusion string
}

type pull struct {
	number      int64
	owner, repo string
	// forkOwner, when set, owns the fork the head branch lives in (a
	// repository of the same name): a stranger's pull request.
	forkOwner   string
	state       string
	title, body string
	head, base  string
	headSHA     string
	baseSHA     string
	draft       bool
	merged      bool
	mergeCommit string
	// mergeableState is GitHub's mergeable_state; "" means computed from
	// draft (draft) or else clean.
	mergeableState string
	labels         []string
	reviewers      []string
	teams          []string
	assignees      []string
	reviews        []review
	autoMerge      string // merge method in GraphQL's spelling, "" when off
	created        string
	updated        string
	closed         string
	mergedAt       string
}

// headOwner owns the repository the head branch lives in.
func (p *pull) headOwner() string {
	if p.forkOwner != "" {
		return p.forkOwner
	}
	return p.owner
}

func (p *pull) mergeable() string {
	switch {
	case p.merged || p.state == "closed":
		return StateUnknown
	case p.mergeableState != "":
		return p.mergeableState
	case p.draft:
		return StateDraft
	}
	return StateClean
}

// Pull is a pull request as the fake holds it, for tests' assertions.
type Pull struct {
	Number      int64
	Owner, Repo string
	State       string // open or closed
	Merged      bool
	MergeCommit string
	Title, Body string
	Head, Base  string
	HeadSHA     string
	Draft       bool
	Labels      []string
	Reviewers   []string
	Assignees   []string
	// AutoMerge is the merge method auto-merge is enabled with (MERGE,
	// SQUASH, REBASE), "" when off.
	AutoMerge string
}

// Pull returns pull request number as the fake holds it.
func (s *Server) Pull(number int64) (Pull, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pulls[number]
	if !ok {
		return Pull{}, false
	}
	return Pull{Number: p.number, Owner: p.owner, Repo: p.repo, State: p.state, Merged: p.merged,
		MergeCommit: p.mergeCommit, Title: p.title, Body: p.body, Head: p.head, Base: p.base, HeadSHA: p.headSHA,
		Draft: p.draft, Labels: clone(p.labels), Reviewers: clone(p.reviewers),
		Assignees: clone(p.assignees), AutoMerge: p.autoMerge}, true
}

// clone copies; nil when empty, so tests compare sets simply.
func clone(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	return slices.Clone(in)
}

// OpenFromFork opens a pull request as a stranger would: head is a branch
// of forkOwner's fork of owner/repo (created with the branch at sha), base
// a branch of owner/repo. It returns the pull request's number.
func (s *Server) OpenFromFork(owner, repo, forkOwner, head, sha, base, title string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(forkOwner, repo).branches[head] = sha
	rp := s.repo(owner, repo)
	s.next++
	p := &pull{number: s.next, owner: owner, repo: repo, forkOwner: forkOwner, state: "open", title: title,
		head: head, base: base, headSHA: sha, baseSHA: rp.branches[base], created: s.now(), updated: s.now()}
	s.pulls[p.number] = p
	return p.number
}

// AddBranch creates or moves a branch (creating the repository when new);
// open pull requests from it take the new head, as on a push.
func (s *Server) AddBranch(owner, repo, branch, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(owner, repo).branches[branch] = sha
	for _, p := range s.pulls {
		if p.headOwner() == owner && p.repo == repo && p.state == "open" && p.head == branch {
			p.headSHA, p.updated = sha, s.now()
		}
	}
}

// SetAllowAutoMerge sets the repository's allow_auto_merge (true by
// default here; GitHub's default is false).
func (s *Server) SetAllowAutoMerge(owner, repo string, allow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(owner, repo).allowAutoMerge = allow
}

// Merge merges pull request number as a reviewer would in the web UI.
func (s *Server) Merge(number int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pulls[number]
	if !ok || p.state != "open" {
		return false
	}
	s.merge(p)
	return true
}

func (s *Server) merge(p *pull) {
	p.merged, p.state, p.autoMerge = true, "closed", ""
	p.mergeCommit = SHA("merge/" + strconv.FormatInt(p.number, 10) + "/" + p.headSHA)
	p.mergedAt, p.closed, p.updated = s.now(), s.now(), s.now()
	s.repo(p.owner, p.repo).branches[p.base] = p.mergeCommit
}

// EditTitle changes a pull request's title as a person would.
func (s *Server) EditTitle(number int64, title string) bool {
	return s.edit(number, func(p *pull) { p.title = title })
}

// SetLabels replaces a pull request's labels as a person would.
func (s *Server) SetLabels(number int64, labels ...string) bool {
	return s.edit(number, func(p *pull) { p.labels = labels })
}

// Close closes a pull request without merging it, as a person would.
func (s *Server) Close(number int64) bool {
	return s.edit(number, func(p *pull) { p.state, p.closed, p.autoMerge = "closed", s.now(), "" })
}

// SetMergeable sets mergeable_state (clean, blocked, dirty, unknown,
// unstable); "" returns to the default (clean, or draft for a draft). A
// pull request with auto-merge enabled is merged once it turns clean, as
// GitHub does.
func (s *Server) SetMergeable(number int64, state string) bool {
	return s.edit(number, func(p *pull) {
		p.mergeableState = state
		if p.autoMerge != "" && p.mergeable() == StateClean {
			s.merge(p)
		}
	})
}

// AddReview submits a review (APPROVED, CHANGES_REQUESTED, COMMENTED,
// DISMISSED) by user; like GitHub, it removes the user from the requested
// reviewers.
func (s *Server) AddReview(number int64, user, state string) bool {
	return s.edit(number, func(p *pull) {
		p.reviews = append(p.reviews, review{id: int64(len(p.reviews) + 1), user: user, state: state, at: s.now(), sha: p.headSHA})
		p.reviewers = slices.DeleteFunc(p.reviewers, func(r string) bool { return r == user })
	})
}

// SetStatus sets a commit status (pending, success, failure, error) for
// context on sha.
func (s *Server) SetStatus(owner, repo, sha, context, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(owner, repo, sha)
	st := slices.DeleteFunc(s.statuses[k], func(x status) bool { return x.context == context })
	s.statuses[k] = append(st, status{id: int64(len(st) + 1), context: context, state: state, at: s.now()})
}

// AddCheckRun adds a check run (status queued, in_progress, completed;
// conclusion success, failure, neutral, cancelled, skipped, timed_out,
// action_required, or "" while not completed) on sha.
func (s *Server) AddCheckRun(owner, repo, sha, name, st, conclusion string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(owner, repo, sha)
	s.checks[k] = append(s.checks[k], checkRun{id: int64(len(s.checks[k]) + 1), name: name, status: st, conclusion: conclusion})
}

func (s *Server) edit(number int64, fn func(*pull)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pulls[number]
	if !ok {
		return false
	}
	fn(p)
	p.updated = s.now()
	return true
}

// Branch returns a branch's commit.
func (s *Server) Branch(owner, repo, branch string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha, ok := s.repo(owner, repo).branches[branch]
	return sha, ok
}

// RateRemaining is X-RateLimit-Remaining as the server would send it now.
func (s *Server) RateRemaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.primarySet {
		return primaryLimit
	}
	return s.remaining
}

// DeleteBranch deletes a branch, as a person or the repository's
// "Automatically delete head branches" would.
func (s *Server) DeleteBranch(owner, repo, branch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.repo(owner, repo).branches, branch)
}
