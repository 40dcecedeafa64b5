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
	"cmp"
	"fmt"
	"hash/fnv"
	"path"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/internal/kustomize"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// What a file the index cannot use is, as UnsupportedLayoutError names it.
const (
	featureInvalid = "a file that is not valid YAML"
	featureBound   = "a file past the bounds of what this provider reads"
)

// Index is every YAML document of a Mirror's folder, by identity, for the
// InPlace layout. It is kept between plans and reads a file again only when
// its blob changed, so a steady folder costs no read at all.
type Index struct {
	files map[string]*indexed
	// same keeps Same verdicts: (file blob, document, rendering) -> up to
	// date, so a steady plan parses no rendering either.
	same map[sameKey]bool
	// layout is the folder's kustomizations as rendered, kept while no
	// file changes (stale set when one did).
	layout *kustomize.Layout
	stale  bool
}

type indexed struct {
	blob string
	file *yamledit.File
	err  error
}

type sameKey struct {
	blob    string
	doc     int
	content uint64
}

// NewIndex is an empty index.
func NewIndex() *Index {
	return &Index{files: map[string]*indexed{}, same: map[sameKey]bool{}, stale: true}
}

// Indexed reports whether a file of the folder (relative path) is read into
// the index: a YAML file that is not the marker, nor a layout Secret.
func Indexed(rel string) bool {
	base := path.Base(rel)
	if strings.HasPrefix(base, ".") || strings.HasSuffix(base, mirror.SecretExtension) {
		return false
	}
	return strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml")
}

// Update brings the index to files (relative path to blob id), reading
// with read the files whose blob it has not parsed. A read that fails with
// a *yamledit.BoundError (a file too large to read) indexes the file as
// unusable, as Parse does a file past a bound, rather than failing.
func (x *Index) Update(files map[string]string, read func(rel string) ([]byte, error)) error {
	for rel := range x.files {
		if _, ok := files[rel]; !ok {
			delete(x.files, rel)
		}
	}
	for rel, blob := range files {
		if !Indexed(rel) {
			continue
		}
		if have, ok := x.files[rel]; ok && have.blob == blob {
			continue
		}
		b, err := read(rel)
		var bound *yamledit.BoundError
		if errors.As(err, &bound) {
			x.files[rel] = &indexed{blob: blob, err: bound}
			x.stale = true
			continue
		}
		if err != nil {
			return err
		}
		f, perr := yamledit.Parse(b)
		x.files[rel] = &indexed{blob: blob, file: f, err: perr}
		x.stale = true
	}
	if len(x.same) > 4*len(x.files)+1024 {
		// Verdicts of blobs gone; cheaper to forget them all now and then
		// than to track which.
		x.same = map[sameKey]bool{}
	}
	return nil
}

// loc is where a document is: file and index; for a document a
// kustomization renders, the root that renders it and what it renders.
type loc struct {
	file string
	doc  int
	line int
	root string
	obj  kustomize.Object
}

func (l loc) String() string {
	if l.root != "" {
		return fmt.Sprintf("%s (document %d, line %d, rendered by %s)", l.file, l.doc+1, l.line, l.root)
	}
	return fmt.Sprintf("%s (document %d, line %d)", l.file, l.doc+1, l.line)
}

// kustomizations is the folder's layout, rendered again only when a file
// changed; nil when the folder has no kustomization.
func (x *Index) kustomizations() (*kustomize.Layout, error) {
	if !x.stale {
		return x.layout, nil
	}
	fs := kustomize.Files{}
	for rel, f := range x.files {
		if f.err == nil {
			fs[rel] = f.file
		}
	}
	l, err := kustomize.Build(fs)
	var u *kustomize.UnsupportedError
	if errors.As(err, &u) {
		return nil, &UnsupportedLayoutError{Feature: u.Feature, File: u.File}
	}
	if err != nil {
		return nil, err
	}
	x.layout, x.stale = l, false
	return l, nil
}

// lookup is every object document of the index by identity, documents
// without a namespace under "".
func (x *Index) lookup(l *kustomize.Layout) (map[yamledit.ID][]loc, error) {
	out := map[yamledit.ID][]loc{}
	for rel, f := range x.files {
		var bound *yamledit.BoundError
		switch {
		case errors.As(f.err, &bound):
			// Not parsed, so whether it holds a mirrored object is unknown:
			// skipping it could write an object's second copy.
			return nil, &UnsupportedLayoutError{Feature: featureBound + " (" + bound.Error() + ")", File: rel}
		case f.err != nil:
			return nil, &UnsupportedLayoutError{Feature: featureInvalid + " (" + f.err.Error() + ")", File: rel}
		}
		if l.Governed(rel) {
			// Found where its kustomization renders it, below.
			continue
		}
		for i, d := range f.file.Docs {
			if d.Object {
				out[d.ID] = append(out[d.ID], loc{file: rel, doc: i, line: d.Line})
			}
		}
	}
	if l != nil {
		for _, root := range l.Roots {
			for _, o := range l.Rendered[root] {
				line := l.Files[o.File].Docs[o.Doc].Line
				out[o.ID] = append(out[o.ID], loc{file: o.File, doc: o.Doc, line: line, root: root, obj: o})
			}
		}
	}
	for _, ls := range out {
		// Files come in map order; a message naming two must not change
		// from one plan to the next.
		slices.SortFunc(ls, func(a, b loc) int {
			return cmp.Or(strings.Compare(a.file, b.file), a.doc-b.doc, strings.Compare(a.root, b.root))
		})
	}
	return out, nil
}

func contentHash(b []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64()
}
