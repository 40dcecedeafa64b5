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
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/azure"
)

func TestRateLimits(t *testing.T) {
	type want struct {
		at       time.Time
		requests int
	}
	cases := map[string]struct {
		reason string
		setup  func(*fake.Server)
		want   want
	}{
		"Blocked": {
			reason: "a 429 is a RateLimitError until Retry-After, and the next call waits without a request",
			setup:  func(s *fake.Server) { s.Throttle(1, 30*time.Second) },
			want:   want{at: epoch.Add(30 * time.Second), requests: 1},
		},
		"BlockedNoTime": {
			reason: "a 429 naming no time waits a minute",
			setup:  func(s *fake.Server) { s.Throttle(1, 0) },
			want:   want{at: epoch.Add(time.Minute), requests: 1},
		},
		"Delayed": {
			reason: "a delayed answer (200 with Retry-After) is served, and holds the next call until then",
			setup:  func(s *fake.Server) { s.Delay(10 * time.Second) },
			want:   want{at: epoch.Add(10 * time.Second), requests: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, c, clk := newFake(t)
			tc.setup(srv)
			_, _, first := c.ListOpen(context.Background())
			_, _, err := c.ListOpen(context.Background())
			var rl *forge.RateLimitError
			if !errorsAs(err, &rl) {
				t.Fatalf("\n%s\nListOpen() after %v: %v, want a RateLimitError", tc.reason, first, err)
			}
			if !rl.At.Equal(tc.want.at) || !strings.Contains(rl.Msg, "ATCPU/User") {
				t.Errorf("\n%s\nRateLimitError at %s (%q), want %s naming the resource", tc.reason, rl.At, rl.Msg, tc.want.at)
			}
			if n := len(srv.Requests()); n != tc.want.requests {
				t.Errorf("\n%s\n%d requests, want %d: none while the limit lasts", tc.reason, n, tc.want.requests)
			}
			clk.SetTime(tc.want.at)
			if _, _, err := c.ListOpen(context.Background()); err != nil {
				t.Errorf("\n%s\nListOpen() once the limit ended: %v", tc.reason, err)
			}
		})
	}
}

func TestCredentials(t *testing.T) {
	cases := map[string]struct {
		reason string
		token  string
		prefix string
		err    error
	}{
		"PAT": {
			reason: "a personal access token is basic authentication with an empty user name",
			token:  fake.PAT, prefix: "Basic OnByb3ZpZGVy",
		},
		"Bearer": {
			reason: "an Entra ID token (a JWT) is a bearer token",
			token:  fake.BearerToken, prefix: "Bearer eyJ",
		},
		"Refused": {
			reason: "a token Azure does not take is ErrUnauthorized (401: the client asks for no sign-in page)",
			token:  "not-the-pat", prefix: "Basic ", err: forge.ErrUnauthorized,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := fake.NewServer(t)
			c := newClient(t, srv.APIURL(), tc.token, nil, nil)
			_, _, err := c.ListOpen(context.Background())
			if !errorsIs(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("\n%s\nListOpen(): %v, want %v", tc.reason, err, tc.err)
			}
			if rs := srv.Requests(); len(rs) != 1 || !strings.HasPrefix(rs[0].Auth, tc.prefix) {
				t.Errorf("\n%s\nsent %+v, want Authorization %s…", tc.reason, rs, tc.prefix)
			}
		})
	}
}

func TestRedirectsKeepTheToken(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			elsewhere.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(other.Close)
	cases := map[string]struct {
		reason string
		to     func(*fake.Server) string
	}{
		"OtherHost": {
			reason: "a redirect to another host is refused: the token never leaves the organization's host",
			to:     func(*fake.Server) string { return other.URL },
		},
		"PlainHTTP": {
			reason: "a redirect from https to http on the same host is refused",
			to:     func(s *fake.Server) string { return strings.Replace(s.URL(), "https://", "http://", 1) },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := fake.NewServer(t, fake.WithTLS())
			c := newClient(t, srv.APIURL(), fake.PAT, srv.Client(), nil)
			srv.RedirectNext(tc.to(srv))
			_, _, err := c.ListOpen(context.Background())
			if err == nil || !strings.Contains(err.Error(), "refusing the forge's redirect") {
				t.Errorf("\n%s\nListOpen(): %v, want the redirect refused", tc.reason, err)
			}
			if n := elsewhere.Load(); n != 0 {
				t.Errorf("\n%s\n%d requests with a credential reached the other host", tc.reason, n)
			}
			if rs := srv.Requests(); len(rs) != 1 {
				t.Errorf("\n%s\nthe fake saw %d requests, want the first alone: %+v", tc.reason, len(rs), rs)
			}
		})
	}
}

