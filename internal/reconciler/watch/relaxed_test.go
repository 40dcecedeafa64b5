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
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestRelaxedPoll: a repository whose forge events arrive is polled at the
// relaxed interval, another repository at the regular one, and when the
// events stop the regular polls come back by themselves.
func TestRelaxedPoll(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fc := clocktesting.NewFakeClock(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC))
	w := New(time.Minute, logging.NewNopLogger(), WithClock(fc), WithRelaxedPoll(10*time.Minute))
	ticks := make(chan bool, 1)
	w.onTick = func(_ string, polled bool) { ticks <- polled }
	a := newGated("a", "git.example.org/org/a")
	close(a.release)
	w.Track(a, ref("File", "a"), "main", "app.yaml")
	go func() { _ = w.Start(ctx) }()
	waitFor(t, func() bool { return fc.HasWaiters() })

	// tick steps the clock by d and says whether the tick it caused polled.
	tick := func(d time.Duration) bool {
		fc.Step(d)
		select {
		case polled := <-ticks:
			if polled {
				startedOnce(t, a)
			}
			return polled
		case <-time.After(time.Minute):
			t.Fatal("no tick")
			return false
		}
	}
	got := []bool{tick(time.Minute)}
	w.Heard("a")
	intervals := []time.Duration{w.PollInterval("a"), w.PollInterval("b")}
	// Nine ticks after the event, polled with it: all within the relaxed
	// interval.
	for range 9 {
		got = append(got, tick(time.Minute))
	}
	// Events stopped ten minutes ago: every tick polls again.
	got = append(got, tick(time.Minute), tick(time.Minute))
	want := []bool{true, false, false, false, false, false, false, false, false, false, true, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ticks that polled, one a minute, an event after the first: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{10 * time.Minute, time.Minute}, intervals); diff != "" {
		t.Errorf("PollInterval of the clone heard of and of another: -want, +got:\n%s", diff)
	}
	if got := w.PollInterval("a"); got != time.Minute {
		t.Errorf("PollInterval ten minutes after the last event: %s, want the regular 1m0s", got)
	}
}

// TestRelaxedPollOff: without a relaxed interval longer than the regular
// one, an event relaxes nothing.
func TestRelaxedPollOff(t *testing.T) {
	for name, relaxed := range map[string]time.Duration{"Zero": 0, "Shorter": 30 * time.Second} {
		t.Run(name, func(t *testing.T) {
			w := New(time.Minute, logging.NewNopLogger(), WithRelaxedPoll(relaxed))
			w.Heard("a")
			if got := w.PollInterval("a"); got != time.Minute {
				t.Errorf("PollInterval: %s, want 1m0s", got)
			}
		})
	}
}

// waitFor waits until cond holds, a minute at most.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within a minute")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestEventPolled: the poll an event asked for is measured from the event
// to the poll's end; a poll of the clock's own is not.
func TestEventPolled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fc := clocktesting.NewFakeClock(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC))
	w := New(time.Minute, logging.NewNopLogger(), WithClock(fc))
	got := make(chan time.Duration, 4)
	w.OnEventPolled(func(d time.Duration) { got <- d })
	a := newGated("a", "git.example.org/org/a")
	w.Track(a, ref("File", "a"), "main", "app.yaml")
	go func() { _ = w.Start(ctx) }()
	waitFor(t, func() bool { return fc.HasWaiters() })
	w.Nudge("a")
	startedOnce(t, a)
	fc.Step(2 * time.Second) // The fetch takes two seconds.
	a.release <- struct{}{}
	if d := <-got; d != 2*time.Second {
		t.Errorf("event to poll: %s, want 2s", d)
	}
	fc.Step(time.Minute) // A tick: polled, not measured.
	startedOnce(t, a)
	a.release <- struct{}{}
	fc.Step(NudgeSpacing) // So the next nudge polls at once.
	w.Nudge("a")
	startedOnce(t, a)
	a.release <- struct{}{}
	if d := <-got; d != 0 {
		t.Errorf("event to poll, none of the clock's between: %s, want 0s (the tick's poll was not measured)", d)
	}
}
