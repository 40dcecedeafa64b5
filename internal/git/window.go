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

import "time"

// Commit windows. Two configurations with the same URL and credentials
// share one clone and so one writer per branch (two writers of one branch in
// one process would only reject each other's pushes), but each keeps its own
// commit window: every Change carries the window of the configuration it
// came through. A window is the longest a configuration accepts for its
// change to wait for others, so the writer's window closes at the smallest
// window among the changes it holds: nobody's change waits longer than its
// configuration allows, and a change with a longer window merely leaves with
// an earlier batch. A change that names no window (a branch creation or
// deletion, or an engine caller that never set one) takes the repository's
// (SetCommitWindow), else the cache's.

// windowOf is how long o may wait for others, and whether it says.
func windowOf(o *op) (time.Duration, bool) {
	if o.change == nil || o.change.Window == nil {
		return 0, false
	}
	return max(*o.change.Window, 0), true
}

// windowLocked is the window of what w holds: the smallest any queued change
// names, else the repository's. Call it with w.mu held.
func (w *writer) windowLocked() time.Duration {
	d, set := time.Duration(0), false
	for _, o := range w.pending {
		if od, ok := windowOf(o); ok && (!set || od < d) {
			d, set = od, true
		}
	}
	if !set {
		return w.repo.commitWindow()
	}
	return d
}

// putBackQuiet divides a round's window into how long a round of
// put-backs stays open after the last one arrived. A poll, or a forge
// event's, wakes at once every resource whose path it found changed, and
// their reconciles run side by side, each 0.05 s to 0.2 s from the wake
// to its change queued (measured on the shared two-core machine at load
// averages 3 to 28): a quarter of the default second, counted again at
// each arrival, keeps in one commit what one push of someone else's
// brought, and puts a lone one back in a quarter of the time. A change of
// a spec keeps the whole window: those are what a Composition writes many
// of at once, and they trickle in at the reconcile rate. So does a File
// put back less than a window ago that drifts again (a fight over its
// path): the File controller does not mark it PutBack.
const putBackQuiet = 4

// closesLocked is when the round that opened at opened closes: its window
// after opened or, when it holds put-backs only (Change.PutBack), a
// quarter window after the last of them arrived, if that is sooner. Call
// it with w.mu held.
func (w *writer) closesLocked(opened time.Time) time.Time {
	d := w.windowLocked()
	at := opened.Add(d)
	var last time.Time
	for _, o := range w.pending {
		if o.change == nil || !o.change.PutBack {
			return at
		}
		if o.at.After(last) {
			last = o.at
		}
	}
	if q := last.Add(d / putBackQuiet); len(w.pending) > 0 && q.Before(at) {
		return q
	}
	return at
}

// waitWindow waits, from opened (when the round opened: the previous batch
// was taken, or the first change queued), until the window of what w holds
// closes, shortening the wait when a change with a smaller window arrives
// (startLocked kicks w, for Submit and Enqueue alike), or until the cache
// closes. Time is the cache's clock (Options.Clock), so tests step it.
func (w *writer) waitWindow(opened time.Time) {
	clk := w.repo.cache.opts.Clock
	for {
		w.mu.Lock()
		left := w.closesLocked(opened).Sub(clk.Now())
		w.mu.Unlock()
		if left <= 0 {
			return
		}
		t := clk.NewTimer(left)
		select {
		case <-t.C():
			// Closed, unless a put-back that arrived since keeps the
			// round open: asked again above.
		case <-w.kick:
			t.Stop()
		case <-w.repo.cache.ctx.Done():
			t.Stop()
			return
		}
	}
}
