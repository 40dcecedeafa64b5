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
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

const errBuild = "cannot build commit"

// plan is the outcome of applying a batch on one head.
type plan struct {
	head    plumbing.Hash
	objects []plumbing.Hash
	pack    []byte
	results []Result
	// api is the plan as the repository's CommitAPI creates it; nil when
	// the batch is pushed (no API, or it does not suit: apiplan.go).
	api *apiPlan
}

// applyChanges lands a run of changes: one plan on the branch head, one
// push, a new plan on the new head whenever someone else pushed first.
func (w *writer) applyChanges(ctx context.Context, ops []*op) {
	r := w.repo
	var base plumbing.Hash
	var p *plan // of the latest attempt; nil until a plan was built
	var sent *refUpdate
	err := w.pushWithRetry(ctx, func(attempt int) (*refUpdate, error) {
		p, sent = nil, nil // a failure before the plan is every change's
		head, err := r.head(w.branch)
		if attempt > 1 || KindOf(err) == KindBranchNotFound {
			// The branch moved (or was never fetched): build on what the
			// server holds now.
			if err := r.fetchNow(ctx, w.branch); err != nil {
				return nil, err
			}
			head, err = r.head(w.branch)
		}
		if KindOf(err) == KindBranchNotFound && r.Empty() {
			// A repository with no branch at all: the batch becomes its
			// first commit. Where other branches exist a missing one stays
			// missing: which commit it starts from is a Branch's to say.
			head, err = plumbing.ZeroHash, nil
		}
		if err != nil {
			return nil, err
		}
		base = head
		if p, err = w.build(head, ops); err != nil {
			return nil, fmt.Errorf("%s: %w", errBuild, err)
		}
		if p.head == head {
			return nil, nil // every change is satisfied or invalid
		}
		sent = &refUpdate{oldHead: head, newHead: p.head, pack: p.pack, root: head.IsZero(), api: p.api}
		return sent, nil
	})
	if err != nil {
		w.failChanges(ctx, ops, p, err)
		return
	}
	if p.head != base {
		r.cache.opts.Metrics.batch(r.conn.host, len(ops))
	}
	landed := func(c string) string { return c }
	if sent != nil && sent.landed != nil {
		// Through the API: each change's commit is the forge's.
		landed = func(c string) string {
			if h, ok := sent.landed[plumbing.NewHash(c)]; ok {
				return h.String()
			}
			return c
		}
		p.head = sent.newHead
	}
	for i, o := range ops {
		res := p.results[i]
		res.Commit = landed(res.Commit)
		if res.UpToDate && res.Commit == "" {
			res.Commit = commitOf(p.head)
		}
		o.finish(res)
	}
}

// failChanges reports err to ops. A change found invalid on its own in plan
// p keeps its own error. When the server refused the push as a whole (a
// hook, a push rule, fsck), perhaps for one change in it, the batch is
// pushed again in halves, each half halved again while refused, so the
// others land and only the culprit carries the refusal: one culprit among n
// costs about 2·log2(n) pushes, not n.
func (w *writer) failChanges(ctx context.Context, ops []*op, p *plan, err error) {
	rest := ops
	if p != nil {
		rest = nil
		for i, o := range ops {
			if p.results[i].Err != nil {
				o.finish(p.results[i])
				continue
			}
			rest = append(rest, o)
		}
	}
	if KindOf(err) == KindRejected && len(rest) > 1 {
		half := len(rest) / 2
		w.applyChanges(ctx, rest[:half])
		w.applyChanges(ctx, rest[half:])
		return
	}
	for _, o := range rest {
		o.finish(Result{Err: err})
	}
}

