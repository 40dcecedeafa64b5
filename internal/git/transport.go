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
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

const (
	errFetch       = "cannot fetch"
	errPush        = "cannot push"
	errAdvertised  = "cannot read advertised references"
	errSpool       = "cannot spool fetched pack"
	errStorePack   = "cannot store fetched pack"
	errEncodePack  = "cannot encode pack"
	errSetRef      = "cannot update local reference"
	errNoDeleteRef = "server does not support deleting references"
)

// emptyPackSize is the size of a pack with no objects (header + checksum).
const emptyPackSize = 32

// emptyPack is what a push that only moves a ref sends.
func emptyPack() []byte {
	var buf bytes.Buffer
	_, _ = packfile.NewEncoder(&buf, nil, false).Encode(nil, 0)
	return buf.Bytes()
}

// errMoved reports that the remote branch is not where we built on: someone
// else pushed. It is retried after a fetch, never forced.
type errMoved struct{ remote plumbing.Hash }

func (e *errMoved) Error() string { return "remote branch moved to " + e.remote.String() }

// fetch downloads the given branches with one ls-refs and one upload-pack
// request (a second when the server holds none of the clone's heads:
// negotiate.go; one more, once per clone, from a server that requires
// multi_ack: multiack.go), and points the local refs at the remote heads. Only
// the branches in use are requested: the full advertisement is unavoidable
// in go-git v5 (no protocol v2), the objects are not.
func (r *Repository) fetch(ctx context.Context, branches []string) (err error) {
	start := time.Now()
	defer func() { r.cache.opts.Metrics.fetched(r.conn.host, start, err) }()

	auth, err := r.conn.authMethod(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", errFetch, err)
	}
	sess, err := r.tr.NewUploadPackSession(r.conn.endpoint(), auth)
	if err != nil {
		return fmt.Errorf("%s: %w", errFetch, classify(err))
	}
	defer sess.Close() //nolint:errcheck // the outcome is decided by then; a failed Close loses nothing

	remote := map[string]plumbing.Hash{}
	empty := true
	ar, err := sess.AdvertisedReferencesContext(ctx)
	switch {
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		// An empty repository has no branches: every local ref goes.
	case err != nil:
		return fmt.Errorf("%s: %w", errFetch, classify(err))
	default:
		empty = !hasBranch(ar.References)
		refs, err := ar.AllReferences()
		if err != nil {
			return fmt.Errorf("%s: %w", errAdvertised, err)
		}
		for _, b := range branches {
			if ref, ok := refs[branchRef(b)]; ok && ref.Type() == plumbing.HashReference {
				remote[b] = ref.Hash()
			}
		}
	}

	wants, haves, err := r.startReceiving(remote, r.wantHeld(), ar)
	if err != nil {
		return err
	}
	received := false
	defer func() {
		if !received {
			r.stopReceiving()
		}
	}()

	if len(wants) > 0 {
		if err := r.downloadWhole(ctx, sess, ar, wants, haves); err != nil {
			return err
		}
	}

	// Told once the clone's lock is released (deferred first, run last).
	var moves []HeadMove
	defer func() { r.cache.headsMoved(moves) }()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.pushedSinceLocked(start) {
		// A branch we pushed after this fetch read the advertisement made
		// the repository non-empty, whatever the advertisement said.
		r.empty = empty
	}
	for _, b := range branches {
		if r.pushedAt[b].After(start) {
			continue
		}
		m, moved, err := r.setHeadLocked(b, remote[b])
		if err != nil {
			return err
		}
		if moved {
			moves = append(moves, m)
		}
	}
	// The refs reach what this fetch received: a compaction may go ahead,
	// its own first.
	r.receiving--
	received = true
	return r.compactLocked()
}

// startReceiving chooses the heads a fetch wants of remote (those the
// clone lacks; all when held: a deepen, shallow.go) and, if any, the haves
// it tells the server and whether it filters blobs (partial.go). From then
// until stopReceiving, or the refs are set, compaction drops nothing
// (compactLocked): a thin pack's deltas have the objects the haves reach as
// bases, a pack stored is reachable only once the refs are set, and a head
// the clone held when it was not wanted must still be there when its ref
// is set.
func (r *Repository) startReceiving(remote map[string]plumbing.Hash, held bool, ar *packp.AdvRefs) (wants, haves []plumbing.Hash, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range remote {
		if !r.hasLocked(h) || held {
			wants = append(wants, h)
		}
	}
	if len(wants) > 0 {
		haves = r.localHeadsLocked()
		if err := r.choosePartialLocked(ar.Capabilities); err != nil {
			return nil, nil, err
		}
	}
	r.receiving++
	return wants, haves, nil
}

// stopReceiving ends a fetch's startReceiving that set no ref, and runs
// the compaction it held back: a server whose every fetch fails would
// otherwise leave our own pushes' packs to pile up.
func (r *Repository) stopReceiving() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.receiving--
	// The fetch's own error is what its caller needs; a compaction that
	// fails is tried again at the next pack stored.
	_ = r.compactLocked()
}

