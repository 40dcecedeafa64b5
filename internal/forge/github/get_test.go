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

// got is what TestGet compares of a pull request.
type got struct {
	State          forge.State
	MergeCommit    string
	Mergeable      *bool
	Checks         forge.Checks
	ReviewDecision string
	Reviewers      []string
	Kind           error
}

func TestGet(t *testing.T) {
	sha := fake.SHA("feature")
	cases := map[string]struct {
		reason string
		spec   forge.Spec
		setup  func(s *fake.Server, n int64)
		want   got
	}{
		"Fresh": {
			reason: "No statuses, no check runs, no reviewers: no checks, no decision; clean is mergeable.",
			want:   got{State: forge.StateOpen, Mergeable: ptr(true)},
		},
		"StatusSuccessRunPending": {
			reason: "A successful status and a check run in progress fold to pending.",
			setup: func(s *fake.Server, _ int64) {
				s.SetStatus(owner, repo, sha, "ci/lint", "success")
				s.AddCheckRun(owner, repo, sha, "build", "in_progress", "")
			},
			want: got{State: forge.StateOpen, Mergeable: ptr(true), Checks: forge.ChecksPending},
		},
		"RunFailed": {
			reason: "A check run concluded failure folds to failure over a successful status.",
			setup: func(s *fake.Server, _ int64) {
				s.SetStatus(owner, repo, sha, "ci/lint", "success")
				s.AddCheckRun(owner, repo, sha, "build", "completed", "timed_out")
			},
			want: got{State: forge.StateOpen, Mergeable: ptr(true), Checks: forge.ChecksFailure},
		},
		"StatusError": {
			reason: "A status in error is failure.",
			setup:  func(s *fake.Server, _ int64) { s.SetStatus(owner, repo, sha, "ci", "error") },
			want:   got{State: forge.StateOpen, Mergeable: ptr(true), Checks: forge.ChecksFailure},
		},
		"AllGreen": {
			reason: "A successful status and skipped and successful check runs are success.",
			setup: func(s *fake.Server, _ int64) {
				s.SetStatus(owner, repo, sha, "ci", "success")
				s.AddCheckRun(owner, repo, sha, "build", "completed", "success")
				s.AddCheckRun(owner, repo, sha, "docs", "completed", "skipped")
			},
			want: got{State: forge.StateOpen, Mergeable: ptr(true), Checks: forge.ChecksSuccess},
		},
		"ReviewRequired": {
			reason: "Requested reviewers and no review: REVIEW_REQUIRED.",
			spec:   forge.Spec{Reviewers: []string{"alice"}},
			want:   got{State: forge.StateOpen, Mergeable: ptr(true), ReviewDecision: "REVIEW_REQUIRED", Reviewers: []string{"alice"}},
		},
		"Approved": {
			reason: "An approval by the requested reviewer: APPROVED, and she stays a reviewer though GitHub no longer lists her as requested.",
			spec:   forge.Spec{Reviewers: []string{"alice"}},
			setup:  func(s *fake.Server, n int64) { s.AddReview(n, "alice", "APPROVED") },
			want:   got{State: forge.StateOpen, Mergeable: ptr(true), ReviewDecision: "APPROVED", Reviewers: []string{"alice"}},
		},
		"ChangesRequested": {
			reason: "Any reviewer's latest CHANGES_REQUESTED wins over another's approval.",
			spec:   forge.Spec{Reviewers: []string{"alice", "bob"}},
			setup: func(s *fake.Server, n int64) {
				s.AddReview(n, "alice", "APPROVED")
				s.AddReview(n, "bob", "CHANGES_REQUESTED")
			},
			want: got{State: forge.StateOpen, Mergeable: ptr(true), ReviewDecision: "CHANGES_REQUESTED", Reviewers: []string{"alice", "bob"}},
		},
		"ChangedMind": {
			reason: "A reviewer's later approval replaces her CHANGES_REQUESTED; a later comment does not undo it.",
			spec:   forge.Spec{Reviewers: []string{"alice"}},
			setup: func(s *fake.Server, n int64) {
				s.AddReview(n, "alice", "CHANGES_REQUESTED")
				s.AddReview(n, "alice", "APPROVED")
				s.AddReview(n, "alice", "COMMENTED")
			},
			want: got{State: forge.StateOpen, Mergeable: ptr(true), ReviewDecision: "APPROVED", Reviewers: []string{"alice"}},
		},
		"Blocked": {
			reason: "mergeable_state blocked (checks or reviews required) is not mergeable.",
			setup:  func(s *fake.Server, n int64) { s.SetMergeable(n, fake.StateBlocked) },
			want:   got{State: forge.StateOpen, Mergeable: ptr(false)},
		},
		"Unstable": {
			reason: "Mergeable is true only when clean: unstable is not.",
			setup:  func(s *fake.Server, n int64) { s.SetMergeable(n, fake.StateUnstable) },
			want:   got{State: forge.StateOpen, Mergeable: ptr(false)},
		},
		"Computing": {
			reason: "mergeable null (unknown) is nil: GitHub has not computed it.",
			setup:  func(s *fake.Server, n int64) { s.SetMergeable(n, fake.StateUnknown) },
			want:   got{State: forge.StateOpen},
		},
		"Merged": {
			reason: "Merged by a reviewer: Merged with its merge commit.",
			setup:  func(s *fake.Server, n int64) { s.Merge(n) },
			want:   got{State: forge.StateMerged, MergeCommit: fake.SHA("merge/1/" + sha)},
		},
		"Closed": {
			reason: "Closed by a person without merging: Closed.",
			setup:  func(s *fake.Server, n int64) { s.Close(n) },
			want:   got{State: forge.StateClosed},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			pr := e.create(t, "feature", tc.spec)
			if tc.setup != nil {
				tc.setup(e.s, pr.Number)
			}
			p, err := e.c.Get(context.Background(), pr.Number)
			g := got{State: p.State, MergeCommit: p.MergeCommit, Mergeable: p.Mergeable, Checks: p.Checks,
				ReviewDecision: p.ReviewDecision, Reviewers: p.Reviewers, Kind: kind(err)}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("%s\nGet(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestGetConditional: a second Get of an unchanged pull request is four
// requests, all 304; a missing one is ErrNotFound.
func TestGetConditional(t *testing.T) {
	e := newEnv(t)
	pr := e.create(t, "feature", forge.Spec{})
	first, err := e.c.Get(context.Background(), pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	e.calls()
	again, err := e.c.Get(context.Background(), pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("Get() from 304s: -want, +got:\n%s", diff)
	}
	sha := fake.SHA("feature")
	want := []string{"GET /repos/acme/gitops/pulls/1 304", "GET /repos/acme/gitops/commits/" + sha + "/status 304",
		"GET /repos/acme/gitops/commits/" + sha + "/check-runs 304", "GET /repos/acme/gitops/pulls/1/reviews 304"}
	if diff := cmp.Diff(want, e.calls()); diff != "" {
		t.Errorf("Get() again: -want, +got:\n%s", diff)
	}
	_, err = e.c.Get(context.Background(), 42)
	if diff := cmp.Diff(error(forge.ErrNotFound), kind(err)); diff != "" {
		t.Errorf("Get(42): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(&forge.APIError{Status: 404, Message: "Not Found", Kind: forge.ErrNotFound}, apiError(err)); diff != "" {
		t.Errorf("Get(42): -want, +got:\n%s", diff)
	}
}
