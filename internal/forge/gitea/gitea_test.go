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

package gitea_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	sdk "code.gitea.io/sdk/gitea"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitea"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// bed is one real Gitea (or Forgejo) with a repository, a reviewer and two
// labels; the tests below share it (each on branches of its own) since a
// start costs seconds.
type bed struct {
	// name is the forge's, as forge.Type spells it: Gitea or Forgejo.
	name     string
	g        *testenv.Gitea
	repo     testenv.GiteaRepo
	reviewer testenv.GiteaUser
	c        forge.Client
}

func newBed(t *testing.T, f testenv.GiteaForge) *bed {
	t.Helper()
	g := testenv.StartGitea(t, f.Options...)
	b := &bed{name: f.Name, g: g, repo: g.CreateRepo(t, "apps")}
	b.reviewer = g.CreateUser(t, "reviewer", b.repo.Name)
	g.CreateLabel(t, b.repo.Name, "team-a")
	g.CreateLabel(t, b.repo.Name, "team-b")
	b.c = b.client(t, func(context.Context) (string, error) { return g.Token, nil })
	return b
}

func (b *bed) client(t *testing.T, token func(context.Context) (string, error)) forge.Client {
	t.Helper()
	return b.clientVia(t, token, nil)
}

// clientVia is client, its requests sent through rt (nil: the default).
func (b *bed) clientVia(t *testing.T, token func(context.Context) (string, error), rt http.RoundTripper) forge.Client {
	t.Helper()
	cfg, err := forge.Resolve(b.repo.CloneURL, forge.Type(b.name), b.repo.APIURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Token, cfg.HTTPClient = token, &http.Client{Timeout: 30 * time.Second, Transport: rt}
	c, err := gitea.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// branch creates head from main with a file of its own and returns its SHA.
func (b *bed) branch(t *testing.T, head string) string {
	t.Helper()
	return b.g.CommitFile(t, b.repo.Name, head, "main", head+".yaml", "name: "+head+"\n")
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// must fails the test on err, else returns v: must(f())(t).
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestGitea runs the client against each real forge of Gitea's API, with
// the same assertions.
func TestGitea(t *testing.T) {
	for _, f := range testenv.GiteaForges() {
		t.Run(f.Name, func(t *testing.T) { testClient(t, newBed(t, f)) })
	}
}

func testClient(t *testing.T, b *bed) {
	testForks(t, b)
	t.Run("Hooks", func(t *testing.T) { testHooks(t, b) })
	t.Run("OpenDuplicateList", func(t *testing.T) {
		sha := b.branch(t, "open")
		s := forge.Spec{Head: "open", Base: "main", Title: "Open", Body: "body"}
		pr := must(b.c.Create(ctx(t), s))(t)
		want := forge.PullRequest{Number: pr.Number, URL: fmt.Sprintf("%s%s/%s/pulls/%d", b.g.URL, b.repo.Owner, b.repo.Name, pr.Number),
			State: forge.StateOpen, Head: "open", Base: "main", HeadRepo: b.repo.Owner + "/" + b.repo.Name, HeadInRepo: true,
			HeadSHA: sha, Title: "Open", Body: "body"}
		if diff := cmp.Diff(want, pr, ignoreMergeable); diff != "" {
			t.Errorf("Create: -want, +got:\n%s", diff)
		}
		_, err := b.c.Create(ctx(t), s)
		var ae *forge.APIError
		if !errors.Is(err, forge.ErrExists) || !errors.As(err, &ae) || ae.Status != http.StatusConflict {
			t.Fatalf("a second Create for the same head and base must be ErrExists (409), got %v", err)
		}
		t.Logf("%s on a duplicate: %v", b.name, err)
		open, notModified := must2(b.c.ListOpen(ctx(t)))(t)
		if notModified || !slices.ContainsFunc(open, func(p forge.PullRequest) bool { return p.Number == pr.Number && p.Head == "open" && p.HeadInRepo }) {
			t.Errorf("ListOpen must list #%d: %+v (notModified %v)", pr.Number, open, notModified)
		}
	})

	t.Run("NoSuchHead", func(t *testing.T) {
		_, err := b.c.Create(ctx(t), forge.Spec{Head: "not-yet", Base: "main", Title: "Early"})
		if !errors.Is(err, forge.ErrNoSuchBranch) {
			t.Fatalf("a head branch that does not exist must be ErrNoSuchBranch, got %v", err)
		}
		t.Logf("%s on a missing head: %v", b.name, err)
	})

	t.Run("PutBackAPersonsEdits", func(t *testing.T) {
		b.branch(t, "kept")
		s := forge.Spec{Head: "kept", Base: "main", Title: "Kept", Body: "as declared", Labels: []string{"team-a"}}
		pr := must(b.c.Create(ctx(t), s))(t)
		b.g.EditTitle(t, b.repo.Name, pr.Number, "A person's title")
		got := must(b.c.Get(ctx(t), pr.Number))(t)
		if got.Title != "A person's title" {
			t.Fatalf("Get must see the person's edit, got %q", got.Title)
		}
		s.Labels, s.Assignees, s.Reviewers = []string{"team-b"}, []string{testenv.GiteaAdmin}, []string{b.reviewer.Name}
		got = must(b.c.Update(ctx(t), pr.Number, s))(t)
		want := forge.PullRequest{Title: "Kept", Body: "as declared", Labels: []string{"team-b"},
			Assignees: []string{testenv.GiteaAdmin}, Reviewers: []string{b.reviewer.Name}, ReviewDecision: "REVIEW_REQUIRED"}
		if diff := cmp.Diff(want, declared(got)); diff != "" {
			t.Errorf("Update: -want, +got:\n%s", diff)
		}
		// Declared empty: Gitea's edit clears them only when sent an empty list.
		s.Labels, s.Assignees = nil, nil
		got = must(b.c.Update(ctx(t), pr.Number, s))(t)
		if len(got.Labels) != 0 || len(got.Assignees) != 0 {
			t.Errorf("Update with no labels and assignees must clear them, got %v %v", got.Labels, got.Assignees)
		}
	})

	t.Run("Draft", func(t *testing.T) {
		b.branch(t, "draft")
		s := forge.Spec{Head: "draft", Base: "main", Title: "Draft", Draft: true}
		pr := must(b.c.Create(ctx(t), s))(t)
		if raw := b.g.PR(t, b.repo.Name, pr.Number).Title; raw != "WIP: Draft" {
			t.Errorf("a draft is opened with Gitea's WIP prefix, got title %q", raw)
		}
		if !pr.Draft || pr.Title != "Draft" {
			t.Errorf("a draft reads back Draft with its declared title, got %v %q", pr.Draft, pr.Title)
		}
		err := b.c.Merge(ctx(t), pr.Number, forge.Merge{Method: forge.MethodMerge})
		if !errors.Is(err, forge.ErrNotMergeable) {
			t.Errorf("Gitea does not merge a draft: want ErrNotMergeable, got %v", err)
		}
		t.Logf("%s on merging a draft: %v", b.name, err)
		s.Draft = false
		got := must(b.c.Update(ctx(t), pr.Number, s))(t)
		if got.Draft || got.Title != "Draft" || b.g.PR(t, b.repo.Name, pr.Number).Title != "Draft" {
			t.Errorf("ready for review drops the prefix, got %v %q", got.Draft, got.Title)
		}
	})

	t.Run("ChecksReviewMerge", func(t *testing.T) {
		sha := b.branch(t, "checked")
		pr := must(b.c.Create(ctx(t), forge.Spec{Head: "checked", Base: "main", Title: "Checked", Reviewers: []string{b.reviewer.Name}}))(t)
		if got := must(b.c.Get(ctx(t), pr.Number))(t); got.Checks != "" {
			t.Errorf("no status yet: Checks %q, want none", got.Checks)
		}
		b.g.SetStatus(t, b.repo.Name, sha, "ci", sdk.StatusPending)
		if got := must(b.c.Get(ctx(t), pr.Number))(t); got.Checks != forge.ChecksPending {
			t.Errorf("Checks %q, want pending", got.Checks)
		}
		b.g.SetStatus(t, b.repo.Name, sha, "ci", sdk.StatusFailure)
		if got := must(b.c.Get(ctx(t), pr.Number))(t); got.Checks != forge.ChecksFailure {
			t.Errorf("Checks %q, want failure", got.Checks)
		}
		b.g.SetStatus(t, b.repo.Name, sha, "ci", sdk.StatusSuccess)
		b.g.Approve(t, b.reviewer, b.repo.Name, pr.Number)
		got := must(b.c.Get(ctx(t), pr.Number))(t)
		if got.Checks != forge.ChecksSuccess || got.ReviewDecision != "APPROVED" || !slices.Contains(got.Reviewers, b.reviewer.Name) {
			t.Errorf("after success and approval: Checks %q, ReviewDecision %q, Reviewers %v", got.Checks, got.ReviewDecision, got.Reviewers)
		}
		// A reviewer who approved has left Gitea's requested list; asking
		// again would ask them to review anew.
		before := reviewRequests(t, b, pr.Number)
		got = must(b.c.Update(ctx(t), pr.Number, forge.Spec{Title: "Checked", Reviewers: []string{b.reviewer.Name}}))(t)
		if after := reviewRequests(t, b, pr.Number); after != before || got.ReviewDecision != "APPROVED" {
			t.Errorf("Update must not request a review of who approved: requests %d -> %d, decision %q", before, after, got.ReviewDecision)
		}
		mergeWhenMergeable(t, b.c, pr.Number, forge.Merge{Method: forge.MethodSquash, DeleteBranch: true})
		got = must(b.c.Get(ctx(t), pr.Number))(t)
		if got.State != forge.StateMerged || got.MergeCommit == "" {
			t.Errorf("after Merge: state %s, merge commit %q", got.State, got.MergeCommit)
		}
		if _, _, err := b.g.Client(ctx(t), t).GetRepoBranch(b.repo.Owner, b.repo.Name, "checked"); err == nil {
			t.Errorf("DeleteBranch: the head branch must be gone after the merge")
		}
	})

	t.Run("Close", func(t *testing.T) {
		b.branch(t, "closed")
		pr := must(b.c.Create(ctx(t), forge.Spec{Head: "closed", Base: "main", Title: "Closed"}))(t)
		if err := b.c.Close(ctx(t), pr.Number); err != nil {
			t.Fatal(err)
		}
		if got := must(b.c.Get(ctx(t), pr.Number))(t); got.State != forge.StateClosed || got.Mergeable != nil {
			t.Errorf("after Close: state %s, mergeable %v", got.State, got.Mergeable)
		}
		open, _ := must2(b.c.ListOpen(ctx(t)))(t)
		if slices.ContainsFunc(open, func(p forge.PullRequest) bool { return p.Number == pr.Number }) {
			t.Errorf("ListOpen must not list the closed #%d", pr.Number)
		}
	})

	t.Run("AutoMerge", func(t *testing.T) {
		sha := b.branch(t, "auto")
		b.g.SetStatus(t, b.repo.Name, sha, "ci", sdk.StatusPending)
		pr := must(b.c.Create(ctx(t), forge.Spec{Head: "auto", Base: "main", Title: "Auto"}))(t)
		testenv.Eventually(t, time.Minute, func() error {
			return b.c.AutoMerge(ctx(t), pr.Number, forge.Merge{Method: forge.MethodMerge})
		})
		if err := b.c.AutoMerge(ctx(t), pr.Number, forge.Merge{Method: forge.MethodMerge}); err != nil {
			t.Errorf("asking again while scheduled is no error, got %v", err)
		}
		if got := must(b.c.Get(ctx(t), pr.Number))(t); got.State != forge.StateOpen {
			t.Fatalf("checks pending: Gitea must wait, state %s", got.State)
		}
		b.g.SetStatus(t, b.repo.Name, sha, "ci", sdk.StatusSuccess)
		testenv.Eventually(t, time.Minute, func() error {
			if got := must(b.c.Get(ctx(t), pr.Number))(t); got.State != forge.StateMerged {
				return fmt.Errorf("state %s", got.State)
			}
			return nil
		})
	})

	t.Run("AutoMergeNothingToWaitFor", func(t *testing.T) {
		// No checks on the head: merged now, on Forgejo too (which only
		// schedules, and would wait for a status that never comes).
		b.branch(t, "auto-now")
		pr := must(b.c.Create(ctx(t), forge.Spec{Head: "auto-now", Base: "main", Title: "Auto now"}))(t)
		testenv.Eventually(t, time.Minute, func() error {
			return b.c.AutoMerge(ctx(t), pr.Number, forge.Merge{Method: forge.MethodMerge})
		})
		if got := must(b.c.Get(ctx(t), pr.Number))(t); got.State != forge.StateMerged || got.MergeCommit == "" {
			t.Errorf("%s: nothing to wait for, AutoMerge must have merged: state %s, merge commit %q", b.name, got.State, got.MergeCommit)
		}
	})

	testAutoMergeJudged(t, b)

	t.Run("WrongToken", func(t *testing.T) {
		c := b.client(t, func(context.Context) (string, error) { return "0123456789abcdef0123456789abcdef01234567", nil })
		_, _, err := c.ListOpen(ctx(t))
		if !errors.Is(err, forge.ErrUnauthorized) {
			t.Fatalf("a token Gitea does not know must be ErrUnauthorized, got %v", err)
		}
		t.Logf("%s on a wrong token: %v", b.name, err)
	})
}

// reviewRequests counts the review requests Gitea recorded on number.
func reviewRequests(t *testing.T, b *bed, number int64) int {
	t.Helper()
	rs, _, err := b.g.Client(ctx(t), t).ListPullReviews(b.repo.Owner, b.repo.Name, number, sdk.ListPullReviewsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rs {
		if r.State == sdk.ReviewStateRequestReview {
			n++
		}
	}
	return n
}

// TestGiteaPages: ListOpen follows Gitea's pages to the last one, on a
// Gitea (and a Forgejo) answering two pull requests a page.
func TestGiteaPages(t *testing.T) {
	for _, f := range testenv.GiteaForges() {
		t.Run(f.Name, func(t *testing.T) { testPages(t, f) })
	}
}

func testPages(t *testing.T, f testenv.GiteaForge) {
	g := testenv.StartGitea(t, slices.Concat(f.Options, []testenv.GiteaOption{testenv.GiteaPageSize(2)})...)
	b := &bed{name: f.Name, g: g, repo: g.CreateRepo(t, "paged")}
	b.c = b.client(t, func(context.Context) (string, error) { return g.Token, nil })
	var want []int64
	for i := range 5 {
		head := fmt.Sprintf("paged-%d", i)
		b.branch(t, head)
		want = append(want, must(b.c.Create(ctx(t), forge.Spec{Head: head, Base: "main", Title: head}))(t).Number)
	}
	open, _ := must2(b.c.ListOpen(ctx(t)))(t)
	var got []int64
	for _, p := range open {
		got = append(got, p.Number)
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListOpen over pages of 2: -want, +got:\n%s", diff)
	}
}

// mergeWhenMergeable merges once Gitea has computed mergeability: right
// after a push it answers 405 "Please try again later".
func mergeWhenMergeable(t *testing.T, c forge.Client, number int64, m forge.Merge) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error { return c.Merge(ctx(t), number, m) })
}

var ignoreMergeable = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Mergeable" }, cmp.Ignore())

// declared is what Update keeps of a pull request.
func declared(p forge.PullRequest) forge.PullRequest {
	return forge.PullRequest{Title: p.Title, Body: p.Body, Draft: p.Draft, Labels: p.Labels,
		Assignees: p.Assignees, Reviewers: p.Reviewers, ReviewDecision: p.ReviewDecision}
}

func must2[T any](v T, b bool, err error) func(*testing.T) (T, bool) {
	return func(t *testing.T) (T, bool) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v, b
	}
}

// testHooks: the webhook the provider registers is created, found, pointed
// elsewhere and removed through Gitea's own API, and a second removal says
// it is gone.
func testHooks(t *testing.T, b *bed) {
	hooks, ok := b.c.(forge.Hooks)
	if !ok {
		t.Fatal("the Gitea client does not keep webhooks")
	}
	url := "http://127.0.0.1:9/hooks/first"
	h := must(hooks.CreateHook(ctx(t), forge.Hook{URL: url, Secret: "0123456789abcdef"}))(t)
	if h.ID == "" || h.URL != url || !h.Active {
		t.Fatalf("CreateHook = %+v, want an id, %s, active", h, url)
	}
	mine := func() []forge.Hook {
		var out []forge.Hook
		for _, x := range must(hooks.ListHooks(ctx(t)))(t) {
			if x.ID == h.ID {
				out = append(out, x)
			}
		}
		return out
	}
	if diff := cmp.Diff([]forge.Hook{h}, mine()); diff != "" {
		t.Errorf("ListHooks after create: -want, +got:\n%s", diff)
	}
	// Gitea cannot change a hook's secret: the update replaces the hook.
	moved := must(hooks.UpdateHook(ctx(t), forge.Hook{ID: h.ID, URL: "http://127.0.0.1:9/hooks/second", Secret: "fedcba9876543210"}))(t)
	if got := mine(); len(got) != 0 {
		t.Errorf("ListHooks after update: the replaced hook %s is still there: %+v", h.ID, got)
	}
	h = moved
	if diff := cmp.Diff([]forge.Hook{{ID: moved.ID, URL: "http://127.0.0.1:9/hooks/second", Active: true}}, mine()); diff != "" {
		t.Errorf("ListHooks after update: -want, +got:\n%s", diff)
	}
	if err := hooks.DeleteHook(ctx(t), h.ID); err != nil {
		t.Fatal(err)
	}
	if got := mine(); len(got) != 0 {
		t.Errorf("ListHooks after delete: %+v, want none", got)
	}
	if err := hooks.DeleteHook(ctx(t), h.ID); !errors.Is(err, forge.ErrNotFound) {
		t.Errorf("DeleteHook of a deleted hook: %v, want %v", err, forge.ErrNotFound)
	}
}