// setHeadLocked points the clone's branch at h (removes it for a zero h)
// and reports the move, if it was elsewhere.
func (r *Repository) setHeadLocked(b string, h plumbing.Hash) (HeadMove, bool, error) {
	was, _ := r.headLocked(b) // zero when the clone lacks the branch
	var err error
	if !h.IsZero() {
		err = r.st.SetReference(plumbing.NewHashReference(branchRef(b), h))
	} else {
		err = r.st.RemoveReference(branchRef(b))
	}
	if err != nil {
		return HeadMove{}, false, fmt.Errorf("%s: %w", errSetRef, err)
	}
	return r.headMove(b, was, h), was != h, nil
}

// download indexes the pack as it arrives (packscan.go), spooling it to a
// file outside the storage lock, so reads are not blocked for the duration
// of a transfer, and moves it into the clone once it is whole and checked.
func (r *Repository) download(ctx context.Context, sess transport.UploadPackSession, ar *packp.AdvRefs, wants, haves []plumbing.Hash) error {
	resp, req, err := r.negotiate(ctx, sess, ar, wants, haves)
	if err != nil {
		return fmt.Errorf("%s: %w", errFetch, classify(err))
	}
	defer resp.Close() //nolint:errcheck // read fully below
	p, done, err := r.receive(ctx, resp, req.Capabilities, "fetch-*.pack", nil, errFetch)
	if err != nil {
		return err
	}
	defer done()
	if n := len(resp.Shallows); n > maxShallowLines(len(wants)) {
		// A server names about one boundary a branch; each is looked up
		// under the clone's lock, which a million would hold for long.
		return fmt.Errorf("%s: %w", errStorePack, fmt.Errorf(errShallowLinesFmt, n, len(wants)))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	added, err := p.install(r.dir)
	if err != nil {
		return fmt.Errorf("%s: %w", errStorePack, err)
	}
	if added {
		// go-git's storage reads the pack indexes once and keeps them.
		r.reindexLocked()
	}
	if err := r.recordShallowLocked(resp.Shallows); err != nil {
		return fmt.Errorf("%s: %w", errStorePack, err)
	}
	return nil
}

// receive indexes the pack of an upload-pack answer as it arrives (packscan.go),
// spooled to a file of the clone's directory named by pattern, outside the
// storage lock, so reads are not blocked for the duration of a transfer;
// wrap, if not nil, wraps the demultiplexed stream (a byte cap). A broken
// transfer is wrapped in errTransfer, a pack that fails a check in
// errStorePack. The caller installs the pack, then calls done, which
// removes the spool.
func (r *Repository) receive(ctx context.Context, answer io.Reader, caps *capability.List, pattern string, wrap func(io.Reader) io.Reader, errTransfer string) (*indexedPack, func(), error) {
	f, err := os.CreateTemp(r.dir, pattern)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", errSpool, err)
	}
	done := func() {
		_ = f.Close()           // its content is flushed and checked before it is moved
		_ = os.Remove(f.Name()) // gone once moved into the clone; a stray spool file harms nothing
	}
	rd := answer
	switch {
	case caps.Supports(capability.Sideband64k):
		rd = sideband.NewDemuxer(sideband.Sideband64k, answer)
	case caps.Supports(capability.Sideband):
		rd = sideband.NewDemuxer(sideband.Sideband, answer)
	}
	if wrap != nil {
		rd = wrap(rd)
	}
	src := &readErrs{r: rd}
	p, err := indexPack(ctx, f, src, packBudget{bases: packBaseBudget, object: packObjectBudget}, r.thinBase)
	if err != nil {
		done()
		if src.err != nil && !errors.Is(src.err, io.EOF) {
			// The transfer broke: the pack is incomplete, not corrupt.
			return nil, nil, fmt.Errorf("%s: %w", errTransfer, classify(src.err))
		}
		return nil, nil, fmt.Errorf("%s: %w", errStorePack, err)
	}
	return p, done, nil
}

// What indexing a fetched pack holds besides one 40-byte entry per object:
// the bases along a delta chain (a chain of 50, git's default depth, of
// 300 KiB files). Delta payloads are not kept from the first pass: pass 2
// reads each again from the spooled pack. Keeping them (within 8 MiB)
// saved the engine's process 0.1 to 0.3 s of CPU on BenchmarkLargeRepository's
// first open and cost it 5 MiB of peak RSS bounded, 8 MiB whole (37.5
// against 32 MiB; 50 against 42 MiB).
const (
	packBaseBudget = 16 << 20
	// packObjectBudget is the largest object indexing holds whole (a
	// delta's base, payload or result): git's core.bigFileThreshold, above
	// which git pack-objects makes no delta, so only a hostile or unusual
	// pack needs more. A larger object that is no delta's base streams.
	packObjectBudget = 512 << 20
)