// build applies ops in order on head: runs of plain changes become one
// commit, each OwnCommit change its own. A change already satisfied is
// reported UpToDate; an invalid one fails alone.
func (w *writer) build(head plumbing.Hash, ops []*op) (*plan, error) {
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	st := newOverlay(r.st)
	// A zero head is an empty repository's: the batch starts from no tree
	// and its first commit has no parent.
	var baseTree plumbing.Hash
	if !head.IsZero() {
		base, err := object.GetCommit(st, head)
		if err != nil {
			return nil, err
		}
		baseTree = base.TreeHash
	}
	pl := &planner{
		w: w, ops: ops, st: st, t: newTree(baseTree), parentTree: baseTree,
		p: &plan{head: head, results: make([]Result, len(ops))},
	}
	for i := range ops {
		if err := pl.add(i); err != nil {
			return nil, err
		}
	}
	if err := pl.flush(); err != nil {
		return nil, err
	}
	p := pl.p
	if p.head != head {
		var buf bytes.Buffer
		// Window 0: no delta search, so the pack suits any server (no
		// ofs-delta negotiation) and costs no CPU; small files compress
		// well enough on their own.
		if _, err := packfile.NewEncoder(&buf, st, false).Encode(p.objects, 0); err != nil {
			return nil, fmt.Errorf("%s: %w", errEncodePack, err)
		}
		p.pack = buf.Bytes()
		if err := w.planAPI(st, head, p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// planner turns a batch into commits on a tree staged over an overlay of
// the clone's storage. Its user holds Repository.mu.
type planner struct {
	w          *writer
	ops        []*op
	st         *overlay
	t          *tree
	p          *plan
	parentTree plumbing.Hash // the tree of p.head
	// group are the changes applied to t since the last commit: their
	// indices in ops and the parts they applied.
	group []member
	// satisfied are changes already met by the group not yet committed: the
	// commit that carries them is the one that group becomes.
	satisfied []int
}

// add applies change i to the tree, or records that it needs nothing or
// fails on its own (the batch goes on without it).
func (pl *planner) add(i int) error {
	c := pl.ops[i].change
	if len(c.Parts) > 0 {
		return pl.addParts(i)
	}
	part := c.single()
	if c.OwnCommit {
		// Before the check, so an own-commit change already met is
		// credited to a commit that holds exactly what came before it.
		if err := pl.flush(); err != nil {
			return err
		}
	}
	if err := expect(pl.st, pl.t, part); err != nil {
		// Someone else changed what the change was computed against.
		pl.p.results[i].Err = err
		return nil //nolint:nilerr // The change fails alone; the batch goes on without it.
	}
	puts, dels, ownErr := check(pl.st, pl.t, part)
	switch {
	case ownErr != nil:
		pl.p.results[i].Err = ownErr
	case len(puts) == 0 && len(dels) == 0:
		pl.p.results[i].UpToDate = true
		if len(pl.group) == 0 {
			pl.p.results[i].Commit = commitOf(pl.p.head)
		} else {
			pl.satisfied = append(pl.satisfied, i)
		}
	default:
		if err := pl.apply(puts, dels); err != nil {
			return err
		}
		pl.group = append(pl.group, member{i: i, part: part})
		if c.OwnCommit {
			return pl.flush()
		}
	}
	return nil
}

// apply stages the blobs of puts and writes puts and deletes into the tree.
func (pl *planner) apply(puts []put, dels [][]string) error {
	for _, pu := range puts {
		h, err := storeBlob(pl.st, pu.content)
		if err != nil {
			return err
		}
		pl.p.objects = append(pl.p.objects, h)
		if err := pl.t.put(pl.st, pu.parts, pu.mode, h); err != nil {
			return err
		}
	}
	for _, parts := range dels {
		if err := pl.t.remove(pl.st, parts); err != nil {
			return err
		}
	}
	return nil
}

// flush commits the group on p.head, unless its tree is the parent's (the
// changes undid each other): then they and the changes they satisfied are
// up to date at p.head.
func (pl *planner) flush() error {
	group, credited := pl.group, pl.satisfied
	pl.group, pl.satisfied = nil, nil
	if len(group) == 0 {
		return nil
	}
	parts := make([]*Part, len(group))
	for k, m := range group {
		parts[k] = m.part
		credited = append(credited, m.i)
	}
	committed, err := pl.commitTree(parts)
	if err != nil {
		return err
	}
	for _, i := range credited {
		if !committed {
			pl.p.results[i].UpToDate = true
		}
		pl.p.results[i].Commit = commitOf(pl.p.head)
	}
	return nil
}

// commitTree commits the staged tree on p.head as parts, unless it is the
// parent's tree (they undid each other): then it reports false and p.head
// stays.
func (pl *planner) commitTree(parts []*Part) (bool, error) {
	p := pl.p
	th, err := pl.t.write(pl.st, &p.objects)
	if err != nil {
		return false, err
	}
	if th == pl.parentTree {
		return false, nil
	}
	c := pl.w.commit(parts, th, p.head)
	if err := signCommit(pl.w.repo.signer, c); err != nil {
		return false, err
	}
	ch, err := storeObject(pl.st, c)
	if err != nil {
		return false, err
	}
	p.objects = append(p.objects, ch)
	p.head, pl.parentTree = ch, th
	return true, nil
}

type put struct {
	parts   []string
	mode    filemode.FileMode
	content []byte
}

// check validates c against t and returns only what differs: the puts whose
// content or mode differ and the deletes of paths that exist. Both empty
// means c is already satisfied. A put on a directory or through a file, and
// a delete of a directory, are the change's path conflicts: a File owns one
// file, never a tree.
func check(st storer.EncodedObjectStorer, t *tree, c *Part) ([]put, [][]string, error) {
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
			return nil, nil, &Error{Kind: KindPathConflict, Err: fmt.Errorf("%s: %s", errFileIsDir, p)}
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
		if KindOf(err) == KindPathConflict {
			// A path through a file cannot exist: already deleted.
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if e == nil {
			continue
		}
		if e.mode == filemode.Dir {
			return nil, nil, &Error{Kind: KindPathConflict, Err: fmt.Errorf("%s: %s", errFileIsDir, p)}
		}
		dels = append(dels, parts)
	}
	return puts, dels, nil
}

// identities returns the author and committer of a commit by author (empty:
// the cache's committer) committed by committer. An empty committer is the
// cache's, or the author when commits are signed: forges show a signed
// commit as verified when the key belongs to the committer, and a change's
// author is then the configuration's identity, which owns the key. A
// caller that authors commits for someone else (a Mirror naming who made a
// change) names that identity as committer instead.
func (w *writer) identities(author, committer Signature) (Signature, Signature) {
	if committer != (Signature{}) {
		if author == (Signature{}) {
			author = committer
		}
		return author, committer
	}
	committer = w.repo.cache.opts.Committer
	if author == (Signature{}) {
		author = committer
	}
	if w.repo.signer != nil {
		committer = author
	}
	return author, committer
}

// commit is the commit of parts on parent: their author and committer when
// they share them, else the defaults (identities).
func (w *writer) commit(parts []*Part, tree, parent plumbing.Hash) *object.Commit {
	author, committer := parts[0].Author, parts[0].Committer
	for _, c := range parts[1:] {
		if c.Author != author {
			author = Signature{}
		}
		if c.Committer != committer {
			committer = Signature{}
		}
	}
	author, committer = w.identities(author, committer)
	now := time.Now()
	return &object.Commit{
		Author:       object.Signature{Name: author.Name, Email: author.Email, When: now},
		Committer:    object.Signature{Name: committer.Name, Email: committer.Email, When: now},
		Message:      commitMessage(parts),
		TreeHash:     tree,
		ParentHashes: parents(parent),
	}
}

// parents lists parent, or nothing for an empty repository's first commit.
func parents(parent plumbing.Hash) []plumbing.Hash {
	if parent.IsZero() {
		return nil
	}
	return []plumbing.Hash{parent}
}

// commitOf names the commit h, or none ("") where an empty repository has
// no commit yet (a deletion there is already satisfied).
func commitOf(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}
