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

package git

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Enqueue'd writes meet the bounded cache and the per-configuration commit
// windows: they hold the clone until their result is delivered, and each
// keeps its configuration's window in the writer's rounds.

func usersOf(r *Repository) int {
	r.lmu.Lock()
	defer r.lmu.Unlock()
	return r.users
}

func waitStopped(t *testing.T, w *writer) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		running := w.running
		w.mu.Unlock()
		if !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the branch writer still runs")
		}
		time.Sleep(time.Millisecond) // polling interval
	}
}

// TestEnqueueHoldsTheClone: a queued change counts as a use of the clone
// until its done is called; a dropped or merged duplicate holds nothing, so
// nothing is left held once every result is delivered.
func TestEnqueueHoldsTheClone(t *testing.T) {
	s := httpServer(t)
	// The window stays open while the test queues and counts.
	r, _ := newRepo(t, s.remote, WithCommitWindow(2*time.Second))
	done := make(chan Result, 4)
	cb := func(res Result) { done <- res }

	r.Enqueue("main", "File/ns/h", putChange("h", "1"), cb)
	r.Enqueue("main", "File/ns/h", putChange("h", "1"), cb) // same content: dropped
	r.Enqueue("main", "File/ns/i", putChange("i", "1"), cb)
	r.Enqueue("main", "File/ns/i", putChange("i", "2"), cb) // replaces the queued one
	// The writer's goroutine and the two queued changes.
	if diff := cmp.Diff(3, usersOf(r)); diff != "" {
		t.Errorf("users of the clone while two changes are queued: -want, +got:\n%s", diff)
	}
	for range 2 {
		if res := <-done; res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	waitStopped(t, r.writerFor("main"))
	if diff := cmp.Diff(0, usersOf(r)); diff != "" {
		t.Errorf("users of the clone once every result is delivered: -want, +got:\n%s", diff)
	}
	select {
	case extra := <-done:
		t.Errorf("unexpected callback %+v", extra)
	default:
	}
}

// TestEnqueueOnEvictedClone: a clone evicted while a resource still held it
// refuses the change, transiently, and says so through done.
func TestEnqueueOnEvictedClone(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	clk := newFakeClock()
	r, c := newRepo(t, s.remote, WithIdleTimeout(testIdle), WithClock(clk))
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	clk.Step(testIdle)
	if c.Sweep() != 1 {
		t.Fatal("the idle clone was not evicted")
	}
	done := make(chan Result, 1)
	r.Enqueue("main", "File/ns/x", putChange("x", "1"), func(res Result) { done <- res })
	select {
	case res := <-done:
		if KindOf(res.Err) != KindTransient {
			t.Errorf("done got %+v, want a transient error", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("done was not called")
	}
	if c.Pending() != 0 {
		t.Errorf("Pending() = %d, want 0", c.Pending())
	}
}

// TestEnqueueKeepsItsWindow: the async rounds close at the smallest window
// among the changes they hold, as the blocking path's did.
func TestEnqueueKeepsItsWindow(t *testing.T) {
	s := httpServer(t)
	long, zero, second := time.Hour, time.Duration(0), time.Second

	t.Run("LongerThanTheClonesIsKept", func(t *testing.T) {
		r, _ := newRepo(t, s.remote) // cache default: testWindow (200ms)
		start := time.Now()
		done := make(chan Result, 1)
		r.Enqueue("main", "File/ns/one-second", windowed("one-second", &second), func(res Result) { done <- res })
		if res := <-done; res.Err != nil {
			t.Fatal(res.Err)
		}
		if took := time.Since(start); took < second {
			t.Errorf("a change whose configuration's window is %s landed after %s: its window was not kept", second, took)
		}
	})

	t.Run("SmallestWindowClosesTheRound", func(t *testing.T) {
		// The clone's own window and the first change's are an hour: the
		// second change, with none to wait, closes the round for both.
		r, _ := newRepo(t, s.remote)
		r.SetCommitWindow(long)
		before := len(s.repo.Log(t, "main"))
		done := make(chan Result, 2)
		cb := func(res Result) { done <- res }
		r.Enqueue("main", "File/ns/hour", windowed("hour", &long), cb)
		waitQueued(t, r.writerFor("main"), 1)
		r.Enqueue("main", "File/ns/now", windowed("now", &zero), cb)
		var commits []string
		for range 2 {
			select {
			case res := <-done:
				if res.Err != nil {
					t.Fatal(res.Err)
				}
				commits = append(commits, res.Commit)
			case <-time.After(time.Minute):
				t.Fatal("the round did not close at the smallest window")
			}
		}
		if diff := cmp.Diff(commits[0], commits[1]); diff != "" {
			t.Errorf("both changes land in one commit: -first, +second:\n%s", diff)
		}
		if diff := cmp.Diff(before+1, len(s.repo.Log(t, "main"))); diff != "" {
			t.Errorf("commits added: -want, +got:\n%s", diff)
		}
	})

	t.Run("WindowCountsFromTheRoundsStart", func(t *testing.T) {
		// A round opens when the previous batch was taken; a change that
		// arrives later waits only what is left of its window after that.
		r, _ := newRepo(t, s.remote)
		r.SetCommitWindow(long)
		done := make(chan Result, 2)
		cb := func(res Result) { done <- res }
		r.Enqueue("main", "File/ns/first", windowed("first", &zero), cb)
		if res := <-done; res.Err != nil {
			t.Fatal(res.Err)
		}
		r.Enqueue("main", "File/ns/second", windowed("second", &second), cb)
		select {
		case res := <-done:
			if res.Err != nil {
				t.Fatal(res.Err)
			}
		case <-time.After(time.Minute):
			t.Fatal("a change waited longer than its window")
		}
	})
}
