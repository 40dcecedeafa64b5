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
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/azure"
)

const janeID = "4e2a1bd2-47a2-46a3-9b0c-3b1b4bfc1f84"

func TestCreate(t *testing.T) {
	type want struct {
		pr  forge.PullRequest
		err error
	}
	spec := forge.Spec{Head: "feature", Base: "main", Title: "Promote", Body: "body", Draft: true,
		Labels: []string{"promotion"}, Reviewers: []string{"jane@fabrikam.com"}}
	cases := map[string]struct {
		reason string
		setup  func(*fake.Server)
		spec   forge.Spec
		want   want
	}{
		"Opened": {
			reason: "a draft opens with its labels and its reviewer, looked up by unique name and required",
			spec:   spec,
			want: want{pr: forge.PullRequest{Number: 1, State: forge.StateOpen, Head: "feature", Base: "main", Title: "Promote", Body: "body", Draft: true,
				Labels: []string{"promotion"}, Reviewers: []string{"jane@fabrikam.com", janeID}, HeadInRepo: true, Mergeable: ptr(false)}},
		},
		"Exists": {
			reason: "Azure's 409 TF401179 for an active pull request of the same source and target is ErrExists",
			setup:  func(s *fake.Server) { s.Open("feature", "main", "by hand") },
			spec:   spec,
			want:   want{err: forge.ErrExists},
		},
		"NoBranch": {
			reason: "Azure's 400 TF401398 for a missing source branch is ErrNoSuchBranch",
			spec:   forge.Spec{Head: "gone", Base: "main", Title: "t"},
			want:   want{err: forge.ErrNoSuchBranch},
		},
		"UnknownReviewer": {
			reason: "a reviewer no identity is named is refused before anything opens",
			spec:   forge.Spec{Head: "feature", Base: "main", Title: "t", Reviewers: []string{"nobody@fabrikam.com"}},
			want:   want{err: forge.ErrInvalidInput},
		},
		"DecoyDisplayName": {
			reason: "an identity whose display name copies a reviewer's sign-in address is not taken for it, whether the real one is found too or not",
			setup: func(s *fake.Server) {
				s.AddIdentity("mallory@example.net", "jane@fabrikam.com", "0bad0bad-0000-4000-8000-000000000001")
				s.AddIdentity("eve@example.net", "bob@fabrikam.com", "0bad0bad-0000-4000-8000-000000000002")
			},
			spec: forge.Spec{Head: "feature", Base: "main", Title: "t", Reviewers: []string{"jane@fabrikam.com", "bob@fabrikam.com"}},
			want: want{err: forge.ErrInvalidInput},
		},
		"DisplayName": {
			reason: "a reviewer named by display name is the one identity of that name",
			spec:   forge.Spec{Head: "feature", Base: "main", Title: "t", Reviewers: []string{"Raj Kumar"}},
			want: want{pr: forge.PullRequest{Number: 1, State: forge.StateOpen, Head: "feature", Base: "main", Title: "t",
				Reviewers: []string{"raj@fabrikam.com", "8c6d0f63-ec62-4c4f-b3c9-4a9d2a11f8b0", "Raj Kumar"}, HeadInRepo: true, Mergeable: ptr(true)}},
		},
		"Assignees": {
			reason: "Azure DevOps has no assignees",
			spec:   forge.Spec{Head: "feature", Base: "main", Title: "t", Assignees: []string{"jane@fabrikam.com"}},
			want:   want{err: forge.ErrInvalidInput},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, c, _ := newFake(t)
			srv.AddBranch("feature")
			if tc.setup != nil {
				tc.setup(srv)
			}
			got, err := c.Create(context.Background(), tc.spec)
			if !errorsIs(err, tc.want.err) || (tc.want.err == nil) != (err == nil) {
				t.Fatalf("\n%s\nCreate(): error %v, want %v", tc.reason, err, tc.want.err)
			}
			if diff := cmp.Diff(tc.want.pr, got, cmpopts.IgnoreFields(forge.PullRequest{}, "URL", "HeadRepo", "HeadSHA")); diff != "" {
				t.Errorf("\n%s\nCreate(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	type want struct {
		pr     fake.PullRequest
		writes int
	}
	declared := forge.Spec{Head: "feature", Base: "main", Title: "Promote", Body: "body", Labels: []string{"promotion"}, Reviewers: []string{"jane@fabrikam.com"}}
	cases := map[string]struct {
		reason string
		edit   func(*fake.PullRequest)
		want   want
	}{
		"AsDeclared": {
			reason: "nothing differs: nothing is written",
			want:   want{pr: fake.PullRequest{Title: "Promote", Description: "body", Labels: []string{"promotion"}}},
		},
		"PutBack": {
			reason: "title, description and draft in one PATCH, a person's label removed and the declared one added, the declared reviewer added back as required",
			edit: func(p *fake.PullRequest) {
				p.Title, p.Description, p.Draft, p.Labels, p.Reviewers = "theirs", "theirs", true, []string{"theirs"}, nil
			},
			want: want{writes: 4, pr: fake.PullRequest{Title: "Promote", Description: "body", Labels: []string{"promotion"}}},
		},
		"ReviewerKept": {
			reason: "a reviewer a person added stays, and so does one made optional: reviewers are a floor",
			edit: func(p *fake.PullRequest) {
				p.Reviewers = append(p.Reviewers, fake.Reviewer{ID: "8c6d0f63-ec62-4c4f-b3c9-4a9d2a11f8b0", UniqueName: "raj@fabrikam.com"})
				p.Reviewers[0].Required = false
			},
			want: want{pr: fake.PullRequest{Title: "Promote", Description: "body", Labels: []string{"promotion"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, c, _ := newFake(t)
			srv.AddBranch("feature")
			pr, err := c.Create(context.Background(), declared)
			if err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				srv.Edit(pr.Number, tc.edit)
			}
			srv.ResetRequests()
			got, err := c.Update(context.Background(), pr.Number, declared)
			if err != nil {
				t.Fatalf("\n%s\nUpdate(): %v", tc.reason, err)
			}
			if got.Title != declared.Title || got.Body != declared.Body || got.Draft || !cmp.Equal(got.Labels, declared.Labels) {
				t.Errorf("\n%s\nUpdate() reports %+v", tc.reason, got)
			}
			if !contains(got.Reviewers, "jane@fabrikam.com") {
				t.Errorf("\n%s\nUpdate(): reviewers %v lack the declared one", tc.reason, got.Reviewers)
			}
			held, _ := srv.PR(pr.Number)
			if diff := cmp.Diff(tc.want.pr, held, cmpopts.IgnoreFields(fake.PullRequest{}, "ID", "Source", "Target", "Status", "Head", "Reviewers")); diff != "" {
				t.Errorf("\n%s\nAzure holds: -want, +got:\n%s", tc.reason, diff)
			}
			if w := writes(srv.Requests()); w != tc.want.writes {
				t.Errorf("\n%s\nUpdate(): %d writes, want %d: %+v", tc.reason, w, tc.want.writes, srv.Requests())
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestOptionalReviewers: declared optional reviewers are added with
// isRequired false beside the required ones, at the create and when a
// person removed them.
func TestOptionalReviewers(t *testing.T) {
	declared := forge.Spec{Head: "feature", Base: "main", Title: "Promote",
		Reviewers: []string{"jane@fabrikam.com"}, OptionalReviewers: []string{"raj@fabrikam.com"}}
	want := map[string]bool{"jane@fabrikam.com": true, "raj@fabrikam.com": false}
	required := func(rs []fake.Reviewer) map[string]bool {
		out := map[string]bool{}
		for _, r := range rs {
			out[r.UniqueName] = r.Required
		}
		return out
	}
	srv, c, _ := newFake(t)
	srv.AddBranch("feature")
	pr, err := c.Create(context.Background(), declared)
	if err != nil {
		t.Fatal(err)
	}
	held, _ := srv.PR(pr.Number)
	if diff := cmp.Diff(want, required(held.Reviewers)); diff != "" {
		t.Errorf("Create(): Azure holds reviewers (name: required): -want, +got:\n%s", diff)
	}
	srv.Edit(pr.Number, func(p *fake.PullRequest) { p.Reviewers = nil })
	if _, err := c.Update(context.Background(), pr.Number, declared); err != nil {
		t.Fatal(err)
	}
	held, _ = srv.PR(pr.Number)
	if diff := cmp.Diff(want, required(held.Reviewers)); diff != "" {
		t.Errorf("Update() after a person removed them: Azure holds reviewers (name: required): -want, +got:\n%s", diff)
	}
}
