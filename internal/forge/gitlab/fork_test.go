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

package gitlab_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/gitlab"
)

// TestForkHead: a merge request from a fork reports the fork's project and
// HeadInRepo false, in the list and in Get; the project's own reports
// itself. Before, both were alike (source_branch only).
func TestForkHead(t *testing.T) {
	s := fake.NewServer(t)
	s.AddBranch("env/staging")
	ours := s.Open("env/staging", "main", "Ours")
	fork := s.OpenFromFork(7, "env/staging", "f00d", "main", "Theirs")
	type head struct {
		Head, Repo string
		InRepo     bool
	}
	want := map[int64]head{
		ours: {"env/staging", fake.Project, true},
		fork: {"env/staging", "project 7", false},
	}
	c := client(t, s, fake.Token)
	list, _, err := c.ListOpen(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]head{}
	for _, pr := range list {
		got[pr.Number] = head{pr.Head, pr.HeadRepo, pr.HeadInRepo}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListOpen: heads -want, +got:\n%s", diff)
	}
	pr, err := c.Get(context.Background(), fork)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want[fork], head{pr.Head, pr.HeadRepo, pr.HeadInRepo}); diff != "" {
		t.Errorf("Get(fork): head -want, +got:\n%s", diff)
	}
}

// TestMergePinnedToHead: Merge and AutoMerge send the judged head as sha;
// once the source branch moved GitLab answers 409, which is ErrHeadMoved,
// and nothing merges. Before, no sha was sent and the new head merged.
func TestMergePinnedToHead(t *testing.T) {
	cases := map[string]struct {
		reason string
		call   func(c forge.Client, n int64, m forge.Merge) error
	}{
		"Merge":     {"A merge names its head.", func(c forge.Client, n int64, m forge.Merge) error { return c.Merge(context.Background(), n, m) }},
		"AutoMerge": {"An auto-merge names its head.", func(c forge.Client, n int64, m forge.Merge) error { return c.AutoMerge(context.Background(), n, m) }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			judged := s.AddBranch("feature")
			n := s.Open("feature", "main", "Change")
			s.AddBranch("feature") // pushed after the judgement
			err := tc.call(client(t, s, fake.Token), n, forge.Merge{Method: forge.MethodMerge, HeadSHA: judged})
			if !errors.Is(err, forge.ErrHeadMoved) {
				t.Errorf("%s\n%s after the head moved: want ErrHeadMoved, got %v", tc.reason, name, err)
			}
			if mr, _ := s.MR(n); mr.State != "opened" || mr.AutoMerge {
				t.Errorf("%s\nthe moved head was merged (%s) or set to auto-merge (%t)", tc.reason, mr.State, mr.AutoMerge)
			}
		})
	}
}
