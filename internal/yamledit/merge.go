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
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Rule says which fields an edit may touch. Paths are keys from the
// document's root, a sequence item as "[i]".
type Rule interface {
	// Add reports whether a field the document does not set, but the
	// desired value has, is added.
	Add(path []string) bool
	// Ignore reports whether the field is left as the document has it:
	// neither changed, added nor removed.
	Ignore(path []string) bool
}

// All is the Rule that makes a document exactly the desired value.
type All struct{}

// Add adds every field.
func (All) Add([]string) bool { return true }

// Ignore ignores none.
func (All) Ignore([]string) bool { return false }

func sub(path []string, k string) []string {
	return append(path[:len(path):len(path)], k)
}

func item(path []string, i int) []string { return sub(path, "["+strconv.Itoa(i)+"]") }

// Same reports whether have already is want under r: Edit would change
// nothing.
func Same(r Rule, have, want *yaml.Node) bool { return same(r, nil, have, want) }

func same(r Rule, path []string, have, want *yaml.Node) bool {
	if have.Kind != want.Kind {
		return false
	}
	switch have.Kind {
	case yaml.ScalarNode:
		return sameScalar(have, want)
	case yaml.MappingNode:
		w := pairs(want)
		seen := map[string]bool{}
		for i := 0; i+1 < len(have.Content); i += 2 {
			k := have.Content[i].Value
			seen[k] = true
			p := sub(path, k)
			if r.Ignore(p) {
				continue
			}
			wv, ok := w[k]
			if !ok || !same(r, p, have.Content[i+1], wv) {
				return false
			}
		}
		for i := 0; i+1 < len(want.Content); i += 2 {
			k := want.Content[i].Value
			if p := sub(path, k); !seen[k] && r.Add(p) && !r.Ignore(p) {
				return false
			}
		}
		return true
	case yaml.SequenceNode:
		if len(have.Content) != len(want.Content) {
			return false
		}
		for i := range have.Content {
			if !same(r, item(path, i), have.Content[i], want.Content[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// sameScalar compares two scalars by what they decode to, so 010 and 8,
// "a" and a, or yes and "yes" compare as YAML does.
func sameScalar(a, b *yaml.Node) bool {
	if a.ShortTag() != b.ShortTag() {
		return false
	}
	if a.ShortTag() == "!!str" {
		return a.Value == b.Value
	}
	var x, y any
	if a.Decode(&x) != nil || b.Decode(&y) != nil {
		return a.Value == b.Value
	}
	return reflect.DeepEqual(x, y)
}

// pairs maps a mapping's keys to their values.
func pairs(m *yaml.Node) map[string]*yaml.Node {
	out := make(map[string]*yaml.Node, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		out[m.Content[i].Value] = m.Content[i+1]
	}
	return out
}

// Merge returns have made want under r, as a new tree that keeps have's
// comments, key order and styles wherever a node stays.
func Merge(r Rule, have, want *yaml.Node) *yaml.Node { return merge(r, nil, have, want) }

func merge(r Rule, path []string, have, want *yaml.Node) *yaml.Node {
	if have == nil {
		return want
	}
	if have.Kind != want.Kind || have.Kind == yaml.ScalarNode {
		n := *want
		n.HeadComment, n.LineComment, n.FootComment = have.HeadComment, have.LineComment, have.FootComment
		n.Style = 0
		if have.Kind == want.Kind && have.ShortTag() == want.ShortTag() {
			n.Style = have.Style
		}
		return &n
	}
	n := *have
	n.Content = nil
	switch have.Kind {
	case yaml.MappingNode:
		w := pairs(want)
		seen := map[string]bool{}
		for i := 0; i+1 < len(have.Content); i += 2 {
			k, v := have.Content[i], have.Content[i+1]
			seen[k.Value] = true
			p := sub(path, k.Value)
			wv, ok := w[k.Value]
			switch {
			case r.Ignore(p):
				n.Content = append(n.Content, k, v)
			case ok:
				n.Content = append(n.Content, k, merge(r, p, v, wv))
			}
		}
		for i := 0; i+1 < len(want.Content); i += 2 {
			k := want.Content[i]
			if p := sub(path, k.Value); !seen[k.Value] && r.Add(p) && !r.Ignore(p) {
				n.Content = append(n.Content, k, want.Content[i+1])
			}
		}
	case yaml.SequenceNode:
		for i, wv := range want.Content {
			if i < len(have.Content) {
				wv = merge(r, item(path, i), have.Content[i], wv)
			}
			n.Content = append(n.Content, wv)
		}
	default:
		return want
	}
	return &n
}

// render is n in block style, every line indented by indent spaces.
func render(n *yaml.Node, indent int) (string, error) {
	var b bytes.Buffer
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(n); err != nil {
		return "", err
	}
	if err := e.Close(); err != nil {
		return "", err
	}
	if indent == 0 {
		return b.String(), nil
	}
	pad := strings.Repeat(" ", indent)
	var out strings.Builder
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if strings.TrimSpace(l) != "" {
			out.WriteString(pad)
		}
		out.WriteString(l)
	}
	return out.String(), nil
}

// entryNode is a one-entry mapping of k and v, for render.
func entryNode(k, v *yaml.Node) *yaml.Node {
	key := *k
	// The key's head comment stays where it is, above the replaced lines,
	// and a foot comment below them.
	key.HeadComment, key.FootComment = "", ""
	val := *v
	val.FootComment = ""
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{&key, &val}}
}
