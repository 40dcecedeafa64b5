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

// Bounded history. A clone keeps the history the engine reads, not all of
// it: every fetch asks for the branches' history to a depth (`deepen N` in
// the upload-pack request, as `git fetch --depth=N` sends), tells the server
// which commits of the clone have no parents in it (`shallow` lines: the
// server must not assume the clone holds what lies below them), and records
// the commits the server names as the new boundary (its shallow-info
// section) in the clone's `shallow` file, as git does.
//
// What reads history, and why a bounded clone serves it:
//   - the trailer search (history.go) reads at most its maxWalk commits
//     down the first-parent line; where it meets the boundary first, it
//     deepens (a fetch with a larger depth) and reads on;
//   - the writer never walks history: a rebase after a lost race re-applies
//     each change on the tree of the head it fetched, and a push sends the
//     new objects on top of a head the server has (transport.go push), so
//     neither needs a merge base;
//   - drift detection diffs the trees of two heads the clone held (watch.go);
//   - compaction walks everything reachable, and stops at the boundary
//     (compactLocked via repackLocked).
//
// The boundary is what the clone holds, not what a server says: a commit is
// recorded as shallow only while it is in the clone and lacks a parent, so
// a server (or a later fetch that brought the parents) cannot hide history
// the clone has, and the file holds about one commit per branch.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

const (
	errShallowRead   = "cannot read the clone's shallow commits"
	errShallowWrite  = "cannot record the clone's shallow commits"
	errIncompleteFmt = "the server's pack lacks head %s, even fetched as a fresh clone"
)

// DefaultHistoryDepth is how many commits down each branch a fetch brings.
// The trailer search (CommitRequest's MaxWalk) reads 1,000 commits down the
// first-parent line, and each of them lies within depth 1,000 of the head
// (a first-parent step is one commit deeper at most, whatever merges join
// the line); nothing else reads history (see above). The further 100 are
// slack, 10% more commits to fetch: depth is the server's to count (git's
// upload-pack counts the tip as the first), and a server that counts a
// little short still leaves the search its 1,000 commits. A search that
// meets the boundary all the same deepens, at a round trip's cost.
const DefaultHistoryDepth = searchWalk + historySlack

// searchWalk is how far the trailer search reads (CommitRequest's MaxWalk),
// and historySlack the commits fetched beyond it (above).
const (
	searchWalk   = 1000
	historySlack = 100
)

// infiniteDepth is git's INFINITE_DEPTH (0x7fffffff): `deepen` with it asks
// for the whole history, as `git fetch --unshallow` does.
const infiniteDepth = 0x7fffffff

// WithHistoryDepth sets how many commits down each branch a fetch brings
// (DefaultHistoryDepth); n <= 0 fetches the whole history, and makes a
// clone a bounded configuration left whole again at its next fetch.
func WithHistoryDepth(n int) Option { return func(o *Options) { o.HistoryDepth = n } }

// history is a clone's bound: how deep its fetches ask, and whether the
// next one must ask for heads it holds.
type history struct {
	// raised is the deepest a search asked for (0: none); fetches ask for
	// the larger of it and Options.HistoryDepth, so a clone that needed
	// more history once keeps it.
	raised atomic.Int64
	// deepen makes the next fetch want every head in use, also those the
	// clone holds: without a want there is no upload-pack request, and the
	// server sends what lies below a head only when it is wanted.
	deepen atomic.Bool
	// unshallowed is set once a fetch of the whole history (depth 0) sent
	// the clone's shallow commits and stored the answer: the server then
	// unshallowed every one it holds (git's upload-pack does so for an
	// infinite deepen), so a boundary left is one the server no longer
	// has (a branch deleted there, a history rewritten and collected), and
	// no later request would remove it. Without this, every poll would be
	// a pack request until a compaction drops the commit.
	unshallowed atomic.Bool
}

