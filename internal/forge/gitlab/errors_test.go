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

package gitlab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/gitlab"
)

func TestRefusal(t *testing.T) {
	type args struct {
		status int
		body   string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   *forge.APIError
	}{
		"MessageString": {
			reason: "A string message is GitLab's words.",
			args:   args{404, `{"message":"404 Not found"}`},
			want:   &forge.APIError{Status: 404, Message: "404 Not found", Kind: forge.ErrNotFound},
		},
		"MessageList": {
			reason: "A list message (render_api_error! of model errors) is joined.",
			args:   args{409, `{"message":["Another open merge request already exists for this source branch: !3"]}`},
			want: &forge.APIError{Status: 409, Kind: forge.ErrExists,
				Message: "Another open merge request already exists for this source branch: !3"},
		},
		"OtherConflict": {
			reason: "A 409 about something else (a SHA mismatch) is no ErrExists.",
			args:   args{409, `{"message":"SHA does not match HEAD of source branch: abc"}`},
			want:   &forge.APIError{Status: 409, Message: "SHA does not match HEAD of source branch: abc"},
		},
		"ValidationObject": {
			reason: "A validation error's field → list object names each field.",
			args:   args{400, `{"message":{"title":["can't be blank"],"labels":["is invalid","too long"]}}`},
			want: &forge.APIError{Status: 400, Kind: forge.ErrInvalidInput,
				Message: "labels is invalid, too long; title can't be blank"},
		},
		"MissingParameter": {
			reason: "Grape's missing parameter answer carries error.",
			args:   args{400, `{"error":"title is missing"}`},
			want:   &forge.APIError{Status: 400, Message: "title is missing", Kind: forge.ErrInvalidInput},
		},
		"SourceBranchMissing": {
			reason: "The create service's missing branch (422, on base) is ErrNoSuchBranch.",
			args:   args{422, `{"message":["Source branch \"feature\" does not exist"]}`},
			want:   &forge.APIError{Status: 422, Message: `Source branch "feature" does not exist`, Kind: forge.ErrNoSuchBranch},
		},
		"SourceBranchField": {
			reason: "A validation error on source_branch (400) is ErrNoSuchBranch too.",
			args:   args{400, `{"message":{"source_branch":["does not exist"]}}`},
			want:   &forge.APIError{Status: 400, Message: "source_branch does not exist", Kind: forge.ErrNoSuchBranch},
		},
		"NotJSON": {
			reason: "A page (a proxy's) is not the forge's words: its status text stands in.",
			args:   args{502, "<html>Bad Gateway</html>\n"},
			want:   &forge.APIError{Status: 502, Message: "Bad Gateway"},
		},
		"PlainText": {
			reason: "Plain text is kept, its control characters and line breaks gone.",
			args:   args{400, "Retry later\n\x1b[31m now\r\n"},
			want:   &forge.APIError{Status: 400, Message: "Retry later [31m now", Kind: forge.ErrInvalidInput},
		},
		"Empty": {
			reason: "No body is the status text.",
			args:   args{403, ""},
			want:   &forge.APIError{Status: 403, Message: "Forbidden", Kind: forge.ErrForbidden},
		},
	}
	c := &Client{clock: testingclock.NewFakePassiveClock(time.Unix(0, 0))}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got *forge.APIError
			if !errors.As(c.refusal(tc.args.status, http.Header{}, []byte(tc.args.body)), &got) {
				t.Fatalf("%s\nrefusal(...) is no *forge.APIError", tc.reason)
			}
			if diff := cmp.Diff(*tc.want, *got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nrefusal(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRetryAt(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		reason string
		header http.Header
		want   time.Time
	}{
		"Seconds":   {reason: "Retry-After in seconds counts from the clock.", header: http.Header{"Retry-After": {"5"}}, want: now.Add(5 * time.Second)},
		"Date":      {reason: "Retry-After may be an HTTP date.", header: http.Header{"Retry-After": {"Tue, 01 Dec 2026 12:02:00 GMT"}}, want: now.Add(2 * time.Minute)},
		"Reset":     {reason: "RateLimit-Reset is Unix seconds.", header: http.Header{"Ratelimit-Reset": {"1796126460"}}, want: time.Unix(1796126460, 0)},
		"ResetTime": {reason: "RateLimit-ResetTime is an HTTP date.", header: http.Header{"Ratelimit-Resettime": {"Tue, 01 Dec 2026 12:03:00 GMT"}}, want: now.Add(3 * time.Minute)},
		"First":     {reason: "Retry-After wins over RateLimit-Reset.", header: http.Header{"Retry-After": {"1"}, "Ratelimit-Reset": {"1796126460"}}, want: now.Add(time.Second)},
		"None":      {reason: "Nothing named is a minute.", header: http.Header{}, want: now.Add(time.Minute)},
		"Garbage":   {reason: "An unreadable Retry-After falls through to the default.", header: http.Header{"Retry-After": {"soon"}}, want: now.Add(time.Minute)},
	}
	c := &Client{clock: testingclock.NewFakePassiveClock(now)}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := c.retryAt(tc.header); !got.Equal(tc.want) {
				t.Errorf("%s\nretryAt(...): want %s, got %s", tc.reason, tc.want, got)
			}
		})
	}
}

