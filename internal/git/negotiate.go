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
// A fetch is one request (stateless over HTTP; over SSH go-git writes the
// same lines then a flush and "done"): wants, haves, done. git's own fetch
// sends haves in rounds, 16 then doubling, until the server has acknowledged
// enough; the engine has one round, so it sends a bounded list chosen to
// find a common commit in the cases that happen to a GitOps repository:
//
//   - the branch heads of the clone: the common commit after anyone pushed
//     on top of what the clone last saw, by far the usual case;
//   - the first haveRun first-parent ancestors of each head: the common
//     commit after a force-push rewrote the last commits (an amend, a
//     reset and new commits), once the server no longer holds the old head;
//   - then the ancestors at 32, 64, … haveDepth (git's skipping negotiator
//     does the same): a rewrite further down still finds a commit in
//     common, at the price of fetching again what lies between it and the
//     rewrite.
//
// A head contributes at most 1 + haveRun + log2(haveDepth/haveRun) haves
// and its walk reads at most haveDepth commits from the clone, under its
// lock; a chain stops at a commit another head's walk already passed, and
// at a parent the clone does not hold (the edge of a bounded history). With
// nothing in common the server packs everything the wants reach, as for a
// clone, and nothing is lost: what the clone holds stays, and a thin
// pack's bases are read from it.

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

const (
	// haveRun is how many consecutive first-parent ancestors of each head
	// are sent: git's first round of haves (fetch-pack.c INITIAL_FLUSH).
	haveRun = 16
	// haveDepth is the deepest ancestor sent (a power of two): a quarter of
	// the trailer search's 1,000 commits, so that the walk stays cheap
	// (256 commit reads per head) under the clone's lock.
	haveDepth = 256
	// maxHaves bounds a request's haves whatever the number of branches:
	// about 12 KiB of have lines.
	maxHaves = 256
)

// haveAt reports whether the first-parent ancestor at distance d ≥ 1 from a
// head is sent as a have.
func haveAt(d int) bool {
	return d <= haveRun || (d <= haveDepth && d&(d-1) == 0)
}

// havesLocked returns the clone's branch heads, then, head by head, the
// ancestors haveAt chooses, without repeats and at most maxHaves.
func (r *Repository) havesLocked() []plumbing.Hash {
	heads := r.localHeadsLocked()
	seen := make(map[plumbing.Hash]bool, len(heads))
	haves := make([]plumbing.Hash, 0, len(heads))
	for _, h := range heads {
		if !seen[h] && len(haves) < maxHaves {
			seen[h] = true
			haves = append(haves, h)
		}
	}
	walked := map[plumbing.Hash]bool{}
	for _, h := range heads {
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
