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

// What walks history in a clone of bounded depth (shallow.go): the trailer
// search, which deepens where it meets the boundary, and compaction, which
// stops there.

import (
	"context"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
)

const (
	errDeepen          = "cannot deepen the clone's history"
	errStillShallowFmt = "history below commit %s is not in the clone after deepening it to %d commits"
)

// FindCommitByUID returns the newest commit on branch, within maxWalk
// commits of its head, whose trailers name the resource uid. A restarted
// provider uses it to recognise a change it pushed but never recorded.
// It reads the clone; where the walk meets the clone's boundary before
// maxWalk commits, it deepens the clone (one fetch) and reads on. A
// boundary met again is an error, never "not found": a write whose record
// was lost would be made twice.
func (r *Repository) FindCommitByUID(ctx context.Context, branch, uid string, maxWalk int) (Commit, bool, error) {
	if err := r.begin(); err != nil {
		return Commit{}, false, err
	}
	defer r.end()
	c, found, cut, err := r.findByUID(branch, uid, maxWalk)
	if err != nil || found || cut.IsZero() {
		return c, found, err
	}
	// The clone, not its shallow file, says where its history ends: a
	// crash between a pack's install and the file's write leaves a cut the
	// file does not name, and a deepen that does not name it brings nothing.
	r.mu.Lock()
	err = r.recordShallowLocked([]plumbing.Hash{cut})
	r.mu.Unlock()
	if err != nil {
		return Commit{}, false, fmt.Errorf("%s: %w", errDeepen, err)
	}
	depth := maxWalk + historySlack
	if err := r.deepenTo(ctx, branch, depth); err != nil {
		return Commit{}, false, fmt.Errorf("%s: %w", errDeepen, err)
	}
	c, found, cut, err = r.findByUID(branch, uid, maxWalk)
	if err == nil && !found && !cut.IsZero() {
		err = fmt.Errorf(errStillShallowFmt, cut, depth)
	}
	return c, found, err
}

// findByUID is one walk of FindCommitByUID in the clone. When the clone
// lacks a parent the walk needs, it returns the commit it stopped at.
func (r *Repository) findByUID(branch, uid string, maxWalk int) (Commit, bool, plumbing.Hash, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.headLocked(branch)
	if err != nil || maxWalk <= 0 {
		return Commit{}, false, plumbing.ZeroHash, err
	}
	// History we write is linear; first-parent order is newest first.
	for i := 0; ; i++ {
		c, err := object.GetCommit(r.st, h)
		if err != nil {
			return Commit{}, false, plumbing.ZeroHash, fmt.Errorf("%s: %w", errWalk, err)
		}
		for _, v := range trailerValues(c.Message, TrailerUID) {
			if v == uid {
				return Commit{SHA: c.Hash.String(), Message: c.Message, Time: c.Committer.When}, true, plumbing.ZeroHash, nil
			}
		}
		if i+1 >= maxWalk || c.NumParents() == 0 {
			return Commit{}, false, plumbing.ZeroHash, nil
		}
		if h = c.ParentHashes[0]; !r.hasLocked(h) {
			return Commit{}, false, c.Hash, nil
		}
	}
}

// repackWindow is how many objects pack-objects compares each with for a
// delta: git's default (pack.window), and go-git's RepackObjects'.
const repackWindow = 10

// repackLocked writes the objects reachable from the refs into one pack and
// deletes the others, as go-git's RepackObjects does; but that walks every
// parent, and fails on the first a bounded clone lacks, where this walk
// ends the history. Call it with r.mu held.
func (r *Repository) repackLocked() error {
	// Every object is read once: none is worth a place in the caches.
	defer r.trees.share.passBy()()
	old, err := r.st.ObjectPacks()
	if err != nil {
		return err
	}
	objs, err := r.reachableLocked()
	if err != nil {
		return err
	}
	w, err := r.st.PackfileWriter()
	if err != nil {
		return err
	}
	h, err := packfile.NewEncoder(w, r.st, false).Encode(objs, repackWindow)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	for _, p := range old {
		if p != h {
			if err := r.st.DeleteOldObjectPackAndIndex(p, time.Time{}); err != nil {
				return err
			}
		}
	}
	packed := make(map[plumbing.Hash]bool, len(objs))
	for _, o := range objs {
		packed[o] = true
	}
	err = r.st.ForEachObjectHash(func(o plumbing.Hash) error {
		if !packed[o] {
			return nil
		}
		return r.st.DeleteLooseObject(o)
	})
	if err != nil {
		return err
	}
	r.reindexLocked()
	// A shallow commit no ref reached went with its pack.
	return r.recordShallowLocked(nil)
}

// reachableLocked lists the objects reachable from the refs. History ends
// at a parent the clone lacks: the clone's shallow commits' (recorded or
// not: a shallow file lost in a crash costs no compaction), never a tree's.
// A partial clone's blobs are listed when it holds them: compaction neither
// drops a blob a read fetched nor asks for one never fetched (partial.go).
func (r *Repository) reachableLocked() ([]plumbing.Hash, error) {
	w := reachWalk{r: r, partial: r.partial.Load(), seen: map[plumbing.Hash]bool{}, absent: map[plumbing.Hash]bool{}}
	refs, err := r.st.IterReferences()
	if err != nil {
		return nil, err
	}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference {
			w.todo = append(w.todo, ref.Hash())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for len(w.todo) > 0 {
		h := w.todo[len(w.todo)-1]
		w.todo = w.todo[:len(w.todo)-1]
		if w.seen[h] {
			continue
		}
		w.seen[h] = true
		o, err := object.GetObject(r.st, h)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", errWalk, h, err)
		}
		w.visit(o)
	}
	seen := w.seen
	out := make([]plumbing.Hash, 0, len(seen))
	for h := range seen {
		out = append(out, h)
	}
	return out, nil
}

// reachWalk is the state of reachableLocked's walk: what is still to read,
// what was listed, and a partial clone's blobs found absent.
type reachWalk struct {
	r            *Repository
	partial      bool
	todo         []plumbing.Hash
	seen, absent map[plumbing.Hash]bool
}

// visit queues what o names: a commit's tree and the parents the clone
// holds, a tree's subtrees, a tag's target. A tree's blobs are listed
// without being read.
func (w *reachWalk) visit(o object.Object) {
	switch o := o.(type) {
	case *object.Commit:
		w.todo = append(w.todo, o.TreeHash)
		for _, p := range o.ParentHashes {
			if w.r.hasLocked(p) {
				w.todo = append(w.todo, p)
			}
		}
	case *object.Tree:
		for _, e := range o.Entries {
			switch e.Mode {
			case filemode.Dir:
				w.todo = append(w.todo, e.Hash)
			case filemode.Submodule:
				// Another repository's commit: not in this one.
			default:
				w.blob(e.Hash)
			}
		}
	case *object.Tag:
		w.todo = append(w.todo, o.Target)
	}
}

// blob lists h unless a partial clone lacks it: looked up once, however
// many trees name it.
func (w *reachWalk) blob(h plumbing.Hash) {
	if w.partial && !w.seen[h] && !w.absent[h] && !w.r.hasLocked(h) {
		w.absent[h] = true
	}
	if !w.absent[h] {
		w.seen[h] = true
	}
}
