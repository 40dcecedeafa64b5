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
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// call sends one raw request to s and returns status, headers and body.
func call(t *testing.T, s *Server, method, path, token, body string, h ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("PRIVATE-TOKEN", token)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Set(h[i], h[i+1])
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// wireCase is one raw request and the fake's whole answer to it.
type wireCase struct {
	reason string
	method string
	path   string
	token  string
	body   string
	status int
	want   string
}

// checkWire sends each case's request to s and compares status and body.
func checkWire(t *testing.T, s *Server, cases map[string]wireCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st, _, got := call(t, s, tc.method, tc.path, tc.token, tc.body)
			if st != tc.status || strings.TrimSpace(got) != tc.want {
				t.Errorf("%s\n%s %s: want %d %s, got %d %s", tc.reason, tc.method, tc.path, tc.status, tc.want, st, got)
			}
		})
	}
}

// TestWire pins the fake's answers to GitLab's documented wire format.
func TestWire(t *testing.T) {
	s := NewServer(t)
	s.AddBranch("feature")
	for range 3 {
		s.AddBranch("x")
	}
	mrs := "/api/v4/projects/group%2Fsub%2Fproject/merge_requests"

	st, _, body := call(t, s, "POST", mrs, Token, `{"source_branch":"feature","target_branch":"main","title":"t","labels":"a,b"}`)
	if st != http.StatusCreated {
		t.Fatalf("create: %d %s", st, body)
	}
	var entity map[string]any
	if err := json.Unmarshal([]byte(body), &entity); err != nil {
		t.Fatal(err)
	}
	// The single merge request's fields in doc/api/merge_requests.md read by
	// the client, and a few more a client may read.
	for _, k := range []string{"iid", "title", "description", "state", "source_branch", "target_branch", "sha",
		"merge_commit_sha", "squash_commit_sha", "draft", "labels", "reviewers", "assignees", "web_url",
		"detailed_merge_status", "merge_status", "merge_when_pipeline_succeeds", "head_pipeline", "merge_error", "references"} {
		if _, ok := entity[k]; !ok {
			t.Errorf("create's entity has no %q", k)
		}
	}
	if diff := cmp.Diff([]any{"a", "b"}, entity["labels"]); diff != "" {
		t.Errorf("labels: -want, +got:\n%s", diff)
	}

	cases := map[string]wireCase{
		"Duplicate": {
			reason: "A second open merge request of a source branch is 409 with a list message.",
			method: "POST", path: mrs, token: Token,
			body:   `{"source_branch":"feature","target_branch":"main","title":"again"}`,
			status: http.StatusConflict,
			want:   `{"message":["Another open merge request already exists for this source branch: !1"]}`,
		},
		"NoSuchBranch": {
			reason: "A missing source branch is 422 from the create service's base errors.",
			method: "POST", path: mrs, token: Token,
			body:   `{"source_branch":"nope","target_branch":"main","title":"t"}`,
			status: http.StatusUnprocessableEntity,
			want:   `{"message":["Source branch \"nope\" does not exist"]}`,
		},
		"MissingTitle": {
			reason: "A missing required parameter is Grape's 400.",
			method: "POST", path: mrs, token: Token, body: `{"source_branch":"x","target_branch":"main"}`,
			status: http.StatusBadRequest, want: `{"error":"title is missing"}`,
		},
		"Unauthorized": {
			reason: "An unknown token is 401.",
			method: "GET", path: mrs, token: "nope",
			status: http.StatusUnauthorized, want: `{"message":"401 Unauthorized"}`,
		},
		"ReadOnly": {
			reason: "A read_api token's write is 403 insufficient_scope.",
			method: "PUT", path: mrs + "/1", token: ReadOnlyToken, body: `{"title":"x"}`,
			status: http.StatusForbidden,
			want:   `{"error":"insufficient_scope","error_description":"The request requires higher privileges than provided by the access token.","scope":"api"}`,
		},
		"NoProject": {
			reason: "Another project is 404 Project Not Found.",
			method: "GET", path: "/api/v4/projects/other%2Fproject/merge_requests", token: Token,
			status: http.StatusNotFound, want: `{"message":"404 Project Not Found"}`,
		},
		"UnescapedProject": {
			reason: "A project path not escaped as one segment is no route of a project.",
			method: "GET", path: "/api/v4/projects/group/sub/project/merge_requests", token: Token,
			status: http.StatusNotFound, want: `{"message":"404 Project Not Found"}`,
		},
		"NoMergeRequest": {
			reason: "An unknown iid is 404 Not found.",
			method: "GET", path: mrs + "/9", token: Token,
			status: http.StatusNotFound, want: `{"message":"404 Not found"}`,
		},
		"Rebase": {
			reason: "A rebase is accepted, in the background.",
			method: "PUT", path: mrs + "/1/rebase", token: Token,
			status: http.StatusAccepted, want: `{"rebase_in_progress":true}`,
		},
	}
	checkWire(t, s, cases)
}

