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

package github_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
)

func TestMerge(t *testing.T) {
	type want struct {
		kind       error
		merged     bool
		headExists bool
		calls      []string
	}
	cases := map[string]struct {
		reason string
		setup  func(s *fake.Server, n int64)
		merge  forge.Merge
		want   want
	}{
		"Squash": {
			reason: "A clean pull request merges with PUT merge; the head stays.",
			merge:  forge.Merge{Method: forge.MethodSquash},
			want:   want{merged: true, headExists: true, calls: []string{"PUT /repos/acme/gitops/pulls/1/merge 200"}},
		},
		"DeleteBranch": {
			reason: "DeleteBranch deletes the head ref once merged.",
			merge:  forge.Merge{Method: forge.MethodMerge, DeleteBranch: true},
			want: want{merged: true, calls: []string{"PUT /repos/acme/gitops/pulls/1/merge 200",
				"GET /repos/acme/gitops/pulls/1 200", "DELETE /repos/acme/gitops/git/refs/heads/feature 204"}},
		},
		"HeadAlreadyGone": {
			reason: "A head already deleted (422 Reference does not exist) is fine.",
			setup:  func(s *fake.Server, _ int64) { s.DeleteBranch(owner, repo, "feature") },
			merge:  forge.Merge{Method: forge.MethodMerge, DeleteBranch: true},
			want: want{merged: true, calls: []string{"PUT /repos/acme/gitops/pulls/1/merge 200",
				"GET /repos/acme/gitops/pulls/1 200", "DELETE /repos/acme/gitops/git/refs/heads/feature 422"}},
		},
		"NotMergeable": {
			reason: "GitHub's 405 'Pull Request is not mergeable' is ErrNotMergeable.",
			setup:  func(s *fake.Server, n int64) { s.SetMergeable(n, fake.StateBlocked) },
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{kind: forge.ErrNotMergeable, headExists: true, calls: []string{"PUT /repos/acme/gitops/pulls/1/merge 405"}},
		},
		"Conflict": {
			reason: "dirty (conflicts) is refused the same way.",
			setup:  func(s *fake.Server, n int64) { s.SetMergeable(n, fake.StateDirty) },
			merge:  forge.Merge{Method: forge.MethodRebase},
			want:   want{kind: forge.ErrNotMergeable, headExists: true, calls: []string{"PUT /repos/acme/gitops/pulls/1/merge 405"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			pr := e.create(t, "feature", forge.Spec{})
			if tc.setup != nil {
				tc.setup(e.s, pr.Number)
			}
			e.calls()
			err := e.c.Merge(context.Background(), pr.Number, tc.merge)
			p, _ := e.s.Pull(pr.Number)
			_, head := e.s.Branch(owner, repo, "feature")
			g := want{kind: kind(err), merged: p.Merged, headExists: head, calls: e.calls()}
			if diff := cmp.Diff(tc.want, g, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nMerge(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestMergeTwice: a merged pull request cannot be merged again.
func TestMergeTwice(t *testing.T) {
	e := newEnv(t)
	pr := e.create(t, "feature", forge.Spec{})
	e.calls()
	if err := e.c.Merge(context.Background(), pr.Number, forge.Merge{DeleteBranch: true}); err != nil {
		t.Fatal(err)
	}
	err := e.c.Merge(context.Background(), pr.Number, forge.Merge{DeleteBranch: true})
	if diff := cmp.Diff(error(forge.ErrNotMergeable), kind(err)); diff != "" {
		t.Errorf("Merge() again: -want, +got:\n%s", diff)
	}
}

func TestAutoMerge(t *testing.T) {
	type want struct {
		kind      error
		autoMerge string
		calls     []string
	}
	cases := map[string]struct {
		reason string
		setup  func(s *fake.Server, n int64)
		merge  forge.Merge
		want   want
	}{
		"Enabled": {
			reason: "A blocked pull request gets auto-merge through GraphQL with its node_id and method.",
			setup:  func(s *fake.Server, n int64) { s.SetMergeable(n, fake.StateBlocked) },
			merge:  forge.Merge{Method: forge.MethodSquash},
			want: want{autoMerge: "SQUASH", calls: []string{"GET /repos/acme/gitops/pulls/1 200",
				"POST /api/graphql 200 enablePullRequestAutoMerge"}},
		},
		"NotAllowed": {
			reason: "'Auto merge is not allowed for this repository' is ErrUnsupported: the caller merges itself.",
			setup: func(s *fake.Server, n int64) {
				s.SetMergeable(n, fake.StateBlocked)
				s.SetAllowAutoMerge(owner, repo, false)
			},
			merge: forge.Merge{Method: forge.MethodMerge},
			want: want{kind: forge.ErrUnsupported, calls: []string{"GET /repos/acme/gitops/pulls/1 200",
				"POST /api/graphql 200 enablePullRequestAutoMerge"}},
		},
		"Clean": {
			reason: "'Pull request is in clean status' is ErrUnsupported too: it may be merged now.",
			merge:  forge.Merge{Method: forge.MethodMerge},
			want: want{kind: forge.ErrUnsupported, calls: []string{"GET /repos/acme/gitops/pulls/1 200",
				"POST /api/graphql 200 enablePullRequestAutoMerge"}},
		},
		"Merged": {
			reason: "A merged pull request needs nothing.",
			setup:  func(s *fake.Server, n int64) { s.Merge(n) },
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{calls: []string{"GET /repos/acme/gitops/pulls/1 200"}},
		},
		"Closed": {
			reason: "A closed pull request cannot be merged.",
			setup:  func(s *fake.Server, n int64) { s.Close(n) },
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{kind: forge.ErrNotMergeable, calls: []string{"GET /repos/acme/gitops/pulls/1 200"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			pr := e.create(t, "feature", forge.Spec{})
			if tc.setup != nil {
				tc.setup(e.s, pr.Number)
			}
			e.calls()
			err := e.c.AutoMerge(context.Background(), pr.Number, tc.merge)
			p, _ := e.s.Pull(pr.Number)
			g := want{kind: kind(err), autoMerge: p.AutoMerge, calls: e.calls()}
			if diff := cmp.Diff(tc.want, g, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nAutoMerge(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestAutoMergeLands: once auto-merge is on, Get says so, a second
// AutoMerge sends no mutation, and GitHub merges when the pull request
// turns clean.
func TestAutoMergeLands(t *testing.T) {
	e := newEnv(t)
	pr := e.create(t, "feature", forge.Spec{})
	e.s.SetMergeable(pr.Number, fake.StateBlocked)
	ctx := context.Background()
	if err := e.c.AutoMerge(ctx, pr.Number, forge.Merge{Method: forge.MethodRebase}); err != nil {
		t.Fatal(err)
	}
	p, err := e.c.Get(ctx, pr.Number)
	if err != nil || !p.AutoMerge {
		t.Fatalf("Get(): want AutoMerge, got %v, %v", p.AutoMerge, err)
	}
	e.calls()
	if err := e.c.AutoMerge(ctx, pr.Number, forge.Merge{Method: forge.MethodRebase}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"GET /repos/acme/gitops/pulls/1 304"}, e.calls()); diff != "" {
		t.Errorf("AutoMerge() again: -want, +got:\n%s", diff)
	}
	e.s.SetMergeable(pr.Number, fake.StateClean) // checks passed
	p, err = e.c.Get(ctx, pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(forge.StateMerged, p.State); diff != "" {
		t.Errorf("Get() once clean: -want, +got:\n%s", diff)
	}
}

// TestUpdate: a person's edits of title, labels, reviewers, assignees and
// draft are put back; a pull request as declared costs reads only.
func TestUpdate(t *testing.T) {
	e := newEnv(t)
	spec := forge.Spec{Head: "feature", Base: "main", Title: "Declared", Body: "Body",
		Labels: []string{"env"}, Reviewers: []string{"alice"}, Assignees: []string{"bob"}}
	pr := e.create(t, "feature", spec)
	ctx := context.Background()

	e.s.EditTitle(pr.Number, "A person's title")
	e.s.SetLabels(pr.Number, "env", "wip")
	e.s.AddReview(pr.Number, "alice", "APPROVED") // no longer requested, still a reviewer
	if _, err := e.c.Update(ctx, pr.Number, forge.Spec{Title: "A person's title", Body: "Body", Draft: true,
		Labels: []string{"env", "wip"}, Reviewers: []string{"alice", "mallory"}}); err != nil {
		t.Fatal(err) // a person's own edits, through the client, including draft and a reviewer
	}
	e.calls()

	got, err := e.c.Update(ctx, pr.Number, spec)
	if err != nil {
		t.Fatal(err)
	}
	want := forge.PullRequest{Number: pr.Number, URL: prURL(e.s, pr.Number), State: forge.StateOpen, Head: "feature",
		Base: "main", HeadRepo: owner + "/" + repo, HeadInRepo: true, HeadSHA: fake.SHA("feature"), Title: "Declared", Body: "Body", Labels: []string{"env"},
		Reviewers: []string{"alice"}, Assignees: []string{"bob"}, Mergeable: ptr(true), ReviewDecision: "APPROVED"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Update(): -want, +got:\n%s", diff)
	}
	sha := fake.SHA("feature")
	wantCalls := []string{
		"GET /repos/acme/gitops/pulls/1 304", // as the last Update left it
		"PATCH /repos/acme/gitops/pulls/1 200",
		"POST /api/graphql 200 markPullRequestReadyForReview",
		"PATCH /repos/acme/gitops/issues/1 200",
		"GET /repos/acme/gitops/pulls/1/reviews 304",
		"DELETE /repos/acme/gitops/pulls/1/requested_reviewers 200",
		"GET /repos/acme/gitops/pulls/1 200",
		"GET /repos/acme/gitops/commits/" + sha + "/status 304",
		"GET /repos/acme/gitops/commits/" + sha + "/check-runs 304",
		"GET /repos/acme/gitops/pulls/1/reviews 304",
	}
	if diff := cmp.Diff(wantCalls, e.calls()); diff != "" {
		t.Errorf("Update() requests: -want, +got:\n%s", diff)
	}
	p, _ := e.s.Pull(pr.Number)
	if diff := cmp.Diff(fake.Pull{Number: 1, Owner: owner, Repo: repo, State: "open", Title: "Declared", Body: "Body",
		Head: "feature", Base: "main", HeadSHA: sha, Labels: []string{"env"}, Assignees: []string{"bob"}}, p); diff != "" {
		t.Errorf("the fake's pull request after Update(): -want, +got:\n%s", diff)
	}

	if _, err := e.c.Update(ctx, pr.Number, spec); err != nil {
		t.Fatal(err)
	}
	wantCalls = []string{"GET /repos/acme/gitops/pulls/1 304", "GET /repos/acme/gitops/pulls/1/reviews 304",
		"GET /repos/acme/gitops/pulls/1 304", "GET /repos/acme/gitops/commits/" + sha + "/status 304",
		"GET /repos/acme/gitops/commits/" + sha + "/check-runs 304", "GET /repos/acme/gitops/pulls/1/reviews 304"}
	if diff := cmp.Diff(wantCalls, e.calls()); diff != "" {
		t.Errorf("Update() as declared: only 304 reads: -want, +got:\n%s", diff)
	}
}

func TestClose(t *testing.T) {
	e := newEnv(t)
	pr := e.create(t, "feature", forge.Spec{})
	e.calls()
	if err := e.c.Close(context.Background(), pr.Number); err != nil {
		t.Fatal(err)
	}
	p, _ := e.s.Pull(pr.Number)
	if diff := cmp.Diff("closed", p.State); diff != "" {
		t.Errorf("Close(): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"PATCH /repos/acme/gitops/pulls/1 200"}, e.calls()); diff != "" {
		t.Errorf("Close() requests: -want, +got:\n%s", diff)
	}
	err := e.c.Close(context.Background(), 42)
	if diff := cmp.Diff(error(forge.ErrNotFound), kind(err)); diff != "" {
		t.Errorf("Close(42): -want, +got:\n%s", diff)
	}
}
