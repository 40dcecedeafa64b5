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

package commits

import (
	"slices"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
)

// A Mirror is what the commits read of a Mirror.
type Mirror struct {
	// Path is the Mirror's folder ("." for the root).
	Path string
	// PerChange commits each object's change on its own (commit
	// PerChange), once the folder is the Mirror's.
	PerChange bool
	// Resource names the Mirror in every commit's trailers.
	Resource git.Resource
	// Author is the configuration's identity: each commit's author, or its
	// committer (and signer) when attribution names the author.
	Author git.Signature
	// Window is the configuration's commit window, carried by the change.
	Window *time.Duration
	// Message renders the message of one commit of n files.
	Message func(n int) (string, error)
	// ChangeMessage renders the message of the commit that records c
	// alone (commit PerChange).
	ChangeMessage func(c plan.Change) (string, error)
}

// Change is d as the change m hands its branch writer, with its commit
// message: one commit, or with commit PerChange one commit per object once
// the folder is m's (d.Claimed). at is what attribution decided for d; nil
// without attribution, and for the removal of the folder. With it, each
// commit is authored by who made its changes and committed (and signed) by
// m.Author: with PerChange each object's commit, else one commit per
// author.
func (m Mirror) Change(d plan.Diff, at *attribution.Decision) (git.Change, error) {
	msg, err := m.Message(d.Size())
	if err != nil {
		return git.Change{}, err
	}
	c := git.Change{Message: msg, Author: m.Author, Window: m.Window, Resource: m.Resource}
	if d.InPlace && at != nil && d.Claimed && len(d.Changes) > 0 {
		// Edits in place: a file may hold several authors' changes, so
		// the commits follow the changes, one each, or one per run of
		// one author's.
		return m.inPlaceParts(c, d, at)
	}
	if m.PerChange && d.Claimed && len(d.Changes) > 0 {
		ps, rels, err := m.parts(d)
		if err != nil {
			return git.Change{}, err
		}
		c.Parts = ps
		if at != nil {
			attribution.AuthorObjects(ps, rels, at)
			c.Committer = m.Author
		}
		return c, nil
	}
	c.Puts, c.Deletes, c.Expect = d.Puts, d.Deletes, d.Expect
	if at == nil {
		return c, nil
	}
	ps, err := attribution.Parts(m.Path, c, at, m.Message)
	if err != nil {
		return git.Change{}, err
	}
	c.Puts, c.Deletes, c.Expect, c.Parts, c.Committer = nil, nil, nil, ps, m.Author
	return c, nil
}

// parts cuts d into one part per object's change, in commit order (see
// plan.Ordered; an InPlace plan's order as planned): each with its file
// (an edit in place: its files as they stand after it), what that file was
// decided on, and a message naming the object; and each part's object, as
// attribution knows it (plan.Change.Rel). The marker's expectation rides
// with the first part (every part depends on what the marker says the
// Mirror owns), its rewrite with the last, and anything d writes that no
// object accounts for with the last too. Of an InPlace plan every
// expectation rides with the first part: the edits were decided on the
// whole folder as read, and a later part may write a file an earlier one
// wrote.
func (m Mirror) parts(d plan.Diff) ([]git.Part, []string, error) {
	changes := d.Changes
	if !d.InPlace {
		changes = plan.Ordered(d.Changes)
	}
	parts := make([]git.Part, 0, len(changes))
	rels := make([]string, 0, len(changes))
	used := map[string]bool{}
	for _, c := range changes {
		msg, err := m.ChangeMessage(c)
		if err != nil {
			return nil, nil, err
		}
		p := partOf(c, d, used)
		p.Message = msg
		if sha, ok := d.Expect[c.File]; ok && !d.InPlace {
			p.Expect = map[string]string{c.File: sha}
		}
		used[c.File] = true
		parts = append(parts, p)
		rels = append(rels, c.Rel(m.Path))
	}
	if len(parts) == 0 {
		return nil, nil, nil
	}
	first, last := &parts[0], &parts[len(parts)-1]
	for file, sha := range d.Expect {
		if !used[file] || d.InPlace {
			if first.Expect == nil {
				first.Expect = map[string]string{}
			}
			first.Expect[file] = sha
		}
	}
	for file, f := range d.Puts {
		if !used[file] {
			if last.Puts == nil {
				last.Puts = map[string]git.File{}
			}
			last.Puts[file] = f
		}
	}
	for _, file := range d.Deletes {
		if !used[file] {
			last.Deletes = append(last.Deletes, file)
		}
	}
	return parts, rels, nil
}

// partOf is the part of c, a change of d, without its message: its file
// (an edit in place: its files), each recorded in used.
func partOf(c plan.Change, d plan.Diff, used map[string]bool) git.Part {
	var p git.Part
	f, put := d.Puts[c.File]
	switch {
	case c.Puts != nil || c.Deletes != nil:
		p.Puts, p.Deletes = c.Puts, c.Deletes
		for f := range c.Puts {
			used[f] = true
		}
		for _, f := range c.Deletes {
			used[f] = true
		}
	case put:
		p.Puts = map[string]git.File{c.File: f}
	default:
		p.Deletes = []string{c.File}
	}
	return p
}

// inPlaceParts is c as the commits of d, planned in place, whose join
// decided at: one commit per change (commit PerChange), or one per run of
// one author's changes, each authored by who made them, in the order they
// were planned. A file of several objects' documents is written by each
// change that edits it, holding the changes before it, so the changes are
// never regrouped by author across another's.
func (m Mirror) inPlaceParts(c git.Change, d plan.Diff, at *attribution.Decision) (git.Change, error) {
	ps, rels, err := m.parts(d)
	if err != nil {
		return git.Change{}, err
	}
	blocks := attribution.AuthorObjects(ps, rels, at)
	c.Committer = m.Author
	if m.PerChange {
		c.Parts = ps
		return c, nil
	}
	c.Parts, err = runs(ps, blocks, m.Message)
	return c, err
}

// runs joins consecutive parts of one author and one trailer block
// (blocks) into one part each, a later part's files over an earlier one's,
// with msg's message of its files and the run's trailers.
func runs(ps []git.Part, blocks []string, msg func(n int) (string, error)) ([]git.Part, error) {
	var out []git.Part
	var outBlocks []string
	for i, p := range ps {
		if n := len(out); n > 0 && out[n-1].Author == p.Author && outBlocks[n-1] == blocks[i] {
			join(&out[n-1], p)
			continue
		}
		q := git.Part{Author: p.Author, Expect: p.Expect}
		join(&q, p)
		out = append(out, q)
		outBlocks = append(outBlocks, blocks[i])
	}
	for i := range out {
		m, err := msg(len(out[i].Puts) + len(out[i].Deletes))
		if err != nil {
			return nil, err
		}
		out[i].Message = attribution.WithTrailers(m, outBlocks[i])
	}
	return out, nil
}

// join adds p's files to q: a put or delete of p over q's of the same file.
// Only the first part of an InPlace plan expects anything (parts).
func join(q *git.Part, p git.Part) {
	for f, c := range p.Puts {
		if q.Puts == nil {
			q.Puts = map[string]git.File{}
		}
		q.Puts[f] = c
		q.Deletes = slices.DeleteFunc(q.Deletes, func(d string) bool { return d == f })
	}
	for _, f := range p.Deletes {
		delete(q.Puts, f)
		if !slices.Contains(q.Deletes, f) {
			q.Deletes = append(q.Deletes, f)
		}
	}
}
