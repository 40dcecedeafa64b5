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
	"errors"
	"maps"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// Several commits from one change. A caller that keeps Git as an audit
// trail (a Mirror with commit PerChange: one commit per object that
// changed, each naming its object and, with attribution, authored by who
// changed it) still computes one change from one read of the branch, and
// wants one result for it under one key (Enqueue, TakeResult): its Parts
// are the commits. The writer puts them in order, right after the commits
// of the changes queued before, and pushes them with the rest of the
// window: a window of N parts is N commits and one push.
//
// The parts of a change land together or not at all. They were computed
// together (a Mirror's object files and the ownership record beside them),
// so a later part may rely on an earlier one, and landing some would
// record a state nobody computed. Each part's Expect is checked on the tree
// as the parts before it left it, on every build (so again after a rebase
// onto a head someone else pushed); the first that fails fails the whole
// change with its *PreconditionError, nothing of it is committed, and the
// rest of the batch lands. A caller then plans again on the head that
// refused it, as it does for a change without parts.

const errPartsAndFiles = "a change with parts carries its files in its parts: Puts, Deletes and Expect must be empty"

// Part is one commit of a Change with Parts.
type Part struct {
	// Puts maps a slash-separated path to its desired content.
	Puts map[string]File
	// Deletes lists paths that must not exist.
	Deletes []string
	// Expect is what the part was computed against (see Change.Expect),
	// checked on the tree the earlier parts of its change leave.
	Expect map[string]string
	// Message of the part's commit; empty takes the change's, then
	// "Update <resource>".
	Message string
	// Author of the part's commit: who made the change it records. Empty
	// takes the change's, then the committer.
	Author Signature
	// Committer of the part's commit; empty takes the change's, then the
	// default (the cache's committer, or the author when signing: see
	// writer.identities).
	Committer Signature
	// Resource behind the part, written as trailers; empty takes the
	// change's.
	Resource Resource
}

// member is a change applied to the staged tree and not committed yet: its
// index in the batch and what it applied.
type member struct {
	i    int
	part *Part
}

// single is the one part of a change without Parts.
func (c *Change) single() *Part {
	return &Part{Puts: c.Puts, Deletes: c.Deletes, Expect: c.Expect, Message: c.Message, Author: c.Author, Committer: c.Committer, Resource: c.Resource}
}

// part is c's part k with the change's defaults filled in.
func (c *Change) part(k int) *Part {
	p := c.Parts[k]
	if p.Message == "" {
		p.Message = c.Message
	}
	if p.Author == (Signature{}) {
		p.Author = c.Author
	}
	if p.Committer == (Signature{}) {
		p.Committer = c.Committer
	}
	if p.Resource == (Resource{}) {
		p.Resource = c.Resource
	}
	return &p
}

// savepoint is where a planner stood after its last commit: what a change
// with parts that fails midway rolls back to.
type savepoint struct {
	head, tree plumbing.Hash
	objects    int
}

// addParts commits change i's parts in order, each on its own, or none of
// them when one fails (the batch goes on without it). A part already
// satisfied, or that undoes the one before, makes no commit.
func (pl *planner) addParts(i int) error {
	c := pl.ops[i].change
	res := &pl.p.results[i]
	if len(c.Puts) > 0 || len(c.Deletes) > 0 || len(c.Expect) > 0 {
		*res = Result{Err: &Error{Kind: KindInvalidChange, Err: errors.New(errPartsAndFiles)}}
		return nil
	}
	// The staged tree is the parent's after a flush, so a rollback only
	// needs to remember where the planner stood.
	if err := pl.flush(); err != nil {
		return err
	}
	sp := savepoint{head: pl.p.head, tree: pl.parentTree, objects: len(pl.p.objects)}
	for k := range c.Parts {
		part := c.part(k)
		err := expect(pl.st, pl.t, part)
		var puts []put
		var dels [][]string
		if err == nil {
			puts, dels, err = check(pl.st, pl.t, part)
		}
		if err != nil {
			pl.rollback(sp)
			*res = Result{Err: err}
			return nil //nolint:nilerr // The change fails alone; the batch goes on without it.
		}
		if len(puts) == 0 && len(dels) == 0 {
			continue
		}
		if err := pl.apply(puts, dels); err != nil {
			return err
		}
		if _, err := pl.commitTree([]*Part{part}); err != nil {
			return err
		}
	}
	*res = Result{Commit: commitOf(pl.p.head), UpToDate: pl.p.head == sp.head}
	return nil
}

// rollback forgets the commits made since sp: their objects stay in the
// overlay, unreferenced, and are not packed.
func (pl *planner) rollback(sp savepoint) {
	pl.p.head, pl.parentTree = sp.head, sp.tree
	pl.p.objects = pl.p.objects[:sp.objects]
	pl.t = newTree(sp.tree)
}

// sameParts reports whether a and b would make the same commits' trees and
// authors. Messages are not compared (see sameContent); authors are: the
// same files by another person are another entry in the trail.
func sameParts(a, b []Part) bool {
	return slices.EqualFunc(a, b, func(x, y Part) bool {
		return x.Author == y.Author && x.Committer == y.Committer && sameFiles(x.Puts, y.Puts, x.Deletes, y.Deletes)
	})
}

// sameFiles reports whether two sets of puts and deletes are the same.
func sameFiles(aPuts, bPuts map[string]File, aDels, bDels []string) bool {
	if !slices.Equal(aDels, bDels) {
		return false
	}
	return maps.EqualFunc(aPuts, bPuts, func(x, y File) bool {
		return x.Executable == y.Executable && bytes.Equal(x.Content, y.Content)
	})
}
