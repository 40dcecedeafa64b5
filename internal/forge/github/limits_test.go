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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
)

// TestSecondaryLimit: a 403 secondary rate limit with Retry-After is a
// RateLimitError at now + Retry-After on the injected clock; until then no
// request is sent; after it, requests go again.
func TestSecondaryLimit(t *testing.T) {
	e := newEnv(t)
	e.s.SetSecondaryLimit(1, 90*time.Second)
	create := func(head string) error {
		e.s.AddBranch(owner, repo, head, fake.SHA(head))
		_, err := e.c.Create(context.Background(), forge.Spec{Head: head, Base: "main", Title: head})
		return err
	}
	limited := &forge.RateLimitError{At: epoch.Add(90 * time.Second), Msg: fake.MsgSecondaryLimit}
	type got struct {
		Kind  error
		Calls []string
	}
	steps := []struct {
		reason string
		do     func() error
		want   got
	}{
		{reason: "One write is allowed.", do: func() error { return create("a") },
			want: got{Calls: []string{"POST /repos/acme/gitops/pulls 201"}}},
		{reason: "The second is refused with Retry-After: 90.", do: func() error { return create("b") },
			want: got{Kind: limited, Calls: []string{"POST /repos/acme/gitops/pulls 403"}}},
		{reason: "Until then the client sends nothing, reads neither.", do: func() error {
			e.clk.Step(89 * time.Second)
			_, _, err := e.c.ListOpen(context.Background())
			return err
		}, want: got{Kind: limited}},
		{reason: "After Retry-After the write goes.", do: func() error {
			e.clk.Step(time.Second)
			return create("b")
		}, want: got{Calls: []string{"POST /repos/acme/gitops/pulls 201"}}},
	}
	for i, st := range steps {
		err := st.do()
		if diff := cmp.Diff(st.want, got{Kind: kind(err), Calls: e.calls()}); diff != "" {
			t.Errorf("step %d: %s\n-want, +got:\n%s", i, st.reason, diff)
		}
	}
}

// TestPrimaryLimit: X-RateLimit-Remaining 0 is a RateLimitError at
// X-RateLimit-Reset; a 304 costs nothing against it.
func TestPrimaryLimit(t *testing.T) {
	e := newEnv(t)
	e.create(t, "feature", forge.Spec{})
	reset := epoch.Add(20 * time.Minute)
	e.s.SetPrimaryLimit(2, reset)
	e.calls()
	limited := &forge.RateLimitError{At: reset, Msg: "API rate limit exceeded for installation ID 1."}
	type got struct {
		Kind  error
		Calls []string
	}
	steps := []struct {
		reason string
		do     func() error
		want   got
	}{
		{reason: "A full list costs one of two.", do: func() error { _, _, err := e.c.ListOpen(context.Background()); return err },
			want: got{Calls: []string{"GET /repos/acme/gitops/pulls 200"}}},
		{reason: "A 304 costs nothing.", do: func() error { _, _, err := e.c.ListOpen(context.Background()); return err },
			want: got{Calls: []string{"GET /repos/acme/gitops/pulls 304"}}},
		{reason: "A full read costs the last one.", do: func() error { _, err := e.c.Get(context.Background(), 1); return err },
			want: got{Calls: []string{"GET /repos/acme/gitops/pulls/1 200", "GET /repos/acme/gitops/commits/" + fake.SHA("feature") + "/status 200",
				"GET /repos/acme/gitops/commits/" + fake.SHA("feature") + "/check-runs 200", "GET /repos/acme/gitops/pulls/1/reviews 200"}}},
		{reason: "The next is refused until X-RateLimit-Reset.", do: func() error { return e.c.Close(context.Background(), 1) },
			want: got{Kind: limited, Calls: []string{"PATCH /repos/acme/gitops/pulls/1 403"}}},
		{reason: "Until reset nothing is sent.", do: func() error { e.clk.Step(19 * time.Minute); return e.c.Close(context.Background(), 1) },
			want: got{Kind: limited}},
		{reason: "After reset requests go again.", do: func() error { e.clk.Step(time.Minute); return e.c.Close(context.Background(), 1) },
			want: got{Calls: []string{"PATCH /repos/acme/gitops/pulls/1 200"}}},
	}
	for i, st := range steps {
		if i == 2 {
			e.s.SetPrimaryLimit(4, reset) // the Get's four reads leave 0
		}
		err := st.do()
		if diff := cmp.Diff(st.want, got{Kind: kind(err), Calls: e.calls()}); diff != "" {
			t.Errorf("step %d: %s\n-want, +got:\n%s", i, st.reason, diff)
		}
	}
}
