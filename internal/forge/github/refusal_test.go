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
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	gh "github.com/crossplane-contrib/provider-git/internal/forge/github"
)

// TestRefusalsOnTheWire: what go-github hands back for an answer the fake
// does not give (a proxy's page, plain text, a runaway body, GitHub's
// rarer error shapes) reaches the caller as the forge's error, GitHub's
// words scrubbed (forgehttp.Text), a rate limit as *forge.RateLimitError
// on the injected clock.
func TestRefusalsOnTheWire(t *testing.T) {
	type answer struct {
		status int
		header map[string]string
		body   string
		size   int64 // a body of this many bytes instead
	}
	type want struct {
		Kind error
		// Unmapped is an error that is none of the forge's.
		Unmapped bool
		API      *forge.APIError
		Message  string // a part of the error's text
	}
	cases := map[string]struct {
		reason string
		answer answer
		want   want
	}{
		"HTML": {
			reason: "A proxy's error page is not GitHub's words: the status text stands in.",
			answer: answer{status: 502, header: map[string]string{"Content-Type": "text/html"}, body: "<html><body><script>x</script>502</body></html>"},
			want:   want{Unmapped: true, API: &forge.APIError{Status: 502, Message: "Bad Gateway"}},
		},
		"PlainText": {
			reason: "Plain text loses control characters and line breaks.",
			answer: answer{status: 400, body: "bad\r\n\x1b[31m request"},
			want:   want{Unmapped: true, API: &forge.APIError{Status: 400, Message: "bad [31m request"}},
		},
		"Strings": {
			reason: "A 422 whose errors are bare strings reads them as messages.",
			answer: answer{status: 422, body: `{"message":"Validation Failed","errors":["Reviewers could not\nbe requested."]}`},
			want: want{Kind: forge.ErrInvalidInput, API: &forge.APIError{Status: 422,
				Message: "Validation Failed: Reviewers could not be requested.", Kind: forge.ErrInvalidInput}},
		},
		"TooManyRequests": {
			reason: "A 429 with Retry-After is a rate limit, counted on the injected clock.",
			answer: answer{status: 429, header: map[string]string{"Retry-After": "7"}, body: `{"message":"slow down"}`},
			want:   want{Kind: &forge.RateLimitError{At: epoch.Add(7 * time.Second), Msg: "slow down"}},
		},
		"Primary": {
			reason: "X-RateLimit-Remaining 0 is a rate limit until X-RateLimit-Reset.",
			answer: answer{status: 403, header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1796212800"},
				body: `{"message":"API rate limit exceeded"}`},
			want: want{Kind: &forge.RateLimitError{At: time.Unix(1796212800, 0), Msg: "API rate limit exceeded"}},
		},
		"Runaway": {
			reason: "An answer past 32 MiB is refused, not read into memory.",
			answer: answer{status: 200, size: 33 << 20},
			want:   want{Unmapped: true, Message: "larger than 33554432 bytes"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.answer.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.answer.status)
				if tc.answer.size > 0 {
					_, _ = w.Write([]byte("["))
					_, _ = io.CopyN(w, strings.NewReader(strings.Repeat(" ", int(tc.answer.size))), tc.answer.size)
					return
				}
				_, _ = w.Write([]byte(tc.answer.body))
			}))
			t.Cleanup(srv.Close)
			c, err := gh.NewClient(forge.Config{APIURL: srv.URL + "/api/v3/", Owner: owner, Name: repo, HTTPClient: srv.Client(),
				Token: func(context.Context) (string, error) { return "t", nil }}, gh.WithClock(testingclock.NewFakeClock(epoch)))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = c.ListOpen(context.Background())
			got := want{Kind: kind(err), API: apiError(err)}
			if got.Kind != nil && strings.HasPrefix(got.Kind.Error(), "unmapped: ") {
				got.Kind, got.Unmapped = nil, true
			}
			if err != nil && strings.Contains(err.Error(), tc.want.Message) {
				got.Message = tc.want.Message
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nListOpen() error %v: -want, +got:\n%s", tc.reason, err, diff)
			}
		})
	}
}
