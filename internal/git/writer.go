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
	"bytes"
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

const (
	errGaveUp       = "branch kept moving under us: gave up"
	errBuild        = "cannot build commit"
	errSubmitCtx    = "gave up waiting for the branch writer; the change may still land"
	errUnknownFrom  = "cannot resolve the ref to create the branch from"
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
	// Message of the commit; merged commits summarise it in one line.
	Message string
	// Author of the change; empty means the cache's committer.
	Author Signature
	// Resource behind the change, written as trailers.
	Resource Resource
	// OwnCommit keeps the change in a commit of its own with its own
	// message (a CommitRequest), still pushed with the rest of the batch.
	OwnCommit bool
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
	done   chan Result
}

func (o *op) finish(r Result) { o.done <- r }

// writer is the single writer of one branch: it turns the changes queued
// during a commit window into commits and one push, and replays them on the
// new head when someone else pushed first.
type writer struct {
	repo   *Repository
	branch string

	mu      sync.Mutex
	pending []*op
	running bool
}

// Submit queues c for branch and waits for its result. Changes submitted
// within the commit window go out in one push.
func (r *Repository) Submit(ctx context.Context, branch string, c Change) Result {
	return r.writerFor(branch).do(ctx, &op{kind: opChange, change: &c, done: make(chan Result, 1)})
}

// CreateBranch creates branch at from (a branch name or a commit SHA). An
// existing branch is left alone and reported UpToDate.
func (r *Repository) CreateBranch(ctx context.Context, branch, from string) Result {
	return r.writerFor(branch).do(ctx, &op{kind: opCreate, from: from, done: make(chan Result, 1)})
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
		w = &writer{repo: r, branch: branch}
		r.writers[branch] = w
	}
	return w
}

func (w *writer) do(ctx context.Context, o *op) Result {
	w.mu.Lock()
	w.pending = append(w.pending, o)
	if !w.running {
		// The goroutine lives while there is work, so an idle branch costs
		// nothing and nothing leaks.
		w.running = true
		go w.run()
	}
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
		return Result{Err: &Error{Kind: KindTransient, Err: errors.Wrap(ctx.Err(), errSubmitCtx)}}
	}
}

func (w *writer) run() {
	opts := w.repo.cache.opts
	t := time.NewTimer(w.repo.commitWindow())
	select {
	case <-t.C:
	case <-w.repo.cache.ctx.Done():
		t.Stop()
	}
	for {
		w.mu.Lock()
		n := min(len(w.pending), opts.MaxBatch)
		batch := append([]*op(nil), w.pending[:n]...)
		w.pending = append([]*op(nil), w.pending[n:]...)
		if n == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		// Changes that queue while we push have waited long enough: the
		// next round starts right away and takes them all.
		w.process(batch)
	}
}

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
			batch[0].finish(w.createBranch(ctx, batch[0].from))
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

