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
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitlab"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/gitlab"
)

func TestMerge(t *testing.T) {
	type want struct {
		err   error
		state string
		// squashed and deleted say what the merge did.
		squashed, deleted bool
		rebasing          bool
	}
	cases := map[string]struct {
		reason string
		setup  func(s *fake.Server, n int64)
		merge  forge.Merge
		want   want
	}{
		"Merges": {
			reason: "A mergeable merge request is merged.",
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{state: "merged"},
		},
		"SquashesAndDeletes": {
			reason: "MethodSquash squashes and DeleteBranch removes the source branch.",
			merge:  forge.Merge{Method: forge.MethodSquash, DeleteBranch: true},
			want:   want{state: "merged", squashed: true, deleted: true},
		},
		"PipelineFailed": {
			reason: "GitLab's 405 for a failed pipeline is ErrNotMergeable.",
			setup:  func(s *fake.Server, n int64) { s.SetPipeline(n, "failed") },
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{err: forge.ErrNotMergeable, state: "opened"},
		},
		"PipelineRunning": {
			reason: "Merging now while the pipeline runs is refused (405): ErrNotMergeable.",
			setup:  func(s *fake.Server, n int64) { s.SetPipeline(n, "running") },
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{err: forge.ErrNotMergeable, state: "opened"},
		},
		"Conflict": {
			reason: "GitLab's 422 Branch cannot be merged is ErrNotMergeable.",
			setup:  func(s *fake.Server, n int64) { s.SetMergeStatus(n, "conflict") },
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{err: forge.ErrNotMergeable, state: "opened"},
		},
		"Draft": {
			reason: "A draft is refused (405): ErrNotMergeable.",
			setup:  func(s *fake.Server, n int64) { s.EditTitle(n, "Draft: t") },
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{err: forge.ErrNotMergeable, state: "opened"},
		},
		"Closed": {
			reason: "A closed merge request is refused (405): ErrNotMergeable.",
			setup:  func(s *fake.Server, n int64) { s.Close(n) },
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{err: forge.ErrNotMergeable, state: "closed"},
		},
		"RebaseFirst": {
			reason: "MethodRebase on a branch behind its target starts GitLab's rebase and is not mergeable until it ends.",
			setup:  func(s *fake.Server, n int64) { s.SetDiverged(n, 2) },
			merge:  forge.Merge{Method: forge.MethodRebase},
			want:   want{err: forge.ErrNotMergeable, state: "opened", rebasing: true},
		},
		"RebaseUpToDate": {
			reason: "MethodRebase on a branch not behind its target merges at once.",
			merge:  forge.Merge{Method: forge.MethodRebase},
			want:   want{state: "merged"},
		},
		"MergeFailed": {
			reason: "A 200 that leaves the merge request open with merge_error (a refused push) is ErrNotMergeable, not success.",
			setup:  func(s *fake.Server, n int64) { s.FailMerge(n, "pre-receive hook declined") },
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{err: forge.ErrNotMergeable, state: "opened"},
		},
		"UnknownMethod": {
			reason: "An unknown method is invalid input, sent nowhere.",
			merge:  forge.Merge{Method: "octopus"},
			want:   want{err: forge.ErrInvalidInput, state: "opened"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			s.AddBranch("feature")
			n := s.Open("feature", "main", "t")
			if tc.setup != nil {
				tc.setup(s, n)
			}
			err := client(t, s, fake.Token).Merge(context.Background(), n, tc.merge)
			if diff := cmp.Diff(tc.want.err, err, cmpopts.EquateErrors()); diff != "" {
				t.Fatalf("%s\nMerge(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			mr, _ := s.MR(n)
			_, kept := s.Branch("feature")
			got := want{err: tc.want.err, state: mr.State, squashed: mr.SquashCommitSHA != "", deleted: !kept, rebasing: mr.RebaseInProgress}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nafter Merge(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMergeAfterRebase(t *testing.T) {
	s := fake.NewServer(t)
	s.AddBranch("feature")
	n := s.Open("feature", "main", "t")
	s.SetDiverged(n, 1)
	c := client(t, s, fake.Token)
	m := forge.Merge{Method: forge.MethodRebase}
	steps := []struct {
		do   func()
		want error
	}{
		{want: forge.ErrNotMergeable},                     // starts the rebase
		{want: forge.ErrNotMergeable},                     // still rebasing: no second rebase
		{do: func() { s.FinishRebase(n, "") }, want: nil}, // rebased: merges
	}
	for i, st := range steps {
		if st.do != nil {
			st.do()
		}
		if diff := cmp.Diff(st.want, c.Merge(context.Background(), n, m), cmpopts.EquateErrors()); diff != "" {
			t.Fatalf("step %d Merge(...): -want error, +got error:\n%s", i, diff)
		}
	}
	if got := s.Requests()["PUT /projects/:id/merge_requests/:iid/rebase"]; got != 1 {
		t.Errorf("rebase requests: want 1, got %d", got)
	}
	if mr, _ := s.MR(n); mr.State != "merged" {
		t.Errorf("state after the rebase: want merged, got %q", mr.State)
	}
}

func TestAutoMerge(t *testing.T) {
	type want struct {
		err       error
		auto      bool
		state     string
		afterPass string
	}
	cases := map[string]struct {
		reason   string
		params   []string
		pipeline string
		fail     string
		want     want
	}{
		"MergedAtOnceFailed": {
			reason: "With nothing to wait for GitLab merges at once; a merge that failed there is ErrNotMergeable.",
			params: []string{"auto_merge", "merge_when_pipeline_succeeds"},
			fail:   "pre-receive hook declined",
			want:   want{err: forge.ErrNotMergeable, state: "opened"},
		},
		"Current": {
			reason:   "GitLab 17.11 and later reads auto_merge: set while the pipeline runs, merged once it passes.",
			params:   []string{"auto_merge", "merge_when_pipeline_succeeds"},
			pipeline: "running",
			want:     want{auto: true, state: "opened", afterPass: "merged"},
		},
		"Before17.11": {
			reason:   "Earlier GitLab reads only merge_when_pipeline_succeeds, which is sent too.",
			params:   []string{"merge_when_pipeline_succeeds"},
			pipeline: "running",
			want:     want{auto: true, state: "opened", afterPass: "merged"},
		},
		"DeprecatedGone": {
			reason:   "A GitLab that dropped merge_when_pipeline_succeeds reads auto_merge.",
			params:   []string{"auto_merge"},
			pipeline: "pending",
			want:     want{auto: true, state: "opened", afterPass: "merged"},
		},
		"NoPipeline": {
			reason: "With nothing to wait for GitLab merges at once, which is accepted.",
			params: []string{"auto_merge", "merge_when_pipeline_succeeds"},
			want:   want{state: "merged"},
		},
		"Failed": {
			reason:   "A failed pipeline is refused (405): ErrNotMergeable.",
			params:   []string{"auto_merge", "merge_when_pipeline_succeeds"},
			pipeline: "failed",
			want:     want{err: forge.ErrNotMergeable, state: "opened"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			s.SetAutoMergeParams(tc.params...)
			s.AddBranch("feature")
			n := s.Open("feature", "main", "t")
			if tc.pipeline != "" {
				s.SetPipeline(n, tc.pipeline)
			}
			if tc.fail != "" {
				s.FailMerge(n, tc.fail)
			}
			c := client(t, s, fake.Token)
			err := c.AutoMerge(context.Background(), n, forge.Merge{Method: forge.MethodSquash})
			pr, gerr := c.Get(context.Background(), n)
			if gerr != nil {
				t.Fatal(gerr)
			}
			got := want{err: err, auto: pr.AutoMerge, state: map[forge.State]string{
				forge.StateOpen: "opened", forge.StateMerged: "merged", forge.StateClosed: "closed"}[pr.State]}
			if tc.want.afterPass != "" {
				s.SetPipeline(n, "success")
				mr, _ := s.MR(n)
				got.afterPass = mr.State
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nAutoMerge(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	type args struct {
		token    string
		throttle func(s *fake.Server)
		opts     []gitlab.Option
		owner    string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   error
	}{
		"RetryAfter": {
			reason: "A 429 with Retry-After is a RateLimitError at the injected clock's now plus Retry-After.",
			args:   args{token: fake.Token, throttle: func(s *fake.Server) { s.Throttle(1, 30*time.Second, time.Time{}) }},
			want:   &forge.RateLimitError{At: t0.Add(30 * time.Second), Msg: "Retry later"},
		},
		"RateLimitReset": {
			reason: "Without Retry-After the wait ends at RateLimit-Reset.",
			args:   args{token: fake.Token, throttle: func(s *fake.Server) { s.Throttle(1, 0, t0.Add(90*time.Second)) }},
			want:   &forge.RateLimitError{At: t0.Add(90 * time.Second), Msg: "Retry later"},
		},
		"NoTime": {
			reason: "A 429 naming no time waits GitLab's default throttle period, a minute.",
			args:   args{token: fake.Token, throttle: func(s *fake.Server) { s.Throttle(1, 0, time.Time{}) }},
			want:   &forge.RateLimitError{At: t0.Add(time.Minute), Msg: "Retry later"},
		},
		"BadGateway": {
			reason: "A proxy's 502 page is the status text, and the create is not sent again: GitLab may have opened it.",
			args:   args{token: fake.Token, throttle: func(s *fake.Server) { s.ProxyError(1, 502) }},
			want:   &forge.APIError{Status: 502, Message: "Bad Gateway"},
		},
		"Unauthorized": {
			reason: "A token GitLab does not know is 401: ErrUnauthorized.",
			args:   args{token: "glpat-revoked"},
			want:   &forge.APIError{Status: 401, Message: "401 Unauthorized", Kind: forge.ErrUnauthorized},
		},
		"Forbidden": {
			reason: "A read_api token's write is 403 insufficient_scope: ErrForbidden.",
			args:   args{token: fake.ReadOnlyToken},
			want: &forge.APIError{Status: 403, Kind: forge.ErrForbidden,
				Message: "insufficient_scope; The request requires higher privileges than provided by the access token."},
		},
		"ProjectNotFound": {
			reason: "A project GitLab does not have is 404: ErrNotFound.",
			args:   args{token: fake.Token, owner: "other"},
			want:   &forge.APIError{Status: 404, Message: "404 Project Not Found", Kind: forge.ErrNotFound},
		},
		"Bearer": {
			reason: "WithBearer sends the token as Authorization: Bearer, which GitLab accepts.",
			args:   args{token: fake.Token, opts: []gitlab.Option{gitlab.WithBearer()}},
		},
		"NoToken": {
			reason: "An empty token is ErrNoCredentials, and nothing is sent.",
			args:   args{token: ""},
			want:   forge.ErrNoCredentials,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			s.AddBranch("feature")
			if tc.args.throttle != nil {
				tc.args.throttle(s)
			}
			owner := "group/sub"
			if tc.args.owner != "" {
				owner = tc.args.owner
			}
			o := append([]gitlab.Option{gitlab.WithClock(fakeClock())}, tc.args.opts...)
			c, err := gitlab.NewClient(forge.Config{
				APIURL: s.APIURL(), Owner: owner, Name: "project", HTTPClient: s.Client(),
				Token: func(context.Context) (string, error) { return tc.args.token, nil },
			}, o...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Create(context.Background(), forge.Spec{Head: "feature", Base: "main", Title: "t"})
			if diff := cmp.Diff(refusal(tc.want), refusal(err), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nCreate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if errors.Is(tc.want, forge.ErrNoCredentials) && s.Requests()[""] != 0 {
				t.Errorf("%s\n%d requests sent without a token", tc.reason, s.Requests()[""])
			}
			// client-go's retries are off: a refused create, 429 and 502
			// included, is sent once; the caller decides when to try again.
			if got := s.Requests()["POST /projects/:id/merge_requests"]; got > 1 {
				t.Errorf("%s\nthe create was sent %d times", tc.reason, got)
			}
		})
	}
}

// refusal is err's *forge.APIError or *forge.RateLimitError as a value
// (so cmp compares their fields), else err.
func refusal(err error) any {
	var a *forge.APIError
	if errors.As(err, &a) {
		return *a
	}
	var r *forge.RateLimitError
	if errors.As(err, &r) {
		return *r
	}
	return err
}