func TestWirePagesAndETags(t *testing.T) {
	s := NewServer(t)
	for range 4 {
		s.AddBranch("b")
		s.Open("b", "main", "t")
	}
	path := "/api/v4/projects/42/merge_requests?state=opened&per_page=3&page=1"
	st, h, body := call(t, s, "GET", path, Token, "")
	if st != http.StatusOK {
		t.Fatalf("list: %d %s", st, body)
	}
	got := map[string]string{}
	for _, k := range []string{"X-Page", "X-Per-Page", "X-Next-Page", "X-Prev-Page", "X-Total", "X-Total-Pages"} {
		got[k] = h.Get(k)
	}
	want := map[string]string{"X-Page": "1", "X-Per-Page": "3", "X-Next-Page": "2", "X-Prev-Page": "", "X-Total": "4", "X-Total-Pages": "2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pagination headers: -want, +got:\n%s", diff)
	}
	var rels []string
	for _, l := range strings.Split(h.Get("Link"), ", ") {
		_, rel, _ := strings.Cut(l, "; ")
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	if diff := cmp.Diff([]string{`rel="first"`, `rel="last"`, `rel="next"`}, rels); diff != "" {
		t.Errorf("Link rels: -want, +got:\n%s", diff)
	}
	etag := h.Get("ETag")
	if !strings.HasPrefix(etag, `W/"`) {
		t.Fatalf("ETag: want a weak ETag, got %q", etag)
	}
	if st, _, body := call(t, s, "GET", path, Token, "", "If-None-Match", etag); st != http.StatusNotModified || body != "" {
		t.Errorf("If-None-Match with the ETag: want 304 and no body, got %d %q", st, body)
	}
	s.EditTitle(4, "changed")
	if st, _, _ := call(t, s, "GET", path, Token, "", "If-None-Match", etag); st != http.StatusOK {
		t.Errorf("If-None-Match after a change: want 200, got %d", st)
	}
}

func TestWireThrottle(t *testing.T) {
	s := NewServer(t)
	reset := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s.Throttle(1, 30*time.Second, reset)
	st, h, body := call(t, s, "GET", "/api/v4/users?username=root", Token, "")
	got := []string{h.Get("Retry-After"), h.Get("RateLimit-Reset"), h.Get("RateLimit-ResetTime"), h.Get("RateLimit-Remaining"), body}
	want := []string{"30", "1796126400", "Tue, 01 Dec 2026 12:00:00 GMT", "0", "Retry later\n"}
	if st != http.StatusTooManyRequests {
		t.Errorf("throttled: want 429, got %d", st)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("429's headers and body: -want, +got:\n%s", diff)
	}
	if st, _, body := call(t, s, "GET", "/api/v4/users?username=ROOT", Token, ""); st != http.StatusOK || !strings.Contains(body, `"username":"root"`) {
		t.Errorf("after the throttle: want 200 with root, got %d %s", st, body)
	}
	if got := s.Requests()["GET /users"]; got != 2 {
		t.Errorf("GET /users counted: want 2, got %d", got)
	}
}

