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

package gitlab_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/gitlab"
)

func TestGet(t *testing.T) {
	type want struct {
		pr  forge.PullRequest
		err error
	}
	open := func(s *fake.Server) int64 {
		s.AddUser("alice")
		return s.Open("feature", "main", "Add a file")
	}
	cases := map[string]struct {
		reason string
		setup  func(s *fake.Server) int64
		want   want
	}{
		"Open": {
			reason: "An open merge request with no pipeline and no approval rule is mergeable, with no checks and no decision.",
			setup:  open,
			want:   want{pr: forge.PullRequest{State: forge.StateOpen, Mergeable: ptr(true)}},
		},
		"Running": {
			reason: "A running head pipeline is pending checks, and GitLab says ci_still_running: not mergeable.",
			setup:  func(s *fake.Server) int64 { n := open(s); s.SetPipeline(n, "running"); return n },
			want:   want{pr: forge.PullRequest{State: forge.StateOpen, Mergeable: ptr(false), Checks: forge.ChecksPending}},
		},
		"Passed": {
			reason: "A successful head pipeline is success.",
			setup:  func(s *fake.Server) int64 { n := open(s); s.SetPipeline(n, "success"); return n },
			want:   want{pr: forge.PullRequest{State: forge.StateOpen, Mergeable: ptr(true), Checks: forge.ChecksSuccess}},
		},
		"Failed": {
			reason: "A failed head pipeline is failure.",
			setup:  func(s *fake.Server) int64 { n := open(s); s.SetPipeline(n, "failed"); return n },
			want:   want{pr: forge.PullRequest{State: forge.StateOpen, Mergeable: ptr(false), Checks: forge.ChecksFailure}},
		},
		"Canceled": {
			reason: "A canceled head pipeline is failure: it did not pass.",
			setup:  func(s *fake.Server) int64 { n := open(s); s.SetPipeline(n, "canceled"); return n },
			want:   want{pr: forge.PullRequest{State: forge.StateOpen, Mergeable: ptr(false), Checks: forge.ChecksFailure}},
		},
		"Checking": {
			reason: "While GitLab computes mergeability (checking) Mergeable is unknown, not false.",
			setup:  func(s *fake.Server) int64 { n := open(s); s.SetMergeStatus(n, "checking"); return n },
			want:   want{pr: forge.PullRequest{State: forge.StateOpen}},
		},
		"Conflict": {
			reason: "A conflict is not mergeable.",
			setup:  func(s *fake.Server) int64 { n := open(s); s.SetMergeStatus(n, "conflict"); return n },
			want:   want{pr: forge.PullRequest{State: forge.StateOpen, Mergeable: ptr(false)}},
		},
		"ReviewRequired": {
			reason: "Approvals left is REVIEW_REQUIRED.",
			setup:  func(s *fake.Server) int64 { n := open(s); s.RequireApprovals(n, 1); return n },
			want:   want{pr: forge.PullRequest{State: forge.StateOpen, Mergeable: ptr(false), ReviewDecision: "REVIEW_REQUIRED"}},
		},
		"Approved": {
			reason: "Approved with none left is APPROVED.",
			setup: func(s *fake.Server) int64 {
				n := open(s)
				s.RequireApprovals(n, 1)
				s.Approve(n, "alice")
				return n
			},
			want: want{pr: forge.PullRequest{State: forge.StateOpen, Mergeable: ptr(true), ReviewDecision: "APPROVED"}},
		},
		"ChangesRequested": {
			reason: "A reviewer's requested changes are CHANGES_REQUESTED.",
			setup:  func(s *fake.Server) int64 { n := open(s); s.SetMergeStatus(n, "requested_changes"); return n },
			want:   want{pr: forge.PullRequest{State: forge.StateOpen, Mergeable: ptr(false), ReviewDecision: "CHANGES_REQUESTED"}},
		},
		"Merged": {
			reason: "A merged merge request is Merged with its merge commit.",
			setup:  func(s *fake.Server) int64 { n := open(s); s.Merge(n); return n },
			want:   want{pr: forge.PullRequest{State: forge.StateMerged, Mergeable: ptr(false)}},
		},
		"Closed": {
			reason: "A merge request closed by a person is Closed.",
			setup:  func(s *fake.Server) int64 { n := open(s); s.Close(n); return n },
			want:   want{pr: forge.PullRequest{State: forge.StateClosed, Mergeable: ptr(false)}},
		},
		"NotFound": {
			reason: "An iid GitLab does not have is ErrNotFound.",
			setup:  func(*fake.Server) int64 { return 7 },
			want:   want{err: forge.ErrNotFound},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			sha := s.AddBranch("feature")
			n := tc.setup(s)
			got, err := client(t, s, fake.Token).Get(context.Background(), n)
			if diff := cmp.Diff(tc.want.err, err, cmpopts.EquateErrors()); diff != "" {
				t.Fatalf("%s\nGet(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if err != nil {
				return
			}
			want := tc.want.pr
			want.Number, want.Head, want.Base, want.HeadSHA, want.Title = n, "feature", "main", sha, "Add a file"
			want.HeadRepo, want.HeadInRepo = fake.Project, true
			if mr, _ := s.MR(n); mr.State == "merged" {
				want.MergeCommit = mr.MergeCommitSHA
			}
			if diff := cmp.Diff(want, got, ignoreURL); diff != "" {
				t.Errorf("%s\nGet(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	type want struct {
		mr  fake.MergeRequest
		err error
	}
	cases := map[string]struct {
		reason string
		person func(s *fake.Server, n int64)
		spec   forge.Spec
		want   want
	}{
		"PutsATitleEditBack": {
			reason: "A person's title edit is put back to the declared title.",
			person: func(s *fake.Server, n int64) { s.EditTitle(n, "edited by a person") },
			spec:   forge.Spec{Title: "Add a file", Body: "Why."},
			want:   want{mr: fake.MergeRequest{Title: "Add a file", Description: "Why."}},
		},
		"ClearsWhatAPersonAdded": {
			reason: "Labels and a description a person added are removed when the spec has none.",
			person: func(s *fake.Server, n int64) { s.SetLabels(n, "wip"); s.EditDescription(n, "mine") },
			spec:   forge.Spec{Title: "Add a file"},
			want:   want{mr: fake.MergeRequest{Title: "Add a file"}},
		},
		"Draft": {
			reason: "Draft is put on with the Draft: prefix.",
			spec:   forge.Spec{Title: "Add a file", Draft: true},
			want:   want{mr: fake.MergeRequest{Title: "Draft: Add a file"}},
		},
		"Undraft": {
			reason: "A person's [Draft] marker is taken off when the spec is no draft.",
			person: func(s *fake.Server, n int64) { s.EditTitle(n, "[Draft] Add a file") },
			spec:   forge.Spec{Title: "Add a file"},
			want:   want{mr: fake.MergeRequest{Title: "Add a file"}},
		},
		"Reviewers": {
			reason: "Reviewers, assignees and labels are set by name.",
			spec: forge.Spec{Title: "Add a file", Labels: []string{"a", "b"},
				Reviewers: []string{"alice", "bob"}, Assignees: []string{"bob"}},
			want: want{mr: fake.MergeRequest{Title: "Add a file", Labels: []string{"a", "b"},
				Reviewers: []string{"alice", "bob"}, Assignees: []string{"bob"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			s.AddBranch("feature")
			s.AddUser("alice")
			s.AddUser("bob")
			n := s.Open("feature", "main", "Add a file")
			if tc.person != nil {
				tc.person(s, n)
			}
			got, err := client(t, s, fake.Token).Update(context.Background(), n, tc.spec)
			if diff := cmp.Diff(tc.want.err, err, cmpopts.EquateErrors()); diff != "" {
				t.Fatalf("%s\nUpdate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			mr, _ := s.MR(n)
			keep := cmpopts.IgnoreFields(fake.MergeRequest{}, "IID", "State", "SourceBranch", "TargetBranch", "SHA")
			if diff := cmp.Diff(tc.want.mr, mr, keep, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(fake.MergeRequest{})); diff != "" {
				t.Errorf("%s\nthe fake's merge request after Update(...): -want, +got:\n%s", tc.reason, diff)
			}
			if got.Title != tc.spec.Title || got.Draft != tc.spec.Draft {
				t.Errorf("%s\nUpdate(...) reports title %q draft %t, want %q %t", tc.reason, got.Title, got.Draft, tc.spec.Title, tc.spec.Draft)
			}
		})
	}
}

func TestClose(t *testing.T) {
	cases := map[string]struct {
		reason string
		iid    int64
		want   error
		state  string
	}{
		"Closes":   {reason: "An open merge request is closed.", iid: 1, state: "closed"},
		"NotFound": {reason: "An iid GitLab does not have is ErrNotFound.", iid: 9, want: forge.ErrNotFound, state: "opened"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			s.AddBranch("feature")
			s.Open("feature", "main", "t")
			err := client(t, s, fake.Token).Close(context.Background(), tc.iid)
			if diff := cmp.Diff(tc.want, err, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nClose(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if mr, _ := s.MR(1); mr.State != tc.state {
				t.Errorf("%s\nstate: want %q, got %q", tc.reason, tc.state, mr.State)
			}
		})
	}
}