func TestRefusal(t *testing.T) {
	type want struct {
		kind error
		msg  string
	}
	body := func(key, msg string) string { return `{"$id":"1","message":"` + msg + `","typeKey":"` + key + `"}` }
	cases := map[string]struct {
		reason string
		status int
		header http.Header
		body   string
		want   want
	}{
		"SignIn": {
			reason: "203 is Azure's sign-in page: the token was not taken",
			status: http.StatusNonAuthoritativeInfo, body: "<html>Sign In</html>",
			want: want{kind: forge.ErrUnauthorized, msg: "Azure DevOps answered its sign-in page: the token is not valid for this organization"},
		},
		"Forbidden": {
			reason: "403 TF401027 is ErrForbidden, in Azure's words",
			status: http.StatusForbidden, body: body("GitNeedsPermissionException", "TF401027: You need the Git 'PullRequestContribute' permission to perform this action."),
			want: want{kind: forge.ErrForbidden, msg: "TF401027: You need the Git 'PullRequestContribute' permission to perform this action."},
		},
		"Policy": {
			reason: "a 403 a policy answers is ErrNotMergeable",
			status: http.StatusForbidden, body: body(keyPolicy, "rejected by policy"),
			want: want{kind: forge.ErrNotMergeable, msg: "rejected by policy"},
		},
		"Exists": {
			reason: "409 GitPullRequestExistsException is ErrExists",
			status: http.StatusConflict, body: body(keyExists, "TF401179: An active pull request for the source and target branch already exists."),
			want: want{kind: forge.ErrExists, msg: "TF401179: An active pull request for the source and target branch already exists."},
		},
		"Stale": {
			reason: "409 GitPullRequestStaleException is ErrHeadMoved",
			status: http.StatusConflict, body: body(keyStale, "TF401192: stale"),
			want: want{kind: forge.ErrHeadMoved, msg: "TF401192: stale"},
		},
		"NoBranch": {
			reason: "400 TF401398 is ErrNoSuchBranch",
			status: http.StatusBadRequest, body: body("", "TF401398: The pull request cannot be activated"),
			want: want{kind: forge.ErrNoSuchBranch, msg: "TF401398: The pull request cannot be activated"},
		},
		"ProxyPage": {
			reason: "an HTML error page is not Azure's words",
			status: http.StatusBadGateway, body: "<html>bad gateway</html>",
			want: want{msg: "Bad Gateway"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &Client{clock: nil}
			err := c.refusal(tc.status, tc.header, []byte(tc.body))
			var ae *forge.APIError
			if !errorsAs(err, &ae) {
				t.Fatalf("\n%s\nrefusal(): %v, want an APIError", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, want{kind: ae.Kind, msg: ae.Message}, cmp.AllowUnexported(want{}), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nrefusal(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRefusalResetHeader(t *testing.T) {
	srv, c, _ := newFake(t)
	_ = srv
	reset := epoch.Add(90 * time.Second)
	h := http.Header{"X-Ratelimit-Reset": {itoa(reset.Unix())}}
	err := c.refusal(http.StatusTooManyRequests, h, []byte(`{"message":"TF400733: blocked"}`))
	var rl *forge.RateLimitError
	if !errorsAs(err, &rl) || !rl.At.Equal(reset) {
		t.Errorf("a 429 without Retry-After waits for X-RateLimit-Reset (%s): %v", reset, err)
	}
}

func TestIdentitiesURL(t *testing.T) {
	cases := map[string]string{
		"https://dev.azure.com/fabrikam/":                "https://vssps.dev.azure.com/fabrikam/",
		"https://fabrikam.visualstudio.com/":             "https://fabrikam.vssps.visualstudio.com/",
		"https://tfs.example.com/tfs/DefaultCollection/": "https://tfs.example.com/tfs/DefaultCollection/",
	}
	for in, want := range cases {
		u, _ := parseURL(in)
		if got := identitiesURL(u).String(); got != want {
			t.Errorf("identitiesURL(%s) = %s, want %s: identities live on vssps on Services, in the collection on a Server", in, got, want)
		}
	}
}
