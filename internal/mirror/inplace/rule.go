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

import "slices"

// FieldRule is which fields of a hand-written document a Mirror keeps equal
// to the live object when it edits the document in place (yamledit.Rule).
//
// The live object carries everything the API server filled in: defaults
// (a Deployment's strategy, a container's terminationMessagePath), the
// namespace a document without one was applied to. A person never wrote
// them, and writing them back would bury the document's own lines. So every
// field the document sets is kept equal to the live object (changed, or
// removed when the live object no longer has it), and a field it does not
// set is added only where the server does not default: labels and
// annotations, and every top-level field but metadata, spec and status (a
// ConfigMap's data, a Role's rules). A field under spec that the document
// does not set is not added, even when someone set it in the cluster; a
// document that sets the field (replicas: 1) has every change of it
// mirrored. status and apiVersion are never touched: a document may name
// an older version of the kind, which the API server converts.
type FieldRule struct{}

// Add reports whether a field the document does not set is added.
func (FieldRule) Add(p []string) bool {
	switch p[0] {
	case "spec", "status", "apiVersion", "kind":
		return false
	case "metadata":
		return len(p) > 2 && (p[1] == "labels" || p[1] == "annotations")
	}
	return true
}

// ignored are top-level and metadata fields an edit never touches.
var ignored = []string{"status", "apiVersion"}

// Ignore reports whether a field is left as the document has it.
func (FieldRule) Ignore(p []string) bool {
	if len(p) == 1 {
		return slices.Contains(ignored, p[0])
	}
	// A document may say where it goes; the live object says where it is,
	// which the index matched already.
	return len(p) == 2 && p[0] == "metadata" && slices.Contains(metadataNoise, p[1])
}

// metadataNoise is what manifest.Render leaves out of metadata; a document
// that sets it (creationTimestamp: null, as kubectl writes) keeps it.
var metadataNoise = []string{
	"managedFields", "uid", "resourceVersion", "generation", "creationTimestamp",
	"selfLink", "deletionTimestamp", "deletionGracePeriodSeconds", "namespace",
}
