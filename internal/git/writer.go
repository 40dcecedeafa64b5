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
	"errors"
	"fmt"
	"sync"
	"time"
)

const (
	errSubmitCtx    = "gave up waiting for the branch writer; the change may still land"
	errCacheClosing = "git cache is closing"
)

// File is the desired content of a path.
type File struct {
	Content    []byte
	Executable bool
}

// Change is what one resource wants on a branch.
type Change struct {
	// Puts maps a slash-separated path to its desired content.
	Puts map[string]File
	// Deletes lists paths that must not exist.
	Deletes []string
	// Expect is what the change was computed against: a path's blob SHA
	// (BlobSHA), or "" for a path that did not exist. The change lands only
	// on a tree where every such path still holds it, or already holds what
	// Puts writes there. The writer checks it on the tree each commit is
	// built on, so again after every rebase onto a newer head; a change
	// that no longer holds fails alone with a *PreconditionError
	// (expect.go) and the rest of its batch lands.
	Expect map[string]string
	// Message of the commit; merged commits summarise it in one line.
	Message string
	// Author of the change; empty means the committer.
	Author Signature
	// Committer of the change's commit; empty means the cache's committer,
	// or the author when commits are signed (writer.identities). Set it
	// with an Author who is not the configuration's identity (a person
	// whose change a Mirror records), so the commit is committed, and
	// signed, by that identity.
	Committer Signature
	// Resource behind the change, written as trailers.
	Resource Resource
	// OwnCommit keeps the change in a commit of its own with its own
	// message (a CommitRequest), still pushed with the rest of the batch.
	OwnCommit bool
	// Window is the longest the change may wait for others to join its
	// commit: its configuration's commit window. nil takes the repository's
	// (window.go).
	Window *time.Duration
	// PutBack marks a change that puts back what its resource already
	// held in Git after someone else changed it (drift a poll or a forge
	// event found), not a change of the resource's spec. A round that
	// holds put-backs only closes once none joined for a quarter of its
	// window, rather than at the window's end (window.go).
	PutBack bool
	// Parts, when set, make the change a sequence of commits, one per part
	// in order, each with its own message, author and resource trailers,
	// still pushed with the rest of the window's batch (parts.go). Puts,
	// Deletes and Expect must then be empty; Message, Author and Resource
	// are the defaults of a part that leaves its own empty. The parts land
	// together or not at all.
	Parts []Part
}

// Result is the outcome of one Change, branch creation or deletion.
type Result struct {
	// Commit carrying the change (for UpToDate: the branch head that already
	// satisfied it; for a created branch: its head).
	Commit string
	// UpToDate is set when nothing had to be committed or pushed.
	UpToDate bool
	// Err is nil on success; see KindOf and IsTerminal.
	Err error
}

type opKind int

const (
	opChange opKind = iota
	opCreate
	opDelete
)

type op struct {
	kind   opKind
	change *Change
	from   string
	// author of an opCreate's first commit in an empty repository.
	author Signature
	// done receives the result of a waiting caller (Submit and friends);
	// an enqueued change has key and callback instead (async.go).
	done     chan Result
	key      string
	callback func(Result)
	w        *writer
	// at is when the op was queued, or last replaced by a newer change
	// under its key (startLocked): a round of put-backs closes by it.
	at time.Time
}

func (o *op) finish(r Result) {
	if o.callback != nil {
		o.w.finished(o, r)
		return
	}
	o.done <- r
}

// writer is the single writer of one branch: it turns the changes queued
// during a commit window into commits and one push (batch.go), and replays
// them on the new head when someone else pushed first (retry.go). It also
// creates and deletes its branch (branch.go), so no two pushes to one branch
// from this process ever race each other.
type writer struct {
	repo   *Repository
	branch string

	mu      sync.Mutex
	pending []*op
	running bool
	// kick tells a waiting window that a change with a window of its own
	// arrived, which may close it sooner (window.go).
	kick chan struct{}
	// queued and inflight index the enqueued changes (async.go) by key: the
	// one waiting in pending (a newer one replaces it, so there is at most
	// one) and the one in the batch being committed and pushed, so a change
	// queued again while its push is under way is not committed twice. An
	// index, not a scan of pending: every Enqueue and every Observe's
	// "is mine queued?" asks, and a burst queues thousands.
	queued   map[string]*op
	inflight map[string]*op
}

// Submit queues c for branch and waits for its result. Changes submitted
// within the commit window go out in one push.
func (r *Repository) Submit(ctx context.Context, branch string, c Change) Result {
	return r.writerFor(branch).do(ctx, &op{kind: opChange, change: &c, done: make(chan Result, 1)})
}