// depth is what a fetch asks for: 0 for the whole history.
func (r *Repository) depth() int {
	d := r.cache.opts.HistoryDepth
	if d <= 0 {
		return 0
	}
	return max(d, int(r.hist.raised.Load()))
}

// boundRequest makes req ask for history to the clone's depth, and names
// the clone's shallow commits (both only where the server offers shallow
// fetches, as git's own upload-pack does). A fresh fetch
// (withFresh) names none: the server assumes the clone holds nothing.
func (r *Repository) boundRequest(ctx context.Context, req *packp.UploadPackRequest, caps *capability.List) error {
	r.mu.Lock()
	shallow, err := r.st.Shallow()
	r.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", errShallowRead, err)
	}
	if isFresh(ctx) {
		shallow = nil
	}
	depth := r.depth()
	if depth == 0 && len(shallow) > 0 {
		depth = infiniteDepth
	}
	switch {
	case depth == 0:
		return nil
	case !caps.Supports(capability.Shallow) && len(shallow) > 0:
		// A server that no longer offers shallow fetches cannot be told
		// where the clone's history ends; told of no have, it assumes
		// nothing and sends the whole history of the heads wanted, as to
		// a fresh clone (without that, it would leave out what lies below
		// the boundary: go-git #1443).
		req.Haves = nil
		return nil
	case !caps.Supports(capability.Shallow):
		// The whole history, as before bounded clones.
		return nil
	}
	_ = req.Capabilities.Set(capability.Shallow)
	req.Shallows = shallow
	req.Depth = packp.DepthCommits(depth)
	return nil
}

// errShallowLinesFmt refuses an answer naming more boundary commits than
// maxShallowLines allows.
const errShallowLinesFmt = "the server named %d shallow commits for %d wanted heads"

// maxShallowLines is the most boundary commits an answer to wants heads
// may name: a history cut at one depth has about one boundary a branch,
// more where merges cross it; a thousand is far past any GitOps history.
func maxShallowLines(wants int) int { return 1000 + 16*wants }

// recordShallowLocked records the clone's boundary after a pack was
// stored: the commits the server named (announced) and those recorded
// before, each kept only while the clone holds it without one of its
// parents. A commit whose parents arrived (an unshallow, a deepen) drops
// out, and so does one a compaction dropped. Call it with r.mu held.
func (r *Repository) recordShallowLocked(announced []plumbing.Hash) error {
	old, err := r.st.Shallow()
	if err != nil {
		return fmt.Errorf("%s: %w", errShallowRead, err)
	}
	if len(old) == 0 && len(announced) == 0 {
		return nil
	}
	seen := make(map[plumbing.Hash]bool, len(old)+len(announced))
	var keep []plumbing.Hash
	for _, h := range append(slices.Clone(old), announced...) {
		if !seen[h] && r.cutLocked(h) {
			keep = append(keep, h)
		}
		seen[h] = true
	}
	plumbing.HashesSort(keep)
	if slices.Equal(keep, old) {
		return nil
	}
	if err := r.writeShallowLocked(keep); err != nil {
		return fmt.Errorf("%s: %w", errShallowWrite, err)
	}
	return nil
}

// shallowFile is where git, and go-git's storage, keep a clone's shallow
// commits: one hex SHA a line.
const shallowFile = "shallow"

