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

// TestPutBackRoundClosesWhenQuiet steps the cache's clock through rounds
// of a one-second window. A round of put-backs only (drift found by a poll
// or a forge event, nothing of anyone's spec) closes a quarter window
// after the last of them arrived, never later than the window; a change
// of a spec in the round gives it the whole window, as before.
func TestPutBackRoundClosesWhenQuiet(t *testing.T) {
	type arrival struct {
		at      time.Duration // after the first change
		name    string
		putBack bool
	}
	cases := map[string]struct {
		reason   string
		arrivals []arrival
		// closes is when the one commit carrying every change is pushed.
		closes time.Duration
	}{
		"OnePutBack": {
			reason:   "A put-back alone waits a quarter window for others, not the whole window.",
			arrivals: []arrival{{0, "a", true}},
			closes:   250 * time.Millisecond,
		},
		"PutBacksTogether": {
			reason:   "Put-backs woken by one poll arrive close together: each that joins keeps the round open a quarter window more, and they share one commit.",
			arrivals: []arrival{{0, "a", true}, {200 * time.Millisecond, "b", true}, {300 * time.Millisecond, "c", true}},
			closes:   550 * time.Millisecond,
		},
		"NeverPastTheWindow": {
			reason:   "Put-backs that keep arriving never hold the round past its window.",
			arrivals: []arrival{{0, "a", true}, {200 * time.Millisecond, "b", true}, {400 * time.Millisecond, "c", true}, {600 * time.Millisecond, "d", true}, {800 * time.Millisecond, "e", true}},
			closes:   time.Second,
		},
		"SpecChangeKeepsTheWindow": {
			reason:   "A change of a spec in the round is what the window batches: the round waits the whole window.",
			arrivals: []arrival{{0, "a", true}, {100 * time.Millisecond, "spec", false}},
			closes:   time.Second,
		},
		"SpecChangeFirst": {
			reason:   "A put-back joining a round opened by a change of a spec does not close it early.",
			arrivals: []arrival{{0, "spec", false}, {100 * time.Millisecond, "a", true}},
			closes:   time.Second,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := httpServer(t)
			clk := newFakeClock()
			r, _ := newRepo(t, s.remote, WithCommitWindow(time.Second), WithClock(clk))
			before := len(s.repo.Log(t, "main"))
			pushed := func() int { return len(s.repo.Log(t, "main")) - before }
			done := make(chan Result, len(tc.arrivals))
			start := clk.Now()
			for _, a := range tc.arrivals {
				clk.SetTime(start.Add(a.at))
				c := windowed(a.name, nil)
				c.PutBack = a.putBack
				r.Enqueue("main", "File/ns/"+a.name, c, func(res Result) { done <- res })
				waitArmed(t, clk)
			}
			clk.SetTime(start.Add(tc.closes - time.Millisecond))
			waitArmed(t, clk)
			if got := pushed(); got != 0 {
				t.Fatalf("%s\n%d commits pushed at %s, want none before %s", tc.reason, got, tc.closes-time.Millisecond, tc.closes)
			}
			clk.SetTime(start.Add(tc.closes))
			// A bound on a hung writer, not a speed target: a round that
			// does not close at tc.closes fails here, not at the test's
			// whole deadline.
			landed := time.NewTimer(30 * time.Second)
			defer landed.Stop()
			var commits []string
			for range tc.arrivals {
				select {
				case res := <-done:
					if res.Err != nil {
						t.Fatal(res.Err)
					}
					commits = append(commits, res.Commit)
				case <-landed.C:
					t.Fatalf("%s\nnot every change landed at %s", tc.reason, tc.closes)
				}
			}
			if diff := cmp.Diff(1, pushed()); diff != "" {
				t.Errorf("%s\ncommits pushed at %s: -want, +got:\n%s", tc.reason, tc.closes, diff)
			}
			for _, c := range commits[1:] {
				if c != commits[0] {
					t.Errorf("%s\nthe changes landed in more than one commit: %v", tc.reason, commits)
				}
			}
		})
	}
}