// TestWireHooks pins the fake's project hooks to doc/api/project_webhooks.md
// and lib/api/project_hooks.rb.
func TestWireHooks(t *testing.T) {
	s := NewServer(t)
	hooks := "/api/v4/projects/group%2Fsub%2Fproject/hooks"
	st, _, body := call(t, s, "POST", hooks, Token, `{"url":"https://ci.example.com/a","token":"s3cret","merge_requests_events":true}`)
	if st != http.StatusCreated {
		t.Fatalf("add: %d %s", st, body)
	}
	var entity map[string]any
	if err := json.Unmarshal([]byte(body), &entity); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "url", "project_id", "push_events", "merge_requests_events", "tag_push_events",
		"pipeline_events", "enable_ssl_verification", "alert_status", "disabled_until", "created_at", "push_events_branch_filter"} {
		if _, ok := entity[k]; !ok {
			t.Errorf("the hook entity has no %q", k)
		}
	}
	if _, ok := entity["token"]; ok || strings.Contains(body, "s3cret") {
		t.Errorf("the hook entity carries its token: %s", body)
	}
	cases := map[string]wireCase{
		"NoURL": {
			reason: "url is required: Grape's 400.",
			method: "POST", path: hooks, token: Token, body: `{"push_events":true}`,
			status: http.StatusBadRequest, want: `{"error":"url is missing"}`,
		},
		"InvalidURL": {
			reason: "A URL that is not http(s) is 422 Invalid url given.",
			method: "POST", path: hooks, token: Token, body: `{"url":"ftp://ci.example.com/"}`,
			status: http.StatusUnprocessableEntity, want: `{"message":"Invalid url given"}`,
		},
		"Developer": {
			reason: "A Developer may not see the hooks: authorize_admin_project's 403.",
			method: "GET", path: hooks, token: DeveloperToken,
			status: http.StatusForbidden, want: `{"message":"403 Forbidden"}`,
		},
		"EditGone": {
			reason: "Editing a hook that is not there is 404.",
			method: "PUT", path: hooks + "/9", token: Token, body: `{"url":"https://ci.example.com/b"}`,
			status: http.StatusNotFound, want: `{"message":"404 Not found"}`,
		},
		"DeleteGone": {
			reason: "Deleting a hook that is not there is 404.",
			method: "DELETE", path: hooks + "/9", token: Token,
			status: http.StatusNotFound, want: `{"message":"404 Not found"}`,
		},
	}
	checkWire(t, s, cases)

	// A new URL without a token drops the token; the same URL keeps it.
	if st, _, body := call(t, s, "PUT", hooks+"/1", Token, `{"url":"https://ci.example.com/a","push_events":false}`); st != http.StatusOK {
		t.Fatalf("edit: %d %s", st, body)
	}
	if h := s.Hooks()[0]; h.Token != "s3cret" || h.PushEvents {
		t.Errorf("after an edit of the events: token %q, push events %t; want the token kept, push events off", h.Token, h.PushEvents)
	}
	call(t, s, "PUT", hooks+"/1", Token, `{"url":"https://ci.example.com/moved"}`)
	if h := s.Hooks()[0]; h.Token != "" || h.URL != "https://ci.example.com/moved" {
		t.Errorf("after a new URL without a token: token %q, URL %q; want no token", h.Token, h.URL)
	}
	s.AddHook(Hook{URL: "https://ci.example.com/c"})
	st, h, _ := call(t, s, "GET", hooks+"?per_page=1&page=1", Token, "")
	if st != http.StatusOK || h.Get("X-Next-Page") != "2" || h.Get("X-Total") != "2" {
		t.Errorf("list page 1 of 1: want 200 with X-Next-Page 2 and X-Total 2, got %d %q %q", st, h.Get("X-Next-Page"), h.Get("X-Total"))
	}
	if st, _, body := call(t, s, "DELETE", hooks+"/1", Token, ""); st != http.StatusNoContent || body != "" {
		t.Errorf("delete: want 204 and no body, got %d %q", st, body)
	}
	if len(s.Hooks()) != 1 {
		t.Errorf("after the delete: want 1 hook, got %d", len(s.Hooks()))
	}
}
