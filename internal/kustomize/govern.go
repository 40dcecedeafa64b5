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

package kustomize

import (
	"path"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"go.yaml.in/yaml/v3"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

const (
	errNoDocFmt   = "%s has no document to edit"
	errEditedFmt  = "the edited %s is not valid YAML"
	errNoTagFmt   = "an image without a tag or digest (%s) over %s"
	errMovedFmt   = "a change of %s that its kustomizations cannot express without moving %s"
	errOtherFmt   = "a change of %s other than its images and replicas, whose document is shared by several overlays (patches are not modelled)"
	errDeleteFmt  = "the deletion of %s, whose document is shared by several overlays (patches are not modelled)"
	errResListFmt = "%s lists no resource %s"
)

// Edits are the new contents of files, by path; nil removes a file.
type Edits map[string][]byte

// Change returns the edits that make root render o (which it renders now)
// as live, under rule, and the layout after them. An image goes to the
// root's images entry that matches it, or to its document when the root
// lists the document itself and no entry matches, or to a new entry of
// the root; a replica count likewise to the root's replicas entry. Any
// other change goes to the document, unless other roots render it too.
// The edits are verified by rendering every root again: o must now render
// as live, and nothing else may move.
func (l *Layout) Change(root string, o Object, live *yaml.Node, rule yamledit.Rule) (Edits, *Layout, error) {
	c := &change{l: l, root: root, o: o, edits: Edits{}}
	doc := l.Files[o.File].Docs[o.Doc].Root
	own := !l.Shared(o.File) && len(o.Via) == 1
	have, want := imagesOf(o.Value), imagesOf(live)
	// The rendering with live's images and replica count: anything else
	// that differs is a change of the document.
	probe := Copy(o.Value)
	if len(have) == len(want) {
		setImages(probe, want)
	}
	liveReplicas := child(child(live, "spec"), "replicas")
	if liveReplicas != nil && slices.Contains(scaled, o.ID.Kind) {
		set(ensureMap(probe, "spec"), "replicas", Copy(liveReplicas))
	}
	if !yamledit.Same(rule, probe, live) {
		if l.Shared(o.File) || len(have) != len(want) {
			return nil, nil, &UnsupportedError{Feature: errors.Errorf(errOtherFmt, o.ID).Error(), File: o.File}
		}
		w := Copy(live)
		setImages(w, imagesOf(doc))
		if r := child(child(doc, "spec"), "replicas"); r != nil {
			set(ensureMap(w, "spec"), "replicas", Copy(r))
		} else if s := child(w, "spec"); s != nil {
			unset(s, "replicas")
		}
		c.docWant = yamledit.Merge(rule, doc, w)
	}
	if err := c.images(have, want, own); err != nil {
		return nil, nil, err
	}
	if liveReplicas != nil && slices.Contains(scaled, o.ID.Kind) {
		if r := child(child(o.Value, "spec"), "replicas"); r == nil || r.Value != liveReplicas.Value {
			c.replicas(liveReplicas, own)
		}
	}
	if err := c.finish(rule, doc); err != nil {
		return nil, nil, err
	}
	after, err := l.Apply(c.edits)
	if err != nil {
		return nil, nil, err
	}
	if moved := l.moved(after, root, o.ID, live, rule); moved != "" {
		return nil, nil, &UnsupportedError{Feature: errors.Errorf(errMovedFmt, o.ID, moved).Error(), File: root}
	}
	return c.edits, after, nil
}

// change is one Change under way.
type change struct {
	l       *Layout
	root    string
	o       Object
	edits   Edits
	docWant *yaml.Node
	// kust is the root kustomization as edited so far.
	kust *yaml.Node
}

func (c *change) doc() *yaml.Node {
	if c.docWant == nil {
		c.docWant = Copy(c.l.Files[c.o.File].Docs[c.o.Doc].Root)
	}
	return c.docWant
}

func (c *change) kustomization() *yaml.Node {
	if c.kust == nil {
		for _, d := range c.l.Kustomizations[c.root].Source.Docs {
			if d.Root != nil {
				c.kust = Copy(d.Root)
			}
		}
		if c.kust == nil {
			c.kust = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
	}
	return c.kust
}

// images plans each container image that differs.
func (c *change) images(have, want []string, own bool) error {
	if len(have) != len(want) || slices.Equal(have, want) {
		return nil
	}
	pre, err := RenderUntransformed(c.l.Files, c.root)
	if err != nil {
		return err
	}
	var before []string
	for _, p := range pre {
		if p.File == c.o.File && p.Doc == c.o.Doc {
			before = imagesOf(p.Value)
		}
	}
	if len(before) != len(have) {
		return &UnsupportedError{Feature: "containers that its own kustomization does not render", File: c.root}
	}
	for i := range have {
		if have[i] == want[i] {
			continue
		}
		if err := c.image(before[i], want[i], own, i); err != nil {
			return err
		}
	}
	return nil
}

// image makes the image that enters the root as from leave it as to.
func (c *change) image(from, to string, own bool, i int) error {
	k := c.l.Kustomizations[c.root]
	for _, e := range k.Images {
		if matches(from, e.Name) {
			return c.setEntry(from, to, e.Name)
		}
	}
	if own {
		n := 0
		eachImage(c.doc(), func(im *yaml.Node) {
			if n == i {
				im.Value = to
			}
			n++
		})
		return nil
	}
	name, _, _ := Split(from)
	return c.setEntry(from, to, name)
}

// setEntry makes the root's images entry called name turn from into to.
func (c *change) setEntry(from, to, name string) error {
	fromName, _, _ := Split(from)
	toName, tag, digest := Split(to)
	if tag == "" && digest == "" && from != fromName {
		return &UnsupportedError{Feature: errors.Errorf(errNoTagFmt, to, from).Error(), File: c.root}
	}
	k := c.kustomization()
	seq := child(k, "images")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		set(k, "images", seq)
	}
	var entry *yaml.Node
	for _, it := range seq.Content {
		if n := child(it, "name"); n != nil && n.Value == name {
			entry = it
		}
	}
	if entry == nil {
		entry = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{str("name"), str(name)}}
		seq.Content = append(seq.Content, entry)
	}
	field := func(key, v string) {
		if v == "" {
			unset(entry, key)
			return
		}
		set(entry, key, str(v))
	}
	if toName != fromName {
		field("newName", toName)
	} else {
		unset(entry, "newName")
	}
	field("newTag", tag)
	field("digest", digest)
	return nil
}

