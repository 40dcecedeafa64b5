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
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"go.yaml.in/yaml/v3"
)

const errRender = "cannot render the edited document"

// errRerender says a node cannot be edited where it stands: its parent
// renders it again.
var errRerender = errors.New("rerender")

// ParseValue parses content, a single YAML document, as a desired value.
func ParseValue(content []byte) (*yaml.Node, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(content, &n); err != nil {
		return nil, err
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return nil, errors.New(errNotObject)
	}
	return n.Content[0], nil
}

// Edit returns the file's content with document i made want under r, and
// whether anything changed. Every byte outside the fields that changed
// stays: the other documents, comments, key order, quoting, indentation.
func (f *File) Edit(i int, r Rule, want *yaml.Node) ([]byte, bool, error) {
	d := f.Docs[i]
	if d.Err != nil {
		return nil, false, d.Err
	}
	if d.Root == nil || Same(r, d.Root, want) {
		return f.Content, false, nil
	}
	p := newPatcher(f.Content[d.Start:d.End], r)
	err := p.value(nil, d.Root, want)
	if errors.Is(err, errRerender) {
		// The document itself cannot be edited in place (a flow
		// mapping at its root): everything from its first node on is
		// rendered again, what precedes it (marker, comments) kept.
		p.edits = nil
		m := *Merge(r, d.Root, want)
		m.HeadComment = ""
		text, rerr := render(&m, 0)
		if rerr != nil {
			return nil, false, errors.Wrap(rerr, errRender)
		}
		p.replace(p.lineStart(d.Root.Line), len(p.src), text)
		err = nil
	}
	if err != nil {
		return nil, false, err
	}
	doc := p.apply()
	out := make([]byte, 0, len(f.Content)-len(p.src)+len(doc))
	out = append(append(append(out, f.Content[:d.Start]...), doc...), f.Content[d.End:]...)
	return out, !bytes.Equal(out, f.Content), nil
}

type edit struct {
	start, end int
	text       string
}

// patcher collects the byte edits that turn one document's source into
// its edited form.
type patcher struct {
	src   []byte
	lines []int // offset of each line's start; lines[0] is line 1
	rule  Rule
	edits []edit
}

func newPatcher(src []byte, r Rule) *patcher {
	p := &patcher{src: src, rule: r, lines: []int{0}}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			p.lines = append(p.lines, i+1)
		}
	}
	return p
}

// lineStart is the offset of 1-based line l (len(src) past the last).
func (p *patcher) lineStart(l int) int {
	if l-1 < len(p.lines) {
		return p.lines[l-1]
	}
	return len(p.src)
}

func (p *patcher) line(l int) []byte {
	s := p.lineStart(l)
	e := p.lineStart(l + 1)
	return bytes.TrimRight(p.src[s:e], "\r\n")
}

// offset is the byte offset of 1-based line l, column c (counted in
// characters, as the parser counts them).
func (p *patcher) offset(l, c int) int {
	s := p.lineStart(l)
	off := s
	for n := 1; n < c && off < len(p.src); n++ {
		_, w := utf8.DecodeRune(p.src[off:])
		off += w
	}
	return off
}

func (p *patcher) replace(start, end int, text string) {
	p.edits = append(p.edits, edit{start: start, end: end, text: text})
}

func (p *patcher) apply() []byte {
	slices.SortStableFunc(p.edits, func(a, b edit) int { return a.start - b.start })
	var out bytes.Buffer
	at := 0
	for _, e := range p.edits {
		out.Write(p.src[at:e.start])
		out.WriteString(e.text)
		at = e.end
	}
	out.Write(p.src[at:])
	return out.Bytes()
}

// value plans have made want, or returns errRerender.
func (p *patcher) value(path []string, have, want *yaml.Node) error {
	if have.Kind != want.Kind {
		return errRerender
	}
	switch have.Kind {
	case yaml.ScalarNode:
		return p.scalar(have, merge(p.rule, path, have, want))
	case yaml.MappingNode:
		return p.mapping(path, have, want)
	case yaml.SequenceNode:
		if have.Style&yaml.FlowStyle != 0 || len(have.Content) == 0 {
			return errRerender
		}
		if len(have.Content) != len(want.Content) {
			return p.resized(path, have, want)
		}
		for i := range have.Content {
			ip := item(path, i)
			if same(p.rule, ip, have.Content[i], want.Content[i]) {
				continue
			}
			if err := p.value(ip, have.Content[i], want.Content[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return errRerender
}

// scalar replaces a one-line scalar's token where it stands.
func (p *patcher) scalar(have, m *yaml.Node) error {
	if have.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || strings.Contains(have.Value, "\n") {
		return errRerender
	}
	start := p.offset(have.Line, have.Column)
	end, ok := p.tokenEnd(have, start)
	if !ok {
		return errRerender
	}
	n := *m
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	text, err := render(&n, 0)
	if err != nil {
		return errors.Wrap(err, errRender)
	}
	text = strings.TrimSuffix(text, "\n")
	if strings.Contains(text, "\n") {
		return errRerender
	}
	p.replace(start, end, text)
	return nil
}

// tokenEnd finds where the scalar starting at start ends on its line, and
// checks that the token parses to the node's value.
func (p *patcher) tokenEnd(n *yaml.Node, start int) (int, bool) {
	lineEnd := p.lineStart(n.Line + 1)
	s := p.src[start:lineEnd]
	end := -1
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for i := 1; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == '"' {
				end = i + 1
				break
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					i++
					continue
				}
				end = i + 1
				break
			}
		}
	default:
		t := bytes.TrimRight(s, "\r\n")
		if i := bytes.Index(t, []byte(" #")); i >= 0 {
			t = t[:i]
		}
		end = len(bytes.TrimRight(t, " \t"))
	}
	if end <= 0 {
		return 0, false
	}
	var v yaml.Node
	if yaml.Unmarshal(append([]byte("k: "), s[:end]...), &v) != nil || len(v.Content) != 1 || len(v.Content[0].Content) != 2 {
		return 0, false
	}
	if got := v.Content[0].Content[1]; got.Kind != yaml.ScalarNode || got.Value != n.Value {
		return 0, false
	}
	return start + end, true
}
