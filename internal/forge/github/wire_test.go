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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	gh "github.com/crossplane-contrib/provider-git/internal/forge/github"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
)

// sent is one request as the client put it on the wire: method, escaped
// path and query (its parameters sorted: their order means nothing to
// GitHub), and the JSON body decoded (so [] and null differ, and
// key order does not matter).
type sent struct {
	Line string
	Body any
}

// recorder records what the client sends, and the headers GitHub
// documents that differ from what it asks for.
type recorder struct {
	next http.RoundTripper

	mu   sync.Mutex
	sent []sent
	bad  []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		_ = req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	s := sent{Line: req.Method + " " + req.URL.EscapedPath()}
	if req.URL.RawQuery != "" {
		s.Line += "?" + req.URL.Query().Encode()
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &s.Body); err != nil {
			s.Body = "not JSON: " + string(body)
		}
	}
	want := map[string]string{
		"Accept":               "application/vnd.github+json",
		"X-GitHub-Api-Version": "2022-11-28",
		"User-Agent":           "provider-git",
		"Authorization":        "Bearer " + fake.Token,
		"Content-Type":         "",
	}
	if len(body) > 0 {
		want["Content-Type"] = "application/json"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, v := range want {
		if got := req.Header.Get(k); got != v {
			r.bad = append(r.bad, s.Line+": "+k+": "+got)
		}
	}
	r.sent = append(r.sent, s)
	return r.next.RoundTrip(req)
}