// replicas sets the count: the root's entry when it has one, the document
// when the root lists it itself, a new entry otherwise.
func (c *change) replicas(count *yaml.Node, own bool) {
	k := c.kustomization()
	if seq := child(k, "replicas"); seq != nil {
		for _, it := range seq.Content {
			if n := child(it, "name"); n != nil && n.Value == c.o.ID.Name {
				set(it, "count", Copy(count))
				return
			}
		}
	}
	if own {
		set(ensureMap(c.doc(), "spec"), "replicas", Copy(count))
		return
	}
	seq := child(k, "replicas")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		set(k, "replicas", seq)
	}
	seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{str("name"), str(c.o.ID.Name), str("count"), Copy(count)}})
}

// finish writes the document and the kustomization planned.
func (c *change) finish(rule yamledit.Rule, doc *yaml.Node) error {
	if c.docWant != nil {
		out, changed, err := c.l.Files[c.o.File].Edit(c.o.Doc, yamledit.All{}, yamledit.Merge(rule, doc, c.docWant))
		if err != nil {
			return err
		}
		if changed {
			c.edits[c.o.File] = out
		}
	}
	if c.kust != nil {
		out, err := c.l.editKustomization(c.root, c.kust)
		if err != nil {
			return err
		}
		c.edits[c.root] = out
	}
	return nil
}

// editKustomization is file's content with its document made want.
func (l *Layout) editKustomization(file string, want *yaml.Node) ([]byte, error) {
	f := l.Kustomizations[file].Source
	for i, d := range f.Docs {
		if d.Root != nil {
			out, _, err := f.Edit(i, yamledit.All{}, want)
			return out, err
		}
	}
	return nil, errors.Errorf(errNoDocFmt, file)
}

