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

package encrypt

import (
	"bytes"
	"crypto/sha512"
	"fmt"
	"hash"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"go.yaml.in/yaml/v3"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// The SOPS document tree, as the SOPS YAML store reads and writes it: one
// mapping per YAML document, whose scalar values are encrypted or left in
// clear text by the document's rule, and covered, all of them, by one MAC.
// A value's path is the keys leading to it (a sequence adds none), and is
// its authenticated data, so a value cannot be moved to another key.

const (
	errParseYAML    = "cannot parse the YAML document"
	errDocShape     = "a SOPS YAML document must be a mapping"
	errKeyFmt       = "a SOPS YAML mapping key must be a string, got %q"
	errDuplicateFmt = "key %q appears twice in one mapping"
	errAlias        = "YAML aliases are not supported"
	errValueTypeFmt = "at %s: a value of type %T cannot be encrypted"
	errReserved     = "the document already has a top-level sops key"
	errEmitYAML     = "cannot write the YAML document"
)

// metadataKey is the top-level key holding a SOPS document's metadata.
const metadataKey = "sops"

// indent is the SOPS YAML store's default indentation.
const indent = 4

// macOnlyEncryptedInit starts the MAC of a document that covers only its
// encrypted values (mac_only_encrypted), so it never equals a MAC of all
// values: sha256("sops").
var macOnlyEncryptedInit = []byte{0x8a, 0x3f, 0xd2, 0xad, 0x54, 0xce, 0x66, 0x52, 0x7b, 0x10, 0x34, 0xf3, 0xd1, 0x47, 0xbe, 0x0b, 0x0b, 0x97, 0x5b, 0x3b, 0xf4, 0x4f, 0x72, 0xc6, 0xfd, 0xad, 0xec, 0x81, 0x76, 0xf2, 0x7d, 0x69}

// rule decides which values a document encrypts, from its metadata: at most
// one of encrypted_regex, unencrypted_regex, encrypted_suffix and
// unencrypted_suffix (SOPS's default, "_unencrypted", when none is set).
type rule struct {
	encryptedRegex, unencryptedRegex   *regexp.Regexp
	encryptedSuffix, unencryptedSuffix string
	// macOnlyEncrypted: the MAC covers only the encrypted values.
	macOnlyEncrypted bool
}

// encrypts reports whether the value at path is encrypted, as SOPS decides
// it: a rule matches when any key of the path matches.
func (r rule) encrypts(path []string) bool {
	some := func(match func(string) bool) bool {
		for _, p := range path {
			if match(p) {
				return true
			}
		}
		return false
	}
	switch {
	case r.encryptedRegex != nil:
		return some(func(p string) bool { return r.encryptedRegex.MatchString(p) })
	case r.unencryptedRegex != nil:
		return !some(func(p string) bool { return r.unencryptedRegex.MatchString(p) })
	case r.encryptedSuffix != "":
		return some(func(p string) bool { return strings.HasSuffix(p, r.encryptedSuffix) })
	case r.unencryptedSuffix != "":
		return !some(func(p string) bool { return strings.HasSuffix(p, r.unencryptedSuffix) })
	}
	return true
}

// newMAC starts a document's MAC.
func (r rule) newMAC() hash.Hash {
	h := sha512.New()
	if r.macOnlyEncrypted {
		h.Write(macOnlyEncryptedInit)
	}
	return h
}

// leaf is what a walk does with a scalar value at path: it returns the node
// to put in its place and the value the MAC covers (nil: none).
type leaf func(n *yaml.Node, path []string) (*yaml.Node, any, error)

// parseDocuments reads every YAML document of b as a mapping node. An empty
// document is an empty mapping; comments are dropped (SOPS would encrypt
// some of them; the provider's manifests have none), and aliases refused
// (the provider's manifests have none either, and expanding them is how a
// small file becomes a large one).
//
// It holds b to yamledit's bounds (size and documents before parsing,
// depth after each document): a SOPS file is written by whoever can push,
// and age recipients are public, so a valid one can be of any size.
func parseDocuments(b []byte) ([]*yaml.Node, error) {
	if err := yamledit.Check(b); err != nil {
		return nil, err
	}
	var docs []*yaml.Node
	d := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var doc yaml.Node
		err := d.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, errors.Wrap(err, errParseYAML)
		}
		var root *yaml.Node
		switch {
		case len(doc.Content) == 0:
			root = &yaml.Node{Kind: yaml.MappingNode}
		case doc.Content[0].Kind == yaml.MappingNode:
			root = doc.Content[0]
		case doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].ShortTag() == "!!null":
			root = &yaml.Node{Kind: yaml.MappingNode}
		default:
			return nil, errors.New(errDocShape)
		}
		if err := yamledit.CheckDepth(root); err != nil {
			return nil, err
		}
		docs = append(docs, root)
	}
}

