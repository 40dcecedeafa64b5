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

package yamledit

import (
	"bytes"
	"io"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"go.yaml.in/yaml/v3"
)

const (
	errParseFmt     = "document %d (line %d) is not valid YAML"
	errAliasFmt     = "document %d (line %d) uses YAML anchors or aliases, which an edit could not keep"
	errDuplicateFmt = "document %d (line %d) has the key %q twice"
	errBareCRFmt    = "document %d (line %d) breaks a line with a carriage return alone, which an edit could not keep"
	errNotObject    = "not a document of an object: no mapping with apiVersion, kind and metadata.name"
)

// ID is what an object is known by: its API group (empty for core), kind,
// namespace and name. A document without a namespace has Namespace "" and
// NoNamespace set; the caller decides which namespace it gets.
type ID struct {
	Group, Kind, Namespace, Name string
}

func (id ID) String() string {
	g := id.Group
	if g == "" {
		g = "core"
	}
	if id.Namespace == "" {
		return g + "/" + id.Kind + " " + id.Name
	}
	return g + "/" + id.Kind + " " + id.Namespace + "/" + id.Name
}

// Doc is one document of a file.
type Doc struct {
	// Start and End are the document's bytes in the file: from the start
	// of its "---" line (or of the file) to the start of the next
	// document's.
	Start, End int
	// Line is the 1-based line of the file where the document starts.
	Line int
	// Root is the document's top node (nil for an empty document).
	Root *yaml.Node
	// Object is set when the document is a Kubernetes object: a mapping
	// with apiVersion, kind and metadata.name.
	Object bool
	ID     ID
	// NoNamespace: the document names no namespace.
	NoNamespace bool
	// APIVersion as written.
	APIVersion string
	// Err says why the document cannot be edited (anchors, aliases); it is
	// still indexed, so that it is found (and refused by name).
	Err error
}

// File is a parsed YAML file.
type File struct {
	Content []byte
	Docs    []Doc
}

// Parse splits content into its documents and parses each. It fails
// when a document is not valid YAML or the file is past a bound below; a
// document that is not an object is kept with Object unset.
//
// It refuses a file above MaxFileBytes or of more than MaxDocuments
// documents before parsing any, and marks a document nesting deeper than
// MaxDepth with Err: the bounds of what a file from a repository may cost.
func Parse(content []byte) (*File, error) {
	segs, err := bounded(content)
	if err != nil {
		return nil, err
	}
	f := &File{Content: content}
	line, at := 1, 0
	for i, s := range segs {
		// Lines are counted from the previous document's start, not the
		// file's: counting from the start each time is quadratic in the
		// number of documents.
		line += bytes.Count(content[at:s[0]], []byte("\n"))
		at = s[0]
		d := Doc{Start: s[0], End: s[1], Line: line}
		var n yaml.Node
		dec := yaml.NewDecoder(bytes.NewReader(content[s[0]:s[1]]))
		if err := dec.Decode(&n); err != nil && !isEOF(err) {
			return nil, errors.Wrapf(err, errParseFmt, i+1, d.Line)
		}
		var extra yaml.Node
		if err := dec.Decode(&extra); !isEOF(err) {
			// A segment holds one document by construction; anything
			// else (a directive we did not split at) is refused.
			return nil, errors.Errorf(errParseFmt, i+1, d.Line)
		}
		if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
			d.Root = n.Content[0]
			identify(&d)
			if bareCR(content[s[0]:s[1]]) {
				d.Err = errors.Errorf(errBareCRFmt, i+1, d.Line)
			} else if deeper(d.Root, MaxDepth) {
				d.Err = errors.Errorf(errTooDeepFmt, i+1, d.Line, MaxDepth)
			} else if hasAlias(d.Root) {
				d.Err = errors.Errorf(errAliasFmt, i+1, d.Line)
			} else if k := duplicateKey(d.Root); k != "" {
				d.Err = errors.Errorf(errDuplicateFmt, i+1, d.Line, k)
			}
		}
		f.Docs = append(f.Docs, d)
	}
	return f, nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// split returns the [start, end) of each document of content: a new one
