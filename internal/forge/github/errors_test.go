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

package github

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// TestMapError covers the mappings the fake does not provoke: a primary
// limit without X-RateLimit-Reset, a secondary one without Retry-After, a
// 429 outside the secondary-limit documentation, and GraphQL's rate limit.
func TestMapError(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	// errResp is the client's error for a refusal.
	errResp := func(status int, h map[string]string, msg string) *respError {
		e := &respError{status: status, header: http.Header{}, body: errorBody{Message: msg}}
		for k, v := range h {
			e.header.Set(k, v)
		}
		return e
	}
	// secondary is GitHub's 403 for a secondary limit.
	secondary := func(h map[string]string) *respError {
		e := errResp(http.StatusForbidden, h, "secondary")
		e.body.DocumentationURL = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
		return e
	}
	header := func(h map[string]string) http.Header {
		out := http.Header{}
		for k, v := range h {
			out.Set(k, v)
		}
		return out
	}
	cases := map[string]struct {
		reason string
		err    error
		want   error
	}{
		"PrimaryNoReset": {
			reason: "A primary limit without X-RateLimit-Reset waits a minute.",
			err:    errResp(http.StatusForbidden, map[string]string{"X-RateLimit-Remaining": "0"}, "API rate limit exceeded"),
			want:   &forge.RateLimitError{At: now.Add(time.Minute), Msg: "API rate limit exceeded"},
		},
		"SecondaryNoRetryAfter": {
			reason: "A secondary limit naming no time waits a minute, as GitHub advises.",
			err:    secondary(nil),
			want:   &forge.RateLimitError{At: now.Add(time.Minute), Msg: "secondary"},
		},
		"SecondaryRetryAfter": {
			reason: "Retry-After is counted from now.",
			err:    secondary(map[string]string{"Retry-After": "30"}),
			want:   &forge.RateLimitError{At: now.Add(30 * time.Second), Msg: "secondary"},
		},
		"TooManyRequests": {
			reason: "A 429 with Retry-After is a rate limit whatever its documentation_url.",
			err:    errResp(http.StatusTooManyRequests, map[string]string{"Retry-After": "7"}, "slow down"),
			want:   &forge.RateLimitError{At: now.Add(7 * time.Second), Msg: "slow down"},
		},
		"Conflict": {
			reason: "A status with no sentinel is an APIError with GitHub's words only.",
			err:    errResp(http.StatusConflict, nil, "Conflict"),
			want:   &forge.APIError{Status: http.StatusConflict, Message: "Conflict"},
		},
		"GraphQLRateLimited": {
			reason: "GraphQL's RATE_LIMITED (HTTP 200) waits until X-RateLimit-Reset.",
			err: &gqlError{status: http.StatusOK, header: header(map[string]string{"X-RateLimit-Reset": "1796212800"}),
				errs: []gqlErr{{Type: "RATE_LIMITED", Message: "API rate limit exceeded for user ID 1."}}},
			want: &forge.RateLimitError{At: time.Unix(1796212800, 0), Msg: "API rate limit exceeded for user ID 1."},
		},
		"GraphQLNotFound": {
			reason: "GraphQL's NOT_FOUND is ErrNotFound.",
			err:    &gqlError{status: http.StatusOK, errs: []gqlErr{{Type: "NOT_FOUND", Message: "Could not resolve to a node"}}},
			want:   &forge.APIError{Status: http.StatusOK, Message: "Could not resolve to a node", Kind: forge.ErrNotFound},
		},
		"Context": {
			reason: "Errors that are not GitHub's pass unchanged.",
			err:    context.DeadlineExceeded,
			want:   context.DeadlineExceeded,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := mapError(tc.err, now)
			if diff := cmp.Diff(tc.want, got, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nmapError(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestGraphQLURL: Enterprise serves GraphQL at /api/graphql, github.com at
// api.github.com/graphql.
func TestGraphQLURL(t *testing.T) {
	token := func(context.Context) (string, error) { return "t", nil }
	cases := map[string]struct {
		reason string
		api    string
		want   string
	}{
		"GitHub":     {reason: "github.com's API host.", api: "https://api.github.com/", want: "https://api.github.com/graphql"},
		"Enterprise": {reason: "An Enterprise server's /api/v3/.", api: "https://ghe.example.com/api/v3/", want: "https://ghe.example.com/api/graphql"},
		"EnterpriseBare": {reason: "An Enterprise host without the path gets it.",
			api: "https://ghe.example.com/", want: "https://ghe.example.com/api/graphql"},
		"GHECom": {reason: "GHE.com's API host serves GraphQL at /graphql, as github.com.",
			api: "https://api.acme.ghe.com/", want: "https://api.acme.ghe.com/graphql"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := NewClient(forge.Config{APIURL: tc.api, Owner: "o", Name: "r", Token: token})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.graphqlURL); diff != "" {
				t.Errorf("%s\ngraphqlURL: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestEnterpriseURLs: the REST base requests are resolved against.
func TestEnterpriseURLs(t *testing.T) {
	token := func(context.Context) (string, error) { return "t", nil }
	for api, want := range map[string]string{
		"https://api.github.com/":         "https://api.github.com/",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com/api/v3/",
		"https://ghe.example.com/api/v3":  "https://ghe.example.com/api/v3/",
		"https://ghe.example.com":         "https://ghe.example.com/api/v3/",
		"https://api.acme.ghe.com/":       "https://api.acme.ghe.com/",
	} {
		c, err := NewClient(forge.Config{APIURL: api, Owner: "o", Name: "r", Token: token})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, c.gh.BaseURL.String()); diff != "" {
			t.Errorf("NewClient(%q): base URL: -want, +got:\n%s", api, diff)
		}
	}
}

// TestRefused: GitHub's error bodies as the client reads them: a 422's
// errors as objects or, as some endpoints answer, bare strings; a body
// that is not JSON (a proxy's error page) leaves GitHub's words empty.
func TestRefused(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		reason string
		status int
		body   string
		want   error
	}{
		"Objects": {
			reason: "A field and code without a message read as 'field code'.",
			status: http.StatusUnprocessableEntity,
			body:   `{"message":"Validation Failed","errors":[{"resource":"PullRequest","field":"head","code":"invalid"}]}`,
			want:   &forge.APIError{Status: 422, Message: "Validation Failed: head invalid", Kind: forge.ErrNoSuchBranch},
		},
		"Strings": {
			reason: "A bare string is the error's message.",
			status: http.StatusUnprocessableEntity,
			body:   `{"message":"Validation Failed","errors":["Reviewers could not be requested."]}`,
			want:   &forge.APIError{Status: 422, Message: "Validation Failed: Reviewers could not be requested.", Kind: forge.ErrInvalidInput},
		},
		"NotJSON": {
			reason: "A page that is not GitHub's JSON keeps the status and its text only.",
			status: http.StatusBadGateway,
			body:   `<html><body>502 Bad Gateway</body></html>`,
			want:   &forge.APIError{Status: 502, Message: "Bad Gateway"},
		},
		"PlainText": {
			reason: "Plain text is kept without its control characters and line breaks.",
			status: http.StatusBadRequest,
			body:   "bad\r\n\x1b[0m request",
			want:   &forge.APIError{Status: 400, Message: "bad [0m request"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := mapError(refused(tc.status, http.Header{}, []byte(tc.body)), now)
			if diff := cmp.Diff(tc.want, got, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nmapError(refused()): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