// take returns what was sent since the last take.
func (r *recorder) take(t *testing.T) []sent {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

// TestRequestWire pins the requests the client sends, bodies and headers,
// to GitHub's REST and GraphQL references: the documented Accept,
// X-GitHub-Api-Version and User-Agent on every request, JSON bodies with
// the documented field names, [] where GitHub refuses null (clearing
// labels, removing only teams), and branch names escaped per segment.
func TestRequestWire(t *testing.T) {
	s := fake.NewServer(t)
	s.AddBranch(owner, repo, "main", fake.SHA("main"))
	for _, b := range []string{"feature", "team/fix#1", "auto"} {
		s.AddBranch(owner, repo, b, fake.SHA(b))
	}
	rec := &recorder{next: s.Client().Transport}
	c, err := gh.NewClient(forge.Config{Type: forge.GitHub, APIURL: s.URL(), Owner: owner, Name: repo,
		HTTPClient: &http.Client{Transport: rec}, Token: func(context.Context) (string, error) { return fake.Token, nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mutation := func(name, input string) string {
		return "mutation($input: " + input + "!) {\n  " + name +
			"(input: $input) { pullRequest { id number isDraft autoMergeRequest { mergeMethod } } }\n}"
	}
	obj := func(js string) any {
		var v any
		if err := json.Unmarshal([]byte(js), &v); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	gql := func(name, input string, in map[string]any) any {
		return map[string]any{"query": mutation(name, input), "variables": map[string]any{"input": in}}
	}
	const p = "/api/v3/repos/acme/gitops/"
	sha := fake.SHA("feature")
	steps := []struct {
		reason string
		do     func() error
		want   []sent
	}{
		{
			reason: "Create: the five documented fields, then labels and assignees, then users and teams.",
			do: func() error {
				_, err := c.Create(ctx, forge.Spec{Head: "feature", Base: "main", Title: "A <b> & c", Body: "Why",
					Labels: []string{"env"}, Reviewers: []string{"alice", "acme/platform"}, Assignees: []string{"bob"}})
				return err
			},
			want: []sent{
				{Line: "POST " + p + "pulls", Body: obj(`{"title":"A <b> & c","head":"feature","base":"main","body":"Why","draft":false}`)},
				{Line: "PATCH " + p + "issues/1", Body: obj(`{"labels":["env"],"assignees":["bob"]}`)},
				{Line: "POST " + p + "pulls/1/requested_reviewers", Body: obj(`{"reviewers":["alice"],"team_reviewers":["platform"]}`)},
			},
		},
		{
			reason: "Update: draft by GraphQL with the node ID; labels cleared with []; a team removed with reviewers [].",
			do: func() error {
				_, err := c.Update(ctx, 1, forge.Spec{Title: "A <b> & c", Body: "Why", Draft: true,
					Reviewers: []string{"alice"}, Assignees: []string{"bob"}})
				return err
			},
			want: []sent{
				{Line: "GET " + p + "pulls/1"},
				{Line: "POST /api/graphql", Body: gql("convertPullRequestToDraft", "ConvertPullRequestToDraftInput",
					map[string]any{"pullRequestId": fake.NodeID(1)})},
				{Line: "PATCH " + p + "issues/1", Body: obj(`{"labels":[]}`)},
				{Line: "GET " + p + "pulls/1/reviews?page=1&per_page=100"},
				{Line: "DELETE " + p + "pulls/1/requested_reviewers", Body: obj(`{"reviewers":[],"team_reviewers":["platform"]}`)},
				{Line: "GET " + p + "pulls/1"},
				{Line: "GET " + p + "commits/" + sha + "/status"},
				{Line: "GET " + p + "commits/" + sha + "/check-runs?per_page=100"},
				{Line: "GET " + p + "pulls/1/reviews?page=1&per_page=100"},
			},
		},
		{
			reason: "Update: title and body go together; nothing else differs.",
			do: func() error {
				_, err := c.Update(ctx, 1, forge.Spec{Title: "New", Draft: true, Reviewers: []string{"alice"}, Assignees: []string{"bob"}})
				return err
			},
			want: []sent{
				{Line: "GET " + p + "pulls/1"},
				{Line: "PATCH " + p + "pulls/1", Body: obj(`{"title":"New","body":""}`)},
				{Line: "GET " + p + "pulls/1/reviews?page=1&per_page=100"},
				{Line: "GET " + p + "pulls/1"},
				{Line: "GET " + p + "commits/" + sha + "/status"},
				{Line: "GET " + p + "commits/" + sha + "/check-runs?per_page=100"},
				{Line: "GET " + p + "pulls/1/reviews?page=1&per_page=100"},
			},
		},
		{
			reason: "Close is state closed alone.",
			do:     func() error { return c.Close(ctx, 1) },
			want:   []sent{{Line: "PATCH " + p + "pulls/1", Body: obj(`{"state":"closed"}`)}},
		},
		{
			reason: "ListOpen asks for open pull requests, a hundred a page.",
			do:     func() error { _, _, err := c.ListOpen(ctx); return err },
			want:   []sent{{Line: "GET " + p + "pulls?page=1&per_page=100&state=open"}},
		},
		{
			reason: "Merge with a message and method, then the head ref deleted, each segment escaped.",
			do: func() error {
				if _, err := c.Create(ctx, forge.Spec{Head: "team/fix#1", Base: "main", Title: "Fix"}); err != nil {
					return err
				}
				rec.take(t)
				return c.Merge(ctx, 2, forge.Merge{Method: forge.MethodSquash, Message: "Squashed", DeleteBranch: true})
			},
			want: []sent{
				{Line: "PUT " + p + "pulls/2/merge", Body: obj(`{"commit_message":"Squashed","merge_method":"squash"}`)},
				{Line: "GET " + p + "pulls/2"},
				{Line: "DELETE " + p + "git/refs/heads/team/fix%231"},
			},
		},
		{
			reason: "Merge without a message sends the method alone, GitHub's message stays.",
			do: func() error {
				if _, err := c.Create(ctx, forge.Spec{Head: "auto", Base: "main", Title: "Auto"}); err != nil {
					return err
				}
				rec.take(t)
				return c.Merge(ctx, 3, forge.Merge{Method: forge.MethodMerge})
			},
			want: []sent{{Line: "PUT " + p + "pulls/3/merge", Body: obj(`{"merge_method":"merge"}`)}},
		},
		{
			reason: "AutoMerge: enablePullRequestAutoMerge with the node ID, the method in GraphQL's words, the message as commitBody.",
			do: func() error {
				s.AddBranch(owner, repo, "feature", fake.SHA("feature")) // re-open a head for a fourth
				if _, err := c.Create(ctx, forge.Spec{Head: "feature", Base: "main", Title: "Later"}); err != nil {
					return err
				}
				s.SetMergeable(4, fake.StateBlocked)
				rec.take(t)
				return c.AutoMerge(ctx, 4, forge.Merge{Method: forge.MethodRebase, Message: "Body"})
			},
			want: []sent{
				{Line: "GET " + p + "pulls/4"},
				{Line: "POST /api/graphql", Body: gql("enablePullRequestAutoMerge", "EnablePullRequestAutoMergeInput",
					map[string]any{"pullRequestId": fake.NodeID(4), "mergeMethod": "REBASE", "commitBody": "Body"})},
			},
		},
		{
			reason: "CreateHook: a web hook of JSON deliveries, TLS verified, with the secret and the provider's events.",
			do: func() error {
				_, err := c.CreateHook(ctx, forge.Hook{URL: "https://e.example.com/p", Secret: "s"})
				return err
			},
			want: []sent{{Line: "POST " + p + "hooks", Body: obj(`{"name":"web","active":true,
				"config":{"url":"https://e.example.com/p","content_type":"json","secret":"s","insecure_ssl":"0"},
				"events":["push","pull_request","pull_request_review","check_suite","status"]}`)}},
		},
		{
			reason: "ListHooks asks for a hundred a page; UpdateHook sends the whole configuration; DeleteHook the ID alone.",
			do: func() error {
				hs, err := c.ListHooks(ctx)
				if err != nil || len(hs) != 1 {
					return fmt.Errorf("ListHooks() = %v: %w", hs, err)
				}
				if _, err := c.UpdateHook(ctx, forge.Hook{ID: hs[0].ID, URL: "https://e.example.com/q", Secret: "t"}); err != nil {
					return err
				}
				return c.DeleteHook(ctx, hs[0].ID)
			},
			want: []sent{
				{Line: "GET " + p + "hooks?page=1&per_page=100"},
				{Line: "PATCH " + p + "hooks/4294967297", Body: obj(`{"active":true,
					"config":{"url":"https://e.example.com/q","content_type":"json","secret":"t","insecure_ssl":"0"},
					"events":["push","pull_request","pull_request_review","check_suite","status"]}`)},
				{Line: "DELETE " + p + "hooks/4294967297"},
			},
		},
	}
	for i, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("step %d: %s: %v", i, st.reason, err)
		}
		if diff := cmp.Diff(st.want, rec.take(t)); diff != "" {
			t.Errorf("step %d: %s\nrequests: -want, +got:\n%s", i, st.reason, diff)
		}
	}
	if len(rec.bad) > 0 {
		t.Errorf("requests without GitHub's documented headers:\n%s", strings.Join(rec.bad, "\n"))
	}
}

// TestTeamReviewer: a requested team is a reviewer org/team, and a review
// is required while it is requested.
func TestTeamReviewer(t *testing.T) {
	e := newEnv(t)
	pr := e.create(t, "feature", forge.Spec{Reviewers: []string{"acme/platform"}})
	got, err := e.c.Get(context.Background(), pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		Reviewers      []string
		ReviewDecision string
	}
	if diff := cmp.Diff(want{Reviewers: []string{"acme/platform"}, ReviewDecision: "REVIEW_REQUIRED"},
		want{Reviewers: got.Reviewers, ReviewDecision: got.ReviewDecision}); diff != "" {
		t.Errorf("Get(): -want, +got:\n%s", diff)
	}
}