// Apply is the layout with edits made.
func (l *Layout) Apply(edits Edits) (*Layout, error) {
	fs := make(Files, len(l.Files))
	for p, f := range l.Files {
		fs[p] = f
	}
	for p, b := range edits {
		if b == nil {
			delete(fs, p)
			continue
		}
		f, err := yamledit.Parse(b)
		if err != nil {
			return nil, errors.Wrapf(err, errEditedFmt, p)
		}
		fs[p] = f
	}
	return Build(fs)
}

// moved names what renders differently in after than in l, beside root's
// object id, which must render as live under rule; "" when nothing did.
func (l *Layout) moved(after *Layout, root string, id yamledit.ID, live *yaml.Node, rule yamledit.Rule) string {
	if after == nil || !slices.Equal(l.Roots, after.Roots) {
		return "the layout's kustomizations"
	}
	for _, r := range l.Roots {
		b, a := l.Rendered[r], after.Rendered[r]
		if len(a) != len(b) {
			return "the objects " + r + " renders"
		}
		for _, ao := range a {
			if r == root && ao.ID == id {
				if !yamledit.Same(rule, ao.Value, live) {
					return id.String() + " itself (it would not render as the live object)"
				}
				continue
			}
			bo, ok := l.Object(r, ao.ID)
			if !ok || !yamledit.Same(yamledit.All{}, bo.Value, ao.Value) || !yamledit.Same(yamledit.All{}, ao.Value, bo.Value) {
				return ao.ID.String() + " as " + r + " renders it"
			}
		}
	}
	return ""
}

// AddResource returns the edits that add a new file holding content to
// root's resources, named after the object, and the file's path.
func (l *Layout) AddResource(root string, id yamledit.ID, content []byte) (Edits, string, error) {
	k := l.Kustomizations[root]
	name := strings.ToLower(id.Kind) + "-" + id.Name + ".yaml"
	file := join(k.Dir, name)
	if _, taken := l.Files[file]; taken {
		return nil, "", nil
	}
	c := &change{l: l, root: root}
	kn := c.kustomization()
	seq := child(kn, "resources")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		set(kn, "resources", seq)
	}
	seq.Content = append(seq.Content, str(name))
	out, err := l.editKustomization(root, kn)
	if err != nil {
		return nil, "", err
	}
	return Edits{root: out, file: content}, file, nil
}

// Remove returns the edits that remove o's document (rendered by root),
// with its file and the file's resources entry when it was the last
// document. A document other roots render too is refused.
func (l *Layout) Remove(o Object) (Edits, error) {
	if l.Shared(o.File) {
		return nil, &UnsupportedError{Feature: errors.Errorf(errDeleteFmt, o.ID).Error(), File: o.File}
	}
	out, empty := l.Files[o.File].Without(o.Doc)
	if !empty {
		return Edits{o.File: out}, nil
	}
	edits, err := l.RemoveResource(o.Via[len(o.Via)-1], o.File)
	if err != nil {
		return nil, err
	}
	edits[o.File] = nil
	return edits, nil
}

// RemoveResource returns the edit that takes file out of the resources of
// kustomization kfile.
func (l *Layout) RemoveResource(kfile, file string) (Edits, error) {
	k := l.Kustomizations[kfile]
	c := &change{l: l, root: kfile}
	kn := c.kustomization()
	for _, key := range []string{"resources", "bases"} {
		seq := child(kn, key)
		if seq == nil {
			continue
		}
		for i, it := range seq.Content {
			if join(k.Dir, it.Value) == file {
				seq.Content = slices.Delete(seq.Content, i, i+1)
				out, err := l.editKustomization(kfile, kn)
				if err != nil {
					return nil, err
				}
				return Edits{kfile: out}, nil
			}
		}
	}
	return nil, errors.Errorf(errResListFmt, kfile, path.Base(file))
}

// imagesOf lists the container images of n in document order.
func imagesOf(n *yaml.Node) []string {
	var out []string
	eachImage(n, func(im *yaml.Node) { out = append(out, im.Value) })
	return out
}

// setImages sets n's container images, in document order, to images.
func setImages(n *yaml.Node, images []string) {
	i := 0
	eachImage(n, func(im *yaml.Node) {
		if i < len(images) {
			im.Value, im.Tag, im.Style = images[i], "!!str", 0
		}
		i++
	})
}

func unset(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}
