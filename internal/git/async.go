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
	"maps"
	"slices"
)

// Writes that do not wait. A resource's reconcile hands its change to the
// branch writer with Enqueue and ends; the writer calls back when the push
// carrying the change landed or failed, and keeps the result under the
// change's key until TakeResult collects it. How many changes one push
// carries is then bounded by the commit window, not by how many reconciles
// may wait at once.

// Enqueue hands c to branch's writer under key (one per resource, e.g.
// "File/ns/name") and returns at once. done is called exactly once, from the
// writer's goroutine, when the push carrying c landed or failed (also when
// the cache closes), after the result is kept for TakeResult. It must not
// block.
//
// Nothing is committed twice: when a change with the same key and the same
// content is already queued or being pushed, c is dropped and the one under
// way calls its own done. A queued change with the same key and other
// content, not yet taken into a push, is replaced by c: only c's done is
// called then.
//
// A queued change holds the clone until its done is called, so the clone is
// not evicted under it (evict.go). Enqueue on a clone already evicted calls
// done, in a goroutine of its own, with a transient error: the resource's
// next reconcile gets a fresh clone from the cache.
func (r *Repository) Enqueue(branch, key string, c Change, done func(Result)) {
	if err := r.begin(); err != nil {
		go done(Result{Err: err})
		return
	}
	if !r.enqueue(branch, key, c, done) {
		// Dropped or merged into a change already queued, which holds the
		// clone for itself.
		r.end()
	}
}

// enqueue queues c unless a change under key is already queued or in
// flight, and reports whether it added an op (which then owns the caller's
// begin, ended in finished).
func (r *Repository) enqueue(branch, key string, c Change, done func(Result)) bool {
	w := r.writerFor(branch)
	o := &op{kind: opChange, change: &c, key: key, callback: done, w: w}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.heldLocked(o) {
		return false
	}
	if p, ok := w.queued[key]; ok {
		p.change, p.callback = o.change, o.callback
		w.startLocked(p) // its window may be smaller
		return false
	}
	r.cache.pending.Add(1)
	w.pending = append(w.pending, o)
	w.queued[key] = o
	w.startLocked(o)
	return true
}

// Queued reports whether a change with key and c's content is queued on
// branch or being pushed: its done is still to come.
func (r *Repository) Queued(branch, key string, c Change) bool {
	r.wmu.Lock()
	w, ok := r.writers[branch]
	r.wmu.Unlock()
	if !ok {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.heldLocked(&op{change: &c, key: key})
}

// InFlight reports whether a change enqueued under key on branch has been
// taken into a batch and its result is not in yet: it is being committed
// and pushed. The branch head does not show it until then, so a caller that
// computes a whole change against the head (a Mirror's folder) waits for
// it: a change computed without it could undo what it records. A change
// still queued is not in flight: a newer change replaces it.
func (r *Repository) InFlight(branch, key string) bool {
	r.wmu.Lock()
	w, ok := r.writers[branch]
	r.wmu.Unlock()
	if !ok {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok = w.inflight[key]
	return ok
}

// TakeResult returns, and forgets, the result of the last enqueued change
// under key that finished and was not taken yet. A change that InFlight
// reported not in flight has its result kept already (finished): ask
// InFlight first.
func (r *Repository) TakeResult(key string) (Result, bool) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	res, ok := r.results[key]
	delete(r.results, key)
	return res, ok
}

// DropResult forgets a result kept under key in any repository of the
// cache. Call it when the resource key names is gone: a result nobody will
// take would stay for the life of the clone, and a later resource of the
// same name would take it as its own.
func (c *Cache) DropResult(key string) {
	c.mu.Lock()
	repos := slices.Collect(maps.Values(c.repos))
	c.mu.Unlock()
	for _, r := range repos {
		r.wmu.Lock()
		delete(r.results, key)
		r.wmu.Unlock()
	}
}

// Pending is the number of enqueued changes, over every repository of the
// cache, whose done has not been called yet.
func (c *Cache) Pending() int64 { return c.pending.Load() }

// heldLocked reports whether a change with o's key and content is queued
// or in flight. Call it with w.mu held.
func (w *writer) heldLocked(o *op) bool {
	for _, p := range []*op{w.inflight[o.key], w.queued[o.key]} {
		if p != nil && sameContent(p.change, o.change) {
			return true
		}
	}
	return false
}

// finished records the result of an enqueued change and calls its done.
// The result is kept before the change leaves the in-flight batch, so a
// caller that asks InFlight and then TakeResult never finds the change
// neither under way nor finished: it would compute its next step from a
// head that already shows the push, without the push's result (a Mirror
// then published Ready without the commit, and again with it: two status
// writes for one push). Both happen before done, so whoever done wakes
// finds the change finished.
func (w *writer) finished(o *op, res Result) {
	r := w.repo
	r.wmu.Lock()
	r.results[o.key] = res
	r.wmu.Unlock()
	w.mu.Lock()
	if w.inflight[o.key] == o {
		delete(w.inflight, o.key)
	}
	w.mu.Unlock()
	r.cache.pending.Add(-1)
	// Before done, as for a shared fetch: whoever done wakes sees the clone
	// as used until now.
	r.end()
	o.callback(res)
}

// sameContent reports whether a and b ask for the same tree change. The
// message is not compared: it names the action (create, update), not what
// is written.
func sameContent(a, b *Change) bool {
	return a.OwnCommit == b.OwnCommit && sameFiles(a.Puts, b.Puts, a.Deletes, b.Deletes) && sameParts(a.Parts, b.Parts)
}
