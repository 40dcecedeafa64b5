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

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
)

// TestForkHead: a pull request a stranger opened from a fork reports the
// fork as its head repository and HeadInRepo false, in the list and in Get;
// one of this repository reports itself. Before, both looked alike (head
// ref only), and a fork's pull request was adopted by branch name.
func TestForkHead(t *testing.T) {
	e := newEnv(t)
	ours := e.create(t, "env/staging", forge.Spec{})
	fork := e.s.OpenFromFork(owner, repo, "stranger", "env/staging", fake.SHA("theirs"), "main", "Please merge")
	type head struct {
		Head, Repo string
		InRepo     bool
	}
	want := map[int64]head{
		ours.Number: {"env/staging", owner + "/" + repo, true},
		fork:        {"env/staging", "stranger/" + repo, false},
	}
	list, _, err := e.c.ListOpen(context.Background())
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
	pr, err := e.c.Get(context.Background(), fork)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want[fork], head{pr.Head, pr.HeadRepo, pr.HeadInRepo}); diff != "" {
		t.Errorf("Get(fork): head -want, +got:\n%s", diff)
	}
}

// TestMergePinnedToHead: a merge or auto-merge names the head it judged;
// when the head moved since, GitHub refuses and the client says
// ErrHeadMoved, and nothing is merged. Before, no sha was sent and the
// moved head was merged unjudged.
func TestMergePinnedToHead(t *testing.T) {
	cases := map[string]struct {
		reason string
		call   func(e env, n int64, m forge.Merge) error
		setup  func(e env, n int64)
	}{
		"Merge": {
			reason: "PUT /merge carries sha; a 409 is ErrHeadMoved.",
			call: func(e env, n int64, m forge.Merge) error {
				return e.c.Merge(context.Background(), n, m)
			},
		},
		"AutoMerge": {
			reason: "enablePullRequestAutoMerge carries expectedHeadOid; GitHub's refusal is ErrHeadMoved.",
			call: func(e env, n int64, m forge.Merge) error {
				return e.c.AutoMerge(context.Background(), n, m)
			},
			setup: func(e env, n int64) { e.s.SetMergeable(n, fake.StateBlocked) },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			pr := e.create(t, "feature", forge.Spec{})
			if tc.setup != nil {
				tc.setup(e, pr.Number)
			}
			e.s.AddBranch(owner, repo, "feature", fake.SHA("pushed after the judgement"))
			err := tc.call(e, pr.Number, forge.Merge{Method: forge.MethodMerge, HeadSHA: pr.HeadSHA})
			if diff := cmp.Diff(forge.ErrHeadMoved, kind(err), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\n%s: -want, +got:\n%s", tc.reason, name, diff)
			}
			p, _ := e.s.Pull(pr.Number)
			if p.Merged || p.AutoMerge != "" {
				t.Errorf("%s\nthe moved head was merged (%t) or set to auto-merge (%q)", tc.reason, p.Merged, p.AutoMerge)
			}
		})
	}
}

// TestMergeKeepsAForksNamesake: merging with DeleteBranch deletes the head
// branch only where it lives in this repository; a fork's pull request
// leaves this repository's branch of the same name alone.
func TestMergeKeepsAForksNamesake(t *testing.T) {
	e := newEnv(t)
	n := e.s.OpenFromFork(owner, repo, "stranger", "feature", fake.SHA("theirs"), "main", "Fork")
	if err := e.c.Merge(context.Background(), n, forge.Merge{Method: forge.MethodMerge, DeleteBranch: true, HeadSHA: fake.SHA("theirs")}); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.s.Branch(owner, repo, "feature"); !ok {
		t.Errorf("merging a fork's pull request deleted this repository's branch of the same name")
	}
}
