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

// TestNudge: an event through a configuration's hook polls its clone now
// instead of at the next tick (an hour away here), a burst of events that
// arrives during a poll costs one poll more, not one each, and no other
// clone is polled: not another repository's, and not another clone of the
// same repository (other credentials, another configuration's).
func TestNudge(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := New(time.Hour, logging.NewNopLogger())
	go func() { _ = w.Start(ctx) }()
	a1, a2, b := newGated("a1", "git.example.org/org/a"), newGated("a2", "git.example.org/org/a"), newGated("b", "git.example.org/org/b")
	for _, g := range []*gated{a1, a2, b} {
		w.Track(g, ref("File", g.id), "main", "app.yaml")
	}
	if !w.Nudge("a1") {
		t.Fatal("Nudge of a1 nudged nothing")
	}
	startedOnce(t, a1)
	// A burst while a1's poll runs: one poll follows it, not ten.
	for range 10 {
		w.Nudge("a1")
	}
	close(a1.release)
	startedOnce(t, a1)
	// One more nudge after that poll started: a third poll. Had the burst
	// caused more than one, the count would be past three.
	w.Nudge("a1")
	startedOnce(t, a1)
	if diff := cmp.Diff(int32(3), a1.polls.Load()); diff != "" {
		t.Errorf("polls of a1 after a nudge, a burst of ten during its poll and one more nudge: -want, +got:\n%s", diff)
	}
	if got := []int32{a2.polls.Load(), b.polls.Load()}; !cmp.Equal(got, []int32{0, 0}) {
		t.Errorf("a2 (org/a, other credentials) and b (org/b) were polled %v times by events for a1, want none", got)
	}
	if w.Nudge("unused") {
		t.Error("Nudge of a clone nobody uses nudged it")
	}
}

// TestWakeFollowing: a pull-request event through a configuration's hook
// wakes the resources that follow its head or base in that clone, once
// each, and no one in another clone; an event that names no branch (a
// check's state) wakes every one that follows a head there.
func TestWakeFollowing(t *testing.T) {
	w := New(0, logging.NewNopLogger())
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	if err := w.Source("PullRequest").Start(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	a, b, c, d := ref("PullRequest", "a"), ref("PullRequest", "b"), ref("PullRequest", "c"), ref("PullRequest", "d")
	w.TrackHeads(newGated("r1", "git.example.org/org/a"), a, "request/a", "main")
	w.TrackHeads(newGated("r1", "git.example.org/org/a"), b, "request/b", "main")
	w.TrackHeads(newGated("r1", "git.example.org/org/a"), d, "request/d", "release")
	w.TrackHeads(newGated("r2", "git.example.org/org/a"), c, "request/a", "main")
	if got := w.WakeFollowing("r1", []string{"request/a", "main"}); got != 2 {
		t.Errorf("WakeFollowing woke %d, want 2 (a and b follow main in r1; c is in the clone r2)", got)
	}
	if got := q.Len(); got != 2 {
		t.Errorf("queue holds %d requests, want 2", got)
	}
	if got := w.WakeFollowing("r1", nil); got != 3 {
		t.Errorf("WakeFollowing of no branch woke %d, want 3 (a, b and d follow heads in r1)", got)
	}
}
