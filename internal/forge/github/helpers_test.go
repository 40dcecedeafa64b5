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
	"errors"
	"fmt"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	gh "github.com/crossplane-contrib/provider-git/internal/forge/github"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
)

const (
	owner = "acme"
	repo  = "gitops"
)

var epoch = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// env is a fake GitHub with branches main and feature on acme/gitops, and a
// real client of it on a fake clock.
type env struct {
	s   *fake.Server
	c   *gh.Client
	clk *testingclock.FakeClock
}

func newEnv(t *testing.T) env {
	t.Helper()
	clk := testingclock.NewFakeClock(epoch)
	s := fake.NewServer(t, fake.WithClock(clk))
	s.AddBranch(owner, repo, "main", fake.SHA("main"))
	s.AddBranch(owner, repo, "feature", fake.SHA("feature"))
	c, err := gh.NewClient(forge.Config{
		Type: forge.GitHub, APIURL: s.URL(), Owner: owner, Name: repo, HTTPClient: s.Client(),
		Token: func(context.Context) (string, error) { return fake.Token, nil },
	}, gh.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	return env{s: s, c: c, clk: clk}
}

// create opens a pull request from head (added as a branch) to main.
func (e env) create(t *testing.T, head string, s forge.Spec) forge.PullRequest {
	t.Helper()
	e.s.AddBranch(owner, repo, head, fake.SHA(head))
	s.Head, s.Base = head, "main"
	if s.Title == "" {
		s.Title = "Change " + head
	}
	pr, err := e.c.Create(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// calls lists the requests answered since the last reset, as
// "METHOD path status", and resets.
func (e env) calls() []string {
	var out []string
	for _, r := range e.s.Requests() {
		c := fmt.Sprintf("%s %s %d", r.Method, r.Path, r.Status)
		if r.Mutation != "" {
			c += " " + r.Mutation
		}
		out = append(out, c)
	}
	e.s.ResetRequests()
	return out
}

// kind is the forge sentinel err wraps, nil when none.
func kind(err error) error {
	for _, k := range []error{forge.ErrExists, forge.ErrNotFound, forge.ErrNotMergeable, forge.ErrUnsupported,
		forge.ErrUnauthorized, forge.ErrForbidden, forge.ErrInvalidInput, forge.ErrNoSuchBranch, forge.ErrNoCredentials, forge.ErrHeadMoved} {
		if errors.Is(err, k) {
			return k
		}
	}
	var rl *forge.RateLimitError
	if errors.As(err, &rl) {
		return rl
	}
	if err != nil {
		return fmt.Errorf("unmapped: %w", err)
	}
	return nil
}

// apiError is the *forge.APIError err wraps, nil when none.
func apiError(err error) *forge.APIError {
	var a *forge.APIError
	if errors.As(err, &a) {
		return a
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// prURL is the html_url the fake gives pull request n.
func prURL(s *fake.Server, n int64) string {
	return fmt.Sprintf("%s/%s/%s/pull/%d", s.URL()[:len(s.URL())-len("/api/v3/")], owner, repo, n)
}