// writeShallowLocked replaces the clone's shallow file with hs, atomically
// (go-git's SetShallow truncates it in place, so a crash would leave a
// part of it). Call it with r.mu held.
func (r *Repository) writeShallowLocked(hs []plumbing.Hash) error {
	fs := r.st.Filesystem()
	if len(hs) == 0 {
		if err := fs.Remove(shallowFile); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	var b strings.Builder
	for _, h := range hs {
		b.WriteString(h.String() + "\n")
	}
	f, err := fs.TempFile("", shallowFile+"-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer fs.Remove(tmp) //nolint:errcheck // gone once renamed; a stray temporary file harms nothing
	if _, err := f.Write([]byte(b.String())); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return fs.Rename(tmp, shallowFile)
}

// cutLocked reports whether the clone holds commit h but not all of its
// parents.
func (r *Repository) cutLocked(h plumbing.Hash) bool {
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		return false
	}
	for _, p := range c.ParentHashes {
		if !r.hasLocked(p) {
			return true
		}
	}
	return false
}

// wantHeld reports whether this fetch wants the heads the clone holds too:
// once after a search asked to deepen, and, in a clone that fetches the
// whole history, while it has a boundary (one a bounded configuration
// left) no fetch of this process sent yet (history.unshallowed).
func (r *Repository) wantHeld() bool {
	if r.hist.deepen.Swap(false) {
		return true
	}
	if r.depth() != 0 || r.hist.unshallowed.Load() {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	shallow, err := r.st.Shallow()
	return err == nil && len(shallow) > 0
}

// deepenTo makes the clone's history reach depth commits below the heads in
// use: it raises the depth fetches ask for and fetches, wanting the heads
// the clone holds. Fetches are coalesced (fetch.go), so this one starts
// after the call, and the previous one in flight has ended by then.
func (r *Repository) deepenTo(ctx context.Context, branch string, depth int) error {
	for {
		cur := r.hist.raised.Load()
		if int64(depth) <= cur || r.hist.raised.CompareAndSwap(cur, int64(depth)) {
			break
		}
	}
	r.hist.deepen.Store(true)
	return r.fetchNow(ctx, branch)
}

// downloadWhole is download, then a check that the pack brought every
// head wanted. A server that took the clone for whole (one that ignores
// shallow lines) leaves out a head below the clone's boundary, after a
// force push to an older commit, and go-git v5 would point the ref at a
// commit it does not have (go-git #1443). Then the heads are fetched again
// as a fresh clone would be: no haves, no shallow lines, so the server
// assumes nothing and sends their history to the depth. Nothing local is
// dropped: what the first pack brought stays until a compaction finds it
// unreachable.
func (r *Repository) downloadWhole(ctx context.Context, sess transport.UploadPackSession, ar *packp.AdvRefs, wants, haves []plumbing.Hash) error {
	if err := r.download(ctx, sess, ar, wants, haves); err != nil {
		return err
	}
	if r.depth() == 0 {
		// It asked for the whole history below the clone's boundary.
		r.hist.unshallowed.Store(true)
	}
	missing := r.missing(wants)
	if len(missing) == 0 {
		return nil
	}
	sess, ar, err := r.uploadSession(ctx)
	if err != nil {
		return err
	}
	defer sess.Close() //nolint:errcheck // the outcome is decided by then; a failed Close loses nothing
	if err := r.download(withFresh(ctx), sess, ar, missing, nil); err != nil {
		return err
	}
	if missing := r.missing(missing); len(missing) > 0 {
		return fmt.Errorf(errIncompleteFmt, missing[0])
	}
	return nil
}

// missing returns the hashes of hs the clone lacks.
func (r *Repository) missing(hs []plumbing.Hash) []plumbing.Hash {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []plumbing.Hash
	for _, h := range hs {
		if !r.hasLocked(h) {
			out = append(out, h)
		}
	}
	return out
}

// uploadSession opens an upload-pack session and reads its advertisement.
func (r *Repository) uploadSession(ctx context.Context) (transport.UploadPackSession, *packp.AdvRefs, error) {
	auth, err := r.conn.authMethod(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", errFetch, err)
	}
	sess, err := r.tr.NewUploadPackSession(r.conn.endpoint(), auth)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", errFetch, classify(err))
	}
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		_ = sess.Close()
		return nil, nil, fmt.Errorf("%s: %w", errFetch, classify(err))
	}
	return sess, ar, nil
}

// freshKey marks a context whose fetch is a fresh clone's (downloadWhole).
type freshKey struct{}

func withFresh(ctx context.Context) context.Context { return context.WithValue(ctx, freshKey{}, true) }

func isFresh(ctx context.Context) bool { v, _ := ctx.Value(freshKey{}).(bool); return v }
