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

package file

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
)

// TestPutBackFight: a File put back less than its commit window ago that
// drifts again is in a fight (two owners of its path, or a tool
// re-rendering it), and its change takes the whole window; a lone drift,
// or one a window after the last put-back landed, is a put-back.
func TestPutBackFight(t *testing.T) {
	const window = time.Second
	// update is an earlier Update of a File, after after on the clock.
	type update struct {
		after  time.Duration
		uid    types.UID
		edited bool // its spec was edited (conditions of an older generation)
		result git.Result
	}
	type args struct {
		earlier []update
		// drift comes this long after the last earlier update landed.
		drift time.Duration
	}
	type want struct {
		putBack []bool // of each earlier update, then of the drift
	}
	pushed := git.Result{Commit: landed}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Lone": {
			reason: "A File never put back that drifts is a put-back.",
			args:   args{drift: time.Hour},
			want:   want{putBack: []bool{true}},
		},
		"WithinTheWindow": {
			reason: "Drifting again half a window after its put-back landed is a fight: the whole window.",
			args:   args{earlier: []update{{uid: "uid-1", result: pushed}}, drift: window / 2},
			want:   want{putBack: []bool{true, false}},
		},
		"JustInsideTheWindow": {
			reason: "A nanosecond short of a window after the landing is still within it.",
			args:   args{earlier: []update{{uid: "uid-1", result: pushed}}, drift: window - 1},
			want:   want{putBack: []bool{true, false}},
		},
		"AWindowLater": {
			reason: "A window after the put-back landed the File is left alone again: a put-back.",
			args:   args{earlier: []update{{uid: "uid-1", result: pushed}}, drift: window},
			want:   want{putBack: []bool{true, true}},
		},
		"FightGoesOn": {
			reason: "A fight's own round (a whole window) is remembered too: the next drift within a window is still a fight.",
			args: args{earlier: []update{{uid: "uid-1", result: pushed}, {after: window / 2, uid: "uid-1", result: pushed}},
				drift: window / 2},
			want: want{putBack: []bool{true, false, false}},
		},
		"FightEnds": {
			reason: "Once a window passes after the fight's last round landed, the next drift is a put-back again.",
			args: args{earlier: []update{{uid: "uid-1", result: pushed}, {after: window / 2, uid: "uid-1", result: pushed}},
				drift: 2 * window},
			want: want{putBack: []bool{true, false, true}},
		},
		"PutBackFailed": {
			reason: "A put-back whose push failed landed nothing: nobody answered it, so the next drift is a put-back.",
			args:   args{earlier: []update{{uid: "uid-1", result: git.Result{Err: errBoom}}}, drift: window / 2},
			want:   want{putBack: []bool{true, true}},
		},
		"AlreadyThere": {
			reason: "A put-back the branch already held (someone restored it first) pushed nothing of ours.",
			args:   args{earlier: []update{{uid: "uid-1", result: git.Result{Commit: head, UpToDate: true}}}, drift: window / 2},
			want:   want{putBack: []bool{true, true}},
		},
		"AfterAnEdit": {
			reason: "A spec edit that landed is no put-back: drift right after it is a put-back, not a fight.",
			args:   args{earlier: []update{{uid: "uid-1", edited: true, result: pushed}}, drift: window / 2},
			want:   want{putBack: []bool{false, true}},
		},
		"AnotherFile": {
			reason: "Another File's put-back says nothing about this one.",
			args:   args{earlier: []update{{uid: "uid-2", result: pushed}}, drift: window / 2},
			want:   want{putBack: []bool{true, true}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(time.Unix(1_700_000_000, 0))
			var got []bool
			var result git.Result
			repo := &fakeRepository{t: t, SubmitFn: func(_ string, c git.Change) git.Result {
				got = append(got, c.PutBack)
				return result
			}}
			w := window
			e := &external{repo: repo, watch: nopTracker{}, author: author, window: &w, maxAge: maxAge, fights: newFights(clk)}
			run := func(u update) {
				gen := int64(3)
				if u.edited {
					gen = 4
				}
				mg := fileOn("x", "a", converged(gen, 3), func(f *v1alpha1.File) { f.SetUID(u.uid) })
				result = u.result
				if _, err := e.Update(context.Background(), mg); err == nil {
					t.Fatalf("%s\nUpdate(...): nil error, want Waiting", tc.reason)
				}
			}
			for _, u := range tc.args.earlier {
				clk.SetTime(clk.Now().Add(u.after))
				run(u)
			}
			clk.SetTime(clk.Now().Add(tc.args.drift))
			run(update{uid: "uid-1", result: pushed})
			if diff := cmp.Diff(tc.want, want{putBack: got}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nUpdate(...): PutBack of each change: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestFightsForget: landings older than their window are forgotten, in
// sweeps made when the map doubled rather than at every landing (a burst of
// N put-backs costs O(N)): what is held stays within twice the Files that
// landed within a window.
func TestFightsForget(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1_700_000_000, 0))
	f := newFights(clk)
	const burst, window = 1000, time.Second
	for round := range 3 {
		for i := range burst {
			f.land(types.UID(fmt.Sprintf("r%d-%d", round, i)), window)
		}
		clk.SetTime(clk.Now().Add(2 * window))
	}
	f.land("last", window)
	if got := len(f.landed); got > 2*burst {
		t.Errorf("after three bursts of %d landings a window apart, %d are held, want at most %d", burst, got, 2*burst)
	}
	if !f.fighting("last") || f.fighting("r0-0") {
		t.Errorf("fighting(last) = %t, fighting(r0-0) = %t: want true, false", f.fighting("last"), f.fighting("r0-0"))
	}
}
