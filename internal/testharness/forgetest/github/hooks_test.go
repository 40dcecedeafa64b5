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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"
)

// answer is what a client sees of one answer: its status, the headers
// asked for, and the JSON body (each object cut to the keys asked for).
type answer struct {
	Status int
	Header map[string]string
	Body   any
}

// TestHooks checks the fake's repository webhooks on the wire, without a
// client, against GitHub's REST reference (docs.github.com/rest/repos/webhooks).
func TestHooks(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	const (
		hooks = "repos/o/r/hooks"
		url   = "https://events.example.com/forge/abc"
	)
	id := func(n int64) int64 { return firstHookID + n }
	self := func(s *Server, n int64) string { return fmt.Sprintf("%s%s/%d", s.URL(), hooks, id(n)) }
	type request struct {
		method, path, body string
		headers            []string
		keys               []string
	}
	cases := map[string]struct {
		reason string
		setup  func(s *Server)
		req    request
		want   func(s *Server) answer
		// hooks are the repository's after a write (a GET changes none).
		hooks []Hook
	}{
		"Create": {
			reason: "A hook with a JSON config, a secret and two events is 201 with Location, its secret masked.",
			req: request{method: http.MethodPost, path: hooks, headers: []string{"Location"},
				body: `{"name":"web","config":{"url":"` + url + `","content_type":"json","secret":"s3cr3t","insecure_ssl":"0"},"events":["push","pull_request"],"active":true}`},
			want: func(s *Server) answer {
				return answer{Status: 201, Header: map[string]string{"Location": self(s, 1)}, Body: map[string]any{
					"type": "Repository", "id": float64(id(1)), "name": "web", "active": true, "events": []any{"push", "pull_request"},
					"config":     map[string]any{"url": url, "content_type": "json", "insecure_ssl": "0", "secret": "********"},
					"created_at": "2026-12-01T12:00:00Z", "updated_at": "2026-12-01T12:00:00Z", "url": self(s, 1),
					"test_url": self(s, 1) + "/test", "ping_url": self(s, 1) + "/pings", "deliveries_url": self(s, 1) + "/deliveries",
					"last_response": map[string]any{"code": nil, "status": "unused", "message": nil},
				}}
			},
			hooks: []Hook{{ID: id(1), URL: url, ContentType: "json", Secret: "s3cr3t", InsecureSSL: "0", Events: []string{"push", "pull_request"}, Active: true}},
		},
		"CreateDefaults": {
			reason: "Without them, events are [push], content_type form, active true; no secret, none answered.",
			req:    request{method: http.MethodPost, path: hooks, body: `{"config":{"url":"` + url + `"}}`, keys: []string{"events", "config", "active"}},
			want: func(*Server) answer {
				return answer{Status: 201, Body: map[string]any{"events": []any{"push"}, "active": true,
					"config": map[string]any{"url": url, "content_type": "form", "insecure_ssl": "0"}}}
			},
			hooks: []Hook{{ID: id(1), URL: url, ContentType: "form", InsecureSSL: "0", Events: []string{"push"}, Active: true}},
		},
		"CreateNoURL": {
			reason: "config.url is required: 422.",
			req:    request{method: http.MethodPost, path: hooks, body: `{"config":{"content_type":"json"}}`},
			want: func(*Server) answer {
				return answer{Status: 422, Body: map[string]any{"message": "Validation Failed", "documentation_url": docHooks,
					"errors": []any{map[string]any{"resource": "Hook", "code": "custom", "message": msgHookNoURL}}}}
			},
		},
		"CreateExists": {
			reason: "A second hook of the same URL is 422 'Hook already exists on this repository'.",
			setup: func(s *Server) {
				s.AddHook("o", "r", Hook{URL: url, ContentType: "json", Events: []string{"push"}, Active: true})
			},
			req: request{method: http.MethodPost, path: hooks, body: `{"config":{"url":"` + url + `"}}`},
			want: func(*Server) answer {
				return answer{Status: 422, Body: map[string]any{"message": "Validation Failed", "documentation_url": docHooks,
					"errors": []any{map[string]any{"resource": "Hook", "code": "custom", "message": msgHookExists}}}}
			},
			hooks: []Hook{{ID: id(1), URL: url, ContentType: "json", Events: []string{"push"}, Active: true}},
		},
		"Update": {
			reason: "PATCH replaces config and events and sets active; a config without a secret drops it.",
			setup: func(s *Server) {
				s.AddHook("o", "r", Hook{URL: url, ContentType: "json", Secret: "old", InsecureSSL: "1", Events: []string{"push"}, Active: true})
			},
			req: request{method: http.MethodPatch, path: fmt.Sprintf("%s/%d", hooks, id(1)), keys: []string{"config", "events", "active"},
				body: `{"config":{"url":"` + url + `/new","content_type":"json"},"events":["push","status"],"active":false}`},
			want: func(*Server) answer {
				return answer{Status: 200, Body: map[string]any{"events": []any{"push", "status"}, "active": false,
					"config": map[string]any{"url": url + "/new", "content_type": "json", "insecure_ssl": "0"}}}
			},
			hooks: []Hook{{ID: id(1), URL: url + "/new", ContentType: "json", InsecureSSL: "0", Events: []string{"push", "status"}}},
		},
		"UpdateEvents": {
			reason: "add_events and remove_events change the events alone.",
			setup: func(s *Server) {
				s.AddHook("o", "r", Hook{URL: url, ContentType: "json", Secret: "s", InsecureSSL: "0", Events: []string{"push", "issues"}, Active: true})
			},
			req: request{method: http.MethodPatch, path: fmt.Sprintf("%s/%d", hooks, id(1)), keys: []string{"events"},
				body: `{"add_events":["pull_request"],"remove_events":["issues"]}`},
			want: func(*Server) answer {
				return answer{Status: 200, Body: map[string]any{"events": []any{"push", "pull_request"}}}
			},
			hooks: []Hook{{ID: id(1), URL: url, ContentType: "json", Secret: "s", InsecureSSL: "0", Events: []string{"push", "pull_request"}, Active: true}},
		},
		"UpdateMissing": {
			reason: "PATCH of a hook that is not there is 404.",
			req:    request{method: http.MethodPatch, path: hooks + "/7", body: `{"active":true}`},
			want: func(*Server) answer {
				return answer{Status: 404, Body: map[string]any{"message": "Not Found", "documentation_url": docHooks}}
			},
		},
		"Delete": {
			reason: "DELETE is 204 without a body, and the hook is gone.",
			setup:  func(s *Server) { s.AddHook("o", "r", Hook{URL: url, Active: true}) },
			req:    request{method: http.MethodDelete, path: fmt.Sprintf("%s/%d", hooks, id(1))},
			want:   func(*Server) answer { return answer{Status: 204} },
		},
		"DeleteMissing": {
			reason: "DELETE of a hook already gone is 404.",
			req:    request{method: http.MethodDelete, path: fmt.Sprintf("%s/%d", hooks, id(1))},
			want: func(*Server) answer {
				return answer{Status: 404, Body: map[string]any{"message": "Not Found", "documentation_url": docHooks}}
			},
		},
		"Get": {
			reason: "GET of one hook answers it, its secret masked.",
			setup: func(s *Server) {
				s.AddHook("o", "r", Hook{URL: url, ContentType: "json", Secret: "s", InsecureSSL: "0", Active: true})
			},
			req: request{method: http.MethodGet, path: fmt.Sprintf("%s/%d", hooks, id(1)), keys: []string{"id", "config"}},
			want: func(*Server) answer {
				return answer{Status: 200, Body: map[string]any{"id": float64(id(1)),
					"config": map[string]any{"url": url, "content_type": "json", "insecure_ssl": "0", "secret": "********"}}}
			},
		},
		"ListPages": {
			reason: "Three hooks two a page: the first page names the next and the last.",
			setup: func(s *Server) {
				for i := range 3 {
					s.AddHook("o", "r", Hook{URL: fmt.Sprintf("%s/%d", url, i), Active: true})
				}
			},
			req: request{method: http.MethodGet, path: hooks + "?per_page=2&page=1", headers: []string{"Link"}, keys: []string{"id"}},
			want: func(s *Server) answer {
				base := s.URL() + hooks + "?per_page=2&page="
				return answer{Status: 200, Header: map[string]string{"Link": `<` + base + `2>; rel="next", <` + base + `2>; rel="last"`},
					Body: []any{map[string]any{"id": float64(id(1))}, map[string]any{"id": float64(id(2))}}}
			},
		},
		"ListLastPage": {
			reason: "The last page names the previous and the first, and holds the rest.",
			setup: func(s *Server) {
				for i := range 3 {
					s.AddHook("o", "r", Hook{URL: fmt.Sprintf("%s/%d", url, i), Active: true})
				}
			},
			req: request{method: http.MethodGet, path: hooks + "?per_page=2&page=2", headers: []string{"Link"}, keys: []string{"id"}},
			want: func(s *Server) answer {
				base := s.URL() + hooks + "?per_page=2&page="
				return answer{Status: 200, Header: map[string]string{"Link": `<` + base + `1>; rel="prev", <` + base + `1>; rel="first"`},
					Body: []any{map[string]any{"id": float64(id(3))}}}
			},
		},
		"ListEmpty": {
			reason: "No hooks: [] and no Link.",
			req:    request{method: http.MethodGet, path: hooks, headers: []string{"Link"}},
			want:   func(*Server) answer { return answer{Status: 200, Header: map[string]string{"Link": ""}, Body: []any{}} },
		},
		"NotAdmin": {
			reason: "A token that may not administer hooks is answered 404, as GitHub does.",
			setup:  func(s *Server) { s.SetHookAccess(http.StatusNotFound) },
			req:    request{method: http.MethodGet, path: hooks},
			want: func(*Server) answer {
				return answer{Status: 404, Body: map[string]any{"message": "Not Found", "documentation_url": docHooks}}
			},
		},
		"AppWithoutPermission": {
			reason: "An App without the webhooks permission is answered 403.",
			setup:  func(s *Server) { s.SetHookAccess(http.StatusForbidden) },
			req:    request{method: http.MethodPost, path: hooks, body: `{"config":{"url":"` + url + `"}}`},
			want: func(*Server) answer {
				return answer{Status: 403, Body: map[string]any{"message": msgForbidden, "documentation_url": docHooks}}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := NewServer(t, WithClock(testingclock.NewFakeClock(at)))
			s.AddBranch("o", "r", "main", SHA("main"))
			if tc.setup != nil {
				tc.setup(s)
			}
			got := hookCall(t, s, tc.req.method, tc.req.path, tc.req.body, tc.req.headers, tc.req.keys)
			if diff := cmp.Diff(tc.want(s), got); diff != "" {
				t.Errorf("%s\n%s %s: -want, +got:\n%s", tc.reason, tc.req.method, tc.req.path, diff)
			}
			if diff := cmp.Diff(tc.hooks, s.Hooks("o", "r")); diff != "" && tc.req.method != http.MethodGet {
				t.Errorf("%s\nthe repository's hooks: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// hookCall sends one request and reads the answer: the headers named, and
// the body with each object cut to keys (all of it when none).
func hookCall(t *testing.T, s *Server, method, path, body string, headers, keys []string) answer {
	t.Helper()
	req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+Token)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{Status: resp.StatusCode}
	if len(headers) > 0 {
		a.Header = map[string]string{}
		for _, k := range headers {
			a.Header[k] = resp.Header.Get(k)
		}
	}
	b, _ := io.ReadAll(resp.Body)
	if len(b) == 0 {
		return a
	}
	if err := json.Unmarshal(b, &a.Body); err != nil {
		t.Fatalf("%s %s: not JSON: %s", method, path, b)
	}
	cut := func(v any) any {
		m, ok := v.(map[string]any)
		if !ok || len(keys) == 0 {
			return v
		}
		out := map[string]any{}
		for _, k := range keys {
			out[k] = m[k]
		}
		return out
	}
	if l, ok := a.Body.([]any); ok {
		for i := range l {
			l[i] = cut(l[i])
		}
		return a
	}
	a.Body = cut(a.Body)
	return a
}
