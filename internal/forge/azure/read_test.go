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

package azure

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/azure"
)

func TestListOpen(t *testing.T) {
	type want struct {
		prs      []forge.PullRequest
		requests int
	}
	cases := map[string]struct {
		reason string
		setup  func(*fake.Server)
		want   want
	}{
		"Paged": {
			reason: "every page is read with $top and $skip until one comes back short; completed ones are not listed",
			setup: func(s *fake.Server) {
				for _, b := range []string{"a", "b", "c"} {
					s.AddBranch(b)
					s.Open(b, "main", "PR "+b)
				}
				s.Complete(s.Open("b", "main", "done"))
			},
			want: want{requests: 2, prs: []forge.PullRequest{
				{Number: 3, Head: "c", Title: "PR c"}, {Number: 2, Head: "b", Title: "PR b"}, {Number: 1, Head: "a", Title: "PR a"},
			}},
		},
		"Fork": {
			reason: "a pull request whose source is a fork's (forkSource set) is reported with the fork and HeadInRepo false, so it is never adopted",
			setup: func(s *fake.Server) {
				s.OpenFromFork("Stranger/gitops", "feature", "deadbeef", "main", "from a fork")
			},
			want: want{requests: 1, prs: []forge.PullRequest{{Number: 1, Head: "feature", Title: "from a fork"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, c, _ := newFake(t)
			c.top = 2
			tc.setup(srv)
			srv.ResetRequests()
			got, notModified, err := c.ListOpen(context.Background())
			if err != nil || notModified {
				t.Fatalf("\n%s\nListOpen(): %v, notModified %t", tc.reason, err, notModified)
			}
			if diff := cmp.Diff(tc.want.prs, got, cmpopts.IgnoreFields(forge.PullRequest{}, "URL", "State", "Base", "HeadRepo", "HeadInRepo", "HeadSHA", "Mergeable")); diff != "" {
				t.Errorf("\n%s\nListOpen(): -want, +got:\n%s", tc.reason, diff)
			}
			if n := len(srv.Requests()); n != tc.want.requests {
				t.Errorf("\n%s\nListOpen(): %d requests, want %d", tc.reason, n, tc.want.requests)
			}
		})
	}
}

func TestListOpenFork(t *testing.T) {
	srv, c, _ := newFake(t)
	srv.OpenFromFork("Stranger/gitops", "feature", "deadbeef", "main", "from a fork")
	own := srv.AddBranch("feature")
	srv.Open("feature", "main", "ours")
	got, _, err := c.ListOpen(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []forge.PullRequest{
		{Number: 2, Head: "feature", Base: "main", HeadRepo: fake.Project + "/" + fake.Repo, HeadInRepo: true, HeadSHA: own},
		{Number: 1, Head: "feature", Base: "main", HeadRepo: "Stranger/gitops", HeadInRepo: false, HeadSHA: "deadbeef"},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(forge.PullRequest{}, "URL", "State", "Title", "Mergeable")); diff != "" {
		t.Errorf("a fork's pull request of the same branch name is told apart by forkSource: -want, +got:\n%s", diff)
	}
}

func TestListOpenLongDescription(t *testing.T) {
	srv, c, _ := newFake(t)
	srv.AddBranch("long")
	long := strings.Repeat("a line of the description\n", 40) // 1,040 characters
	pr, err := c.Create(context.Background(), forge.Spec{Head: "long", Base: "main", Title: "long", Body: long})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := c.ListOpen(context.Background())
	if err != nil || len(got) != 1 {
		t.Fatalf("ListOpen(): %v, %d pull requests", err, len(got))
	}
	if got[0].Body != long {
		t.Errorf("the list's description cut at 400 characters must be reported whole from the one written: got %d characters", len(got[0].Body))
	}
	// A person rewrites the description: the list's no longer starts the
	// kept one, and is reported as Azure answers it.
	srv.Edit(pr.Number, func(p *fake.PullRequest) { p.Description = strings.Repeat("theirs ", 100) })
	got, _, err = c.ListOpen(context.Background())
	if err != nil || len(got) != 1 {
		t.Fatalf("ListOpen(): %v", err)
	}
	if got[0].Body == long || len([]rune(got[0].Body)) != 400 {
		t.Errorf("a description a person changed must be reported as the list answers it: got %d characters", len(got[0].Body))
	}
}

func TestGet(t *testing.T) {
	srv, c, _ := newFake(t)
	head := srv.AddBranch("feature")
	n := srv.Open("feature", "main", "policies")
	srv.SetPageSize(1)
	srv.Edit(n, func(p *fake.PullRequest) {
		p.Labels = []string{"promotion"}
		p.Reviewers = []fake.Reviewer{{ID: "4e2a1bd2-47a2-46a3-9b0c-3b1b4bfc1f84", UniqueName: "jane@fabrikam.com", Required: true, Vote: 10}}
		p.Policies = []fake.Policy{
			{Type: fake.PolicyBuild, Name: "Build", Status: "running", Blocking: true},
			{Type: fake.PolicyStatus, Name: "optional scan", Status: "rejected", Blocking: false},
			{Type: fake.PolicyMinimumReviewers, Name: "Minimum number of reviewers", Status: "approved", Blocking: true},
		}
	})
	got, err := c.Get(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	want := forge.PullRequest{
		Number: n, URL: srv.URL() + "/" + fake.Org + "/" + fake.Project + "/_git/" + fake.Repo + "/pullrequest/1",
		State: forge.StateOpen, Head: "feature", Base: "main", HeadRepo: fake.Project + "/" + fake.Repo, HeadInRepo: true, HeadSHA: head,
		Title: "policies", Labels: []string{"promotion"}, Reviewers: []string{"jane@fabrikam.com", "4e2a1bd2-47a2-46a3-9b0c-3b1b4bfc1f84"},
		Mergeable: ptr(true), Checks: forge.ChecksPending, ReviewDecision: "APPROVED",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Get reads the pull request and every page of its policy evaluations (continuation tokens): -want, +got:\n%s", diff)
	}
	// 1 pull request + 3 pages of evaluations, one policy each.
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("Get made %d requests, want 4: %+v", n, srv.Requests())
	}
}

func TestGetMergedAndAbandoned(t *testing.T) {
	srv, c, _ := newFake(t)
	srv.AddBranch("a")
	srv.AddBranch("b")
	merged, abandoned := srv.Open("a", "main", "merged"), srv.Open("b", "main", "abandoned")
	srv.Complete(merged)
	srv.Edit(abandoned, func(p *fake.PullRequest) { p.Status = "abandoned" })
	m, _ := srv.PR(merged)
	got, err := c.Get(context.Background(), merged)
	if err != nil || got.State != forge.StateMerged || got.MergeCommit != m.MergeCommit || got.Mergeable != nil {
		t.Errorf("a completed pull request is Merged with its merge commit: %+v, %v", got, err)
	}
	got, err = c.Get(context.Background(), abandoned)
	if err != nil || got.State != forge.StateClosed {
		t.Errorf("an abandoned pull request is Closed: %+v, %v", got, err)
	}
	if _, err := c.Get(context.Background(), 99); !errorsIs(err, forge.ErrNotFound) {
		t.Errorf("a missing pull request is ErrNotFound: %v", err)
	}
}
