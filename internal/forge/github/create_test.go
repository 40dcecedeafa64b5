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
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	gh "github.com/crossplane-contrib/provider-git/internal/forge/github"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
)

func TestCreate(t *testing.T) {
	type want struct {
		pr    forge.PullRequest
		kind  error
		api   *forge.APIError
		calls []string
	}
	cases := map[string]struct {
		reason string
		before func(env)
		spec   forge.Spec
		want   want
	}{
		"Plain": {
			reason: "A pull request is one POST /pulls, and comes back open with its number, URL and head.",
			spec:   forge.Spec{Head: "feature", Base: "main", Title: "Add feature", Body: "Why"},
			want: want{
				pr: forge.PullRequest{Number: 1, State: forge.StateOpen, Head: "feature", Base: "main", HeadRepo: owner + "/" + repo, HeadInRepo: true,
					HeadSHA: fake.SHA("feature"), Title: "Add feature", Body: "Why", Mergeable: ptr(true)},
				calls: []string{"POST /repos/acme/gitops/pulls 201"},
			},
		},
		"LabelsReviewersAssignees": {
			reason: "Labels and assignees take one PATCH of the issue, reviewers one POST requested_reviewers; a reviewer org/team is a team.",
			spec: forge.Spec{Head: "feature", Base: "main", Title: "T", Draft: true, Labels: []string{"env", "auto", "env"},
				Reviewers: []string{"alice", "acme/platform"}, Assignees: []string{"bob"}},
			want: want{
				pr: forge.PullRequest{Number: 1, State: forge.StateOpen, Head: "feature", Base: "main", HeadRepo: owner + "/" + repo, HeadInRepo: true,
					HeadSHA: fake.SHA("feature"), Title: "T", Draft: true, Mergeable: ptr(false),
					Labels: []string{"auto", "env"}, Reviewers: []string{"acme/platform", "alice"}, Assignees: []string{"bob"}},
				calls: []string{"POST /repos/acme/gitops/pulls 201", "PATCH /repos/acme/gitops/issues/1 200",
					"POST /repos/acme/gitops/pulls/1/requested_reviewers 201"},
			},
		},
		"Exists": {
			reason: "GitHub's 422 'A pull request already exists for acme:feature.' is ErrExists, with GitHub's words.",
			before: func(e env) {
				if _, err := e.c.Create(context.Background(), forge.Spec{Head: "feature", Base: "main", Title: "first"}); err != nil {
					panic(err)
				}
				e.s.ResetRequests()
			},
			spec: forge.Spec{Head: "feature", Base: "main", Title: "second"},
			want: want{kind: forge.ErrExists,
				api:   &forge.APIError{Status: 422, Message: "Validation Failed: A pull request already exists for acme:feature.", Kind: forge.ErrExists},
				calls: []string{"POST /repos/acme/gitops/pulls 422"}},
		},
		"NoSuchHead": {
			reason: "422 with field head invalid is ErrNoSuchBranch: the caller waits for the branch.",
			spec:   forge.Spec{Head: "missing", Base: "main", Title: "T"},
			want: want{kind: forge.ErrNoSuchBranch,
				api:   &forge.APIError{Status: 422, Message: "Validation Failed: head invalid", Kind: forge.ErrNoSuchBranch},
				calls: []string{"POST /repos/acme/gitops/pulls 422"}},
		},
		"NoSuchBase": {
			reason: "422 with field base invalid is ErrNoSuchBranch too.",
			spec:   forge.Spec{Head: "feature", Base: "release", Title: "T"},
			want: want{kind: forge.ErrNoSuchBranch,
				api:   &forge.APIError{Status: 422, Message: "Validation Failed: base invalid", Kind: forge.ErrNoSuchBranch},
				calls: []string{"POST /repos/acme/gitops/pulls 422"}},
		},
		"OtherValidation": {
			reason: "Any other 422 is ErrInvalidInput.",
			spec:   forge.Spec{Head: "feature", Base: "main"},
			want: want{kind: forge.ErrInvalidInput,
				api:   &forge.APIError{Status: 422, Message: "Validation Failed: title missing_field", Kind: forge.ErrInvalidInput},
				calls: []string{"POST /repos/acme/gitops/pulls 422"}},
		},
		"Forbidden": {
			reason: "A 403 that is no rate limit is ErrForbidden.",
			before: func(e env) { e.s.SetReadOnly(true) },
			spec:   forge.Spec{Head: "feature", Base: "main", Title: "T"},
			want: want{kind: forge.ErrForbidden,
				api:   &forge.APIError{Status: 403, Message: "Resource not accessible by integration", Kind: forge.ErrForbidden},
				calls: []string{"POST /repos/acme/gitops/pulls 403"}},
		},
		"Unauthorized": {
			reason: "401 Bad credentials is ErrUnauthorized.",
			before: func(e env) { e.s.SetToken("another") },
			spec:   forge.Spec{Head: "feature", Base: "main", Title: "T"},
			want: want{kind: forge.ErrUnauthorized,
				api:   &forge.APIError{Status: 401, Message: "Bad credentials", Kind: forge.ErrUnauthorized},
				calls: []string{"POST /repos/acme/gitops/pulls 401"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			if tc.before != nil {
				tc.before(e)
			}
			got, err := e.c.Create(context.Background(), tc.spec)
			if tc.want.pr.Number != 0 {
				tc.want.pr.URL = prURL(e.s, tc.want.pr.Number)
			}
			if diff := cmp.Diff(tc.want.pr, got); diff != "" {
				t.Errorf("%s\nCreate(): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.kind, kind(err)); diff != "" {
				t.Errorf("%s\nCreate() error %v: -want kind, +got:\n%s", tc.reason, err, diff)
			}
			if diff := cmp.Diff(tc.want.api, apiError(err)); diff != "" {
				t.Errorf("%s\nCreate() APIError: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.calls, e.calls()); diff != "" {
				t.Errorf("%s\nrequests: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestExistsThenListOpen: after ErrExists the caller adopts the open pull
// request it finds in ListOpen by head and base.
func TestExistsThenListOpen(t *testing.T) {
	e := newEnv(t)
	first := e.create(t, "feature", forge.Spec{Title: "first"})
	_, err := e.c.Create(context.Background(), forge.Spec{Head: "feature", Base: "main", Title: "again"})
	if !errors.Is(err, forge.ErrExists) {
		t.Fatalf("Create() again: want ErrExists, got %v", err)
	}
	prs, _, err := e.c.ListOpen(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var found []int64
	for _, p := range prs {
		if p.Head == "feature" && p.Base == "main" {
			found = append(found, p.Number)
		}
	}
	if diff := cmp.Diff([]int64{first.Number}, found); diff != "" {
		t.Errorf("ListOpen(): the pull request for feature → main: -want, +got:\n%s", diff)
	}
}

// TestToken: the token comes from Config.Token per request; its failure
// is the caller's, and an empty token is ErrNoCredentials.
func TestToken(t *testing.T) {
	boom := errors.New("boom")
	cases := map[string]struct {
		reason string
		token  func(context.Context) (string, error)
		want   error
	}{
		"Fails":   {reason: "The token func's error is returned.", token: func(context.Context) (string, error) { return "", boom }, want: boom},
		"Empty":   {reason: "An empty token is ErrNoCredentials.", token: func(context.Context) (string, error) { return "", nil }, want: forge.ErrNoCredentials},
		"Current": {reason: "The current token is sent as Bearer.", token: func(context.Context) (string, error) { return fake.Token, nil }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			s.AddBranch(owner, repo, "main", fake.SHA("main"))
			c, err := gh.New(forge.Config{APIURL: s.URL(), Owner: owner, Name: repo, HTTPClient: s.Client(), Token: tc.token})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = c.ListOpen(context.Background())
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("%s\nListOpen(): want %v, got %v", tc.reason, tc.want, err)
			}
		})
	}
	if _, err := gh.New(forge.Config{APIURL: "https://api.github.com/", Owner: owner, Name: repo}); !errors.Is(err, forge.ErrNoCredentials) {
		t.Errorf("New() without Token: want ErrNoCredentials, got %v", err)
	}
}

// TestCreateCost: the content-creating requests Create declares (which the
// pace spends before it) are the writes it makes, as GitHub's secondary
// limit counts them.
func TestCreateCost(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   forge.Spec
		want   int
	}{
		"Plain":     {reason: "The create alone.", want: 1},
		"Labels":    {reason: "The create and the PATCH of the issue's labels.", spec: forge.Spec{Labels: []string{"env"}}, want: 2},
		"Assignees": {reason: "Assignees share the labels' PATCH.", spec: forge.Spec{Labels: []string{"env"}, Assignees: []string{"bob"}}, want: 2},
		"Everything": {reason: "The create, the labels' PATCH, the review request.",
			spec: forge.Spec{Labels: []string{"env"}, Reviewers: []string{"alice"}}, want: 3},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.s.ResetRequests()
			e.create(t, "cost", tc.spec)
			writes := 0
			for _, r := range e.s.Requests() {
				if r.Method != http.MethodGet {
					writes++
				}
			}
			if diff := cmp.Diff(tc.want, writes); diff != "" {
				t.Errorf("%s\nwrites Create made: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want, e.c.CreateCost(tc.spec)); diff != "" {
				t.Errorf("%s\nCreateCost: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