// begins at every line that is a document marker, "---" or "..." followed
// by a blank or the end of the line. A "..." line ends a document, so the
// next begins after it.
func split(content []byte) [][2]int {
	var out [][2]int
	start := 0
	for off := 0; off < len(content); {
		nl := bytes.IndexByte(content[off:], '\n')
		end := len(content)
		if nl >= 0 {
			end = off + nl + 1
		}
		line := content[off:end]
		switch {
		case marker(line, "---") && off > start:
			out = append(out, [2]int{start, off})
			start = off
		case marker(line, "..."):
			out = append(out, [2]int{start, end})
			start = end
		}
		off = end
	}
	if start < len(content) || len(out) == 0 {
		out = append(out, [2]int{start, len(content)})
	}
	return out
}

func marker(line []byte, m string) bool {
	if !bytes.HasPrefix(line, []byte(m)) {
		return false
	}
	rest := line[len(m):]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}

// identify fills d's identity when its root is an object.
func identify(d *Doc) {
	av, _ := scalar(d.Root, "apiVersion")
	kind, _ := scalar(d.Root, "kind")
	md := child(d.Root, "metadata")
	name, _ := scalar(md, "name")
	if av == "" || kind == "" || name == "" {
		return
	}
	ns, ok := scalar(md, "namespace")
	group, _, found := strings.Cut(av, "/")
	if !found {
		group = ""
	}
	d.Object, d.APIVersion = true, av
	d.ID = ID{Group: group, Kind: kind, Namespace: ns, Name: name}
	d.NoNamespace = !ok || ns == ""
}

// child is the value of key in mapping n, nil when there is none.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func scalar(n *yaml.Node, key string) (string, bool) {
	c := child(n, key)
	if c == nil || c.Kind != yaml.ScalarNode || c.ShortTag() == "!!null" {
		return "", false
	}
	return c.Value, true
}

// bareCR reports whether src has a carriage return not followed by a line
// feed: YAML breaks a line there, and the parser's line numbers count it,
// while the editor finds lines by their line feeds (CRLF files are fine).
func bareCR(src []byte) bool {
	for i, c := range src {
		if c == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			return true
		}
	}
	return false
}

func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// duplicateKey is a key some mapping of n has twice, "" when none does:
// which of the two a reader takes is not defined, so an edit could not say.
func duplicateKey(n *yaml.Node) string {
	if n.Kind == yaml.MappingNode {
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if seen[k] {
				return k
			}
			seen[k] = true
		}
	}
	for _, c := range n.Content {
		if k := duplicateKey(c); k != "" {
			return k
		}
	}
	return ""
}

// Without returns the file's content without document i. The other
// documents keep their bytes; when i was the only object document left and
// nothing else but comments or blanks remain, empty is true and the file
// should go.
func (f *File) Without(i int) (out []byte, empty bool) {
	d := f.Docs[i]
	start, end := d.Start, d.End
	if i == 0 && i+1 < len(f.Docs) {
		// The first document has no marker of its own; the next one's
		// marker line goes with it, so the file does not start with a
		// marker it never had.
		next := f.Docs[i+1]
		if nl := bytes.IndexByte(f.Content[next.Start:next.End], '\n'); nl >= 0 && marker(f.Content[next.Start:], "---") && onlyMarker(f.Content[next.Start:next.Start+nl+1]) {
			end = next.Start + nl + 1
		}
	}
	out = append(append([]byte{}, f.Content[:start]...), f.Content[end:]...)
	empty = true
	for j, o := range f.Docs {
		if j != i && o.Root != nil {
			empty = false
		}
	}
	return out, empty
}

// onlyMarker reports whether line is "---" alone (no content after it).
func onlyMarker(line []byte) bool {
	return len(bytes.TrimSpace(line)) == 3
}