// CreateBranch creates branch at from (a branch name or a commit SHA). An
// existing branch is left alone and reported UpToDate.
func (r *Repository) CreateBranch(ctx context.Context, branch, from string) Result {
	return r.CreateBranchAs(ctx, branch, from, Signature{})
}

// CreateBranchAs is CreateBranch with the author of the first commit it
// makes in an empty repository (empty: the cache's committer). That commit
// is signed, and then committed as author too, as every commit is, so a
// forge shows it verified.
func (r *Repository) CreateBranchAs(ctx context.Context, branch, from string, author Signature) Result {
	return r.writerFor(branch).do(ctx, &op{kind: opCreate, from: from, author: author, done: make(chan Result, 1)})
}

// DeleteBranch deletes branch; a missing branch is reported UpToDate.
func (r *Repository) DeleteBranch(ctx context.Context, branch string) Result {
	return r.writerFor(branch).do(ctx, &op{kind: opDelete, done: make(chan Result, 1)})
}

func (r *Repository) writerFor(branch string) *writer {
	r.track(branch)
	r.wmu.Lock()
	defer r.wmu.Unlock()
	w, ok := r.writers[branch]
	if !ok {
		w = &writer{repo: r, branch: branch, kick: make(chan struct{}, 1), queued: map[string]*op{}, inflight: map[string]*op{}}
		r.writers[branch] = w
	}
	return w
}

// startLocked starts the writer's goroutine unless it runs, else tells the
// round under way that o arrived (o may name a smaller window). Call it with
// w.mu held, after queueing o.
func (w *writer) startLocked(o *op) {
	o.at = w.repo.cache.opts.Clock.Now()
	if !w.running {
		// The goroutine lives while there is work, so an idle branch costs
		// nothing and nothing leaks. It holds the clone while it runs.
		w.running = true
		w.repo.hold()
		w.repo.cache.work.start(w.run)
	} else if _, ok := windowOf(o); ok {
		select {
		case w.kick <- struct{}{}:
		default: // a kick is already pending
		}
	}
}

func (w *writer) do(ctx context.Context, o *op) Result {
	if err := w.repo.begin(); err != nil {
		return Result{Err: err}
	}
	defer w.repo.end()
	w.mu.Lock()
	w.pending = append(w.pending, o)
	w.startLocked(o)
	w.mu.Unlock()
	select {
	case res := <-o.done:
		return res
	case <-ctx.Done():
		w.mu.Lock()
		for i, p := range w.pending {
			if p == o {
				w.pending = append(w.pending[:i:i], w.pending[i+1:]...)
				break
			}
		}
		w.mu.Unlock()
		return Result{Err: &Error{Kind: KindTransient, Err: fmt.Errorf("%s: %w", errSubmitCtx, ctx.Err())}}
	}
}

func (w *writer) run() {
	defer w.repo.end()
	opts := w.repo.cache.opts
	// Each round collects for a whole window after the previous one was
	// taken (the first, after the first change queued), so changes that
	// trickle in steadily make one push per window, not one per push
	// duration: a burst costs about its duration / the window in pushes.
	// The round's window is the smallest among the changes it holds
	// (window.go), re-evaluated when one with its own window arrives.
	opened := opts.Clock.Now()
	for {
		w.waitWindow(opened)
		w.mu.Lock()
		n := min(len(w.pending), opts.MaxBatch)
		batch := append([]*op(nil), w.pending[:n]...)
		w.pending = append([]*op(nil), w.pending[n:]...)
		if n == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		clear(w.inflight)
		for _, o := range batch {
			if o.callback != nil {
				delete(w.queued, o.key)
				w.inflight[o.key] = o
			}
		}
		w.mu.Unlock()
		opened = opts.Clock.Now()
		w.process(batch)
	}
}

// process runs one batch in queue order: a branch creation or deletion on
// its own, each run of changes as one commit plan and one push.
func (w *writer) process(batch []*op) {
	ctx := w.repo.cache.ctx
	if ctx.Err() != nil {
		for _, o := range batch {
			o.finish(Result{Err: &Error{Kind: KindTransient, Err: errors.New(errCacheClosing)}})
		}
		return
	}
	for len(batch) > 0 {
		switch batch[0].kind {
		case opCreate:
			batch[0].finish(w.createBranch(ctx, batch[0].from, batch[0].author))
			batch = batch[1:]
		case opDelete:
			batch[0].finish(w.deleteBranch(ctx))
			batch = batch[1:]
		default:
			n := 1
			for n < len(batch) && batch[n].kind == opChange {
				n++
			}
			w.applyChanges(ctx, batch[:n])
			batch = batch[n:]
		}
	}
}
