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

package gitea

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// The fake here answers what the real Gitea cannot be made to answer on
// demand (rate limits, a proxy's 5xx, pages of 50): each answer is the
// status, headers and {"message"} body Gitea's API documents. Everything
// Gitea does answer is tested against it in gitea_test.go.

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

type answer struct {
	status int
	header map[string]string
	body   string
}

// fake serves one answer per path (method and path, e.g. "GET
// /api/v1/repos/o/r/pulls/1") and records every request's path and
// Authorization header.
type fake struct {
	mu      sync.Mutex
	answers map[string]answer
	seen    []string
	auth    []string
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := r.Method + " " + r.URL.Path
	if p := r.URL.Query().Get("page"); p != "" && p != "1" {
		key += "?page=" + p
	}
	f.seen = append(f.seen, key)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	a, ok := f.answers[key]
	if !ok {
		a = answer{status: http.StatusNotFound, body: `{"message":"The target couldn't be found.","url":"/api/swagger"}`}
	}
	for k, v := range a.header {
		w.Header().Set(k, strings.ReplaceAll(v, "{url}", "http://"+r.Host))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = fmt.Fprint(w, a.body)
}

func newFake(t *testing.T, answers map[string]answer, tokens ...string) (*client, *fake) {
	t.Helper()
	f := &fake{answers: answers}
	s := httptest.NewServer(f)
	t.Cleanup(s.Close)
	n := 0
	var mu sync.Mutex
	c, err := newClient(forge.Config{
		Type: forge.Gitea, APIURL: s.URL + "/api/v1/", Owner: "o", Name: "r",
		Token: func(context.Context) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			tok := tokens[min(n, len(tokens)-1)]
			n++
			return tok, nil
		},
		HTTPClient: s.Client(),
	}, clocktesting.NewFakePassiveClock(now))
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

func TestRefusals(t *testing.T) {
	const pr1 = "/api/v1/repos/o/r/pulls/1"
	type want struct {
		kind    error
		status  int
		message string
		retryAt time.Time
	}
	cases := map[string]struct {
		reason string
		answer answer
		do     func(c *client) error
		want   want
	}{
		"Unauthorized": {
			reason: "401 is ErrUnauthorized with Gitea's words.",
			answer: answer{status: 401, body: `{"message":"user does not exist [uid: 0, name: ]","url":"/api/swagger"}`},
			want:   want{kind: forge.ErrUnauthorized, status: 401, message: "user does not exist [uid: 0, name: ]"},
		},
		"Forbidden": {
			reason: "403 without rate-limit headers is ErrForbidden.",
			answer: answer{status: 403, body: `{"message":"token does not have at least one of required scope(s): [read:issue]"}`},
			want:   want{kind: forge.ErrForbidden, status: 403, message: "token does not have at least one of required scope(s): [read:issue]"},
		},
		"NotFound": {
			reason: "404 is ErrNotFound.",
			answer: answer{status: 404, body: `{"message":"The target couldn't be found.","url":"/api/swagger"}`},
			want:   want{kind: forge.ErrNotFound, status: 404, message: "The target couldn't be found."},
		},
		"Invalid": {
			reason: "422 is ErrInvalidInput, with the validation errors Gitea lists.",
			answer: answer{status: 422, body: `{"message":"[Title]: Required","errors":["Title: Required"]}`},
			want:   want{kind: forge.ErrInvalidInput, status: 422, message: "[Title]: Required: Title: Required"},
		},
		"TooManyRetryAfterSeconds": {
			reason: "429 with Retry-After in seconds is a RateLimitError until now plus that.",
			answer: answer{status: 429, header: map[string]string{"Retry-After": "30"}, body: `{"message":"rate limit exceeded"}`},
			want:   want{status: 429, message: "rate limit exceeded", retryAt: now.Add(30 * time.Second)},
		},
		"TooManyRetryAfterDate": {
			reason: "Retry-After may be an HTTP date.",
			answer: answer{status: 429, header: map[string]string{"Retry-After": "Tue, 01 Dec 2026 12:05:00 GMT"}, body: `{"message":"slow down"}`},
			want:   want{status: 429, message: "slow down", retryAt: time.Date(2026, 12, 1, 12, 5, 0, 0, time.UTC)},
		},
		"ForbiddenExhausted": {
			reason: "403 with an exhausted X-RateLimit-Remaining waits until X-RateLimit-Reset.",
			answer: answer{status: 403, header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1796126400"}, body: "rate limited"},
			want:   want{status: 403, message: "rate limited", retryAt: time.Unix(1796126400, 0)},
		},
		"ProxyError": {
			reason: "A page is not the forge's words: its status text stands in (before, the raw page went into status).",
			answer: answer{status: 502, body: "<html>Bad Gateway</html>"},
			want:   want{status: 502, message: "Bad Gateway"},
		},
		"PlainText": {
			reason: "Plain text that is no JSON loses its control characters and line breaks.",
			answer: answer{status: 500, body: "internal\r\n\x1b[31merror"},
			want:   want{status: 500, message: "internal [31merror"},
		},
		"MergeRefused": {
			reason: "The SDK's merge reads only the status: a 405 is still ErrNotMergeable with Gitea's words.",
			answer: answer{status: 405, body: `{"message":"Please try again later","url":"/api/swagger"}`},
			do: func(c *client) error {
				return c.Merge(context.Background(), 1, forge.Merge{Method: forge.MethodMerge})
			},
			want: want{kind: forge.ErrNotMergeable, status: 405, message: "Please try again later"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := newFake(t, map[string]answer{"GET " + pr1: tc.answer, "POST " + pr1 + "/merge": tc.answer}, "t0k3n")
			do := tc.do
			if do == nil {
				do = func(c *client) error { _, err := c.Get(context.Background(), 1); return err }
			}
			err := do(c)
			var ae *forge.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("%s\nwant an *forge.APIError, got %T: %v", tc.reason, err, err)
			}
			if diff := cmp.Diff(tc.want.status, ae.Status); diff != "" {
				t.Errorf("%s\nStatus: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.message, ae.Message); diff != "" {
				t.Errorf("%s\nMessage: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.kind != nil && !errors.Is(err, tc.want.kind) {
				t.Errorf("%s\nerrors.Is(%v, %v) = false", tc.reason, err, tc.want.kind)
			}
			var rl *forge.RateLimitError
			if got := errors.As(err, &rl); got != !tc.want.retryAt.IsZero() {
				t.Fatalf("%s\nerrors.As(*RateLimitError) = %v: %v", tc.reason, got, err)
			}
			if rl != nil && !rl.At.Equal(tc.want.retryAt) {
				t.Errorf("%s\nRateLimitError.At = %s, want %s", tc.reason, rl.At, tc.want.retryAt)
			}
		})
	}
}

// TestTokenPerCall: each call fetches the token anew, so a rotated token is
// used from the next call, and no call asks the server's version first.
func TestTokenPerCall(t *testing.T) {
	pr := answer{status: 200, body: `{"number":1,"state":"open","head":{"ref":"f","sha":""},"base":{"ref":"main"}}`}
	c, f := newFake(t, map[string]answer{
		"GET /api/v1/repos/o/r/pulls/1":         pr,
		"GET /api/v1/repos/o/r/pulls/1/reviews": {status: 200, body: `[]`},
	}, "first", "second")
	for range 2 {
		if _, err := c.Get(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"token first", "token first", "token second", "token second"}
	if diff := cmp.Diff(want, f.auth); diff != "" {
		t.Errorf("Authorization per request: -want, +got:\n%s", diff)
	}
	for _, p := range f.seen {
		if strings.HasSuffix(p, "/version") {
			t.Errorf("a call asked the server's version: %v", f.seen)
		}
	}
}

// TestListOpenPages: ListOpen follows Gitea's Link header to the last page.
func TestListOpenPages(t *testing.T) {
	const list = "/api/v1/repos/o/r/pulls"
	c, f := newFake(t, map[string]answer{
		"GET " + list: {status: 200, header: map[string]string{"Link": `<{url}` + list + `?limit=50&page=2&state=open>; rel="next",<{url}` + list + `?limit=50&page=2&state=open>; rel="last"`},
			body: `[{"number":1,"state":"open"},{"number":2,"state":"open"}]`},
		"GET " + list + "?page=2": {status: 200, header: map[string]string{"Link": `<{url}` + list + `?limit=50&page=1&state=open>; rel="first"`},
			body: `[{"number":3,"state":"open"}]`},
	}, "t")
	prs, notModified, err := c.ListOpen(context.Background())
	if err != nil || notModified {
		t.Fatalf("ListOpen: %v, notModified %v", err, notModified)
	}
	var got []int64
	for _, p := range prs {
		got = append(got, p.Number)
	}
	if diff := cmp.Diff([]int64{1, 2, 3}, got); diff != "" {
		t.Errorf("numbers: -want, +got:\n%s\nrequests: %v", diff, f.seen)
	}
}

func TestNew(t *testing.T) {
	tok := func(context.Context) (string, error) { return "t", nil }
	cases := map[string]struct {
		reason string
		cfg    forge.Config
		want   error
		typ    forge.Type
	}{
		"Gitea":    {reason: "The API root is /api/v1/.", cfg: forge.Config{APIURL: "https://gitea.example.com/api/v1/", Token: tok}, typ: forge.Gitea},
		"Forgejo":  {reason: "Forgejo speaks Gitea's API and keeps its type.", cfg: forge.Config{Type: forge.Forgejo, APIURL: "https://codeberg.org/api/v1", Token: tok}, typ: forge.Forgejo},
		"NoToken":  {reason: "Without a token source there is nothing to call with.", cfg: forge.Config{APIURL: "https://g.example.com/api/v1/"}, want: forge.ErrNoCredentials},
		"WrongAPI": {reason: "An API URL that is not Gitea's is refused at once.", cfg: forge.Config{APIURL: "https://g.example.com/api/v4/", Token: tok}, want: errors.New("any")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := New(tc.cfg)
			if (err != nil) != (tc.want != nil) {
				t.Fatalf("%s\nNew: %v", tc.reason, err)
			}
			if errors.Is(tc.want, forge.ErrNoCredentials) && !errors.Is(err, forge.ErrNoCredentials) {
				t.Errorf("%s\nNew: %v, want ErrNoCredentials", tc.reason, err)
			}
			if err == nil && c.Type() != tc.typ {
				t.Errorf("%s\nType() = %s, want %s", tc.reason, c.Type(), tc.typ)
			}
		})
	}
}
