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

package forgehttp

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestText(t *testing.T) {
	cases := map[string]struct {
		reason string
		body   string
		status int
		want   string
	}{
		"Words":   {"The forge's words pass.", "branch is protected", 403, "branch is protected"},
		"Empty":   {"No body is the status text.", "  ", 404, "Not Found"},
		"HTML":    {"A page is no message: its status text stands in.", "<!DOCTYPE html><title>x</title>", 502, "Bad Gateway"},
		"Control": {"Control characters and line breaks go.", "a\r\n\x1b[1mb\x00c", 400, "a [1mb c"},
		"Long":    {"A long text is cut.", strings.Repeat("é", 600), 400, strings.Repeat("é", maxText) + "…"},
		"Unknown": {"A status with no text is named by number.", "", 599, "HTTP 599"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Text([]byte(tc.body), tc.status)); diff != "" {
				t.Errorf("%s\nText(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRetryAt(t *testing.T) {
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	type want struct {
		at time.Time
		ok bool
	}
	cases := map[string]struct {
		reason string
		h      http.Header
		resets []string
		want   want
	}{
		"Seconds":  {"Retry-After in seconds counts from now.", http.Header{"Retry-After": {"30"}}, nil, want{now.Add(30 * time.Second), true}},
		"Date":     {"Retry-After as an HTTP date.", http.Header{"Retry-After": {"Sat, 05 Dec 2026 10:05:00 GMT"}}, nil, want{now.Add(5 * time.Minute), true}},
		"Reset":    {"A reset header in Unix seconds.", http.Header{"X-Ratelimit-Reset": {"1796472000"}}, []string{"X-RateLimit-Reset"}, want{time.Unix(1796472000, 0), true}},
		"Ignored":  {"A reset header not asked for says nothing.", http.Header{"X-Ratelimit-Reset": {"1796472000"}}, nil, want{}},
		"Garbage":  {"Unreadable values say nothing.", http.Header{"Retry-After": {"soon"}}, nil, want{}},
		"ZeroUnix": {"A reset of 0 says nothing.", http.Header{"Ratelimit-Reset": {"0"}}, []string{"RateLimit-Reset"}, want{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			at, ok := RetryAt(tc.h, now, tc.resets...)
			if diff := cmp.Diff(tc.want, want{at, ok}, cmp.AllowUnexported(want{}), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("%s\nRetryAt(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestOrigin(t *testing.T) {
	cases := map[string]struct {
		reason string
		a, b   string
		same   bool
	}{
		"DefaultPort": {"The default port spelled out is the same origin.", "https://api.github.com/x", "https://API.github.com:443/y", true},
		"Scheme":      {"Another scheme is another origin.", "https://h/", "http://h/", false},
		"Port":        {"Another port is another origin.", "https://h/", "https://h:8443/", false},
		"Host":        {"Another host is another origin.", "https://h/", "https://h.evil/", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a, _ := url.Parse(tc.a)
			b, _ := url.Parse(tc.b)
			if got := origin(a) == origin(b); got != tc.same {
				t.Errorf("%s\norigin(%q) == origin(%q): want %t", tc.reason, tc.a, tc.b, tc.same)
			}
		})
	}
}

func TestNewRefusesBadURL(t *testing.T) {
	for _, u := range []string{"ftp://h/", "/api/v1/", "https://"} {
		if _, err := New(nil, u); err == nil {
			t.Errorf("New(%q): want an error", u)
		}
	}
	hc, err := New(&http.Client{Timeout: time.Second}, "https://h/")
	if err != nil || hc.Timeout != time.Second {
		t.Errorf("New keeps the base's timeout: got %v, %v", hc, err)
	}
	hc, _ = New(nil, "https://h/")
	if hc.Timeout != Timeout {
		t.Errorf("New sets Timeout when the base has none: got %s", hc.Timeout)
	}
}

func TestLimitBody(t *testing.T) {
	type want struct {
		Read    string
		TooLong bool
	}
	cases := map[string]struct {
		reason string
		body   string
		limit  int64
		want   want
	}{
		"Under":   {"An answer under the limit reads whole.", "abc", 4, want{Read: "abc"}},
		"Exactly": {"An answer of exactly the limit reads whole.", "abcd", 4, want{Read: "abcd"}},
		"Over":    {"One byte more is an error, after the limit's bytes.", "abcde", 4, want{Read: "abcd", TooLong: true}},
		"Empty":   {"An empty answer is no error.", "", 0, want{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := io.ReadAll(LimitBody(io.NopCloser(strings.NewReader(tc.body)), tc.limit))
			got := want{Read: string(b), TooLong: err != nil && strings.Contains(err.Error(), "larger than")}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nLimitBody(): -want, +got (error %v):\n%s", tc.reason, err, diff)
			}
		})
	}
}
