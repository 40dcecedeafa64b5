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
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"
)

// wire is what a client sees of one answer.
type wire struct {
	Status int
	Header map[string]string
	Body   map[string]any
}

// TestWire checks the fake's answers on the wire, without go-github, against
// what GitHub documents: the headers and bodies a client depends on.
func TestWire(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	s := NewServer(t, WithClock(clk))
	s.AddBranch("o", "r", "main", SHA("main"))
	s.AddBranch("o", "r", "feature", SHA("feature"))
	do := func(method, path, body string, h map[string]string, headers ...string) wire {
		req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+Token)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		w := wire{Status: resp.StatusCode, Header: map[string]string{}}
		for _, k := range headers {
			w.Header[k] = resp.Header.Get(k)
		}
		b, _ := io.ReadAll(resp.Body)
		if len(b) > 0 && b[0] == '{' {
			_ = json.Unmarshal(b, &w.Body)
		}
		return w
	}
	pick := func(w wire, keys ...string) wire {
		out := wire{Status: w.Status, Header: w.Header}
		if w.Body != nil {
			out.Body = map[string]any{}
			for _, k := range keys {
				out.Body[k] = w.Body[k]
			}
		}
		return out
	}
	create := `{"title":"T","head":"feature","base":"main"}`

	got := pick(do(http.MethodPost, "repos/o/r/pulls", create, nil, "Location"), "number", "state", "node_id")
	want := wire{Status: 201, Header: map[string]string{"Location": s.URL() + "repos/o/r/pulls/1"},
		Body: map[string]any{"number": 1.0, "state": "open", "node_id": NodeID(1)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("POST pulls: -want, +got:\n%s", diff)
	}

	got = do(http.MethodPost, "repos/o/r/pulls", create, nil)
	want = wire{Status: 422, Header: map[string]string{}, Body: map[string]any{"message": "Validation Failed",
		"documentation_url": docCreatePR, "errors": []any{map[string]any{"resource": "PullRequest", "code": "custom",
			"message": "A pull request already exists for o:feature."}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("POST pulls again: -want, +got:\n%s", diff)
	}

	first := do(http.MethodGet, "repos/o/r/pulls/1", "", nil, "ETag", "X-RateLimit-Remaining")
	etag := first.Header["ETag"]
	if !strings.HasPrefix(etag, `W/"`) {
		t.Errorf("GET pull: ETag %q is not a weak validator as GitHub's", etag)
	}
	got = do(http.MethodGet, "repos/o/r/pulls/1", "", map[string]string{"If-None-Match": etag}, "ETag", "X-RateLimit-Remaining")
	want = wire{Status: 304, Header: map[string]string{"ETag": etag, "X-RateLimit-Remaining": first.Header["X-RateLimit-Remaining"]}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET pull If-None-Match: -want, +got:\n%s", diff)
	}

	s.AddBranch("o", "r", "x", SHA("x"))
	got = do(http.MethodGet, "repos/o/r/pulls?state=open&per_page=1&page=1", "", nil, "Link")
	base := s.URL() + "repos/o/r/pulls?state=open&per_page=1&page="
	want = wire{Status: 200, Header: map[string]string{"Link": ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET pulls, one page: -want, +got:\n%s", diff)
	}
	do(http.MethodPost, "repos/o/r/pulls", `{"title":"X","head":"x","base":"main"}`, nil)
	got = do(http.MethodGet, "repos/o/r/pulls?state=open&per_page=1&page=1", "", nil, "Link")
	want = wire{Status: 200, Header: map[string]string{"Link": `<` + base + `2>; rel="next", <` + base + `2>; rel="last"`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET pulls, two pages: -want, +got:\n%s", diff)
	}

	s.SetSecondaryLimit(0, 61*time.Second)
	got = do(http.MethodPatch, "repos/o/r/pulls/1", `{"title":"U"}`, nil, "Retry-After")
	want = wire{Status: 403, Header: map[string]string{"Retry-After": "61"},
		Body: map[string]any{"message": MsgSecondaryLimit, "documentation_url": docSecondary}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PATCH under a secondary limit: -want, +got:\n%s", diff)
	}
	clk.Step(60 * time.Second)
	if diff := cmp.Diff("1", do(http.MethodPatch, "repos/o/r/pulls/1", `{}`, nil, "Retry-After").Header["Retry-After"]); diff != "" {
		t.Errorf("Retry-After a minute later: -want, +got:\n%s", diff)
	}
	s.SetSecondaryLimit(-1, 0)

	reset := clk.Now().Add(time.Hour)
	s.SetPrimaryLimit(0, reset)
	got = do(http.MethodGet, "repos/o/r/pulls/1", "", nil, "X-RateLimit-Remaining", "X-RateLimit-Reset")
	want = wire{Status: 403, Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(reset.Unix(), 10)},
		Body: map[string]any{"message": msgPrimaryLimit, "documentation_url": docPrimary}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET under the primary limit: -want, +got:\n%s", diff)
	}
}
