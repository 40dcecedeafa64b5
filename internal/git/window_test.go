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
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"
)

func windowed(name string, d *time.Duration) Change {
	return Change{Puts: map[string]File{"w/" + name: {Content: []byte(name)}}, Message: name, Window: d,
		Resource: Resource{Kind: "File", Namespace: "ns", Name: name}}
}

// waitArmed waits until the writer waits for its window on clk: a timer is
// set. Only then may a test step the clock, or the writer would read the
// time after the step and open its round late.
func waitArmed(t *testing.T, clk *testingclock.FakeClock) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !clk.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("the branch writer never waited for its commit window")
		}
		time.Sleep(time.Millisecond) // polling interval of a wait on a condition
	}
}

// TestCommitWindowIsExact steps the cache's clock through windows of one
// second: a change at t=0 and one at t=0.9s make one push at t=1s and not a
// moment before; a change at t=1.1s joins the round that opened when the
// first batch was taken (t=1s) and makes a second push at t=2s.
func TestCommitWindowIsExact(t *testing.T) {
	s := httpServer(t)
	clk := newFakeClock()
	r, _ := newRepo(t, s.remote, WithCommitWindow(time.Second), WithClock(clk))
	before := len(s.repo.Log(t, "main"))
	pushed := func() int { return len(s.repo.Log(t, "main")) - before }
	results := map[string]chan Result{}
	enqueue := func(name string) {
		results[name] = make(chan Result, 1)
		r.Enqueue("main", "File/ns/"+name, windowed(name, nil), func(res Result) { results[name] <- res })
	}
	result := func(name string) Result {
		t.Helper()
		select {
		case res := <-results[name]:
			if res.Err != nil {
				t.Fatalf("change %s: %v", name, res.Err)
			}
			return res
		case <-ctx(t).Done():
			t.Fatalf("change %s never landed", name)
			return Result{}
		}
	}
	// still asserts that the window is still open at the clock's time: the
	// writer's timer has not fired, so nothing was taken, nothing pushed.
	still := func(want int) {
		t.Helper()
		if !clk.HasWaiters() {
			t.Fatalf("at %s the window closed early", clk.Since(time.Unix(1e9, 0)))
		}
		if got := pushed(); got != want {
			t.Fatalf("at %s %d commits pushed, want %d", clk.Since(time.Unix(1e9, 0)), got, want)
		}
	}

	enqueue("a") // t=0
	waitArmed(t, clk)
	clk.Step(900 * time.Millisecond)
	enqueue("b") // t=0.9s
	still(0)
	clk.Step(99 * time.Millisecond) // t=0.999s
	still(0)
	clk.Step(time.Millisecond) // t=1s
	a, b := result("a"), result("b")
	if diff := cmp.Diff(a.Commit, b.Commit); diff != "" {
		t.Errorf("changes at t=0 and t=0.9s land in one commit: -a, +b:\n%s", diff)
	}
	if diff := cmp.Diff(1, pushed()); diff != "" {
		t.Errorf("commits pushed at t=1s: -want, +got:\n%s", diff)
	}

	waitArmed(t, clk) // the round that opened at t=1s
	clk.Step(100 * time.Millisecond)
	enqueue("c")                     // t=1.1s
	clk.Step(899 * time.Millisecond) // t=1.999s
	still(1)
	clk.Step(time.Millisecond) // t=2s
	c := result("c")
	if c.Commit == a.Commit {
		t.Errorf("the change at t=1.1s landed in the first push")
	}
	if diff := cmp.Diff(2, pushed()); diff != "" {
		t.Errorf("commits pushed at t=2s: -want, +got:\n%s", diff)
	}
}

// TestChangeKeepsItsConfigurationsWindow: two configurations share a clone
// (same URL and credentials), each with its own window; neither's is lost.
// The cache's clock is a fake one that moves only when the test steps it.
func TestChangeKeepsItsConfigurationsWindow(t *testing.T) {
	s := httpServer(t)
	long, zero, second := time.Hour, time.Duration(0), time.Second

	t.Run("LongerThanTheClonesIsKept", func(t *testing.T) {
		clk := newFakeClock()
		r, _ := newRepo(t, s.remote, WithClock(clk)) // cache default: testWindow (200ms)
		done := make(chan Result, 1)
		go func() { done <- r.Submit(ctx(t), "main", windowed("one-second", &second)) }()
		waitArmed(t, clk)
		clk.Step(second - time.Millisecond)
		select {
		case res := <-done:
			t.Fatalf("a change whose configuration's window is %s landed after %s: its window was not kept (%+v)",
				second, second-time.Millisecond, res)
		default:
		}
		if !clk.HasWaiters() {
			t.Fatalf("the window of a change whose configuration's window is %s closed before %s", second, second)
		}
		clk.Step(time.Millisecond)
		if res := <-done; res.Err != nil {
			t.Fatal(res.Err)
		}
	})

	t.Run("SmallestWindowClosesTheBatch", func(t *testing.T) {
		// One configuration waits an hour, the other not at all: the second
		// change closes the window for both, so neither waits beyond what
		// its configuration allows, and they share one commit. The clock
		// never moves: only the change with no window closes it.
		r, _ := newRepo(t, s.remote, WithClock(newFakeClock()))
		before := len(s.repo.Log(t, "main"))
		results := make([]Result, 2)
		done := make(chan struct{})
		go func() { results[0] = r.Submit(ctx(t), "main", windowed("hour", &long)); close(done) }()
		waitQueued(t, r.writerFor("main"), 1)
		results[1] = r.Submit(ctx(t), "main", windowed("now", &zero))
		<-done
		for i, res := range results {
			if res.Err != nil {
				t.Fatalf("change %d: %v", i, res.Err)
			}
		}
		if diff := cmp.Diff(results[0].Commit, results[1].Commit); diff != "" {
			t.Errorf("both changes land in one commit: -first, +second:\n%s", diff)
		}
		if diff := cmp.Diff(before+1, len(s.repo.Log(t, "main"))); diff != "" {
			t.Errorf("commits added: -want, +got:\n%s", diff)
		}
	})

	t.Run("LastConfigurationDoesNotWin", func(t *testing.T) {
		// What used to happen: the configuration that connected last set
		// the clone's window for everyone. Each change now carries its own:
		// they land while the clock stands still.
		r, _ := newRepo(t, s.remote, WithClock(newFakeClock()))
		r.SetCommitWindow(long) // a clone default that must not apply
		for i, d := range []*time.Duration{&zero, &zero} {
			res := r.Submit(ctx(t), "main", windowed(fmt.Sprint("own-", i), d))
			if res.Err != nil {
				t.Fatalf("change %d: %v", i, res.Err)
			}
		}
	})
}
