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
	if m.PerChange && d.Claimed && len(d.Changes) > 0 {
		if c.Parts, err = m.parts(d); err != nil {
			return git.Change{}, err
		}
		if at != nil {
			attribution.AuthorParts(m.Path, c.Parts, at)
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
// plan.Ordered): each with its file, what that file was decided on, and a
// message naming the object. The marker's expectation rides with the first
// part (every part depends on what the marker says the Mirror owns), its
// rewrite with the last, and anything d writes that no object accounts for
// with the last too.
func (m Mirror) parts(d plan.Diff) ([]git.Part, error) {
	changes := plan.Ordered(d.Changes)
	parts := make([]git.Part, 0, len(changes))
	used := map[string]bool{}
	for _, c := range changes {
		msg, err := m.ChangeMessage(c)
		if err != nil {
			return nil, err
		}
		p := git.Part{Message: msg}
		if f, ok := d.Puts[c.File]; ok {
			p.Puts = map[string]git.File{c.File: f}
		} else {
			p.Deletes = []string{c.File}
		}
		if sha, ok := d.Expect[c.File]; ok {
			p.Expect = map[string]string{c.File: sha}
		}
		used[c.File] = true
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	first, last := &parts[0], &parts[len(parts)-1]
	for file, sha := range d.Expect {
		if !used[file] {
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
	return parts, nil
}