func TestNextPage(t *testing.T) {
	link := `<https://gitlab.example.com/api/v4/projects/8/merge_requests?page=1&per_page=100>; rel="prev", ` +
		`<https://gitlab.example.com/api/v4/projects/8/merge_requests?page=3&per_page=100>; rel="next", ` +
		`<https://gitlab.example.com/api/v4/projects/8/merge_requests?page=1&per_page=100>; rel="first"`
	cases := map[string]struct {
		reason string
		header http.Header
		page   int64
		want   int64
	}{
		"Header":      {reason: "X-Next-Page names the next page.", header: http.Header{"X-Next-Page": {"3"}}, page: 2, want: 3},
		"Last":        {reason: "An empty X-Next-Page ends the list.", header: http.Header{"X-Next-Page": {""}, "Link": {link}}, page: 2, want: 0},
		"LinkOnly":    {reason: "Without X-Next-Page the Link header's next is followed.", header: http.Header{"Link": {link}}, page: 2, want: 3},
		"Backwards":   {reason: "A next page that does not move forward ends the list.", header: http.Header{"X-Next-Page": {"2"}}, page: 2, want: 0},
		"NothingSaid": {reason: "No header ends the list.", header: http.Header{}, page: 1, want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := nextPage(tc.header, tc.page); got != tc.want {
				t.Errorf("%s\nnextPage(...): want %d, got %d", tc.reason, tc.want, got)
			}
		})
	}
}

func TestDraftTitle(t *testing.T) {
	cases := map[string]struct {
		reason string
		title  string
		draft  bool
		want   string
	}{
		"Draft":       {reason: "A draft gets the documented prefix.", title: "Add", draft: true, want: "Draft: Add"},
		"NotTwice":    {reason: "A title already marked keeps one prefix.", title: "Draft: Add", draft: true, want: "Draft: Add"},
		"Undraft":     {reason: "Each of GitLab's markers comes off.", title: "[draft] Add", want: "Add"},
		"Parentheses": {reason: "(Draft) is a marker too.", title: "(Draft) Add", want: "Add"},
		"NotAMarker":  {reason: "A title merely starting with the word keeps it.", title: "Drafting rules", want: "Drafting rules"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := draftTitle(tc.title, tc.draft); got != tc.want {
				t.Errorf("%s\ndraftTitle(%q, %t): want %q, got %q", tc.reason, tc.title, tc.draft, tc.want, got)
			}
		})
	}
}

func TestNewClient(t *testing.T) {
	s := fake.NewServer(t)
	s.AddBranch("feature")
	s.Open("feature", "main", "t")
	token := func(context.Context) (string, error) { return fake.Token, nil }
	cases := map[string]struct {
		reason string
		c      forge.Config
		want   error
	}{
		"Valid": {
			reason: "An API URL without its trailing slash and a nested namespace reach the project as one escaped segment (the fake answers 404 Project Not Found otherwise), and the merge lands.",
			c: forge.Config{APIURL: strings.TrimSuffix(s.APIURL(), "/"), Owner: "group/sub/", Name: "project",
				Token: token, HTTPClient: s.Client()},
		},
		"NotAURL": {
			reason: "An API URL that is not absolute http(s) is refused.",
			c:      forge.Config{APIURL: "gitlab.example.com", Owner: "g", Name: "p", Token: token},
			want:   fmt.Errorf(errAPIURLFmt, "gitlab.example.com"),
		},
		"NoOwner": {
			reason: "A project needs its namespace.",
			c:      forge.Config{APIURL: "https://gitlab.com/api/v4/", Name: "p", Token: token},
			want:   errors.New(errProject),
		},
		"NoToken": {
			reason: "No token function is ErrNoCredentials.",
			c:      forge.Config{APIURL: "https://gitlab.com/api/v4/", Owner: "g", Name: "p"},
			want:   fmt.Errorf("%s: %w", errNoToken, forge.ErrNoCredentials),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := NewClient(tc.c)
			if diff := cmp.Diff(tc.want, err, test.EquateErrors()); diff != "" {
				t.Fatalf("%s\nNewClient(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if err != nil {
				return
			}
			if err := c.Merge(context.Background(), 1, forge.Merge{Method: forge.MethodMerge}); err != nil {
				t.Errorf("%s\nMerge(1): %v", tc.reason, err)
			}
			if got := s.Requests()["PUT /projects/:id/merge_requests/:iid/merge"]; got != 1 {
				t.Errorf("%s\nmerge requests the fake answered: want 1, got %d", tc.reason, got)
			}
		})
	}
}

func TestCapped(t *testing.T) {
	cases := map[string]struct {
		reason string
		body   string
		left   int64
		want   error
	}{
		"Under":   {reason: "A body under the limit reads whole.", body: "[1,2]", left: 8},
		"AtLimit": {reason: "A body of exactly the limit reads whole: its end is no excess.", body: "[1,2]", left: 5},
		"Over":    {reason: "One byte more is an error, and reading stops.", body: "[1,2,3]", left: 5, want: fmt.Errorf(errTooLargeFmt, maxBody)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := io.ReadAll(&capped{r: io.NopCloser(strings.NewReader(tc.body)), left: tc.left})
			if diff := cmp.Diff(tc.want, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nReadAll(capped): -want error, +got error:\n%s", tc.reason, diff)
			}
		})
	}
}
