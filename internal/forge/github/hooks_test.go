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
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
)

func TestHooks(t *testing.T) {
	const (
		url    = "https://events.example.com/forge/0123abcd"
		secret = "hook-secret"
		hooks  = "/repos/acme/gitops/hooks"
	)
	ours := []string{"push", "pull_request", "pull_request_review", "check_suite", "status"}
	// theirs is another integration's hook, in the form GitHub defaults to.
	theirs := fake.Hook{URL: "https://ci.example.com/hook", ContentType: "form", Secret: "ci", InsecureSSL: "0", Events: []string{"push"}, Active: true}
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	type want struct {
		Result any
		Kind   error
		API    *forge.APIError
		Calls  []string
		// Hooks are the fake's, the IDs left out (the client's answer
		// names them).
		Hooks []fake.Hook
	}
	cases := map[string]struct {
		reason string
		setup  func(s *fake.Server) int64
		call   func(c *env, id int64) (any, error)
		want   want
	}{
		"List": {
			reason: "Every hook, its ID, URL and Active; GitHub's masked secret is not taken for one.",
			setup: func(s *fake.Server) int64 {
				s.AddHook(owner, repo, theirs)
				return s.AddHook(owner, repo, fake.Hook{URL: url, ContentType: "json", Secret: secret, Events: ours})
			},
			call: func(e *env, n int64) (any, error) { return e.c.ListHooks(context.Background()) },
			want: want{
				Result: []forge.Hook{{ID: id(1<<32 + 1), URL: theirs.URL, Active: true}, {ID: id(1<<32 + 2), URL: url}},
				Calls:  []string{"GET " + hooks + " 200"},
				Hooks:  []fake.Hook{theirs, {URL: url, ContentType: "json", Secret: secret, Events: ours}},
			},
		},
		"ListNotAdmin": {
			reason: "GitHub's 404 to a token that may not administer hooks is ErrForbidden, with its words.",
			setup:  func(s *fake.Server) int64 { s.SetHookAccess(http.StatusNotFound); return 0 },
			call:   func(e *env, n int64) (any, error) { return e.c.ListHooks(context.Background()) },
			want: want{Result: []forge.Hook(nil), Kind: forge.ErrForbidden, API: &forge.APIError{Status: 404, Message: "Not Found", Kind: forge.ErrForbidden},
				Calls: []string{"GET " + hooks + " 404"}},
		},
		"ListApp": {
			reason: "An App's 403 is ErrForbidden too.",
			setup:  func(s *fake.Server) int64 { s.SetHookAccess(http.StatusForbidden); return 0 },
			call:   func(e *env, n int64) (any, error) { return e.c.ListHooks(context.Background()) },
			want: want{Result: []forge.Hook(nil), Kind: forge.ErrForbidden,
				API:   &forge.APIError{Status: 403, Message: "Resource not accessible by integration", Kind: forge.ErrForbidden},
				Calls: []string{"GET " + hooks + " 403"}},
		},
		"Create": {
			reason: "One POST: a JSON hook of the URL with the secret, TLS verified, the provider's events, active.",
			setup:  func(s *fake.Server) int64 { return 0 },
			call: func(e *env, n int64) (any, error) {
				return e.c.CreateHook(context.Background(), forge.Hook{URL: url, Secret: secret})
			},
			want: want{Result: forge.Hook{ID: id(1<<32 + 1), URL: url, Secret: secret, Active: true}, Calls: []string{"POST " + hooks + " 201"},
				Hooks: []fake.Hook{{URL: url, ContentType: "json", Secret: secret, InsecureSSL: "0", Events: ours, Active: true}}},
		},
		"CreateExists": {
			reason: "GitHub's 422 for a hook of the same URL is ErrInvalidInput with its words.",
			setup:  func(s *fake.Server) int64 { return s.AddHook(owner, repo, fake.Hook{URL: url, Active: true}) },
			call: func(e *env, n int64) (any, error) {
				return e.c.CreateHook(context.Background(), forge.Hook{URL: url, Secret: secret})
			},
			want: want{Result: forge.Hook{}, Kind: forge.ErrInvalidInput, API: &forge.APIError{Status: 422,
				Message: "Validation Failed: Hook already exists on this repository", Kind: forge.ErrInvalidInput},
				Calls: []string{"POST " + hooks + " 422"}, Hooks: []fake.Hook{{URL: url, Active: true}}},
		},
		"CreateNoSecret": {
			reason: "A hook without a secret is refused before any request: its deliveries would be refused.",
			setup:  func(s *fake.Server) int64 { return 0 },
			call: func(e *env, n int64) (any, error) {
				return e.c.CreateHook(context.Background(), forge.Hook{URL: url})
			},
			want: want{Result: forge.Hook{}, Kind: forge.ErrInvalidInput},
		},
		"CreateNotAdmin": {
			reason: "A 404 on create is ErrForbidden, as on list.",
			setup:  func(s *fake.Server) int64 { s.SetHookAccess(http.StatusNotFound); return 0 },
			call: func(e *env, n int64) (any, error) {
				return e.c.CreateHook(context.Background(), forge.Hook{URL: url, Secret: secret})
			},
			want: want{Result: forge.Hook{}, Kind: forge.ErrForbidden, API: &forge.APIError{Status: 404, Message: "Not Found", Kind: forge.ErrForbidden},
				Calls: []string{"POST " + hooks + " 404"}},
		},
		"Update": {
			reason: "PATCH puts back URL, secret, JSON, TLS verification, the events and active, whatever a person changed; the hook keeps its ID.",
			setup: func(s *fake.Server) int64 {
				return s.AddHook(owner, repo, fake.Hook{URL: url + "/old", ContentType: "form", Secret: "old", InsecureSSL: "1", Events: []string{"issues"}})
			},
			call: func(e *env, n int64) (any, error) {
				return e.c.UpdateHook(context.Background(), forge.Hook{ID: id(n), URL: url, Secret: secret})
			},
			want: want{Result: forge.Hook{ID: id(1<<32 + 1), URL: url, Secret: secret, Active: true},
				Calls: []string{fmt.Sprintf("PATCH %s/%d 200", hooks, 1<<32+1)},
				Hooks: []fake.Hook{{URL: url, ContentType: "json", Secret: secret, InsecureSSL: "0", Events: ours, Active: true}}},
		},
		"UpdateGone": {
			reason: "A hook deleted meanwhile is ErrNotFound.",
			setup:  func(s *fake.Server) int64 { return 1<<32 + 9 },
			call: func(e *env, n int64) (any, error) {
				return e.c.UpdateHook(context.Background(), forge.Hook{ID: id(n), URL: url, Secret: secret})
			},
			want: want{Result: forge.Hook{}, Kind: forge.ErrNotFound, API: &forge.APIError{Status: 404, Message: "Not Found", Kind: forge.ErrNotFound},
				Calls: []string{fmt.Sprintf("PATCH %s/%d 404", hooks, 1<<32+9)}},
		},
		"UpdateBadID": {
			reason: "An ID that is not GitHub's is refused before any request.",
			setup:  func(s *fake.Server) int64 { return 0 },
			call: func(e *env, n int64) (any, error) {
				return e.c.UpdateHook(context.Background(), forge.Hook{ID: "../../pulls/1", URL: url, Secret: secret})
			},
			want: want{Result: forge.Hook{}, Kind: forge.ErrInvalidInput},
		},
		"Delete": {
			reason: "DELETE removes the hook and no other.",
			setup: func(s *fake.Server) int64 {
				s.AddHook(owner, repo, theirs)
				return s.AddHook(owner, repo, fake.Hook{URL: url, Active: true})
			},
			call: func(e *env, n int64) (any, error) { return nil, e.c.DeleteHook(context.Background(), id(n)) },
			want: want{Calls: []string{fmt.Sprintf("DELETE %s/%d 204", hooks, 1<<32+2)}, Hooks: []fake.Hook{theirs}},
		},
		"DeleteGone": {
			reason: "A hook already gone is ErrNotFound.",
			setup:  func(s *fake.Server) int64 { return 1<<32 + 5 },
			call:   func(e *env, n int64) (any, error) { return nil, e.c.DeleteHook(context.Background(), id(n)) },
			want: want{Kind: forge.ErrNotFound, API: &forge.APIError{Status: 404, Message: "Not Found", Kind: forge.ErrNotFound},
				Calls: []string{fmt.Sprintf("DELETE %s/%d 404", hooks, 1<<32+5)}},
		},
		"SecondaryLimit": {
			reason: "A write refused by the secondary limit is a RateLimitError at Retry-After.",
			setup:  func(s *fake.Server) int64 { s.SetSecondaryLimit(0, time.Minute); return 0 },
			call: func(e *env, n int64) (any, error) {
				return e.c.CreateHook(context.Background(), forge.Hook{URL: url, Secret: secret})
			},
			want: want{Result: forge.Hook{}, Kind: &forge.RateLimitError{At: epoch.Add(time.Minute), Msg: fake.MsgSecondaryLimit},
				Calls: []string{"POST " + hooks + " 403"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			n := tc.setup(e.s)
			res, err := tc.call(&e, n)
			hs := e.s.Hooks(owner, repo)
			for i := range hs {
				hs[i].ID = 0
			}
			got := want{Result: res, Kind: kind(err), API: apiError(err), Calls: e.calls(), Hooks: hs}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestListHooksPages: 250 hooks are three pages of 100, followed by the
// Link header; every hook is listed once.
func TestListHooksPages(t *testing.T) {
	e := newEnv(t)
	for i := range 250 {
		e.s.AddHook(owner, repo, fake.Hook{URL: fmt.Sprintf("https://h.example.com/%03d", i), Active: true})
	}
	hs, err := e.c.ListHooks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, h := range hs {
		seen[h.URL] = true
	}
	type got struct {
		Hooks, Distinct int
		Calls           []string
	}
	page := "GET /repos/acme/gitops/hooks 200"
	if diff := cmp.Diff(got{250, 250, []string{page, page, page}}, got{len(hs), len(seen), e.calls()}); diff != "" {
		t.Errorf("ListHooks(): -want, +got:\n%s", diff)
	}
}
