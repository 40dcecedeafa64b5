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
	"context"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"
)

const testIdle = 10 * time.Minute

// newFakeClock is a clock tests move by hand (Step), at a fixed start.
func newFakeClock() *testingclock.FakeClock { return testingclock.NewFakeClock(time.Unix(1e9, 0)) }

func exists(t *testing.T, dir string) bool {
	t.Helper()
	_, err := os.Stat(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

func TestIdleEviction(t *testing.T) {
	s := httpServer(t)
	type want struct {
		evicted bool
	}
	cases := map[string]struct {
		reason string
		// use runs on a clone just refreshed at the clock's start, and
		// returns what the test undoes after the sweep.
		use  func(t *testing.T, r *Repository, clk *testingclock.FakeClock) (undo func())
		want want
	}{
		"Idle": {
			reason: "A clone nothing used for the idle timeout is closed and its directory removed.",
			use: func(_ *testing.T, _ *Repository, clk *testingclock.FakeClock) func() {
				clk.Step(testIdle)
				return func() {}
			},
			want: want{evicted: true},
		},
		"RecentlyRead": {
			reason: "A read within the idle timeout keeps the clone.",
			use: func(t *testing.T, r *Repository, clk *testingclock.FakeClock) func() {
				clk.Step(testIdle - time.Minute)
				if _, err := r.Head("main"); err != nil {
					t.Fatal(err)
				}
				clk.Step(testIdle - time.Minute)
				return func() {}
			},
		},
		"OperationInFlight": {
			reason: "A clone an operation (a fetch, a read) still uses is never evicted, however long it takes.",
			use: func(_ *testing.T, r *Repository, clk *testingclock.FakeClock) func() {
				r.hold()
				clk.Step(2 * testIdle)
				return r.end
			},
		},
		"QueuedWrite": {
			reason: "A clone with a write queued in its branch writer is never evicted.",
			use: func(t *testing.T, r *Repository, clk *testingclock.FakeClock) func() {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan Result, 1)
				go func() {
					done <- r.Submit(ctx, "main", Change{Puts: map[string]File{"q": {Content: []byte("q")}}, Message: "q"})
				}()
				waitQueued(t, r.writerFor("main"), 1)
				clk.Step(2 * testIdle)
				return func() { cancel(); <-done }
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := newFakeClock()
			// A commit window far beyond the test keeps a queued write queued.
			c, err := NewCache(t.TempDir(), WithIdleTimeout(testIdle), WithCommitWindow(time.Hour), WithClock(clk))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			r, err := c.Repository(s.remote)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			undo := tc.use(t, r, clk)
			c.Sweep()
			undo()
			if diff := cmp.Diff(tc.want.evicted, !exists(t, r.dir)); diff != "" {
				t.Errorf("%s\nclone directory removed: -want, +got:\n%s", tc.reason, diff)
			}
			again, err := c.Repository(s.remote)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want.evicted, again != r); diff != "" {
				t.Errorf("%s\nthe cache hands out a new clone: -want, +got:\n%s", tc.reason, diff)
			}
			if !tc.want.evicted {
				return
			}
			if _, err := r.Head("main"); KindOf(err) != KindTransient || err == nil {
				t.Errorf("%s\nan evicted clone still held: want a transient error, got %v", tc.reason, err)
			}
			// The new clone works from scratch in the same place.
			if err := again.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			if _, err := again.ReadFile(ctx(t), s.repo.Head(t, "main"), "README.md"); err != nil {
				t.Errorf("%s\nread from the reopened clone: %v", tc.reason, err)
			}
		})
	}
}

// TestIdleEvictionAfterRotation: a rotated credential is a new identity, so
// a new clone; the old one turns idle and goes, the new one stays.
func TestIdleEvictionAfterRotation(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	clk := newFakeClock()
	c, err := NewCache(t.TempDir(), WithIdleTimeout(testIdle), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	old, err := c.Repository(s.remote)
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	clk.Step(testIdle / 2)
	rotated := Remote{URL: s.remote.URL, Auth: &BasicAuth{Username: testUser, Password: testToken + "-rotated"}}
	cur, err := c.Repository(rotated)
	if err != nil {
		t.Fatal(err)
	}
	clk.Step(testIdle / 2)
	if got := c.Sweep(); got != 1 {
		t.Errorf("Sweep after rotation: want 1 clone removed, got %d", got)
	}
	if exists(t, old.dir) {
		t.Error("the old credentials' clone is still on disk an idle timeout after the rotation")
	}
	if !exists(t, cur.dir) {
		t.Error("the rotated credentials' clone, used within the idle timeout, was removed")
	}
}

// TestStaleClonesOfEarlierProcess: a clone directory an earlier process
// left (its credentials rotated while the provider was down) is removed
// once nothing opened it for an idle timeout; one opened again stays.
func TestStaleClonesOfEarlierProcess(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	dir := t.TempDir()
	first, err := NewCache(dir, WithIdleTimeout(0))
	if err != nil {
		t.Fatal(err)
	}
	stale, err := first.Repository(Remote{URL: s.remote.URL, Auth: &BasicAuth{Username: testUser, Password: "old"}})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := first.Repository(s.remote)
	if err != nil {
		t.Fatal(err)
	}
	first.Close()

	clk := newFakeClock()
	c, err := NewCache(dir, WithIdleTimeout(testIdle), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if got := c.Sweep(); got != 0 || !exists(t, stale.dir) {
		t.Fatalf("a sweep right after start removed %d clones: an earlier process's clone may still be opened", got)
	}
	r, err := c.Repository(s.remote)
	if err != nil {
		t.Fatal(err)
	}
	clk.Step(testIdle - time.Second)
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Second)
	c.Sweep()
	if exists(t, stale.dir) {
		t.Error("a clone nothing opened for an idle timeout after start is still on disk")
	}
	if !exists(t, kept.dir) {
		t.Error("a clone opened again after the restart was removed")
	}
}