// backoff sleeps before retry attempt n (n ≥ 2): exponential, full jitter,
// so writers that lost the same race do not collide again in lockstep.
func (w *writer) backoff(ctx context.Context, n int) error {
	base := w.repo.cache.opts.RetryBackoff << min(n-2, 6)
	d := time.Duration(rand.Int64N(int64(base) + 1)) //nolint:gosec // jitter, not crypto
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// plan is the outcome of applying a batch on one head.
type plan struct {
	head    plumbing.Hash
	objects []plumbing.Hash
	pack    []byte
	results []Result
	commits int
}

func (w *writer) applyChanges(ctx context.Context, ops []*op) {
	r := w.repo
	opts := r.cache.opts
	fail := func(err error) {
		for _, o := range ops {
			o.finish(Result{Err: err})
		}
	}
	for attempt := 1; attempt <= opts.MaxPushAttempts; attempt++ {
		if attempt > 1 {
			r.cache.opts.Metrics.retried(r.conn.host)
			if err := w.backoff(ctx, attempt); err != nil {
				fail(&Error{Kind: KindTransient, Err: err})
				return
			}
		}
		head, err := r.head(w.branch)
		if attempt > 1 || KindOf(err) == KindBranchNotFound {
			// The branch moved (or was never fetched): build on what the
			// server holds now.
			if err := r.fetchNow(ctx, w.branch); err != nil {
				fail(err)
				return
			}
			head, err = r.head(w.branch)
		}
		if err != nil {
			fail(err)
			return
		}
		p, err := w.build(head, ops)
		if err != nil {
			fail(errors.Wrap(err, errBuild))
			return
		}
		if p.head != head {
			pctx, cancel := context.WithTimeout(ctx, opts.PushTimeout)
			err = r.push(pctx, w.branch, head, p.head, p.pack)
			cancel()
			var moved *errMoved
			if errors.As(err, &moved) {
				continue
			}
			if err != nil {
				// A change that was invalid on its own keeps its own error.
				var rest []*op
				for i, o := range ops {
					if p.results[i].Err != nil {
						o.finish(p.results[i])
						continue
					}
					rest = append(rest, o)
				}
				if KindOf(err) == KindRejected && len(rest) > 1 {
					// The server refused the push as a whole (a hook, a push
					// rule, fsck), perhaps for one change in it: push each
					// alone, so the others land and only the culprit
					// carries the refusal.
					for _, o := range rest {
						w.applyChanges(ctx, []*op{o})
					}
					return
				}
				for _, o := range rest {
					o.finish(Result{Err: err})
				}
				return
			}
			if err := r.pushed(w.branch, p.head, p.pack); err != nil {
				// The push landed; only our copy is behind. The next
				// fetch repairs it.
				fail(err)
				return
			}
			opts.Metrics.batch(r.conn.host, len(ops))
		}
		for i, o := range ops {
			res := p.results[i]
			if res.UpToDate && res.Commit == "" {
				res.Commit = p.head.String()
			}
			o.finish(res)
		}
		return
	}
	fail(&Error{Kind: KindTransient, Err: errors.Errorf("%s after %d attempts", errGaveUp, opts.MaxPushAttempts)})
}

// pushed stores the pack we pushed (the batch's objects reach the disk only
// once they landed, as one file) and moves the local ref. It records the
// time so a fetch that read the advertisement before our push cannot move
// the local ref back.
func (r *Repository) pushed(branch string, h plumbing.Hash, pack []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(pack) > emptyPackSize {
		if err := packfile.UpdateObjectStorage(r.st, bytes.NewReader(pack)); err != nil {
			return errors.Wrap(err, errStorePack)
		}
	}
	if !h.IsZero() && !r.hasLocked(h) {
		// A branch created at a commit this clone never downloaded: a local
		// ref at a missing object would break every read and fetch. The next
		// fetch of the branch brings both.
		return nil
	}
	r.pushedAt[branch] = time.Now()
	var err error
	if h.IsZero() {
		err = r.st.RemoveReference(branchRef(branch))
	} else {
		err = r.st.SetReference(plumbing.NewHashReference(branchRef(branch), h))
	}
	if err != nil {
		return errors.Wrap(err, errSetRef)
	}
	return r.compactLocked()
}

// build applies ops in order on head: runs of plain changes become one
// commit, each OwnCommit change its own. A change already satisfied is
// reported UpToDate; an invalid one fails alone.
func (w *writer) build(head plumbing.Hash, ops []*op) (*plan, error) {
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	st := newOverlay(r.st)
	base, err := object.GetCommit(st, head)
	if err != nil {
		return nil, err
	}
	p := &plan{head: head, results: make([]Result, len(ops))}
	t := newTree(base.TreeHash)
	parentTree := base.TreeHash
	var group []int
	// satisfied are changes already met by the group not yet committed: the
	// commit that carries them is the one that group becomes.
	var satisfied []int

	flush := func(idx []int) error {
		defer func() { satisfied = nil }()
		if len(idx) == 0 {
			return nil
		}
		th, err := t.write(st, &p.objects)
		if err != nil {
			return err
		}
		if th == parentTree {
			for _, i := range append(idx, satisfied...) {
				p.results[i].UpToDate = true
				p.results[i].Commit = p.head.String()
			}
			return nil
		}
		changes := make([]*Change, len(idx))
		for k, i := range idx {
			changes[k] = ops[i].change
		}
		ch, err := storeObject(st, w.commit(changes, th, p.head))
		if err != nil {
			return err
		}
		p.objects = append(p.objects, ch)
		p.head, parentTree = ch, th
		p.commits++
		for _, i := range append(idx, satisfied...) {
			p.results[i].Commit = ch.String()
		}
		return nil
	}

	for i, o := range ops {
		c := o.change
		if c.OwnCommit {
			// Before the check, so an own-commit change already met is
			// credited to a commit that holds exactly what came before it.
			if err := flush(group); err != nil {
				return nil, err
			}
			group = nil
		}
		puts, dels, err := check(st, t, c)
		if err != nil {
			p.results[i].Err = err
			continue
		}
		if len(puts) == 0 && len(dels) == 0 {
			p.results[i].UpToDate = true
			if len(group) == 0 {
				p.results[i].Commit = p.head.String()
			} else {
				satisfied = append(satisfied, i)
			}
			continue
		}
		for _, pu := range puts {
			h, err := storeBlob(st, pu.content)
			if err != nil {
				return nil, err
			}
			p.objects = append(p.objects, h)
			if err := t.put(st, pu.parts, pu.mode, h); err != nil {
				return nil, err
			}
		}
		for _, parts := range dels {
			if err := t.remove(st, parts); err != nil {
				return nil, err
			}
		}
		group = append(group, i)
		if c.OwnCommit {
			if err := flush(group); err != nil {
				return nil, err
			}
			group = nil
		}
	}
	if err := flush(group); err != nil {
		return nil, err
	}
	if p.head != head {
		var buf bytes.Buffer
		// Window 0: no delta search, so the pack suits any server (no
		// ofs-delta negotiation) and costs no CPU; small files compress
		// well enough on their own.
		if _, err := packfile.NewEncoder(&buf, st, false).Encode(p.objects, 0); err != nil {
			return nil, errors.Wrap(err, errEncodePack)
		}
		p.pack = buf.Bytes()
	}
	return p, nil
}

type put struct {
	parts   []string
	mode    filemode.FileMode
	content []byte
}

// check validates c against t and returns only what differs: the puts whose
// content or mode differ and the deletes of paths that exist. Both empty
// means c is already satisfied.
func check(st storer.EncodedObjectStorer, t *tree, c *Change) ([]put, [][]string, error) {
	var puts []put
	var dels [][]string
	for p, f := range c.Puts {
		parts, err := splitPath(p)
		if err != nil {
			return nil, nil, err
		}
		e, err := t.lookup(st, parts)
		if err != nil {
			return nil, nil, err
		}
		mode := filemode.Regular
		if f.Executable {
			mode = filemode.Executable
		}
		if e != nil && e.mode == filemode.Dir {
			return nil, nil, &Error{Kind: KindInvalid, Err: errors.Errorf("%s: %s", errFileIsDir, p)}
		}
		if e != nil && e.mode == mode && e.hash == plumbing.ComputeHash(plumbing.BlobObject, f.Content) {
			continue
		}
		puts = append(puts, put{parts: parts, mode: mode, content: f.Content})
	}
	for _, p := range c.Deletes {
		parts, err := splitPath(p)
		if err != nil {
			return nil, nil, err
		}
		e, err := t.lookup(st, parts)
		if err != nil {
			return nil, nil, err
		}
		if e == nil {
			continue
		}
		if e.mode == filemode.Dir {
			return nil, nil, &Error{Kind: KindInvalid, Err: errors.Errorf("%s: %s", errFileIsDir, p)}
		}
		dels = append(dels, parts)
	}
	return puts, dels, nil
}

func (w *writer) commit(changes []*Change, tree, parent plumbing.Hash) *object.Commit {
	opts := w.repo.cache.opts
	author := changes[0].Author
	for _, c := range changes[1:] {
		if c.Author != author {
			author = Signature{}
			break
		}
	}
	if author == (Signature{}) {
		author = opts.Committer
	}
	now := time.Now()
	return &object.Commit{
		Author:       object.Signature{Name: author.Name, Email: author.Email, When: now},
		Committer:    object.Signature{Name: opts.Committer.Name, Email: opts.Committer.Email, When: now},
		Message:      commitMessage(changes),
		TreeHash:     tree,
		ParentHashes: []plumbing.Hash{parent},
	}
}

// createBranch creates the branch at from unless it exists; a race with
// another creator ends with the branch existing, which is all we wanted.
func (w *writer) createBranch(ctx context.Context, from string) Result {
	r := w.repo
	var target plumbing.Hash
	if plumbing.IsHash(from) {
		target = plumbing.NewHash(from)
	} else {
		if err := r.Refresh(ctx, 0, w.branch, from); err != nil {
			return Result{Err: err}
		}
		h, err := r.head(from)
		if err != nil {
			return Result{Err: errors.Wrap(err, errUnknownFrom)}
		}
		target = h
	}
	for attempt := 1; attempt <= r.cache.opts.MaxPushAttempts; attempt++ {
		if err := r.fetchNow(ctx, w.branch); err != nil {
			return Result{Err: err}
		}
		cur, err := r.head(w.branch)
		if err == nil {
			return Result{Commit: cur.String(), UpToDate: true}
		}
		if KindOf(err) != KindBranchNotFound {
			return Result{Err: err}
		}
		pctx, cancel := context.WithTimeout(ctx, r.cache.opts.PushTimeout)
		err = r.push(pctx, w.branch, plumbing.ZeroHash, target, emptyPack())
		cancel()
		var moved *errMoved
		if errors.As(err, &moved) {
			continue
		}
		if err != nil {
			return Result{Err: err}
		}
		if err := r.pushed(w.branch, target, nil); err != nil {
			return Result{Err: err}
		}
		return Result{Commit: target.String()}
	}
	return Result{Err: &Error{Kind: KindTransient, Err: errors.New(errGaveUp)}}
}

// deleteBranch deletes the branch wherever it points now; it never deletes
// a head it has not seen (the push carries the old value).
func (w *writer) deleteBranch(ctx context.Context) Result {
	r := w.repo
	for attempt := 1; attempt <= r.cache.opts.MaxPushAttempts; attempt++ {
		if attempt > 1 {
			if err := w.backoff(ctx, attempt); err != nil {
				return Result{Err: &Error{Kind: KindTransient, Err: err}}
			}
		}
		if err := r.fetchNow(ctx, w.branch); err != nil {
			return Result{Err: err}
		}
		cur, err := r.head(w.branch)
		if KindOf(err) == KindBranchNotFound {
			return Result{UpToDate: true}
		}
		if err != nil {
			return Result{Err: err}
		}
		pctx, cancel := context.WithTimeout(ctx, r.cache.opts.PushTimeout)
		err = r.push(pctx, w.branch, cur, plumbing.ZeroHash, nil)
		cancel()
		var moved *errMoved
		if errors.As(err, &moved) {
			continue
		}
		if err != nil {
			return Result{Err: err}
		}
		if err := r.pushed(w.branch, plumbing.ZeroHash, nil); err != nil {
			return Result{Err: err}
		}
		return Result{}
	}
	return Result{Err: &Error{Kind: KindTransient, Err: errors.New(errGaveUp)}}
}
