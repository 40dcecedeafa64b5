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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"go.yaml.in/yaml/v3"
)

// mapping plans have made want where have is a block mapping: entries
// changed in place, removed with their lines, added after the last one.
// An entry whose value cannot be edited where it stands is rendered again.
func (p *patcher) mapping(path []string, have, want *yaml.Node) error {
	if have.Style&yaml.FlowStyle != 0 || len(have.Content) == 0 {
		return errRerender
	}
	col := have.Content[0].Column
	if !p.blockKeys(have, col) {
		return errRerender
	}
	w := pairs(want)
	seen := map[string]bool{}
	kept := 0
	for i := 0; i+1 < len(have.Content); i += 2 {
		k, v := have.Content[i], have.Content[i+1]
		seen[k.Value] = true
		ep := sub(path, k.Value)
		if p.rule.Ignore(ep) {
			kept++
			continue
		}
		wv, ok := w[k.Value]
		if !ok {
			if !p.atLineStart(k) {
				// Its line carries the item's "- ".
				return errRerender
			}
			p.replace(p.lineStart(k.Line), p.entryEnd(k, v), "")
			continue
		}
		kept++
		if same(p.rule, ep, v, wv) {
			continue
		}
		err := p.value(ep, v, wv)
		if errors.Is(err, errRerender) {
			err = p.rerender(ep, k, v, wv)
		}
		if err != nil {
			return err
		}
	}
	var added []*yaml.Node
	for i := 0; i+1 < len(want.Content); i += 2 {
		k := want.Content[i]
		if ep := sub(path, k.Value); !seen[k.Value] && p.rule.Add(ep) && !p.rule.Ignore(ep) {
			added = append(added, k, want.Content[i+1])
		}
	}
	if kept == 0 && len(added) == 0 {
		// Every entry goes: the mapping becomes {} in its parent.
		return errRerender
	}
	if len(added) == 0 {
		return nil
	}
	text, err := render(&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: added}, col-1)
	if err != nil {
		return errors.Wrap(err, errRender)
	}
	at := p.entryEnd(have.Content[len(have.Content)-2], have.Content[len(have.Content)-1])
	if at == len(p.src) && at > 0 && p.src[at-1] != '\n' {
		text = "\n" + text[:len(text)-1]
	}
	p.replace(at, at, text)
	return nil
}

// blockKeys reports whether every key of mapping m is on a line of its
// own at column col; the first may follow the "- " of a sequence item.
func (p *patcher) blockKeys(m *yaml.Node, col int) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Column != col {
			return false
		}
		if !p.atLineStart(k) && (i != 0 || !p.afterDash(k)) {
			return false
		}
	}
	return true
}

// rerender replaces the lines of entry k: v by k: merged, rendered at k's
// column.
func (p *patcher) rerender(path []string, k, have, want *yaml.Node) error {
	text, err := render(entryNode(k, merge(p.rule, path, have, want)), k.Column-1)
	if err != nil {
		return errors.Wrap(err, errRender)
	}
	end := p.entryEnd(k, have)
	if end == len(p.src) && end > 0 && p.src[end-1] != '\n' {
		text = text[:len(text)-1]
	}
	start := p.lineStart(k.Line)
	if !p.atLineStart(k) {
		// After an item's "- ": the line's start stays.
		start = p.offset(k.Line, k.Column)
		text = text[k.Column-1:]
	}
	p.replace(start, end, text)
	return nil
}

// atLineStart reports whether only blanks precede n on its line.
func (p *patcher) atLineStart(n *yaml.Node) bool {
	s := p.lineStart(n.Line)
	return len(bytes.TrimLeft(p.src[s:p.offset(n.Line, n.Column)], " ")) == 0
}

// afterDash reports whether only blanks and a sequence item's "-" precede
// n on its line.
func (p *patcher) afterDash(n *yaml.Node) bool {
	s := p.lineStart(n.Line)
	pre := bytes.TrimSpace(p.src[s:p.offset(n.Line, n.Column)])
	return len(pre) > 0 && len(bytes.Trim(pre, "- ")) == 0
}

