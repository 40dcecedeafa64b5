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
	"sync"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
)

// putsBack reports whether an update of mg puts back what it held in Git:
// it was Ready and Synced at its current generation, as read when its
// reconcile began, so its spec did not change since it last converged and
// what differs now is someone else's push (drift a poll or a forge event
// found). The branch writer then need not hold the change a whole commit
// window (git.Change.PutBack). An edited spec, a write that failed, or a
// File never converged is an ordinary change: a Composition edits many at
// once, and the window batches them.
func putsBack(mg *v1alpha1.File) bool {
	gen := mg.GetGeneration()
	for _, t := range []xpv2.ConditionType{xpv2.TypeReady, xpv2.TypeSynced} {
		c := mg.GetCondition(t)
		if c.Status != corev1.ConditionTrue || c.ObservedGeneration != gen {
			return false
		}
	}
	return true
}

// fights remembers when each File's last put-back landed, so that a File
// drifting again within a commit window of it is told from a lone edit:
// two owners of one path (another tool, another provider) answer each
// other's pushes, or a tool re-renders many Files over and over keeping
// their generations. Those changes are not one push's worth of drift a
// quarter window collects: each round of the fight then takes the whole
// window (git.Change.PutBack false), so what the others push meanwhile
// joins it, and a fight loop writes a commit a window, not four.
//
// mu guards landed; it is never held across the network. landed holds
// only Files put back within their last window: older entries are
// dropped at each landing.
type fights struct {
	clock  clock.PassiveClock
	mu     sync.Mutex
	landed map[types.UID]landing
	// swept is how many landings the last sweep kept (at least 8).
	swept int
}

// landing is when a put-back landed, and the window it is remembered for.
type landing struct {
	at     time.Time
	window time.Duration
}

// newFights tells time by c; nil: the real clock.
func newFights(c clock.PassiveClock) *fights {
	if c == nil {
		c = clock.RealClock{}
	}
	return &fights{clock: c, landed: map[types.UID]landing{}}
}

// fighting reports whether the File uid was put back less than its
// window ago. A nil fights remembers nothing.
func (f *fights) fighting(uid types.UID) bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.landed[uid]
	return ok && f.clock.Since(l.at) < l.window
}

// watch returns done, noting first when the put-back of the File uid
// landed: a commit of it pushed, not an error, and not a branch that
// already held it (then nobody was answered). Remembered for window.
func (f *fights) watch(uid types.UID, window *time.Duration, done func(git.Result)) func(git.Result) {
	if f == nil || window == nil || *window <= 0 {
		return done
	}
	return func(r git.Result) {
		if r.Err == nil && !r.UpToDate {
			f.land(uid, *window)
		}
		done(r)
	}
}

func (f *fights) land(uid types.UID, window time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	// Swept when the map doubled since the last sweep, not at every
	// landing: a burst of N put-backs then costs O(N), not O(N²), on the
	// writer's callback path, and holds at most twice the Files in a window.
	if len(f.landed) >= 2*f.swept {
		for k, l := range f.landed {
			if now.Sub(l.at) >= l.window {
				delete(f.landed, k)
			}
		}
		f.swept = max(len(f.landed), 8)
	}
	f.landed[uid] = landing{at: now, window: window}
}
