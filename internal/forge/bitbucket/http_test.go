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
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/bitbucket"
)

func TestCredentials(t *testing.T) {
	cases := map[string]struct {
		reason string
		token  string
		want   string
		err    error
	}{
		"AccessToken": {
			reason: "A bare token is a bearer token (a Cloud access token).",
			token:  fake.Token, want: "bearer",
		},
		"AppPassword": {
			reason: "user:secret is basic authentication (an app password, or an API token with the account's email).",
			token:  fake.AppUser + ":" + fake.AppPassword, want: "basic",
		},
		"Refused": {
			reason: "A token Bitbucket refuses is ErrUnauthorized.",
			token:  "wrong", err: forge.ErrUnauthorized,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewCloud(t)
			_, _, err := cloudClient(t, s, tc.token).ListOpen(context.Background())
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("\n%s\nListOpen: error %v, want %v", tc.reason, err, tc.err)
			}
			if got := s.Requests()[0].Authorization; got != tc.want {
				t.Errorf("\n%s\nauthenticated as %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestRateLimits(t *testing.T) {
	cases := map[string]struct {
		reason     string
		dc         bool
		retryAfter string
		want       time.Time
	}{
		"CloudRetryAfter": {
			reason:     "Cloud's 429 with Retry-After holds until then.",
			retryAfter: "120", want: now.Add(2 * time.Minute),
		},
		"CloudNoRetryAfter": {
			reason: "Cloud's 429 names no time (a rolling hour): a minute.",
			want:   now.Add(time.Minute),
		},
		"DataCenter": {
			reason: "Data Center's 429 with Retry-After holds until then.",
			dc:     true, retryAfter: "3", want: now.Add(3 * time.Second),
		},
		"DataCenterNoRetryAfter": {
			reason: "Data Center's bucket refills every second: ten seconds.",
			dc:     true, want: now.Add(10 * time.Second),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var cl forge.Client
			var requests func() int
			if tc.dc {
				s := fake.NewDC(t)
				s.Throttle(1, tc.retryAfter)
				cl, requests = dcClient(t, s, fake.Token), func() int { return len(s.Requests()) }
			} else {
				s := fake.NewCloud(t)
				s.Throttle(1, tc.retryAfter)
				cl, requests = cloudClient(t, s, fake.Token), func() int { return len(s.Requests()) }
			}
			for range 2 { // the second is held without a request
				_, _, err := cl.ListOpen(context.Background())
				var rl *forge.RateLimitError
				if !errors.As(err, &rl) {
					t.Fatalf("\n%s\nListOpen: %v, want a RateLimitError", tc.reason, err)
				}
				if diff := cmp.Diff(tc.want, rl.At); diff != "" {
					t.Errorf("\n%s\nRateLimitError.At: -want, +got:\n%s", tc.reason, diff)
				}
			}
			if n := requests(); n != 1 {
				t.Errorf("\n%s\n%d requests, want 1: a held client sends nothing", tc.reason, n)
			}
		})
	}
}

// TestRedirectsCarryNoCredential: a redirect to another host, or to http,
// is refused, and the other end sees no request at all.
func TestRedirectsCarryNoCredential(t *testing.T) {
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the credential reached %s", r.Host)
		}
	}))
	defer other.Close()
	cases := map[string]struct {
		reason string
		run    func(t *testing.T) error
	}{
		"CloudToAnotherHost": {
			reason: "Cloud's answer redirecting to another host is refused.",
			run: func(t *testing.T) error {
				s := fake.NewCloud(t)
				s.RedirectNext(other.URL)
				_, _, err := cloudClient(t, s, fake.AppUser+":"+fake.AppPassword).ListOpen(context.Background())
				return err
			},
		},
		"DataCenterToAnotherHost": {
			reason: "Data Center's answer redirecting to another host is refused.",
			run: func(t *testing.T) error {
				s := fake.NewDC(t)
				s.RedirectNext(other.URL)
				_, err := dcClient(t, s, fake.Token).Get(context.Background(), 1)
				return err
			},
		},
		"HTTPSToHTTP": {
			reason: "An https API redirecting to http is refused.",
			run: func(t *testing.T) error {
				tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
				}))
				defer tls.Close()
				c, err := NewDataCenterClient(forge.Config{APIURL: tls.URL + "/rest/api/1.0/", Owner: "P", Name: "r",
					Token: static(fake.Token), HTTPClient: tls.Client()})
				if err != nil {
					return err
				}
				_, _, err = c.ListOpen(context.Background())
				return err
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.run(t)
			if err == nil || !strings.Contains(err.Error(), "refusing") {
				t.Errorf("\n%s\nerror %v, want the redirect refused", tc.reason, err)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the other host got %d requests, want none", n)
	}
}

func TestHooks(t *testing.T) {
	const url, secret = "https://events.example.com/hooks/abc", "0123456789abcdef0123"
	cases := map[string]struct {
		reason string
		client func(t *testing.T) (forge.Hooks, func() map[string]string)
	}{
		"Cloud": {
			reason: "Cloud keeps hooks with their secret under hooks/{uid}.",
			client: func(t *testing.T) (forge.Hooks, func() map[string]string) {
				s := fake.NewCloud(t)
				return cloudClient(t, s, fake.Token), func() map[string]string {
					out := map[string]string{}
					for _, h := range s.Hooks() {
						out[h[0]] = h[1]
					}
					return out
				}
			},
		},
		"DataCenter": {
			reason: "Data Center keeps hooks with configuration.secret under webhooks/{id}.",
			client: func(t *testing.T) (forge.Hooks, func() map[string]string) {
				s := fake.NewDC(t)
				return dcClient(t, s, fake.Token), func() map[string]string {
					out := map[string]string{}
					for _, h := range s.Hooks() {
						out[h[0]] = h[1]
					}
					return out
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			h, held := tc.client(t)
			got, err := h.CreateHook(ctx, forge.Hook{URL: url, Secret: secret})
			if err != nil || got.ID == "" || !got.Active {
				t.Fatalf("\n%s\nCreateHook: %+v, %v", tc.reason, got, err)
			}
			up, err := h.UpdateHook(ctx, forge.Hook{ID: got.ID, URL: url + "x", Secret: secret + "x"})
			if err != nil {
				t.Fatal(err)
			}
			if up.ID != got.ID {
				t.Errorf("\n%s\nUpdateHook moved the hook from %s to %s: Bitbucket updates in place", tc.reason, got.ID, up.ID)
			}
			if diff := cmp.Diff(map[string]string{url + "x": secret + "x"}, held()); diff != "" {
				t.Errorf("\n%s\nhooks held: -want, +got:\n%s", tc.reason, diff)
			}
			list, err := h.ListHooks(ctx)
			if diff := cmp.Diff([]forge.Hook{{ID: got.ID, URL: url + "x", Active: true}}, list); err != nil || diff != "" {
				t.Errorf("\n%s\nListHooks: %v, -want, +got:\n%s", tc.reason, err, diff)
			}
			if err := h.DeleteHook(ctx, got.ID); err != nil {
				t.Fatal(err)
			}
			if err := h.DeleteHook(ctx, got.ID); !errors.Is(err, forge.ErrNotFound) {
				t.Errorf("\n%s\nDeleteHook of a gone hook: %v, want ErrNotFound", tc.reason, err)
			}
		})
	}
}
