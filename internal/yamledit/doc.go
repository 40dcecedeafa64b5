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

// Package yamledit indexes the documents of hand-written YAML files and
// edits one of them without rewriting the rest: the other documents, the
// comments, the key order, the quoting and the indentation a person chose
// stay byte for byte, and only the lines of the fields that changed move.
//
// A file is split at its document markers ("---" and "..." at the start of
// a line, which YAML forbids anywhere else), so joining the documents gives
// the file back exactly. Each document is parsed with go.yaml.in/yaml/v3
// (already linked by the encryption code, so it adds nothing to the
// binary), whose nodes carry the line and column of every key and value.
//
// An edit is planned on those nodes: the desired value is merged into the
// document's node tree (Merge, under a Rule saying which absent fields may
// be added and which are never touched), and the difference is written
// back as byte edits of the source: a scalar replaced where it stands, a
// block-mapping entry inserted after its last sibling or removed with its
// lines. What it cannot edit where it stands (a flow collection, a
// multi-line scalar, a sequence whose length changed) is rendered again as
// the smallest enclosing block entry, still leaving everything else alone.
//
// The package knows nothing of Kubernetes beyond reading apiVersion, kind
// and metadata.name/namespace for the index: which fields a Mirror mirrors
// is the caller's Rule.
package yamledit
