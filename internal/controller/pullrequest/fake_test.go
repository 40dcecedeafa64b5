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

package pullrequest

import (
	"context"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
)

// fakeForge is a forge.Client over an in-memory repository of pull
// requests; it counts every call and fails those it is told to.
type fakeForge struct {
	mu    sync.Mutex
	prs   map[int64]*forge.PullRequest
	next  int64
	calls map[string]int
	fail  map[string]error
	// autoMerge false answers AutoMerge with ErrUnsupported.
	autoMerge bool
	// lostCreate opens the next Create's pull request but answers it with
	// an error, as a create whose answer timed out.
	lostCreate error
}

func newFake(prs ...forge.PullRequest) *fakeForge {
	f := &fakeForge{prs: map[int64]*forge.PullRequest{}, next: 1, calls: map[string]int{}, fail: map[string]error{}, autoMerge: true}
	for i := range prs {
		pr := prs[i]
		f.prs[pr.Number] = &pr
		f.next = max(f.next, pr.Number+1)
	}
	return f
}

func (f *fakeForge) call(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[name]++
	return f.fail[name]
}

func (f *fakeForge) Type() forge.Type { return forge.Gitea }

func (f *fakeForge) ListOpen(context.Context) ([]forge.PullRequest, bool, error) {
	if err := f.call("ListOpen"); err != nil {
		return nil, false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []forge.PullRequest
	for n := int64(1); n < f.next; n++ {
		if pr, ok := f.prs[n]; ok && pr.State == forge.StateOpen {
			out = append(out, *pr)
		}
	}
	return out, false, nil
}

func (f *fakeForge) Get(_ context.Context, n int64) (forge.PullRequest, error) {
	if err := f.call("Get"); err != nil {
		return forge.PullRequest{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	pr, ok := f.prs[n]
	if !ok {
		return forge.PullRequest{}, forge.ErrNotFound
	}
	return *pr, nil
}

func (f *fakeForge) Create(_ context.Context, s forge.Spec) (forge.PullRequest, error) {
	if err := f.call("Create"); err != nil {
		return forge.PullRequest{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, pr := range f.prs {
		if pr.Head == s.Head && pr.Base == s.Base && pr.State == forge.StateOpen {
			return forge.PullRequest{}, forge.ErrExists
		}
	}
	pr := &forge.PullRequest{Number: f.next, URL: "https://forge/pulls/" + itoa(f.next), State: forge.StateOpen, Head: s.Head, Base: s.Base,
		HeadSHA: "abc", Title: s.Title, Body: s.Body, Draft: s.Draft, Labels: s.Labels, Reviewers: s.Reviewers, Assignees: s.Assignees}
	f.prs[f.next] = pr
	f.next++
	if err := f.lostCreate; err != nil {
		f.lostCreate = nil
		return forge.PullRequest{}, err
	}
	return *pr, nil
}

func (f *fakeForge) Update(_ context.Context, n int64, s forge.Spec) (forge.PullRequest, error) {
	if err := f.call("Update"); err != nil {
		return forge.PullRequest{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	pr := f.prs[n]
	pr.Title, pr.Body, pr.Draft, pr.Labels, pr.Reviewers, pr.Assignees = s.Title, s.Body, s.Draft, s.Labels, s.Reviewers, s.Assignees
	return *pr, nil
}

func (f *fakeForge) Close(_ context.Context, n int64) error {
	if err := f.call("Close"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prs[n].State = forge.StateClosed
	return nil
}

func (f *fakeForge) Merge(_ context.Context, n int64, _ forge.Merge) error {
	if err := f.call("Merge"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prs[n].State, f.prs[n].MergeCommit = forge.StateMerged, "m3rg3"
	return nil
}

func (f *fakeForge) AutoMerge(_ context.Context, n int64, _ forge.Merge) error {
	if err := f.call("AutoMerge"); err != nil {
		return err
	}
	if !f.autoMerge {
		return forge.ErrUnsupported
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prs[n].AutoMerge = true
	return nil
}

func itoa(n int64) string { return string(rune('0' + n)) }

// fakeRepo is the clone: it knows the branches in heads.
type fakeRepo struct{ heads map[string]string }

func (r fakeRepo) Refresh(context.Context, time.Duration, ...string) error { return nil }
func (r fakeRepo) Head(b string) (string, error) {
	if h, ok := r.heads[b]; ok {
		return h, nil
	}
	return "", &git.Error{Kind: git.KindBranchNotFound}
}
func (r fakeRepo) AppToken() (func(context.Context) (string, error), bool) { return nil, false }
func (r fakeRepo) ID() string                                              { return "repo" }
func (r fakeRepo) Poll(context.Context) ([]git.Move, error)                { return nil, nil }

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// newExternal returns an external client of f whose clone holds heads,
// with a board and pacer of its own on a fake clock.
func newExternal(f *fakeForge, clk *clocktesting.FakeClock, heads ...string) *external {
	r := fakeRepo{heads: map[string]string{}}
	for _, h := range heads {
		r.heads[h] = "abc"
	}
	board := forge.NewBoard(clk)
	return &external{acc: &account{client: f}, key: "k", typ: forge.Gitea, creds: "credentials Secret ns/git key \"password\"",
		repo: r, listing: board.For("k", f, time.Minute), pacer: forge.NewPacer(clk), clock: clk, maxAge: time.Minute}
}

// pullRequest is a PullRequest from request/demo into main.
func pullRequest(mutate ...func(*v1alpha1.PullRequest)) *v1alpha1.PullRequest {
	mg := &v1alpha1.PullRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "demo"},
		Spec: v1alpha1.PullRequestSpec{ForProvider: v1alpha1.PullRequestParameters{Head: "request/demo", Base: "main", Title: "Add demo",
			Labels: []string{"env"}, Readiness: v1alpha1.ReadinessOpen, Merge: v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeManual, Method: v1alpha1.MergeMethodMerge}}}}
	mg.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "git"})
	for _, m := range mutate {
		m(mg)
	}
	return mg
}

func numbered(n string) func(*v1alpha1.PullRequest) {
	return func(mg *v1alpha1.PullRequest) { meta.SetExternalName(mg, n) }
}

func deleting(mg *v1alpha1.PullRequest) {
	now := metav1.Now()
	mg.SetDeletionTimestamp(&now)
}

// open is pull request n as declared by pullRequest().
func open(n int64) forge.PullRequest {
	return forge.PullRequest{Number: n, URL: "https://forge/pulls/" + itoa(n), State: forge.StateOpen, Head: "request/demo", Base: "main",
		HeadSHA: "abc", Title: "Add demo", Labels: []string{"env"}}
}