// walk calls f on every scalar value under the mapping m, depth first in
// document order, writes the values f returns to the MAC h, and replaces
// each scalar with f's node.
func walk(m *yaml.Node, path []string, h hash.Hash, f leaf) error {
	strip(m)
	m.Style &^= yaml.FlowStyle
	seen := make(map[string]bool, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		strip(k)
		key, err := keyOf(k)
		if err != nil {
			return err
		}
		if seen[key] {
			return errors.Errorf(errDuplicateFmt, key)
		}
		seen[key] = true
		if m.Content[i+1], err = walkValue(v, append(path[:len(path):len(path)], key), h, f); err != nil {
			return err
		}
	}
	return nil
}

func walkValue(n *yaml.Node, path []string, h hash.Hash, f leaf) (*yaml.Node, error) {
	strip(n)
	switch n.Kind {
	case yaml.MappingNode:
		return n, walk(n, path, h, f)
	case yaml.SequenceNode:
		n.Style &^= yaml.FlowStyle
		for i, item := range n.Content {
			out, err := walkValue(item, path, h, f)
			if err != nil {
				return nil, err
			}
			n.Content[i] = out
		}
		return n, nil
	case yaml.ScalarNode:
		out, mac, err := f(n, path)
		if err != nil {
			return nil, err
		}
		if mac != nil {
			b, err := macBytes(mac, path)
			if err != nil {
				return nil, err
			}
			h.Write(b)
		}
		return out, nil
	}
	return nil, errors.New(errAlias)
}

// keyOf is a mapping key as SOPS reads it: a string, or an error.
func keyOf(k *yaml.Node) (string, error) {
	if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
		return "", errors.Errorf(errKeyFmt, k.Value)
	}
	var v any
	if err := k.Decode(&v); err != nil {
		return "", errors.Wrap(err, errParseYAML)
	}
	s, ok := v.(string)
	if !ok {
		return "", errors.Errorf(errKeyFmt, k.Value)
	}
	return s, nil
}

// strip drops a node's comments and anchor: they are not data. Walks also
// write collections in block style, as SOPS does.
func strip(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment, n.Anchor = "", "", "", ""
}

// scalarValue decodes a scalar as the SOPS YAML store does: nil, a string,
// an int, a float64 or a bool, or another type no SOPS value type holds.
func scalarValue(n *yaml.Node) (any, error) {
	var v any
	err := n.Decode(&v)
	return v, errors.Wrap(err, errParseYAML)
}

// macBytes is a value as the MAC covers it, and as it is encrypted.
func macBytes(v any, path []string) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return []byte(v), nil
	case int:
		return []byte(strconv.Itoa(v)), nil
	case float64:
		return []byte(strconv.FormatFloat(v, 'f', -1, 64)), nil
	case bool:
		if v {
			return []byte("True"), nil
		}
		return []byte("False"), nil
	}
	return nil, errors.Errorf(errValueTypeFmt, strings.Join(path, "."), v)
}

// valueNode is a scalar node holding v.
func valueNode(v any) (*yaml.Node, error) {
	n := &yaml.Node{}
	err := n.Encode(v)
	return n, errors.Wrap(err, errEmitYAML)
}

// emit writes documents as the SOPS YAML store does.
func emit(docs []*yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	e := yaml.NewEncoder(&b)
	e.SetIndent(indent)
	for _, root := range docs {
		if err := e.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
			return nil, errors.Wrap(err, errEmitYAML)
		}
	}
	if err := e.Close(); err != nil {
		return nil, errors.Wrap(err, errEmitYAML)
	}
	return b.Bytes(), nil
}

// macString is a MAC as a SOPS document stores it, before encryption.
func macString(h hash.Hash) string { return fmt.Sprintf("%X", h.Sum(nil)) }
