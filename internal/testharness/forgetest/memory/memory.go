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

// Package memory is a forge.Client over an in-memory repository of pull
// requests, for the PullRequest controller's tests: it counts every call,
// fails the ones it is told to, and lets a test act as a person on the forge
// (edit, close, merge). It is not a forge's documented behaviour; the
// forges' own fakes (forgetest/github, forgetest/gitlab) and the real Gitea
// are.
package memory

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// Forge is one repository's pull requests.
type Forge struct {
	mu    sync.Mutex
	prs   map[int64]*forge.PullRequest
	next  int64
	calls map[string]int
	fail  map[string]error
	// noAutoMerge answers AutoMerge with ErrUnsupported.
	noAutoMerge bool
	// mergeOnAuto merges at once when auto-merge is asked for, as a forge
	// whose checks already passed does.
	mergeOnAuto bool
	// lostCreate opens the next Create's pull request but answers it with
	// this error, as a create whose answer was lost to a timeout.
	lostCreate error
	typ        forge.Type
}

// HeadSHA is the head commit of every pull request Create opens.
const HeadSHA = "0123456789abcdef0123456789abcdef01234567"

// Repo is the repository the Forge serves, as a head repository.
const Repo = "acme/apps"

// New returns a Forge holding prs. A pull request with no HeadRepo is the
// repository's own (HeadRepo Repo, HeadInRepo); one with another HeadRepo
// is a fork's.
func New(prs ...forge.PullRequest) *Forge {
	f := &Forge{prs: map[int64]*forge.PullRequest{}, next: 1, calls: map[string]int{}, fail: map[string]error{}, typ: forge.Gitea}
	for i := range prs {
		pr := prs[i]
		if pr.HeadRepo == "" {
			pr.HeadRepo = Repo
		}
		pr.HeadInRepo = pr.HeadRepo == Repo
		f.prs[pr.Number] = &pr
		f.next = max(f.next, pr.Number+1)
	}
	return f
}

// Calls returns how many calls of each method were made.
func (f *Forge) Calls() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.calls)
}

// Fail makes every call of method return err (nil: succeed again).
func (f *Forge) Fail(method string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[method] = err
}

// NoAutoMerge makes the forge one without auto-merge.
func (f *Forge) NoAutoMerge() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.noAutoMerge = true
}

// LoseNextCreate makes the next Create open its pull request and answer
// err all the same, as a create whose answer was lost to a timeout.
func (f *Forge) LoseNextCreate(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lostCreate = err
}

// MergeOnAuto makes an auto-merge request merge at once.
func (f *Forge) MergeOnAuto() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mergeOnAuto = true
}

// Edit changes pull request n as a person would on the forge.
func (f *Forge) Edit(n int64, edit func(*forge.PullRequest)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if pr, ok := f.prs[n]; ok {
		edit(pr)
	}
}

// PR returns pull request n, and whether it exists.
func (f *Forge) PR(n int64) (forge.PullRequest, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pr, ok := f.prs[n]
	if !ok {
		return forge.PullRequest{}, false
	}
	return *pr, true
}

// Len is how many pull requests the forge holds in any state.
func (f *Forge) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.prs)
}

func (f *Forge) call(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[name]++
	return f.fail[name]
}

// Type names the forge.
func (f *Forge) Type() forge.Type { return f.typ }

