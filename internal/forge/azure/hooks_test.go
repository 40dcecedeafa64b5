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
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/azure"
)

func TestHooks(t *testing.T) {
	const (
		url     = "https://events.example.com/forge/0123abcd"
		moved   = "https://events.example.com/forge/4567ef01"
		secret  = "hook-secret"
		rotated = "rotated-secret"
	)
	// sub is one of the provider's subscriptions as the fake holds it.
	sub := func(ev, u, password string) fake.Subscription {
		return fake.Subscription{EventType: ev, ProjectID: fake.ProjectID, RepositoryID: fake.RepoID, URL: u,
			User: hookUser, Password: password, ResourceDetails: "all", CreatedBy: fake.MeID, Status: "enabled"}
	}
	ours := func(u, password string) []fake.Subscription {
		out := make([]fake.Subscription, 0, len(hookEvents))
		for _, ev := range hookEvents {
			out = append(out, sub(ev, u, password))
		}
		return out
	}
	// theirs is a second user's subscription to the very URL.
	theirs := fake.Subscription{EventType: "git.push", ProjectID: fake.ProjectID, RepositoryID: fake.RepoID, URL: url,
		User: "x", Password: "their-guess", CreatedBy: fake.TheirID, Status: "enabled"}
	// other is the provider's own subscription of another repository.
	other := sub("git.push", url, secret)
	other.RepositoryID = "5ab0c2d1-0000-4000-8000-00000000beef"
	seed := func(subs ...fake.Subscription) func(*fake.Server) {
		return func(s *fake.Server) {
			for _, x := range subs {
				s.AddSubscription(x)
			}
		}
	}
	type want struct {
		hooks []forge.Hook
		err   error
		subs  []fake.Subscription
	}
	cases := map[string]struct {
		reason string
		token  string
		setup  func(*fake.Server)
		call   func(*Client, []fake.Subscription) ([]forge.Hook, error)
		want   want
	}{
		"Create": {
			reason: "one subscription per event type, of this repository by id, to the URL with the secret as the basic authentication password",
			call: func(c *Client, _ []fake.Subscription) ([]forge.Hook, error) {
				h, err := c.CreateHook(context.Background(), forge.Hook{URL: url, Secret: secret})
				return []forge.Hook{h}, err
			},
			want: want{hooks: []forge.Hook{{URL: url, Active: true}}, subs: ours(url, secret)},
		},
		"ListOwnOnly": {
			reason: "a second user's subscription to the same URL, and the token's own of another repository, are no part of the hook",
			setup:  seed(append([]fake.Subscription{theirs, other}, ours(url, secret)...)...),
			call: func(c *Client, _ []fake.Subscription) ([]forge.Hook, error) {
				return c.ListHooks(context.Background())
			},
			want: want{hooks: []forge.Hook{{URL: url, Active: true}}, subs: append([]fake.Subscription{theirs, other}, ours(url, secret)...)},
		},
		"ListDisabled": {
			reason: "a hook whose subscription Azure disabled after failed deliveries is not Active, so it is set again",
			setup: func(s *fake.Server) {
				seed(ours(url, secret)...)(s)
				s.EditSubscription(s.Subscriptions()[1].ID, func(x *fake.Subscription) { x.Status = "disabledBySystem" })
			},
			call: func(c *Client, _ []fake.Subscription) ([]forge.Hook, error) {
				return c.ListHooks(context.Background())
			},
			want: want{hooks: []forge.Hook{{URL: url}}, subs: func() []fake.Subscription {
				s := ours(url, secret)
				s[1].Status = "disabledBySystem"
				return s
			}()},
		},
		"UpdateReplaces": {
			reason: "a rotated secret moves each subscription (PUT) to the new URL and secret; one someone deleted comes back; theirs stays",
			setup:  seed(append([]fake.Subscription{theirs}, ours(url, secret)[:3]...)...),
			call: func(c *Client, before []fake.Subscription) ([]forge.Hook, error) {
				id := joinIDs([]subscription{{ID: before[1].ID}, {ID: before[2].ID}, {ID: before[3].ID}})
				h, err := c.UpdateHook(context.Background(), forge.Hook{ID: id, URL: moved, Secret: rotated})
				return []forge.Hook{h}, err
			},
			want: want{hooks: []forge.Hook{{URL: moved, Active: true}}, subs: append([]fake.Subscription{theirs}, ours(moved, rotated)...)},
		},
		"UpdateNotTheirs": {
			reason: "an id naming a second user's subscription does not make the provider move it",
			setup:  seed(theirs),
			call: func(c *Client, before []fake.Subscription) ([]forge.Hook, error) {
				h, err := c.UpdateHook(context.Background(), forge.Hook{ID: before[0].ID, URL: moved, Secret: rotated})
				return []forge.Hook{h}, err
			},
			want: want{hooks: []forge.Hook{{URL: moved, Active: true}}, subs: append([]fake.Subscription{theirs}, ours(moved, rotated)...)},
		},
		"Delete": {
			reason: "every subscription of the hook goes; a second user's to the same URL stays",
			setup:  seed(append([]fake.Subscription{theirs}, ours(url, secret)...)...),
			call: func(c *Client, before []fake.Subscription) ([]forge.Hook, error) {
				hs, err := c.ListHooks(context.Background())
				if err != nil || len(hs) != 1 {
					return hs, err
				}
				return nil, c.DeleteHook(context.Background(), hs[0].ID)
			},
			want: want{subs: []fake.Subscription{theirs}},
		},
		"DeleteGone": {
			reason: "a hook whose subscriptions are all gone is ErrNotFound, which the registrar takes as deleted",
			call: func(c *Client, _ []fake.Subscription) ([]forge.Hook, error) {
				return nil, c.DeleteHook(context.Background(), "8dea9aba-3a9a-4ad0-860f-000000000001,8dea9aba-3a9a-4ad0-860f-000000000002")
			},
			want: want{err: forge.ErrNotFound},
		},
		"CreateRolledBack": {
			reason: "a subscription refused part way (an Azure DevOps Server without the merge event) deletes those already made",
			setup:  func(s *fake.Server) { s.DropEventType("git.pullrequest.merged") },
			call: func(c *Client, _ []fake.Subscription) ([]forge.Hook, error) {
				return nil, wrapped(c.CreateHook(context.Background(), forge.Hook{URL: url, Secret: secret}))
			},
			want: want{err: forge.ErrInvalidInput},
		},
		"NoHooksScope": {
			reason: "a PAT without the Service Hooks scope is answered 401 TF400813: ErrUnauthorized, nothing created",
			token:  fake.CodeOnlyPAT,
			call: func(c *Client, _ []fake.Subscription) ([]forge.Hook, error) {
				return nil, wrapped(c.CreateHook(context.Background(), forge.Hook{URL: url, Secret: secret}))
			},
			want: want{err: forge.ErrUnauthorized},
		},
		"PlainHTTP": {
			reason: "a plain http URL off loopback is refused before any request: Azure would send the secret in clear text",
			call: func(c *Client, _ []fake.Subscription) ([]forge.Hook, error) {
				return nil, wrapped(c.CreateHook(context.Background(), forge.Hook{URL: "http://events.example.com/forge/0123abcd", Secret: secret}))
			},
			want: want{err: forge.ErrInvalidInput},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := fake.NewServer(t, fake.WithTLS())
			if tc.setup != nil {
				tc.setup(srv)
			}
			c := newClient(t, srv.APIURL(), cmpOr(tc.token, fake.PAT), srv.Client(), nil)
			got, err := tc.call(c, srv.Subscriptions())
			if diff := cmp.Diff(tc.want.err, err, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nerror: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.hooks, got, cmpopts.IgnoreFields(forge.Hook{}, "ID"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nhooks: -want, +got:\n%s", tc.reason, diff)
			}
			after := srv.Subscriptions()
			for _, h := range got {
				if want := idsOf(after, h.URL, fake.MeID); h.ID != want {
					t.Errorf("%s\nhook id %q, want its subscriptions' %q", tc.reason, h.ID, want)
				}
			}
			if diff := cmp.Diff(tc.want.subs, after, cmpopts.IgnoreFields(fake.Subscription{}, "ID"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nAzure's subscriptions: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestHooksKeepTheirIDs: a replaced subscription keeps its id, so an
// update at rest changes no id the status holds.
func TestHooksKeepTheirIDs(t *testing.T) {
	srv := fake.NewServer(t, fake.WithTLS())
	c := newClient(t, srv.APIURL(), fake.PAT, srv.Client(), nil)
	h, err := c.CreateHook(context.Background(), forge.Hook{URL: "https://events.example.com/a", Secret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.UpdateHook(context.Background(), forge.Hook{ID: h.ID, URL: "https://events.example.com/b", Secret: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != h.ID || strings.Count(h.ID, idSep) != len(hookEvents)-1 {
		t.Errorf("hook id %q after the update, want %q, the %d subscriptions' ids", u.ID, h.ID, len(hookEvents))
	}
}

// wrapped is err, checked to carry Azure's words or the client's reason.
func wrapped(_ forge.Hook, err error) error {
	var api *forge.APIError
	if errors.As(err, &api) && api.Message == "" {
		return errors.New("a refusal without words")
	}
	return err
}

// idsOf is the hook id of creator's subscriptions of the fake's repository to u.
func idsOf(subs []fake.Subscription, u, creator string) string {
	var s []subscription
	for _, x := range subs {
		if x.URL == u && x.CreatedBy == creator && x.RepositoryID == fake.RepoID {
			s = append(s, subscription{ID: x.ID})
		}
	}
	return joinIDs(s)
}

// TestListHooksLargeOrganization: an organization whose subscriptions of
// other repositories outgrow what one answer may hold (the list is
// unpaged) still has this repository's hook listed: the query asks the
// server for this repository's alone.
func TestListHooksLargeOrganization(t *testing.T) {
	const url = "https://events.example.com/forge/0123abcd"
	srv := fake.NewServer(t, fake.WithTLS())
	for i := range 40000 {
		srv.AddSubscription(fake.Subscription{EventType: "git.push", ProjectID: fake.ProjectID, RepositoryID: fmt.Sprintf("5ab0c2d1-0000-4000-8000-%012d", i),
			URL: fmt.Sprintf("https://ci.example.com/hooks/%d", i), User: "ci", Password: "x", ResourceDetails: "all", CreatedBy: fake.TheirID})
	}
	for _, ev := range hookEvents {
		srv.AddSubscription(fake.Subscription{EventType: ev, ProjectID: fake.ProjectID, RepositoryID: fake.RepoID, URL: url,
			User: hookUser, Password: "s", ResourceDetails: "all", CreatedBy: fake.MeID})
	}
	c := newClient(t, srv.APIURL(), fake.PAT, srv.Client(), nil)
	got, err := c.ListHooks(context.Background())
	if err != nil {
		t.Fatalf("ListHooks in an organization of 40,000 subscriptions: %v", err)
	}
	want := []forge.Hook{{ID: idsOf(srv.Subscriptions(), url, fake.MeID), URL: url, Active: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListHooks: -want, +got:\n%s", diff)
	}
}

// TestCreateHookRollBackNamesWhatStays: a create refused part way whose
// roll-back Azure throttles names, in its error, the subscriptions left
// behind (each holds the webhook secret), and is still the refusal.
func TestCreateHookRollBackNamesWhatStays(t *testing.T) {
	srv := fake.NewServer(t, fake.WithTLS())
	srv.DropEventType(hookEvents[len(hookEvents)-1])
	c := newClient(t, srv.APIURL(), fake.PAT, srv.Client(), nil)
	if _, err := c.repositoryIDs(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The creates go, the last refused; the deletes after are throttled.
	srv.ThrottleAfter(len(hookEvents), len(hookEvents), 0)
	_, err := c.CreateHook(context.Background(), forge.Hook{URL: "https://events.example.com/forge/0123abcd", Secret: "s"})
	if !errors.Is(err, forge.ErrInvalidInput) {
		t.Fatalf("CreateHook: %v, want the refusal (ErrInvalidInput)", err)
	}
	left := srv.Subscriptions()
	if len(left) != len(hookEvents)-1 {
		t.Fatalf("%d subscriptions left after a throttled roll-back, want %d", len(left), len(hookEvents)-1)
	}
	for _, s := range left {
		if !strings.Contains(err.Error(), s.ID) {
			t.Errorf("the error does not name subscription %s, left behind: %v", s.ID, err)
		}
	}
}
