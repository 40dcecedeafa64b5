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

func TestDataCenterListOpen(t *testing.T) {
	s := fake.NewDC(t)
	own := s.Open("", "request/a", fake.SHA("a"), "main", "ours")
	s.Edit(own, func(p *fake.DCPull) {
		p.Reviewers, p.Votes = []string{"jdoe", "ann"}, map[string]string{"ann": "NEEDS_WORK", "jdoe": "APPROVED"}
	})
	fork := s.Open("~MALLORY", "request/a", fake.SHA("evil"), "main", "theirs")
	for i := range 150 { // two pages of 100
		s.Open("", "bulk/"+strings.Repeat("x", i+1), fake.SHA("bulk"+strings.Repeat("x", i)), "main", "bulk")
	}
	prs, notModified, err := dcClient(t, s, fake.Token).ListOpen(context.Background())
	if err != nil || notModified {
		t.Fatalf("ListOpen: %v (notModified %v)", err, notModified)
	}
	if len(prs) != 152 {
		t.Fatalf("ListOpen: %d pull requests, want 152 across two pages", len(prs))
	}
	want := []forge.PullRequest{
		{Number: own, State: forge.StateOpen, Head: "request/a", Base: "main", HeadRepo: "PLAT/gitops", HeadInRepo: true,
			HeadSHA: fake.SHA("a"), Title: "ours", Reviewers: []string{"ann", "jdoe"}, ReviewDecision: "CHANGES_REQUESTED"},
		{Number: fork, State: forge.StateOpen, Head: "request/a", Base: "main", HeadRepo: "~MALLORY/gitops", HeadInRepo: false,
			HeadSHA: fake.SHA("evil"), Title: "theirs"},
	}
	if diff := cmp.Diff(want, prs[:2], ignoreURL); diff != "" {
		t.Errorf("ListOpen: -want, +got:\n%s", diff)
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("ListOpen made %d requests, want one per page (2)", n)
	}
}

func TestDataCenterCreate(t *testing.T) {
	cases := map[string]struct {
		reason   string
		setup    func(s *fake.DCServer)
		spec     forge.Spec
		want     error
		draft    bool
		returned bool
	}{
		"New": {
			reason: "A new pull request carries title, description, reviewers and draft.",
			spec:   forge.Spec{Head: "request/a", Base: "main", Title: "T", Body: "B", Draft: true, Reviewers: []string{"jdoe"}},
			draft:  true, returned: true,
		},
		"Exists": {
			reason: "Data Center's 409 DuplicatePullRequestException is ErrExists.",
			setup:  func(s *fake.DCServer) { s.Open("", "request/a", fake.SHA("a"), "main", "a person's") },
			spec:   forge.Spec{Head: "request/a", Base: "main", Title: "T"},
			want:   forge.ErrExists,
		},
		"MissingBase": {
			reason: "A 404 for a branch the repository lacks is ErrNoSuchBranch.",
			spec:   forge.Spec{Head: "request/a", Base: "release", Title: "T"},
			want:   forge.ErrNoSuchBranch,
		},
		"DraftOnAnOldServer": {
			reason: "A server before drafts opens it, and the draft is refused rather than dropped.",
			setup:  func(s *fake.DCServer) { s.WithoutDrafts() },
			spec:   forge.Spec{Head: "request/a", Base: "main", Title: "T", Draft: true},
			want:   forge.ErrInvalidInput, returned: true,
		},
		"ReadOnlyToken": {
			reason: "Data Center's 401 AuthorisationException is a lack of permission, not a bad token.",
			spec:   forge.Spec{Head: "request/a", Base: "main", Title: "T"},
			want:   forge.ErrForbidden,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewDC(t)
			s.SetBranch("request/a", fake.SHA("a"))
			if tc.setup != nil {
				tc.setup(s)
			}
			token := fake.Token
			if name == "ReadOnlyToken" {
				token = fake.ReadOnlyToken
			}
			pr, err := dcClient(t, s, token).Create(context.Background(), tc.spec)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("\n%s\nCreate: error %v, want %v", tc.reason, err, tc.want)
			}
			if (pr.Number != 0) != tc.returned || pr.Draft != tc.draft {
				t.Errorf("\n%s\nCreate returned %+v", tc.reason, pr)
			}
		})
	}
}

