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

package watch

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/internal/git"
)

func TestIndexFollowing(t *testing.T) {
	type follow struct {
		r        Ref
		repo     string
		branches []string
	}
	type args struct {
		follow []follow
		forget []Ref
		repo   string
		branch string
	}
	pr := func(n string) follow { return follow{ref("PullRequest", n), "r1", []string{"request/" + n, "main"}} }
	cases := map[string]struct {
		reason string
		args   args
		want   []Ref
	}{
		"Head": {
			reason: "A move of a head branch wakes the resource following it.",
			args:   args{follow: []follow{pr("a"), pr("b")}, repo: "r1", branch: "request/a"},
			want:   []Ref{ref("PullRequest", "a")},
		},
		"Base": {
			reason: "A move of a base branch wakes every resource following it.",
			args:   args{follow: []follow{pr("a"), pr("b")}, repo: "r1", branch: "main"},
			want:   []Ref{ref("PullRequest", "a"), ref("PullRequest", "b")},
		},
		"OtherRepository": {
			reason: "The same branch of another repository wakes nothing.",
			args:   args{follow: []follow{pr("a")}, repo: "r2", branch: "main"},
		},
		"FollowedAgain": {
			reason: "Following other branches forgets the old ones.",
			args:   args{follow: []follow{pr("a"), {ref("PullRequest", "a"), "r1", []string{"request/a2", "main"}}}, repo: "r1", branch: "request/a"},
		},
		"Forgotten": {
			reason: "A forgotten resource follows nothing.",
			args:   args{follow: []follow{pr("a")}, forget: []Ref{ref("PullRequest", "a")}, repo: "r1", branch: "main"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := NewIndex()
			for _, f := range tc.args.follow {
				x.TrackHeads(f.r, f.repo, f.branches)
			}
			for _, r := range tc.args.forget {
				x.Forget(r)
			}
			less := func(a, b Ref) bool { return a.Name < b.Name }
			if diff := cmp.Diff(tc.want, x.Following(tc.args.repo, tc.args.branch), cmpopts.SortSlices(less), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nFollowing(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestIndexFollowingKeepsRepository: a resource that only follows heads
// keeps its repository polled (a push by someone else reaches it through
// the poll's fetch), and Tracks says so, until it is forgotten.
func TestIndexFollowingKeepsRepository(t *testing.T) {
	x := NewIndex()
	r := ref("PullRequest", "a")
	x.TrackHeads(r, "r1", []string{"request/a", "main"})
	if !x.Tracks(r) {
		t.Errorf("Tracks of a resource following heads = false, want true")
	}
	if diff := cmp.Diff(map[string]struct{}{"r1": {}}, x.Repos()); diff != "" {
		t.Errorf("Repos while it follows heads: -want, +got:\n%s", diff)
	}
	x.Forget(r)
	if x.Tracks(r) || len(x.Repos()) != 0 {
		t.Errorf("after Forget: Tracks %t, Repos %v; want false, none", x.Tracks(r), x.Repos())
	}
}

type idOnly string

func (r idOnly) ID() string                               { return string(r) }
func (r idOnly) Poll(context.Context) ([]git.Move, error) { return nil, nil }

// TestWatcherHeadMoved: a head move the clone cache tells enqueues the
// resources following that branch in their kind's controller, and no one
// else.
func TestWatcherHeadMoved(t *testing.T) {
	w := New(0, logging.NewNopLogger())
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	if err := w.Source("PullRequest").Start(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	a, b := ref("PullRequest", "a"), ref("PullRequest", "b")
	w.TrackHeads(idOnly("r1"), a, "request/a", "main")
	w.TrackHeads(idOnly("r1"), b, "request/b", "main")
	w.HeadMoved(git.HeadMove{Repo: "r1", Branch: "request/a", Old: "1", New: "2"})
	if got := q.Len(); got != 1 {
		t.Fatalf("queue holds %d requests after request/a moved, want 1", got)
	}
	got, _ := q.Get()
	if diff := cmp.Diff(reconcile.Request{NamespacedName: a.NamespacedName}, got); diff != "" {
		t.Errorf("woken: -want, +got:\n%s", diff)
	}
	q.Done(got)
	w.HeadMoved(git.HeadMove{Repo: "r2", Branch: "main", New: "3"})
	if got := q.Len(); got != 0 {
		t.Errorf("queue holds %d requests after another repository's main moved, want 0", got)
	}
}
