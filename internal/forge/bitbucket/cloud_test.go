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
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/bitbucket"
)

var (
	alice = fake.User{AccountID: "557058:alice", UUID: "{a11ce000-0000-4000-8000-000000000001}"}
	bob   = fake.User{AccountID: "557058:bob", UUID: "{b0b00000-0000-4000-8000-000000000002}"}
)

func TestCloudListOpen(t *testing.T) {
	s := fake.NewCloud(t)
	s.AddUser(alice)
	own := s.Open(fake.Workspace+"/"+fake.RepoSlug, "request/a", fake.SHA("a"), "main", "ours")
	s.Edit(own, func(p *fake.CloudPull) {
		p.Reviewers, p.Votes = []fake.User{alice}, map[string]string{alice.AccountID: "approved"}
	})
	fork := s.Open("mallory/gitops", "request/a", fake.SHA("evil"), "main", "theirs")
	for i := range 60 { // two pages of 50
		s.Open(fake.Workspace+"/"+fake.RepoSlug, "bulk/"+string(rune('a'+i%26))+strings.Repeat("x", i/26), fake.SHA("bulk"+string(rune(i))), "main", "bulk")
	}
	s.Edit(fork, func(p *fake.CloudPull) {})
	c := cloudClient(t, s, fake.Token)
	prs, notModified, err := c.ListOpen(context.Background())
	if err != nil || notModified {
		t.Fatalf("ListOpen: %v (notModified %v)", err, notModified)
	}
	if len(prs) != 62 {
		t.Fatalf("ListOpen: %d pull requests, want 62 across two pages", len(prs))
	}
	want := map[int64]forge.PullRequest{
		own: {Number: own, State: forge.StateOpen, Head: "request/a", Base: "main", HeadRepo: "acme/gitops", HeadInRepo: true,
			HeadSHA: fake.SHA("a"), Title: "ours", Reviewers: []string{alice.AccountID, alice.UUID}, ReviewDecision: "APPROVED"},
		fork: {Number: fork, State: forge.StateOpen, Head: "request/a", Base: "main", HeadRepo: "mallory/gitops", HeadInRepo: false,
			HeadSHA: fake.SHA("evil")[:12], Title: "theirs"},
	}
	for _, pr := range prs[:2] {
		if diff := cmp.Diff(want[pr.Number], pr, ignoreURL); diff != "" {
			t.Errorf("ListOpen: pull request %d: -want, +got:\n%s", pr.Number, diff)
		}
	}
	expansions := s.Count(func(r fake.Request) bool { return strings.Contains(r.Path, "/commit/") })
	if _, _, err := c.ListOpen(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again := s.Count(func(r fake.Request) bool { return strings.Contains(r.Path, "/commit/") }); again != expansions {
		t.Errorf("a second list expanded %d heads again: each head is asked once", again-expansions)
	}
	if expansions != 61 {
		t.Errorf("%d expansions, want one per head of this repository (61), none for the fork's", expansions)
	}
}

func TestCloudCreate(t *testing.T) {
	type want struct {
		pr  forge.PullRequest
		err error
	}
	cases := map[string]struct {
		reason string
		setup  func(s *fake.CloudServer)
		spec   forge.Spec
		want   want
	}{
		"New": {
			reason: "A new pull request is created with title, description, draft and reviewers by account ID or UUID.",
			spec:   forge.Spec{Head: "request/a", Base: "main", Title: "T", Body: "B", Draft: true, Reviewers: []string{alice.AccountID, bob.UUID}},
			want: want{pr: forge.PullRequest{Number: 1, State: forge.StateOpen, Head: "request/a", Base: "main", HeadRepo: "acme/gitops",
				HeadInRepo: true, HeadSHA: fake.SHA("a"), Title: "T", Body: "B", Draft: true, ReviewDecision: "REVIEW_REQUIRED",
				Reviewers: []string{alice.AccountID, bob.AccountID, alice.UUID, bob.UUID}}},
		},
		"Exists": {
			reason: "An open pull request of this head and base is ErrExists before anything is written (Cloud would update it).",
			setup: func(s *fake.CloudServer) {
				s.Open(fake.Workspace+"/"+fake.RepoSlug, "request/a", fake.SHA("a"), "main", "a person's")
			},
			spec: forge.Spec{Head: "request/a", Base: "main", Title: "T"},
			want: want{err: forge.ErrExists},
		},
		"ForkIsNotOurs": {
			reason: "A fork's pull request of the same branch names is not this head: a new one is opened.",
			setup:  func(s *fake.CloudServer) { s.Open("mallory/gitops", "request/a", fake.SHA("evil"), "main", "theirs") },
			spec:   forge.Spec{Head: "request/a", Base: "main", Title: "T"},
			want: want{pr: forge.PullRequest{Number: 2, State: forge.StateOpen, Head: "request/a", Base: "main", HeadRepo: "acme/gitops",
				HeadInRepo: true, HeadSHA: fake.SHA("a"), Title: "T"}},
		},
		"MissingHead": {
			reason: "Cloud's 400 for a branch that does not exist is ErrNoSuchBranch.",
			spec:   forge.Spec{Head: "request/none", Base: "main", Title: "T"},
			want:   want{err: forge.ErrNoSuchBranch},
		},
		"UnknownReviewer": {
			reason: "A reviewer Cloud does not know is refused as invalid.",
			spec:   forge.Spec{Head: "request/a", Base: "main", Title: "T", Reviewers: []string{"557058:nobody"}},
			want:   want{err: forge.ErrInvalidInput},
		},
		"Labels": {
			reason: "Bitbucket has no labels: declaring some is refused, not dropped.",
			spec:   forge.Spec{Head: "request/a", Base: "main", Title: "T", Labels: []string{"x"}},
			want:   want{err: forge.ErrInvalidInput},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewCloud(t)
			s.AddUser(alice)
			s.AddUser(bob)
			s.SetBranch("request/a", fake.SHA("a"))
			if tc.setup != nil {
				tc.setup(s)
			}
			pr, err := cloudClient(t, s, fake.Token).Create(context.Background(), tc.spec)
			if !errors.Is(err, tc.want.err) || (tc.want.err == nil) != (err == nil) {
				t.Fatalf("\n%s\nCreate: error %v, want %v", tc.reason, err, tc.want.err)
			}
			if diff := cmp.Diff(tc.want.pr, pr, ignoreURL); diff != "" {
				t.Errorf("\n%s\nCreate: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCloudGet(t *testing.T) {
	type want struct {
		checks    forge.Checks
		mergeable *bool
		decision  string
	}
	cases := map[string]struct {
		reason string
		edit   func(p *fake.CloudPull)
		status []string
		want   want
	}{
		"Clean": {
			reason: "No statuses, no conflicts: mergeable, checks none.",
			want:   want{mergeable: ptr(true)},
		},
		"Conflicts": {
			reason: "File conflicts (through the conflicts redirect) make it not mergeable.",
			edit:   func(p *fake.CloudPull) { p.Conflicts = []string{"apps/web.yaml"} },
			status: []string{"SUCCESSFUL"},
			want:   want{checks: forge.ChecksSuccess, mergeable: ptr(false)},
		},
		"MergeChecksFail": {
			reason: "Cloud's mergeable false (merge checks) is not mergeable.",
			edit:   func(p *fake.CloudPull) { p.MergeChecks = ptr(false) },
			status: []string{"SUCCESSFUL", "INPROGRESS"},
			want:   want{checks: forge.ChecksPending, mergeable: ptr(false)},
		},
		"Draft": {
			reason: "A draft is not mergeable.",
			edit:   func(p *fake.CloudPull) { p.Draft = true },
			status: []string{"STOPPED", "SUCCESSFUL"},
			want:   want{checks: forge.ChecksFailure, mergeable: ptr(false)},
		},
		"ChangesRequested": {
			reason: "A reviewer asking for changes outweighs another's approval.",
			edit: func(p *fake.CloudPull) {
				p.Reviewers = []fake.User{alice, bob}
				p.Votes = map[string]string{alice.AccountID: "approved", bob.AccountID: "changes_requested"}
			},
			want: want{mergeable: ptr(true), decision: "CHANGES_REQUESTED"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewCloud(t)
			id := s.Open(fake.Workspace+"/"+fake.RepoSlug, "request/a", fake.SHA("a"), "main", "T")
			if tc.edit != nil {
				s.Edit(id, tc.edit)
			}
			s.SetStatus(fake.SHA("a"), tc.status...)
			pr, err := cloudClient(t, s, fake.Token).Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			got := want{checks: pr.Checks, mergeable: pr.Mergeable, decision: pr.ReviewDecision}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nGet: -want, +got:\n%s", tc.reason, diff)
			}
			if pr.HeadSHA != fake.SHA("a") {
				t.Errorf("\n%s\nGet: head %q, want the full SHA", tc.reason, pr.HeadSHA)
			}
		})
	}
}

func TestCloudUpdate(t *testing.T) {
	s := fake.NewCloud(t)
	s.AddUser(alice)
	s.AddUser(bob)
	id := s.Open(fake.Workspace+"/"+fake.RepoSlug, "request/a", fake.SHA("a"), "main", "theirs")
	s.Edit(id, func(p *fake.CloudPull) { p.Reviewers = []fake.User{bob} })
	c := cloudClient(t, s, fake.Token)
	pr, err := c.Update(context.Background(), id, forge.Spec{Head: "request/a", Base: "main", Title: "ours", Body: "B", Reviewers: []string{alice.UUID}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Pull(id)
	if diff := cmp.Diff([]fake.User{bob, alice}, got.Reviewers); diff != "" || got.Title != "ours" || got.Description != "B" || pr.Title != "ours" {
		t.Errorf("Update kept reviewers a person added and added the declared one? -want, +got:\n%s (title %q)", diff, got.Title)
	}
	before := len(s.Requests())
	if _, err := c.Update(context.Background(), id, forge.Spec{Head: "request/a", Base: "main", Title: "ours", Body: "B", Reviewers: []string{alice.AccountID}}); err != nil {
		t.Fatal(err)
	}
	if puts := s.Count(func(r fake.Request) bool { return r.Method == http.MethodPut }); puts != 1 {
		t.Errorf("%d PUTs after an Update with nothing to change (%d requests), want the first only", puts, len(s.Requests())-before)
	}
}

func TestCloudMerge(t *testing.T) {
	head := fake.SHA("a")
	cases := map[string]struct {
		reason string
		setup  func(s *fake.CloudServer, id int64)
		merge  forge.Merge
		want   error
		state  string
	}{
		"Merged": {
			reason: "A judged head is merged with the strategy asked and its branch closed.",
			merge:  forge.Merge{Method: forge.MethodSquash, DeleteBranch: true, HeadSHA: head},
			state:  "MERGED",
		},
		"HeadMoved": {
			reason: "A head pushed since it was judged is refused before anything is posted.",
			setup:  func(s *fake.CloudServer, _ int64) { s.SetBranch("request/a", fake.SHA("pushed")) },
			merge:  forge.Merge{Method: forge.MethodMerge, HeadSHA: head},
			want:   forge.ErrHeadMoved, state: "OPEN",
		},
		"RaceDuringMerge": {
			reason: "Cloud's 409 (a ref moved while it merged) is ErrHeadMoved.",
			setup:  func(s *fake.CloudServer, _ int64) { s.RaceNextMerge() },
			merge:  forge.Merge{Method: forge.MethodMerge, HeadSHA: head},
			want:   forge.ErrHeadMoved, state: "OPEN",
		},
		"Conflicts": {
			reason: "Cloud's 400 to a merge is ErrNotMergeable.",
			setup: func(s *fake.CloudServer, id int64) {
				s.Edit(id, func(p *fake.CloudPull) { p.Conflicts = []string{"x"} })
			},
			merge: forge.Merge{Method: forge.MethodMerge, HeadSHA: head},
			want:  forge.ErrNotMergeable, state: "OPEN",
		},
		"StrategyNotAllowed": {
			reason: "A strategy the destination branch does not allow is refused as invalid, not retried forever.",
			setup:  func(s *fake.CloudServer, _ int64) { s.SetStrategies("merge_commit") },
			merge:  forge.Merge{Method: forge.MethodRebase, HeadSHA: head},
			want:   forge.ErrInvalidInput, state: "OPEN",
		},
		"AlreadyMerged": {
			reason: "A pull request merged already is done.",
			setup:  func(s *fake.CloudServer, id int64) { s.Merge(id) },
			merge:  forge.Merge{Method: forge.MethodMerge, HeadSHA: head},
			state:  "MERGED",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewCloud(t)
			id := s.Open(fake.Workspace+"/"+fake.RepoSlug, "request/a", head, "main", "T")
			if tc.setup != nil {
				tc.setup(s, id)
			}
			err := cloudClient(t, s, fake.Token).Merge(context.Background(), id, tc.merge)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("\n%s\nMerge: error %v, want %v", tc.reason, err, tc.want)
			}
			if got, _ := s.Pull(id); got.State != tc.state {
				t.Errorf("\n%s\nMerge: state %s, want %s", tc.reason, got.State, tc.state)
			}
		})
	}
	s := fake.NewCloud(t)
	id := s.Open(fake.Workspace+"/"+fake.RepoSlug, "request/a", head, "main", "T")
	if err := cloudClient(t, s, fake.Token).Merge(context.Background(), id, forge.Merge{Method: forge.MethodRebase, DeleteBranch: true, HeadSHA: head}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Pull(id); got.Strategy != "rebase_fast_forward" || !got.CloseSourceBranch {
		t.Errorf("rebase merged with %q (close source %v), want rebase_fast_forward closing the source", got.Strategy, got.CloseSourceBranch)
	}
	if _, ok := s.Branch("request/a"); ok {
		t.Error("the head branch is still there after a merge that closes it")
	}
	fork := s.Open("mallory/gitops", "request/a", fake.SHA("evil"), "main", "theirs")
	if err := cloudClient(t, s, fake.Token).Merge(context.Background(), fork, forge.Merge{DeleteBranch: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Pull(fork); got.CloseSourceBranch {
		t.Error("a fork's pull request was merged closing its source branch: not the provider's to delete")
	}
	if err := cloudClient(t, s, fake.Token).AutoMerge(context.Background(), id, forge.Merge{}); !errors.Is(err, forge.ErrUnsupported) {
		t.Errorf("AutoMerge: %v, want ErrUnsupported", err)
	}
}
