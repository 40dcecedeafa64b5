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
	"sync/atomic"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/internal/git"
)

// gated is a clone whose polls are counted and each held until the test
// lets it go, so a test knows which nudges arrived during a poll.
type gated struct {
	id, key string
	polls   atomic.Int32
	started chan struct{}
	release chan struct{}
}

func newGated(id, key string) *gated {
	return &gated{id: id, key: key, started: make(chan struct{}, 16), release: make(chan struct{})}
}

func (g *gated) ID() string  { return g.id }
func (g *gated) Key() string { return g.key }
func (g *gated) Poll(ctx context.Context) ([]git.Move, error) {
	g.polls.Add(1)
	g.started <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return nil, nil
}

// startedOnce waits for the next poll of g to start.
func startedOnce(t *testing.T, g *gated) {
	t.Helper()
	select {
	case <-g.started:
	case <-time.After(time.Minute):
		t.Fatalf("%s: no poll started", g.id)
	}
}

// TestNudge: an event for a repository polls each of its clones now
// instead of at the next tick (an hour away here), a burst of events that
// arrives during a poll costs one poll more, not one each, and another
// repository's clones are not polled.
func TestNudge(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := New(time.Hour, logging.NewNopLogger())
	go func() { _ = w.Start(ctx) }()
	a1, a2, b := newGated("a1", "git.example.org/org/a"), newGated("a2", "git.example.org/org/a"), newGated("b", "git.example.org/org/b")
	for _, g := range []*gated{a1, a2, b} {
		w.Track(g, ref("File", g.id), "main", "app.yaml")
	}
	if got := w.Nudge("git.example.org/org/a"); got != 2 {
		t.Fatalf("Nudge nudged %d clones of org/a, want 2", got)
	}
	startedOnce(t, a1)
	startedOnce(t, a2)
	close(a2.release)
	// A burst while a1's poll runs: one poll follows it, not ten.
	for range 10 {
		w.Nudge("git.example.org/org/a")
	}
	close(a1.release)
	startedOnce(t, a1)
	// One more nudge after that poll started: a third poll. Had the burst
	// caused more than one, the count would be past three.
	w.Nudge("git.example.org/org/a")
	startedOnce(t, a1)
	if diff := cmp.Diff(int32(3), a1.polls.Load()); diff != "" {
		t.Errorf("polls of a1 after a nudge, a burst of ten during its poll and one more nudge: -want, +got:\n%s", diff)
	}
	if got := b.polls.Load(); got != 0 {
		t.Errorf("org/b was polled %d times by events for org/a, want 0", got)
	}
	if got := w.Nudge("git.example.org/org/unused"); got != 0 {
		t.Errorf("Nudge of a repository nobody uses nudged %d clones, want 0", got)
	}
}

// TestWakeFollowing: a pull-request event for a repository wakes the
// resources that follow its head or base there, once each, and no one in
// another repository.
func TestWakeFollowing(t *testing.T) {
	w := New(0, logging.NewNopLogger())
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	if err := w.Source("PullRequest").Start(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	a, b, c := ref("PullRequest", "a"), ref("PullRequest", "b"), ref("PullRequest", "c")
	w.TrackHeads(newGated("r1", "git.example.org/org/a"), a, "request/a", "main")
	w.TrackHeads(newGated("r1", "git.example.org/org/a"), b, "request/b", "main")
	w.TrackHeads(newGated("r2", "git.example.org/org/b"), c, "request/a", "main")
	if got := w.WakeFollowing("git.example.org/org/a", []string{"request/a", "main"}); got != 2 {
		t.Errorf("WakeFollowing woke %d, want 2 (a and b follow main of org/a; c is in org/b)", got)
	}
	if got := q.Len(); got != 2 {
		t.Errorf("queue holds %d requests, want 2", got)
	}
}
