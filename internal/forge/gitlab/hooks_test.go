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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/gitlab"
)

const (
	hookURL    = "https://provider.example.com/hooks/3f5c"
	hookSecret = "0123456789abcdef0123456789abcdef"
)

// ours is the hook the provider keeps, as the fake holds it after a create
// or an update.
func ours(id int64, url, token string) fake.Hook {
	return fake.Hook{ID: id, URL: url, Token: token, PushEvents: true, MergeRequestsEvents: true,
		BranchFilterStrategy: "all_branches", EnableSSLVerification: true, AlertStatus: "executable"}
}

func TestListHooks(t *testing.T) {
	type want struct {
		hooks []forge.Hook
		err   error
		pages int
	}
	cases := map[string]struct {
		reason string
		setup  func(s *fake.Server)
		token  string
		want   want
	}{
		"Empty": {
			reason: "A project without hooks lists none, in one page.",
			token:  fake.Token,
			want:   want{pages: 1},
		},
		"ActiveAndDisabled": {
			reason: "Every hook is listed whatever its events; one GitLab stopped delivering to is not Active.",
			setup: func(s *fake.Server) {
				s.AddHook(fake.Hook{URL: "https://ci.example.com/a", PushEvents: true})
				s.AddHook(fake.Hook{URL: "https://ci.example.com/b", TagPushEvents: true, AlertStatus: "temporarily_disabled"})
				s.AddHook(fake.Hook{URL: "https://ci.example.com/c", AlertStatus: "disabled"})
			},
			token: fake.Token,
			want: want{pages: 1, hooks: []forge.Hook{
				{ID: "1", URL: "https://ci.example.com/a", Active: true},
				{ID: "2", URL: "https://ci.example.com/b"},
				{ID: "3", URL: "https://ci.example.com/c"},
			}},
		},
		"Forbidden": {
			reason: "A Developer's token may not see the hooks (Maintainer role): ErrForbidden with GitLab's words.",
			setup:  func(s *fake.Server) { s.AddHook(fake.Hook{URL: hookURL}) },
			token:  fake.DeveloperToken,
			want:   want{pages: 1, err: &forge.APIError{Status: 403, Message: "403 Forbidden", Kind: forge.ErrForbidden}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			if tc.setup != nil {
				tc.setup(s)
			}
			got, err := client(t, s, tc.token).ListHooks(context.Background())
			if diff := cmp.Diff(refusal(tc.want.err), refusal(err), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nListHooks(): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.hooks, got); diff != "" {
				t.Errorf("%s\nListHooks(): -want, +got:\n%s", tc.reason, diff)
			}
			if got := s.Requests()["GET /projects/:id/hooks"]; got != tc.want.pages {
				t.Errorf("%s\npages asked for: want %d, got %d", tc.reason, tc.want.pages, got)
			}
		})
	}
}

// TestListHooksPaged follows GitLab's pages: 230 hooks of 100 a page.
func TestListHooksPaged(t *testing.T) {
	s := fake.NewServer(t)
	var want []forge.Hook
	for i := range 230 {
		u := fmt.Sprintf("https://ci.example.com/%d", i)
		want = append(want, forge.Hook{ID: fmt.Sprint(s.AddHook(fake.Hook{URL: u})), URL: u, Active: true})
	}
	got, err := client(t, s, fake.Token).ListHooks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListHooks(): -want, +got:\n%s", diff)
	}
	if got := s.Requests()["GET /projects/:id/hooks"]; got != 3 {
		t.Errorf("pages asked for: want 3, got %d", got)
	}
}

