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
	"strconv"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/memory"
)

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
func newExternal(f *memory.Forge, clk *clocktesting.FakeClock, heads ...string) *external {
	r := fakeRepo{heads: map[string]string{}}
	for _, h := range heads {
		r.heads[h] = "abc"
	}
	board := forge.NewBoard(clk)
	return &external{acc: &account{client: f}, key: "k", typ: forge.Gitea, creds: "credentials Secret ns/git key \"password\"", apiCreds: "credentials Secret ns/git key \"password\"",
		repo: r, listing: board.For("k", "", f, time.Minute), pacer: forge.NewPacer(clk), clock: clk, maxAge: time.Minute}
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
	return forge.PullRequest{Number: n, URL: "https://forge/pulls/" + strconv.FormatInt(n, 10), State: forge.StateOpen, Head: "request/demo", Base: "main",
		HeadSHA: "abc", Title: "Add demo", Labels: []string{"env"}}
}