// thinBase reads a base of a thin pack's delta from the clone.
func (r *Repository) thinBase(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.st.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	if o.Size() > packObjectBudget {
		// An object an earlier pack stored without holding it, named as
		// a base to make the indexer hold it: refused before it is read.
		return plumbing.InvalidObject, nil, fmt.Errorf("%s: %d bytes, more than %d", errPackHeld, o.Size(), packObjectBudget)
	}
	rd, err := o.Reader()
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	defer rd.Close() //nolint:errcheck // read-only
	data := make([]byte, o.Size())
	if _, err := io.ReadFull(rd, data); err != nil {
		return plumbing.InvalidObject, nil, err
	}
	return o.Type(), data, nil
}

// readErrs remembers the error its reader returned: a transfer that broke
// is told from a pack that is corrupt.
type readErrs struct {
	r   io.Reader
	err error
}

func (e *readErrs) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.err = err
	}
	return n, err
}

// pushedSinceLocked reports whether we moved any branch by pushing after t.
func (r *Repository) pushedSinceLocked(t time.Time) bool {
	for _, at := range r.pushedAt {
		if at.After(t) {
			return true
		}
	}
	return false
}

func (r *Repository) hasLocked(h plumbing.Hash) bool {
	return r.st.HasEncodedObject(h) == nil
}

// push moves branch from oldHead to newHead (either may be zero: create,
// delete), sending exactly the given objects. It never forces: the server
// applies the update only if the branch is still at oldHead, and we check
// that first so a moved branch costs one round trip, not a pack upload.
//
// go-git's Remote.Push is not used because it walks the whole history to
// find what to send (three quarters of a second per push from a 1,000-commit
// clone, against 90 ms from a shallow one); the writer knows the new objects
// and hands over their pack.
func (r *Repository) push(ctx context.Context, branch string, u *refUpdate) (err error) {
	oldHead, newHead, pack := u.oldHead, u.newHead, u.pack
	start := time.Now()
	defer func() {
		var moved *errMoved
		switch {
		case errors.As(err, &moved):
			r.cache.opts.Metrics.rejected(r.conn.host)
		case KindOf(err) == KindRejected:
			r.cache.opts.Metrics.rejected(r.conn.host)
		}
		r.cache.opts.Metrics.pushed(r.conn.host, start, err)
	}()

	auth, err := r.conn.authMethod(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", errPush, err)
	}
	sess, err := r.tr.NewReceivePackSession(r.conn.endpoint(), auth)
	if err != nil {
		return fmt.Errorf("%s: %w", errPush, classify(err))
	}
	defer sess.Close() //nolint:errcheck // the outcome is decided by then; a failed Close loses nothing

	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return fmt.Errorf("%s: %w", errPush, classify(err))
	}
	cur := plumbing.ZeroHash
	if ar != nil {
		refs, err := ar.AllReferences()
		if err != nil {
			return fmt.Errorf("%s: %w", errAdvertised, err)
		}
		if ref, ok := refs[branchRef(branch)]; ok {
			cur = ref.Hash()
		}
	}
	if cur != oldHead || (u.root && ar != nil && hasBranch(ar.References)) {
		return &errMoved{remote: cur}
	}
	caps := capability.NewList()
	if ar != nil {
		caps = ar.Capabilities
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(caps)
	msgs := askRemoteMessages(req, caps)
	req.Commands = []*packp.Command{{Name: branchRef(branch), Old: oldHead, New: newHead}}
	if newHead.IsZero() {
		if !caps.Supports(capability.DeleteRefs) {
			return &Error{Kind: KindRejected, Err: errors.New(errNoDeleteRef)}
		}
	} else {
		req.Packfile = io.NopCloser(bytes.NewReader(pack))
	}
	if err := r.fenced(); err != nil {
		return err
	}
	rs, err := sess.ReceivePack(ctx, req)
	// go-git returns the report's error as err too; the report tells a lost
	// race from a refusal, so it goes first.
	if rs != nil {
		if serr := rs.Error(); serr != nil {
			return msgs.explain(classifyStatus(serr, cur))
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", errPush, classify(err))
	}
	return nil
}

// classifyStatus tells a lost race (retry after a fetch) from a refusal
// (protected branch, hook): git's receive-pack answers a stale old value
// with "failed to update ref"/"failed to lock", forges add their own words
// for non-fast-forward.
func classifyStatus(err error, cur plumbing.Hash) error {
	msg := err.Error()
	for _, race := range []string{"failed to update ref", "failed to lock", "cannot lock ref", "non-fast-forward", "fetch first", "stale info", "incorrect old value"} {
		if strings.Contains(msg, race) {
			return &errMoved{remote: cur}
		}
	}
	return &Error{Kind: KindRejected, Err: fmt.Errorf("%s: %w", errPush, err)}
}
