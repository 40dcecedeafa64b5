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
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

const (
	errGaveUp = "branch kept moving under us: gave up"
	// errStorePushed names the local copy: the push itself landed, and the
	// next fetch brings what the clone could not keep.
	errStorePushed = "pushed, but cannot store the pushed pack in the local clone"
)

// refUpdate is one push: move the branch from oldHead to newHead (either
// may be zero: create, delete), sending pack. root marks an empty
// repository's first commit: it lands only while the remote still has no
// branch at all, else it would start a history unrelated to the one that
// appeared meanwhile.
type refUpdate struct {
	oldHead, newHead plumbing.Hash
	pack             []byte
	root             bool
	// api, when set, sends the update through the repository's CommitAPI
	// (viaapi.go); landed then maps each planned commit to the forge's.
	api    *apiPlan
	landed map[plumbing.Hash]plumbing.Hash
}

// pushWithRetry lands one update of the writer's branch; changes, branch
// creation and branch deletion all push through it. next computes the
// update from what the clone holds, fetching first as it sees fit; it
// returns nil when nothing needs pushing. When someone else moved the branch
// first, pushWithRetry backs off and asks next again, at most
// MaxPushAttempts times in all. It never forces.
func (w *writer) pushWithRetry(ctx context.Context, next func(attempt int) (*refUpdate, error)) error {
	r := w.repo
	opts := r.cache.opts
	for attempt := 1; attempt <= opts.MaxPushAttempts; attempt++ {
		if attempt > 1 {
			opts.Metrics.retried(r.conn.host)
			if err := w.backoff(ctx, attempt); err != nil {
				return &Error{Kind: KindTransient, Err: err}
			}
		}
		u, err := next(attempt)
		if err != nil || u == nil {
			return err
		}
		pctx, cancel := context.WithTimeout(ctx, opts.PushTimeout)
		err = r.send(pctx, w.branch, u)
		cancel()
		var moved *errMoved
		if errors.As(err, &moved) {
			continue
		}
		if err != nil {
			return err
		}
		// The push landed; an error here only means our copy is behind,
		// which the next fetch repairs. The branch moved on the remote
		// either way: whoever follows its head is told.
		if u.landed != nil {
			// Through the API: the fetch that brought the commit set the
			// local ref, perhaps past it; only our own move is announced.
			r.announceOwn(w.branch, u.oldHead, u.newHead)
		} else {
			err = r.pushed(w.branch, u.oldHead, u.newHead, u.pack)
		}
		r.cache.headsMoved([]HeadMove{r.headMove(w.branch, u.oldHead, u.newHead)})
		return err
	}
	return &Error{Kind: KindTransient, Err: fmt.Errorf("%s after %d attempts", errGaveUp, opts.MaxPushAttempts)}
}

// backoff waits before retry attempt n (n ≥ 2): exponential, full jitter,
// so writers that lost the same race do not collide again in lockstep.
func (w *writer) backoff(ctx context.Context, n int) error {
	opts := w.repo.cache.opts
	base := opts.RetryBackoff << min(n-2, 6)
	d := time.Duration(rand.Int64N(int64(base) + 1)) //nolint:gosec // jitter needs no cryptographic randomness
	return opts.sleep(ctx, d)
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// announceOwn records that the branch moved from old to h by our own
// write, so Poll reports no drift for it (watch.go).
func (r *Repository) announceOwn(branch string, old, h plumbing.Hash) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.announceOwnLocked(branch, old, h)
}

// announceOwnLocked is announceOwn with r.mu held. Our own write needs no
// drift report: its resources are woken by their writer. A write on top of
// someone else's commit leaves the announced head behind, so Poll still
// reports theirs.
func (r *Repository) announceOwnLocked(branch string, old, h plumbing.Hash) {
	r.ownMoves++
	if len(r.polling) > 0 {
		// Only a Poll running now can skip the branch: one that begins
		// later begins past this number (pollEnded).
		r.ownMoved[branch] = r.ownMoves
	}
	if a, ok := r.announced[branch]; ok && a == old {
		r.announced[branch] = h
	}
}

// pushed stores the pack we pushed (the batch's objects reach the disk only
// once they landed, as one file) and moves the local ref. It records the
// time so a fetch that read the advertisement before our push cannot move
// the local ref back.
func (r *Repository) pushed(branch string, old, h plumbing.Hash, pack []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.announceOwnLocked(branch, old, h)
	if len(pack) > emptyPackSize {
		if err := packfile.UpdateObjectStorage(r.st, bytes.NewReader(pack)); err != nil {
			return fmt.Errorf("%s: %w", errStorePushed, err)
		}
		// go-git holds the new pack's index from here on (its pack writer
		// adds it to the storage's indexes): charged now, not at the next
		// read of the packs.
		r.trees.share.chargeIndex(packIndexCost(r.dir))
	}
	if !h.IsZero() && !r.hasLocked(h) {
		// A branch created at a commit this clone never downloaded: a local
		// ref at a missing object would break every read and fetch. The next
		// fetch of the branch brings both.
		return nil
	}
	r.pushedAt[branch] = time.Now()
	if !h.IsZero() {
		r.empty = false
	}
	var err error
	if h.IsZero() {
		err = r.st.RemoveReference(branchRef(branch))
	} else {
		err = r.st.SetReference(plumbing.NewHashReference(branchRef(branch), h))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", errSetRef, err)
	}
	return r.compactLocked()
}
