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
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// A HeadMove is a branch whose head changed in a clone of this process:
// pushed by one of its branch writers, or brought by a fetch (a poll's or
// a resource's). Poll reports only what others pushed, and by path; a
// HeadMove is every change of a head, mine or theirs, so that what follows
// a branch as a whole (a pull request's head and base) learns of it at
// once rather than at its next poll.
type HeadMove struct {
	// Repo is the clone's Repository.ID.
	Repo   string
	Branch string
	// Old is empty when the branch appeared, New when it went.
	Old, New string
}

// OnHeadMove adds f to the functions told of every HeadMove of every clone
// of the cache. f is called from the goroutine that pushed or fetched, with
// no lock of the clone held: it must not block (a watch.Watcher only
// enqueues).
func (c *Cache) OnHeadMove(f func(HeadMove)) {
	c.hmu.Lock()
	defer c.hmu.Unlock()
	c.onMove = append(c.onMove, f)
}

// headsMoved tells the functions of OnHeadMove of moves. Call it with no
// lock of the clone held.
func (c *Cache) headsMoved(moves []HeadMove) {
	if len(moves) == 0 {
		return
	}
	c.hmu.Lock()
	fs := slices.Clone(c.onMove)
	c.hmu.Unlock()
	for _, m := range moves {
		for _, f := range fs {
			f(m)
		}
	}
}

// headMove is the move of branch from old to h in r ("" for a zero hash).
func (r *Repository) headMove(branch string, old, h plumbing.Hash) HeadMove {
	m := HeadMove{Repo: r.id, Branch: branch}
	if !old.IsZero() {
		m.Old = old.String()
	}
	if !h.IsZero() {
		m.New = h.String()
	}
	return m
}