func TestDataCenterUpdateAndClose(t *testing.T) {
	s := fake.NewDC(t)
	id := s.Open("", "request/a", fake.SHA("a"), "main", "theirs")
	s.Edit(id, func(p *fake.DCPull) { p.Reviewers = []string{"ann"} })
	c := dcClient(t, s, fake.Token)
	pr, err := c.Update(context.Background(), id, forge.Spec{Head: "request/a", Base: "main", Title: "ours", Body: "B", Draft: true, Reviewers: []string{"jdoe"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Pull(id)
	if diff := cmp.Diff([]string{"ann", "jdoe"}, got.Reviewers); diff != "" || got.Title != "ours" || !got.Draft || pr.Title != "ours" {
		t.Errorf("Update: reviewers -want, +got:\n%s; title %q, draft %v", diff, got.Title, got.Draft)
	}
	if err := c.Close(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Pull(id); got.State != "DECLINED" {
		t.Errorf("Close: state %s, want DECLINED", got.State)
	}
}

func TestDataCenterMerge(t *testing.T) {
	head := fake.SHA("a")
	cases := map[string]struct {
		reason string
		setup  func(s *fake.DCServer, id int64)
		merge  forge.Merge
		auto   bool
		want   error
		state  string
		branch bool
	}{
		"Merged": {
			reason: "The judged head is merged at its version, and the head deleted pinned to it.",
			merge:  forge.Merge{Method: forge.MethodSquash, DeleteBranch: true, HeadSHA: head},
			state:  "MERGED",
		},
		"HeadMoved": {
			reason: "A head pushed since it was judged is refused before anything is posted.",
			setup:  func(s *fake.DCServer, _ int64) { s.SetBranch("request/a", fake.SHA("pushed")) },
			merge:  forge.Merge{HeadSHA: head},
			want:   forge.ErrHeadMoved, state: "OPEN", branch: true,
		},
		"StaleVersion": {
			reason: "A pull request changed between the read and the merge is refused by its version (409): ErrHeadMoved.",
			setup:  func(s *fake.DCServer, id int64) { staleOnce(s, id) },
			merge:  forge.Merge{HeadSHA: head},
			want:   forge.ErrHeadMoved, state: "OPEN", branch: true,
		},
		"Vetoed": {
			reason: "A merge check's veto (409) is ErrNotMergeable.",
			setup: func(s *fake.DCServer, id int64) {
				s.Edit(id, func(p *fake.DCPull) { p.Vetoes = []string{"Requires 1 approval"} })
			},
			merge: forge.Merge{HeadSHA: head},
			want:  forge.ErrNotMergeable, state: "OPEN", branch: true,
		},
		"AutoMergeWaits": {
			reason: "Auto-merge of a vetoed pull request is set, pinned to its head, and Data Center merges once the veto lifts.",
			setup: func(s *fake.DCServer, id int64) {
				s.Edit(id, func(p *fake.DCPull) { p.Vetoes = []string{"Requires 1 approval"} })
			},
			merge: forge.Merge{Method: forge.MethodMerge, HeadSHA: head},
			auto:  true, state: "OPEN", branch: true,
		},
		"AutoMergeOff": {
			reason: "A repository with auto-merge off answers 403: ErrUnsupported, the provider merges.",
			setup:  func(s *fake.DCServer, _ int64) { s.SetAutoMerge(false) },
			merge:  forge.Merge{HeadSHA: head},
			auto:   true, want: forge.ErrUnsupported, state: "OPEN", branch: true,
		},
		"AutoMergeCannotDelete": {
			reason: "Auto-merge keeps no delete-branch option: ErrUnsupported before anything is sent.",
			merge:  forge.Merge{DeleteBranch: true, HeadSHA: head},
			auto:   true, want: forge.ErrUnsupported, state: "OPEN", branch: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewDC(t)
			id := s.Open("", "request/a", head, "main", "T")
			if tc.setup != nil {
				tc.setup(s, id)
			}
			c := dcClient(t, s, fake.Token)
			merge := c.Merge
			if tc.auto {
				merge = c.AutoMerge
			}
			err := merge(context.Background(), id, tc.merge)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("\n%s\nMerge: error %v, want %v", tc.reason, err, tc.want)
			}
			got, _ := s.Pull(id)
			if got.State != tc.state {
				t.Errorf("\n%s\nMerge: state %s, want %s", tc.reason, got.State, tc.state)
			}
			if _, ok := s.Branch("request/a"); ok != tc.branch {
				t.Errorf("\n%s\nMerge: head branch there %v, want %v", tc.reason, ok, tc.branch)
			}
		})
	}
	// The auto-merge set above merges when the veto lifts, and only the
	// head it was asked at.
	s := fake.NewDC(t)
	id := s.Open("", "request/a", head, "main", "T")
	s.Edit(id, func(p *fake.DCPull) { p.Vetoes = []string{"builds"} })
	if err := dcClient(t, s, fake.Token).AutoMerge(context.Background(), id, forge.Merge{Method: forge.MethodRebase, HeadSHA: head}); err != nil {
		t.Fatal(err)
	}
	s.Edit(id, func(p *fake.DCPull) { p.Vetoes = nil })
	if got, _ := s.Pull(id); got.State != "MERGED" || got.Strategy != "rebase-ff-only" {
		t.Errorf("auto-merge: state %s by %q, want MERGED by rebase-ff-only", got.State, got.Strategy)
	}
}

// staleOnce moves the pull request's version on at the moment the client
// posts its merge: the read before saw the old one.
func staleOnce(s *fake.DCServer, id int64) {
	s.BeforeNext(http.MethodPost, "/merge", func() { s.Edit(id, func(p *fake.DCPull) { p.Title = "edited meanwhile" }) })
}
