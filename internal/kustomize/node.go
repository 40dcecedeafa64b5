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
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Copy is a deep copy of n.
func Copy(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = Copy(ch)
	}
	if n.Alias != nil {
		c.Alias = Copy(n.Alias)
	}
	return &c
}

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

func str(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

// ensureMap returns the mapping at key of m, made (or made a mapping) if
// it is not one.
func ensureMap(m *yaml.Node, key string) *yaml.Node {
	if c := child(m, key); c != nil && c.Kind == yaml.MappingNode {
		return c
	}
	c := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	set(m, key, c)
	return c
}

// set makes key of mapping m hold v, in its place if it is there, last if
// it is not.
func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, str(key), v)
}

func setScalar(m *yaml.Node, key, value, tag string) {
	set(m, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
