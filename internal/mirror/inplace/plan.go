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
	"fmt"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"go.yaml.in/yaml/v3"

	"github.com/crossplane-contrib/provider-git/internal/kustomize"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

const (
	errEditFmt   = "cannot edit %s in %s"
	errRenderFmt = "cannot read the rendering of %s"
)

// DocRef names a document a Mirror edits in place: the file it is in and
// the object it holds, by the identity the index matched.
type DocRef struct {
	File      string `json:"file"`
	Group     string `json:"group,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func refOf(file string, o mirror.Object) DocRef {
	return DocRef{File: file, Group: o.GVK.Group, Kind: o.GVK.Kind, Namespace: o.Namespace, Name: o.Name}
}

func (r DocRef) String() string {
	return r.File + ": " + yamledit.ID{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}.String()
}

// FoundTwiceError says an object's document is in two places of the
// folder: editing one would leave the other saying something else.
type FoundTwiceError struct {
	Object        string
	First, Second string
}

func (e *FoundTwiceError) Error() string {
	return fmt.Sprintf("%s is found twice in the folder, in %s and in %s: keep one of them", e.Object, e.First, e.Second)
}

// UnsupportedLayoutError says the folder uses something the InPlace layout
// does not model, named with the file that uses it; nothing is written.
type UnsupportedLayoutError struct {
	Feature string
	File    string
}

func (e *UnsupportedLayoutError) Error() string {
	return fmt.Sprintf("%s uses %s, which the InPlace layout does not edit: remove it, or use layout Folder", e.File, e.Feature)
}

// Plan is what an InPlace folder needs to hold the snapshot, beside
// what the caller lays out itself.
type Plan struct {
	// Puts are files edited in place or added to a kustomization, by path
	// relative to the folder.
	Puts map[string][]byte
	// Deletes are files whose last document went.
	Deletes []string
	// Docs are the documents the Mirror owns afterwards, sorted.
	Docs []DocRef
	// Created are the files of Puts the Mirror made (new objects added to
	// a kustomization's resources): it owns them whole.
	Created []string
	// New are the objects found nowhere (or in their own layout file),
	// for the caller to write at their layout path.
	New []mirror.Object
	// Steps are the plan's changes, one per object it edits, adds to a
	// kustomization or removes, in the order they were planned (steps.go);
	// their files only when the plan was made with Mirror.Steps.
	Steps []Step
}

// plan finds each object of objs in the index and plans the edits that
// make its document the live object (under FieldRule), and the removal of
// owned documents whose object is gone (when prune). A document without a
// namespace holds an object of defaultNS, or a cluster-scoped one. A
// document a kustomization renders is found by what it renders and changed
// through the layout (kustomize.Layout.Change); a new object of a namespace
// exactly one kustomization sets becomes a file of that kustomization.
// Secrets are left to the caller.
func (x *Index) plan(objs []mirror.Object, owned []DocRef, m Mirror) (Plan, error) {
	defaultNS, prune := m.Namespace, m.Prune
	lay, err := x.kustomizations()
	if err != nil {
		return Plan{}, err
	}
	at, err := x.lookup(lay)
	if err != nil {
		return Plan{}, err
	}
	pl := &planner{x: x, lay: lay, at: at, defaultNS: defaultNS, out: Plan{Puts: map[string][]byte{}},
		edits: map[string][]pending{}, mine: map[DocRef]bool{}, kedits: kustomize.Edits{}, steps: m.Steps, hold: m.Hold}
	for _, o := range objs {
		if o.Secret {
			continue
		}
		if err := pl.object(o); err != nil {
			return Plan{}, err
		}
	}
	for _, r := range owned {
		if err := pl.gone(r, prune); err != nil {
			return Plan{}, err
		}
	}
	return pl.finish()
}

// planner is one plan under way.
type planner struct {
	x         *Index
	lay       *kustomize.Layout
	at        map[yamledit.ID][]loc
	defaultNS string
	out       Plan
	// edits are the plain files' edits; kedits the layout's, made on lay
	// as they are planned.
	edits  map[string][]pending
	kedits kustomize.Edits
	mine   map[DocRef]bool
	// steps: record each step's files (Mirror.Steps); hold: the objects
	// held as Git has them (Mirror.Hold).
	steps bool
	hold  map[string]bool
}

func (pl *planner) candidates(o mirror.Object) []loc {
	id := yamledit.ID{Group: o.GVK.Group, Kind: o.GVK.Kind, Namespace: o.Namespace, Name: o.Name}
	cands := slices.Clone(pl.at[id])
	if o.Namespace != "" && o.Namespace == pl.defaultNS {
		id.Namespace = ""
		for _, l := range pl.at[id] {
			if l.root == "" && pl.x.files[l.file].file.Docs[l.doc].NoNamespace {
				cands = append(cands, l)
			}
		}
	}
	return cands
}

func (pl *planner) object(o mirror.Object) error {
	cands := pl.candidates(o)
	switch {
	case len(cands) > 1:
		return &FoundTwiceError{Object: o.GVK.Kind + " " + o.NamespacedName(), First: cands[0].String(), Second: cands[1].String()}
	case len(cands) == 0, cands[0].root == "" && cands[0].file == o.Path:
		// Nowhere, or in the file the Mirror lays out for it.
		if pl.held(o.Path) {
			// Held: the caller's layout holds it too.
			pl.out.New = append(pl.out.New, o)
			return nil
		}
		return pl.create(o)
	}
	l := cands[0]
	pl.mine[refOf(l.file, o)] = true
	if pl.held(o.Path) {
		// Its change waits for who made it, or ignored users alone made
		// it: its document stays as Git has it.
		return nil
	}
	if l.root != "" {
		return pl.kustomized(o, l)
	}
	f := pl.x.files[l.file]
	d := f.file.Docs[l.doc]
	if d.Err != nil {
		// Anchors, a key twice, a bare carriage return, or nesting past
		// yamledit.MaxDepth: each names itself.
		return &UnsupportedLayoutError{Feature: "a document an edit could not keep (" + d.Err.Error() + ")", File: l.file}
	}
	k := sameKey{blob: f.blob, doc: l.doc, content: contentHash(o.Content)}
	if pl.x.same[k] {
		return nil
	}
	want, err := yamledit.ParseValue(o.Content)
	if err != nil {
		return errors.Wrapf(err, errRenderFmt, o.NamespacedName())
	}
	if yamledit.Same(FieldRule{}, d.Root, want) {
		pl.x.same[k] = true
		return nil
	}
	pl.edits[l.file] = append(pl.edits[l.file], pending{doc: l.doc, want: want, what: o.NamespacedName()})
	return pl.step(refOf(l.file, o), StepEdited, &o, l.file, nil)
}

// kustomized changes what root renders as o, on the layout as edited so
// far.
func (pl *planner) kustomized(o mirror.Object, l loc) error {
	cur, ok := pl.lay.Object(l.root, l.obj.ID)
	if !ok {
		return &UnsupportedLayoutError{Feature: "an edit that lost " + l.obj.ID.String(), File: l.root}
	}
	want, err := yamledit.ParseValue(o.Content)
	if err != nil {
		return errors.Wrapf(err, errRenderFmt, o.NamespacedName())
	}
	if yamledit.Same(FieldRule{}, cur.Value, want) {
		return nil
	}
	edits, after, err := pl.lay.Change(l.root, cur, want, FieldRule{})
	if err != nil {
		return layoutError(err)
	}
	pl.keep(edits, after)
	return pl.step(refOf(l.file, o), StepEdited, &o, "", edits)
}

// create adds o to the kustomization that sets its namespace, or leaves
// it to the caller's layout.
func (pl *planner) create(o mirror.Object) error {
	root, ok := "", false
	if pl.lay != nil && o.Namespace != "" {
		root, ok = pl.lay.RootFor(o.Namespace)
	}
	if !ok {
		pl.out.New = append(pl.out.New, o)
		return nil
	}
	id := yamledit.ID{Group: o.GVK.Group, Kind: o.GVK.Kind, Namespace: o.Namespace, Name: o.Name}
	edits, file, err := pl.lay.AddResource(root, id, o.Content)
	if err != nil {
		return layoutError(err)
	}
	if file == "" {
		// A file of that name is there already (and does not hold it).
		pl.out.New = append(pl.out.New, o)
		return nil
	}
	after, err := pl.lay.Apply(edits)
	if err != nil {
		return layoutError(err)
	}
	pl.keep(edits, after)
	pl.out.Created = append(pl.out.Created, file)
	pl.mine[refOf(file, o)] = true
	return pl.step(refOf(file, o), StepAdded, &o, "", edits)
}

// gone removes owned document r when its object is gone.
func (pl *planner) gone(r DocRef, prune bool) error {
	if pl.mine[r] {
		return nil
	}
	l, ok := pl.x.find(pl.at, r, pl.defaultNS)
	if !ok {
		// Its document went by other hands: nothing left to own.
		return nil
	}
	if !prune || pl.held(pathOf(r)) {
		// Kept (prune Never), or its deletion waits for who made it.
		pl.mine[r] = true
		return nil
	}
	if l.root == "" {
		pl.edits[l.file] = append(pl.edits[l.file], pending{doc: l.doc, remove: true, what: r.String()})
		return pl.step(r, StepRemoved, nil, l.file, nil)
	}
	cur, ok := pl.lay.Object(l.root, l.obj.ID)
	if !ok {
		return nil
	}
	edits, err := pl.lay.Remove(cur)
	if err != nil {
		return layoutError(err)
	}
	after, err := pl.lay.Apply(edits)
	if err != nil {
		return layoutError(err)
	}
	pl.keep(edits, after)
	return pl.step(r, StepRemoved, nil, "", edits)
}

func (pl *planner) keep(edits kustomize.Edits, after *kustomize.Layout) {
	for f, b := range edits {
		pl.kedits[f] = b
	}
	pl.lay = after
}

func (pl *planner) finish() (Plan, error) {
	p := pl.out
	if len(pl.kedits) > 0 {
		// What was verified with this package's renderer must be what
		// kustomize itself builds from the edited folder.
		if err := pl.lay.Verify(); err != nil {
			return Plan{}, layoutError(err)
		}
	}
	for file, es := range pl.edits {
		out, gone, err := apply(pl.x.files[file].file, es)
		if err != nil {
			return Plan{}, errors.Wrapf(err, errEditFmt, es[0].what, file)
		}
		if gone {
			p.Deletes = append(p.Deletes, file)
			continue
		}
		p.Puts[file] = out
	}
	for file, b := range pl.kedits {
		if b == nil {
			if _, existed := pl.x.files[file]; existed {
				p.Deletes = append(p.Deletes, file)
			}
			continue
		}
		p.Puts[file] = b
	}
	slices.Sort(p.Deletes)
	slices.Sort(p.Created)
	for r := range pl.mine {
		p.Docs = append(p.Docs, r)
	}
	SortDocs(p.Docs)
	return p, nil
}

// layoutError is err as the Mirror reports it.
func layoutError(err error) error {
	var u *kustomize.UnsupportedError
	if errors.As(err, &u) {
		return &UnsupportedLayoutError{Feature: u.Feature, File: u.File}
	}
	return err
}

// SortDocs sorts refs by file, then identity.
func SortDocs(refs []DocRef) {
	slices.SortFunc(refs, func(a, b DocRef) int { return strings.Compare(a.String(), b.String()) })
}

// find is where owned document r is now.
func (x *Index) find(at map[yamledit.ID][]loc, r DocRef, defaultNS string) (loc, bool) {
	id := yamledit.ID{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
	ids := []yamledit.ID{id}
	if r.Namespace == defaultNS {
		id.Namespace = ""
		ids = append(ids, id)
	}
	for _, id := range ids {
		for _, l := range at[id] {
			if l.file == r.File {
				return l, true
			}
		}
	}
	return loc{}, false
}

// pending is one edit of a file: a document made want, or removed.
type pending struct {
	doc    int
	want   *yaml.Node
	remove bool
	what   string
}

// apply makes f's edits, then its removals from the last document back,
// so that each index still names its document. gone is set when no object
// document is left.
func apply(f *yamledit.File, es []pending) ([]byte, bool, error) {
	slices.SortStableFunc(es, func(a, b pending) int {
		if a.remove != b.remove {
			if a.remove {
				return 1
			}
			return -1
		}
		if a.remove {
			return b.doc - a.doc
		}
		return a.doc - b.doc
	})
	cur := f
	for _, e := range es {
		var out []byte
		if e.remove {
			var empty bool
			out, empty = cur.Without(e.doc)
			if empty {
				return nil, true, nil
			}
		} else {
			var err error
			if out, _, err = cur.Edit(e.doc, FieldRule{}, e.want); err != nil {
				return nil, false, err
			}
		}
		next, err := yamledit.Parse(out)
		if err != nil {
			return nil, false, err
		}
		cur = next
	}
	return cur.Content, false, nil
}
