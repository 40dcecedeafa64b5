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

// The haves of a fetch: what the clone tells the server it already holds.
//
// A request is stateless (over SSH go-git writes the same lines then a
// flush and "done"): wants, haves, done, and the server answers its
// acknowledgements, then the pack. git's own fetch sends haves in rounds,
// 16 then more, until the server has acknowledged enough. The engine sends
// at most two requests:
//
//  1. The clone's branch heads. After anyone pushed on top of what the clone
//     last saw, by far the usual case, a head is the common commit, and the
//     pack holds the new commits' objects. Only the heads: go-git sorts the
//     haves it sends by hash, and git's upload-pack (2.39, measured) then
//     treats each have it met before its descendants as a separate edge,
//     and its thin pack of one new commit comes whole (3.4 KB of pack, not
//     0.6 KB) once a head's ancestors are among the haves.
//  2. Only if the server acknowledged none of them (a "NAK": a force-push
//     replaced the heads, and the server no longer holds them): that answer
//     is closed before its pack is read (what the server sent of it until
//     then is wasted), and a second request carries the heads' first-parent
//     ancestors, the first haveRun (git's first round) then those 32, 64, …
//     haveDepth commits down (git's skipping negotiator), so that a rewrite
//     of the last commits, or one further down, finds a commit in common.
//     Its answer is taken whatever it is: with nothing in common, the
//     server packs everything the wants reach, as for a clone.
//
// Nothing is lost either way: what the clone holds stays, and a thin pack's
// bases are read from it. The ancestors' walk reads at most haveDepth
// commits per head from the clone, under its lock; it stops at a commit
// another head's walk already passed, and at a parent the clone does not
// hold (the edge of a bounded history).

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

const (
	// haveRun is how many consecutive first-parent ancestors of each head
	// the second request sends: git's first round of haves (fetch-pack.c
	// INITIAL_FLUSH).
	haveRun = 16
	// haveDepth is the deepest ancestor sent (a power of two): a quarter of
	// the trailer search's 1,000 commits, so that the walk stays cheap (256
	// commit reads per head) under the clone's lock.
	haveDepth = 256
	// maxHaves bounds the second request's haves whatever the number of
	// branches: about 12 KiB of have lines.
	maxHaves = 256
)

// negotiate asks for the pack of wants, telling the server heads, and, if
// it acknowledged none, asks again with their ancestors, in a session of its
// own (over SSH a session serves one request). The returned reader is the
// answer's pack section; closing it ends what negotiate opened.
func (r *Repository) negotiate(ctx context.Context, sess transport.UploadPackSession, ar *packp.AdvRefs, wants, heads []plumbing.Hash) (*answer, *packp.UploadPackRequest, error) {
	resp, req, err := r.uploadPack(ctx, sess, ar, wants, heads)
	if err != nil {
		return nil, req, err
	}
	if len(req.Haves) == 0 || len(resp.ACKs) > 0 {
		// Told of no have (none to tell, or a bounded clone whose server
		// stopped offering shallow fetches: shallow.go), the server's
		// answer is a whole history already.
		return &answer{UploadPackResponse: resp}, req, nil
	}
	deeper := r.ancestorHaves()
	if len(deeper) == 0 {
		return &answer{UploadPackResponse: resp}, req, nil
	}
	_ = resp.Close() // its pack would be the whole history
	auth, err := r.conn.authMethod(ctx)
	if err != nil {
		return nil, nil, err
	}
	again, err := r.tr.NewUploadPackSession(r.conn.endpoint(), auth)
	if err != nil {
		return nil, nil, err
	}
	resp, req, err = r.uploadPack(ctx, again, ar, wants, deeper)
	if err != nil {
		_ = again.Close()
		return nil, nil, err
	}
	return &answer{UploadPackResponse: resp, sess: again}, req, nil
}

// answer is the server's answer to the request negotiate settled on: its
// shallow lines, and its pack to read; closing it closes the session
// negotiate opened for it, if it opened one.
type answer struct {
	*packp.UploadPackResponse
	sess transport.UploadPackSession
}

func (a *answer) Close() error {
	err := a.UploadPackResponse.Close()
	if a.sess == nil {
		return err
	}
	if serr := a.sess.Close(); err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", errFetch, err)
	}
	return nil
}

// localHeadsLocked returns the heads of the clone's branches: the haves of
// a fetch's first request.
func (r *Repository) localHeadsLocked() []plumbing.Hash {
	var hs []plumbing.Hash
	iter, err := r.st.IterReferences()
	if err != nil {
		return nil
	}
	_ = iter.ForEach(func(ref *plumbing.Reference) error {
		// A have we do not hold would tell the server not to send it.
		if ref.Type() == plumbing.HashReference && ref.Name().IsBranch() && r.hasLocked(ref.Hash()) {
			hs = append(hs, ref.Hash())
		}
		return nil
	})
	return hs
}

// haveAt reports whether the first-parent ancestor at distance d ≥ 1 from a
// head is sent in the second request.
func haveAt(d int) bool {
	return d <= haveRun || (d <= haveDepth && d&(d-1) == 0)
}

// ancestorHaves returns, head by head, the first-parent ancestors haveAt
// chooses of the clone's branch heads, without repeats and at most maxHaves.
func (r *Repository) ancestorHaves() []plumbing.Hash {
	r.mu.Lock()
	defer r.mu.Unlock()
	var haves []plumbing.Hash
	seen, walked := map[plumbing.Hash]bool{}, map[plumbing.Hash]bool{}
	for _, h := range r.localHeadsLocked() {
		for d := 1; d <= haveDepth && len(haves) < maxHaves; d++ {
			if walked[h] {
				break // another head's walk went on from here
			}
			walked[h] = true
			c, err := object.GetCommit(r.st, h)
			if err != nil || len(c.ParentHashes) == 0 {
				break
			}
			h = c.ParentHashes[0]
			if !r.hasLocked(h) {
				break // beyond a bounded history
			}
			if haveAt(d) && !seen[h] {
				seen[h] = true
				haves = append(haves, h)
			}
		}
	}
	return haves
}