// ListOpen returns the open pull requests by number.
func (f *Forge) ListOpen(context.Context) ([]forge.PullRequest, bool, error) {
	if err := f.call("ListOpen"); err != nil {
		return nil, false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []forge.PullRequest
	for _, n := range slices.Sorted(maps.Keys(f.prs)) {
		if pr := f.prs[n]; pr.State == forge.StateOpen {
			out = append(out, clone(*pr))
		}
	}
	return out, false, nil
}

// Get returns pull request n.
func (f *Forge) Get(_ context.Context, n int64) (forge.PullRequest, error) {
	if err := f.call("Get"); err != nil {
		return forge.PullRequest{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	pr, ok := f.prs[n]
	if !ok {
		return forge.PullRequest{}, &forge.APIError{Status: 404, Message: "Not Found", Kind: forge.ErrNotFound}
	}
	return clone(*pr), nil
}

// Create opens a pull request; ErrExists when one is open for the branches.
func (f *Forge) Create(_ context.Context, s forge.Spec) (forge.PullRequest, error) {
	if err := f.call("Create"); err != nil {
		return forge.PullRequest{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, pr := range f.prs {
		if pr.Head == s.Head && pr.Base == s.Base && pr.State == forge.StateOpen && pr.HeadInRepo {
			return forge.PullRequest{}, &forge.APIError{Status: 409, Message: "pull request already exists for these targets", Kind: forge.ErrExists}
		}
	}
	n := f.next
	f.next++
	pr := &forge.PullRequest{Number: n, URL: "https://forge.example/pulls/" + strconv.FormatInt(n, 10), State: forge.StateOpen,
		Head: s.Head, Base: s.Base, HeadSHA: HeadSHA, HeadRepo: Repo, HeadInRepo: true}
	put(pr, s)
	f.prs[n] = pr
	if err := f.lostCreate; err != nil {
		f.lostCreate = nil
		return forge.PullRequest{}, err
	}
	return clone(*pr), nil
}

// Update puts the spec's fields on pull request n.
func (f *Forge) Update(_ context.Context, n int64, s forge.Spec) (forge.PullRequest, error) {
	if err := f.call("Update"); err != nil {
		return forge.PullRequest{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	pr, ok := f.prs[n]
	if !ok {
		return forge.PullRequest{}, forge.ErrNotFound
	}
	put(pr, s)
	return clone(*pr), nil
}

// Close closes pull request n.
func (f *Forge) Close(_ context.Context, n int64) error {
	if err := f.call("Close"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if pr, ok := f.prs[n]; ok && pr.State == forge.StateOpen {
		pr.State = forge.StateClosed
	}
	return nil
}

// Merge merges pull request n; ErrHeadMoved when m names another head.
func (f *Forge) Merge(_ context.Context, n int64, m forge.Merge) error {
	if err := f.call("Merge"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	pr, ok := f.prs[n]
	if !ok || pr.State != forge.StateOpen {
		return forge.ErrNotMergeable
	}
	if m.HeadSHA != "" && m.HeadSHA != pr.HeadSHA {
		return forge.ErrHeadMoved
	}
	pr.State, pr.MergeCommit = forge.StateMerged, "fedcba9876543210fedcba9876543210fedcba98"
	return nil
}

// AutoMerge marks pull request n to be merged (at once with MergeOnAuto);
// ErrHeadMoved when m names another head.
func (f *Forge) AutoMerge(_ context.Context, n int64, m forge.Merge) error {
	if err := f.call("AutoMerge"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.noAutoMerge {
		return forge.ErrUnsupported
	}
	pr, ok := f.prs[n]
	if !ok {
		return forge.ErrNotFound
	}
	if m.HeadSHA != "" && m.HeadSHA != pr.HeadSHA {
		return forge.ErrHeadMoved
	}
	pr.AutoMerge = true
	if f.mergeOnAuto {
		pr.State, pr.MergeCommit = forge.StateMerged, "fedcba9876543210fedcba9876543210fedcba98"
	}
	return nil
}

func put(pr *forge.PullRequest, s forge.Spec) {
	pr.Title, pr.Body, pr.Draft = s.Title, s.Body, s.Draft
	pr.Labels, pr.Reviewers, pr.Assignees = slices.Clone(s.Labels), slices.Clone(s.Reviewers), slices.Clone(s.Assignees)
}

func clone(pr forge.PullRequest) forge.PullRequest {
	pr.Labels, pr.Reviewers, pr.Assignees = slices.Clone(pr.Labels), slices.Clone(pr.Reviewers), slices.Clone(pr.Assignees)
	return pr
}

// Forges are the Forges of many repositories, by owner/name, opened as
// forge.Opener opens a client; each call of Open is recorded with the token
// it was given.
type Forges struct {
	mu     sync.Mutex
	repos  map[string]*Forge
	tokens []string
}

// NewForges returns an empty set of Forges.
func NewForges() *Forges { return &Forges{repos: map[string]*Forge{}} }

// Repo returns the Forge of owner/name, made on first use.
func (fs *Forges) Repo(owner, name string) *Forge {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	k := owner + "/" + name
	if f, ok := fs.repos[k]; ok {
		return f
	}
	f := New()
	fs.repos[k] = f
	return f
}

// Open is a forge.Opener: the client of the repository c names. It reads
// the token once, as a real client's first request would.
func (fs *Forges) Open(c forge.Config) (forge.Client, error) {
	tok := ""
	if c.Token != nil {
		tok, _ = c.Token(context.Background())
	}
	fs.mu.Lock()
	fs.tokens = append(fs.tokens, tok)
	fs.mu.Unlock()
	f := fs.Repo(c.Owner, c.Name)
	f.mu.Lock()
	f.typ = c.Type
	f.mu.Unlock()
	return f, nil
}

// Tokens are the tokens Open was given, in order.
func (fs *Forges) Tokens() []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return slices.Clone(fs.tokens)
}
