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

package inplace

import (
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/internal/kustomize"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// One commit per object's change (commit PerChange), and commits authored
// by who made each change (attribution), need a plan cut by object: which
// files one object's change writes, where an edit in place may touch
// several files (an overlay's patch and its kustomization) and one file may
// hold several objects' changes (a multi-document file). A plan made with
// Mirror.Steps records, for each object it changes, a Step: the files as
// they stand once that change and every one before it are made, each
// overlay edit checked by kustomize at that step. Made in order, the steps
// are the plan's Puts and Deletes. Objects are planned in the order the
// caller gives them (a Mirror's commit order: by resourceVersion), removals
// after them.

// A Step is one object's change in a plan made step by step.
type Step struct {
	// Object names the object and the document it is in (for a new object
	// added to a kustomization, the file made for it).
	Object DocRef
	// Path is the object's layout path (mirror.Path): what a Mirror's
	// attribution knows the object by.
	Path string
	// Verb says what the step does to the object's document: Edited,
	// Added (a new file of a kustomization) or Removed.
	Verb string
	// RV is the object's resourceVersion; "" for a removal.
	RV string
	// Blob is the object's rendering (mirror.Object.Content) for an edit
	// or an addition; nil for a removal.
	Blob []byte
	// Puts and Deletes are the files the step writes and removes, by path
	// relative to the folder; nil without Mirror.Steps.
	Puts    map[string][]byte
	Deletes []string
}

// What a Step does to its object's document.
const (
	StepEdited  = "Edited"
	StepAdded   = "Added"
	StepRemoved = "Removed"
)

// pathOf is r's object's layout path.
func pathOf(r DocRef) string {
	return mirror.PathOf(r.Group, r.Kind, r.Namespace, r.Name)
}

// held reports whether the object at layout path p is held as Git has it.
func (pl *planner) held(p string) bool { return pl.hold[p] }

// step records a change of the object r to the plan's steps: its files,
// when the plan is made step by step, are the plain file's as its edits so
// far leave it (file) or the layout's edits (kedits), checked by kustomize
// on the layout they leave.
func (pl *planner) step(r DocRef, verb string, o *mirror.Object, file string, kedits kustomize.Edits) error {
	s := Step{Object: r, Path: pathOf(r), Verb: verb}
	if o != nil {
		s.Path, s.RV, s.Blob = o.Path, o.ResourceVersion, o.Content
	}
	if !pl.steps {
		pl.out.Steps = append(pl.out.Steps, s)
		return nil
	}
	s.Puts = map[string][]byte{}
	if file != "" {
		es := pl.edits[file]
		out, gone, err := apply(pl.x.files[file].file, slices.Clone(es))
		if err != nil {
			return errors.Wrapf(err, errEditFmt, es[len(es)-1].what, file)
		}
		if gone {
			s.Deletes = []string{file}
		} else {
			s.Puts[file] = out
		}
	}
	if len(kedits) > 0 {
		if err := pl.lay.Verify(); err != nil {
			return layoutError(err)
		}
	}
	for f, b := range kedits {
		if b != nil {
			s.Puts[f] = b
			continue
		}
		if _, existed := pl.x.files[f]; existed {
			s.Deletes = append(s.Deletes, f)
		}
	}
	slices.Sort(s.Deletes)
	pl.out.Steps = append(pl.out.Steps, s)
	return nil
}
