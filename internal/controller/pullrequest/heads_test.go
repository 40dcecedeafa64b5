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

package pullrequest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/memory"
)

// fakeFollower records what a PullRequest follows.
type fakeFollower struct{ follows map[watch.Ref][]string }

func (f *fakeFollower) TrackHeads(_ watch.Repository, r watch.Ref, branches ...string) {
	f.follows[r] = branches
}
func (f *fakeFollower) Forget(r watch.Ref) { delete(f.follows, r) }

// TestObserveFollowsBranches: a PullRequest whose head branch moved in the
// clone reads its pull request again, once per commit, so its head commit
// follows the branch before the shared list's next poll; a clone that
// agrees with the list, or a head already confirmed, costs no request.
func TestObserveFollowsBranches(t *testing.T) {
	// step is one reconcile: the clone's heads and the forge's head then.
	type step struct {
		clone map[string]string
		forge string
	}
	type want struct {
		HeadSHA []string
		Calls   map[string]int
	}
	cases := map[string]struct {
		reason string
		steps  []step
		want   want
	}{
		"Unchanged": {
			reason: "A clone that agrees with the list costs nothing but the one list.",
			steps: []step{
				{clone: map[string]string{"request/demo": "abc", "main": "m1"}, forge: "abc"},
				{clone: map[string]string{"request/demo": "abc", "main": "m1"}, forge: "abc"},
			},
			want: want{HeadSHA: []string{"abc", "abc"}, Calls: map[string]int{"ListOpen": 1}},
		},
		"HeadMoved": {
			reason: "A push to the head (the list, taken before it, still says the old commit) reads the pull request once; the list holds the new head from then on.",
			steps: []step{
				{clone: map[string]string{"request/demo": "abc", "main": "m1"}, forge: "abc"},
				{clone: map[string]string{"request/demo": "def", "main": "m1"}, forge: "def"},
				{clone: map[string]string{"request/demo": "def", "main": "m1"}, forge: "def"},
			},
			want: want{HeadSHA: []string{"abc", "def", "def"}, Calls: map[string]int{"ListOpen": 1, "Get": 1}},
		},
		"BaseMoved": {
			reason: "A move of the base alone reads nothing of a PullRequest that does not wait to merge: the list's next poll says its mergeability.",
			steps: []step{
				{clone: map[string]string{"request/demo": "abc", "main": "m1"}, forge: "abc"},
				{clone: map[string]string{"request/demo": "abc", "main": "m2"}, forge: "abc"},
			},
			want: want{HeadSHA: []string{"abc", "abc"}, Calls: map[string]int{"ListOpen": 1}},
		},
		"CloneBehind": {
			reason: "A clone behind the forge (someone pushed, not fetched yet) costs one Get, not one per reconcile.",
			steps: []step{
				{clone: map[string]string{"request/demo": "old", "main": "m1"}, forge: "abc"},
				{clone: map[string]string{"request/demo": "old", "main": "m1"}, forge: "abc"},
			},
			want: want{HeadSHA: []string{"abc", "abc"}, Calls: map[string]int{"ListOpen": 1, "Get": 1}},
		},
		"HeadNotFetched": {
			reason: "A clone that does not hold the head yet leaves the list as it is.",
			steps: []step{
				{clone: map[string]string{"main": "m1"}, forge: "abc"},
			},
			want: want{HeadSHA: []string{"abc"}, Calls: map[string]int{"ListOpen": 1}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := memory.New(open(1))
			e := newExternal(f, clocktesting.NewFakeClock(t0))
			follows := &fakeFollower{follows: map[watch.Ref][]string{}}
			e.watch = follows
			repo := fakeRepo{heads: map[string]string{}}
			e.repo = repo
			got := want{}
			for _, s := range tc.steps {
				clear(repo.heads)
				for b, h := range s.clone {
					repo.heads[b] = h
				}
				f.Edit(1, func(p *forge.PullRequest) { p.HeadSHA = s.forge })
				mg := pullRequest(numbered("1"))
				if _, err := e.Observe(context.Background(), mg); err != nil {
					t.Fatal(err)
				}
				got.HeadSHA = append(got.HeadSHA, mg.Status.AtProvider.HeadSHA)
			}
			got.Calls = f.Calls()
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nObserve(...) per step: -want, +got:\n%s", tc.reason, diff)
			}
			mg := pullRequest()
			if diff := cmp.Diff(map[watch.Ref][]string{refOf(mg): {"request/demo", "main"}}, follows.follows); diff != "" {
				t.Errorf("%s\nfollowed branches: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestObserveUnfollowsFinal: a merged pull request follows its branches no
// more.
func TestObserveUnfollowsFinal(t *testing.T) {
	f := memory.New(open(1))
	e := newExternal(f, clocktesting.NewFakeClock(t0))
	follows := &fakeFollower{follows: map[watch.Ref][]string{}}
	e.watch = follows
	mg := pullRequest(numbered("1"))
	if _, err := e.Observe(context.Background(), mg); err != nil {
		t.Fatal(err)
	}
	if len(follows.follows) != 1 {
		t.Fatalf("an open pull request follows %v, want its branches", follows.follows)
	}
	mg.Status.AtProvider.State = "Merged"
	if _, err := e.Observe(context.Background(), mg); err != nil {
		t.Fatal(err)
	}
	if len(follows.follows) != 0 {
		t.Errorf("a merged pull request follows %v, want nothing", follows.follows)
	}
}
