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
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The files this package parses come from Git repositories, written by
// whoever can push there: these bounds keep what one file can cost the
// provider proportional to a file a person writes, whatever it holds.
const (
	// MaxFileBytes is the largest file Parse reads. The API server takes
	// no object above 3 MiB (etcd keeps 1.5 MiB), so a file of objects
	// the provider mirrors fits in it many times over; the node trees
	// of a file this size stay within a few hundred MiB in the worst
	// case (one node every two bytes).
	MaxFileBytes = 4 << 20
	// MaxDocuments is the most documents one file may hold: each costs
	// a decoder and a Doc, and a file of nothing but "---" lines would
	// otherwise make a million of them.
	MaxDocuments = 10000
	// MaxDepth is the deepest a document's nodes may nest. Kubernetes
	// objects stay well under 40 levels; the editor compares a node
	// once per ancestor, so depth multiplies its work. A deeper
	// document is indexed but not edited, like one with anchors.
	MaxDepth = 128
)

const (
	errTooLargeFmt    = "the file is %d bytes, more than the %d bytes this provider reads"
	errTooManyDocsFmt = "the file has more than %d documents"
	errTooDeepFmt     = "document %d (line %d) nests deeper than %d levels"
	errDeepFmt        = "a document nests deeper than %d levels"
)

// BoundError is content past one of the bounds above: not invalid YAML,
// but more than this provider reads. Its caller can tell the two apart and
// say which bound the file is past.
type BoundError struct {
	// Reason names the bound and what the content holds past it.
	Reason string
}

func (e *BoundError) Error() string { return e.Reason }

// Check refuses content above MaxFileBytes or of more than MaxDocuments
// documents, before any of it is parsed: the one rule for every parser of
// YAML from a repository (Parse here, the SOPS reader in internal/encrypt).
func Check(content []byte) error {
	_, err := bounded(content)
	return err
}

// CheckDepth refuses a parsed node nesting deeper than MaxDepth, for a
// parser that cannot keep such a document aside as Parse does.
func CheckDepth(n *yaml.Node) error {
	if deeper(n, MaxDepth) {
		return &BoundError{Reason: fmt.Sprintf(errDeepFmt, MaxDepth)}
	}
	return nil
}

// bounded splits content into its documents after checking its size, and
// refuses it past either bound.
func bounded(content []byte) ([][2]int, error) {
	if len(content) > MaxFileBytes {
		return nil, &BoundError{Reason: fmt.Sprintf(errTooLargeFmt, len(content), MaxFileBytes)}
	}
	segs := split(content)
	if len(segs) > MaxDocuments {
		return nil, &BoundError{Reason: fmt.Sprintf(errTooManyDocsFmt, MaxDocuments)}
	}
	return segs, nil
}

// deeper reports whether n nests more than levels levels (n itself is
// level 1). It stops at the first node past them, so it costs no more
// than the nodes it visits up to that depth.
func deeper(n *yaml.Node, levels int) bool {
	if n == nil {
		return false
	}
	if levels <= 0 {
		return true
	}
	for _, c := range n.Content {
		if deeper(c, levels-1) {
			return true
		}
	}
	return false
}