// entryEnd is the offset just past the lines of the block-mapping entry
// whose key is k: the lines after k's that are blank, or indented deeper
// than k, or a sequence item at k's column (a sequence written unindented
// under its key), without the blank lines that end them.
//
// The lines through the last node of v, k's value, are the entry's
// whatever their indentation: a value may start on the next line at the
// key's column (a block scalar's indicator).
func (p *patcher) entryEnd(k, v *yaml.Node) int {
	col := k.Column - 1
	last := max(k.Line, lastLine(v))
	for l := last + 1; p.lineStart(l) < len(p.src); l++ {
		text := p.line(l)
		trimmed := bytes.TrimLeft(text, " ")
		ind := len(text) - len(trimmed)
		switch {
		case len(bytes.TrimSpace(text)) == 0, ind <= col && comment(trimmed):
			// A comment at or left of the key's column may still be
			// inside the entry (its value can follow it); like a blank
			// line it goes with the entry only when a deeper line does.
			continue
		case ind > col:
		case ind == col && (bytes.HasPrefix(trimmed, []byte("- ")) || bytes.Equal(trimmed, []byte("-"))):
		default:
			return p.lineStart(last + 1)
		}
		last = l
	}
	return p.lineStart(last + 1)
}

// comment reports whether a line, its indentation trimmed, is a comment.
// Deeper than the entry it could be a block scalar's content, so callers
// ask only of lines at or left of the entry's column, where it cannot.
func comment(trimmed []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(trimmed, "\t"), []byte("#"))
}

// resized plans a block sequence that grew or shrank at its end: the items
// both have are edited, the new ones added after the last item at its
// dash's column, the ones gone removed with their lines.
func (p *patcher) resized(path []string, have, want *yaml.Node) error {
	dash := -1
	for _, it := range have.Content {
		c, ok := p.dashColumn(it)
		if !ok || (dash >= 0 && c != dash) {
			return errRerender
		}
		dash = c
	}
	n := min(len(have.Content), len(want.Content))
	for i := 0; i < n; i++ {
		ip := item(path, i)
		if same(p.rule, ip, have.Content[i], want.Content[i]) {
			continue
		}
		if err := p.value(ip, have.Content[i], want.Content[i]); err != nil {
			return err
		}
	}
	if len(want.Content) < len(have.Content) {
		if n == 0 {
			// Nothing left: the parent writes [].
			return errRerender
		}
		first := have.Content[n]
		p.replace(p.lineStart(first.Line), p.itemEnd(have.Content[len(have.Content)-1], dash), "")
		return nil
	}
	var added []*yaml.Node
	for i := n; i < len(want.Content); i++ {
		added = append(added, want.Content[i])
	}
	text, err := render(&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: added}, dash)
	if err != nil {
		return errors.Wrap(err, errRender)
	}
	at := p.itemEnd(have.Content[len(have.Content)-1], dash)
	if at == len(p.src) && at > 0 && p.src[at-1] != '\n' {
		text = "\n" + text[:len(text)-1]
	}
	p.replace(at, at, text)
	return nil
}

// dashColumn is the 0-based column of the "-" that starts item n, when it
// is the first thing on n's line.
func (p *patcher) dashColumn(n *yaml.Node) (int, bool) {
	line := p.line(n.Line)
	trimmed := bytes.TrimLeft(line, " ")
	if !bytes.HasPrefix(trimmed, []byte("-")) {
		return 0, false
	}
	c := len(line) - len(trimmed)
	// The item's node starts after its dash on that line.
	if p.offset(n.Line, n.Column) <= p.lineStart(n.Line)+c {
		return 0, false
	}
	return c, true
}

// itemEnd is the offset just past the lines of the sequence item n whose
// dash is at column dash: the lines after its first that are blank or
// indented deeper, without the blank lines that end them.
func (p *patcher) itemEnd(n *yaml.Node, dash int) int {
	last := lastLine(n)
	for l := last + 1; p.lineStart(l) < len(p.src); l++ {
		text := p.line(l)
		trimmed := bytes.TrimLeft(text, " ")
		switch {
		case len(bytes.TrimSpace(text)) == 0, len(text)-len(trimmed) <= dash && comment(trimmed):
			continue
		case len(text)-len(trimmed) > dash:
		default:
			return p.lineStart(last + 1)
		}
		last = l
	}
	return p.lineStart(last + 1)
}

// lastLine is the line of the last node in n's tree: where n's own lines
// reach at least.
func lastLine(n *yaml.Node) int {
	l := n.Line
	for _, c := range n.Content {
		l = max(l, lastLine(c))
	}
	return l
}
