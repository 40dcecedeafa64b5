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
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

const errDiff = "cannot diff the trees of a moved branch"

// Drift detection per repository, not per resource: Git says in one
// ls-remote whether anything moved, and a tree diff says exactly which paths
// did. A poller calls Poll once per interval and reconciles only the
// resources behind the paths it reports.

// A Move is a branch head that moved since the previous Poll.
type Move struct {
	Branch string
	// Old and New heads; New is empty when the branch is gone, Old when it
	// appeared.
	Old, New string
	// Paths whose file changed between Old and New (added, modified,
	// removed, or their mode changed). All is set instead when the change
	// cannot be narrowed down (the branch appeared or vanished, or the old
	// head is not in the clone): everything on the branch may have changed.
	Paths []string
	All   bool
}

// ID names the repository's clone, stable for a remote identity. It
// contains neither URL nor credentials.
func (r *Repository) ID() string { return r.id }

// Key is the repository's RepositoryKey: every clone of one repository
// (one per set of credentials) has the same. "" when its URL made none.
func (r *Repository) Key() string { return r.key }

// Poll asks the remote for its branch heads (one ls-remote) and reports the
// branches in use that moved since the previous Poll, other than by this
// process's own pushes. It fetches only when a head moved; otherwise it
// counts as a fresh fetch for Refresh, so reads that follow need no network.
func (r *Repository) Poll(ctx context.Context) (moves []Move, err error) {
	defer func() { r.cache.opts.Metrics.polled(r.conn.host, err) }()
	// A poll reads the clone's heads and may fetch: it counts as a use
	// while it runs, like any other check (evict.go).
	if err := r.begin(); err != nil {
		return nil, err
	}
	defer r.end()
	start := time.Now()
	// Before the ls-remote: a branch we move after it is not compared
	// (moves).
	r.mu.Lock()
	since := r.ownMoves
	r.polling[since]++
	r.mu.Unlock()
	defer r.pollEnded(since)
	r.rmu.Lock()
	used := make([]string, 0, len(r.used))
	for b := range r.used {
		used = append(used, b)
	}
	r.rmu.Unlock()

	remote := map[string]plumbing.Hash{}
	ar, err := r.advertised(ctx)
	switch {
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
	case err != nil:
		return nil, err
	default:
		refs, err := ar.AllReferences()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errAdvertised, err)
		}
		for _, b := range used {
			if ref, ok := refs[branchRef(b)]; ok && ref.Type() == plumbing.HashReference {
				remote[b] = ref.Hash()
			}
		}
	}

	local, behind := r.localHeads(used, remote)
	if behind {
		if err := r.Refresh(ctx, 0); err != nil {
			return nil, err
		}
	} else {
		r.rmu.Lock()
		if r.inflight == nil && start.After(r.lastFetch) {
			r.lastFetch, r.lastFetched = start, make(map[string]bool, len(used))
			for _, b := range used {
				r.lastFetched[b] = true
			}
		}
		r.rmu.Unlock()
	}
	return r.moves(used, local, remote, since)
}

// localHeads returns the clone's heads of used and whether the clone lacks
// a remote head or points a branch elsewhere.
func (r *Repository) localHeads(used []string, remote map[string]plumbing.Hash) (map[string]plumbing.Hash, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	local := map[string]plumbing.Hash{}
	behind := false
	for _, b := range used {
		l, err := r.headLocked(b)
		if err == nil {
			local[b] = l
		}
		h, ok := remote[b]
		switch {
		case !ok && err == nil, ok && err != nil, ok && l != h, ok && !r.hasLocked(h):
			behind = true
		}
	}
	return local, behind
}

// moves compares remote with the heads announced before and diffs each
// moved branch. A branch never announced is compared with the clone's head
// before this Poll: what the resources that read it saw.
//
// A branch we moved after the Poll began (our own move numbered past
// since) is left as announced, for the next Poll: remote may predate the
// move. Compared, a create of ours that landed between the ls-remote and
// here read as the branch vanished, and was announced so; a deletion by
// someone else then read as nothing new, and the Branch that declares it,
// which nothing polls once Ready, never created it again.
func (r *Repository) moves(used []string, local, remote map[string]plumbing.Hash, since uint64) ([]Move, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Move
	for _, b := range used {
		if r.ownMoved[b] > since {
			// Never announced: the clone's head before this Poll becomes
			// the baseline now. Left unset, the next Poll would take the
			// clone's head then, which our fetches may have moved past
			// someone else's commit: a move lost, not delayed.
			if _, ok := r.announced[b]; !ok {
				if l, ok := local[b]; ok {
					r.announced[b] = l
				}
			}
			continue
		}
		h := remote[b]
		old, seen := r.announced[b]
		if !seen {
			old, seen = local[b]
		}
		r.announced[b] = h
		if !seen || old == h {
			continue
		}
		m := Move{Branch: b}
		if !old.IsZero() {
			m.Old = old.String()
		}
		if !h.IsZero() {
			m.New = h.String()
		}
		paths, err := r.diffLocked(old, h)
		if err != nil {
			m.All = true
		}
		m.Paths = paths
		out = append(out, m)
	}
	return out, nil
}

// diffLocked lists the file paths that differ between the trees of two
// commits. Equal subtrees are skipped by hash, so a diff costs what changed.
func (r *Repository) diffLocked(from, to plumbing.Hash) ([]string, error) {
	if from.IsZero() || to.IsZero() {
		return nil, errors.New(errDiff)
	}
	tree := func(h plumbing.Hash) (*object.Tree, error) {
		c, err := object.GetCommit(r.st, h)
		if err != nil {
			return nil, err
		}
		return c.Tree()
	}
	a, err := tree(from)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errDiff, err)
	}
	b, err := tree(to)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errDiff, err)
	}
	changes, err := object.DiffTree(a, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errDiff, err)
	}
	paths := make([]string, 0, len(changes))
	for _, c := range changes {
		if c.From.Name != "" {
			paths = append(paths, c.From.Name)
		}
		if c.To.Name != "" && c.To.Name != c.From.Name {
			paths = append(paths, c.To.Name)
		}
	}
	return paths, nil
}

// pollEnded forgets the Poll that began at since, and every own move no
// running Poll can still skip: one numbered at or below the lowest number a
// running Poll began at (all of them, when none runs). Later Polls begin
// past them, so ownMoved holds only the branches moved during a Poll, not
// every branch this clone ever wrote.
func (r *Repository) pollEnded(since uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.polling[since]--; r.polling[since] == 0 {
		delete(r.polling, since)
	}
	low := r.ownMoves
	for s := range r.polling {
		low = min(low, s)
	}
	for b, n := range r.ownMoved {
		if n <= low {
			delete(r.ownMoved, b)
		}
	}
}