func TestCreateHook(t *testing.T) {
	type want struct {
		hook  forge.Hook
		err   error
		hooks []fake.Hook
	}
	cases := map[string]struct {
		reason string
		token  string
		hook   forge.Hook
		want   want
	}{
		"Creates": {
			reason: "The hook delivers pushes and merge request events of every branch, with its token and TLS verified, and comes back with its id.",
			token:  fake.Token,
			hook:   forge.Hook{URL: hookURL, Secret: hookSecret},
			want: want{
				hook:  forge.Hook{ID: "1", URL: hookURL, Secret: hookSecret, Active: true},
				hooks: []fake.Hook{ours(1, hookURL, hookSecret)},
			},
		},
		"InvalidURL": {
			reason: "A URL GitLab refuses is ErrInvalidInput with its words.",
			token:  fake.Token,
			hook:   forge.Hook{URL: "ftp://provider.example.com/hooks", Secret: hookSecret},
			want:   want{err: &forge.APIError{Status: 422, Message: "Invalid url given", Kind: forge.ErrInvalidInput}},
		},
		"Forbidden": {
			reason: "A Developer's token may not add hooks: ErrForbidden.",
			token:  fake.DeveloperToken,
			hook:   forge.Hook{URL: hookURL, Secret: hookSecret},
			want:   want{err: &forge.APIError{Status: 403, Message: "403 Forbidden", Kind: forge.ErrForbidden}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			got, err := client(t, s, tc.token).CreateHook(context.Background(), tc.hook)
			if diff := cmp.Diff(refusal(tc.want.err), refusal(err), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nCreateHook(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.hook, got); diff != "" {
				t.Errorf("%s\nCreateHook(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.hooks, s.Hooks(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nthe fake's hooks: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestUpdateHook(t *testing.T) {
	const moved = "https://provider.example.com/hooks/9a1b"
	type want struct {
		err   error
		hooks []fake.Hook
	}
	cases := map[string]struct {
		reason string
		hook   forge.Hook
		want   want
	}{
		"Moves": {
			reason: "A rotated secret moves the path: the hook gets the new URL and the new token (GitLab drops the token on a new URL, so it is always sent).",
			hook:   forge.Hook{ID: "1", URL: moved, Secret: "a-new-secret-of-32-bytes-or-more"},
			want:   want{hooks: []fake.Hook{ours(1, moved, "a-new-secret-of-32-bytes-or-more")}},
		},
		"PutsEventsBack": {
			reason: "Events, branch filter and TLS verification a person changed are put back; the token stays.",
			hook:   forge.Hook{ID: "1", URL: hookURL, Secret: hookSecret},
			want:   want{hooks: []fake.Hook{ours(1, hookURL, hookSecret)}},
		},
		"Gone": {
			reason: "A hook someone deleted is ErrNotFound.",
			hook:   forge.Hook{ID: "7", URL: hookURL, Secret: hookSecret},
			want: want{
				err:   &forge.APIError{Status: 404, Message: "404 Not found", Kind: forge.ErrNotFound},
				hooks: []fake.Hook{{ID: 1, URL: hookURL, Token: hookSecret, AlertStatus: "executable", PushEventsBranchFilter: "main"}},
			},
		},
		"NotAnID": {
			reason: "An id GitLab never gives is invalid input, sent nowhere.",
			hook:   forge.Hook{ID: "abc", URL: hookURL, Secret: hookSecret},
			want: want{
				err:   forge.ErrInvalidInput,
				hooks: []fake.Hook{{ID: 1, URL: hookURL, Token: hookSecret, AlertStatus: "executable", PushEventsBranchFilter: "main"}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			// A person turned the merge request events and TLS verification
			// off and filtered the pushes.
			s.AddHook(fake.Hook{URL: hookURL, Token: hookSecret, PushEventsBranchFilter: "main"})
			_, err := client(t, s, fake.Token).UpdateHook(context.Background(), tc.hook)
			if diff := cmp.Diff(refusal(tc.want.err), refusal(err), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nUpdateHook(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if errors.Is(tc.want.err, forge.ErrInvalidInput) && s.Requests()[""] != 0 {
				t.Errorf("%s\n%d requests sent for an invalid id", tc.reason, s.Requests()[""])
			}
			if diff := cmp.Diff(tc.want.hooks, s.Hooks()); diff != "" {
				t.Errorf("%s\nthe fake's hooks: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDeleteHook(t *testing.T) {
	theirs := fake.Hook{ID: 1, URL: "https://ci.example.com/a", PushEvents: true, AlertStatus: "executable"}
	type want struct {
		err   error
		hooks []fake.Hook
	}
	cases := map[string]struct {
		reason string
		token  string
		id     string
		want   want
	}{
		"Deletes": {
			reason: "The hook goes; another stays.",
			token:  fake.Token, id: "2",
			want: want{hooks: []fake.Hook{theirs}},
		},
		"Gone": {
			reason: "A hook already gone is ErrNotFound.",
			token:  fake.Token, id: "9",
			want: want{err: &forge.APIError{Status: 404, Message: "404 Not found", Kind: forge.ErrNotFound},
				hooks: []fake.Hook{theirs, ours(2, hookURL, hookSecret)}},
		},
		"Forbidden": {
			reason: "A Developer's token may not delete hooks: ErrForbidden.",
			token:  fake.DeveloperToken, id: "2",
			want: want{err: &forge.APIError{Status: 403, Message: "403 Forbidden", Kind: forge.ErrForbidden},
				hooks: []fake.Hook{theirs, ours(2, hookURL, hookSecret)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			s.AddHook(theirs)
			s.AddHook(ours(0, hookURL, hookSecret))
			err := client(t, s, tc.token).DeleteHook(context.Background(), tc.id)
			if diff := cmp.Diff(refusal(tc.want.err), refusal(err), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nDeleteHook(%q): -want error, +got error:\n%s", tc.reason, tc.id, diff)
			}
			if diff := cmp.Diff(tc.want.hooks, s.Hooks(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nthe fake's hooks: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
