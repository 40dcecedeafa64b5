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

package plan

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-git/internal/mirror/inplace"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// MarkerFile is the ownership record at the top of a Mirror's folder.
const MarkerFile = ".mirror.yaml"

const markerHeader = "# Written by provider-git. The Mirror named below owns the files listed here\n" +
	"# (relative to this folder) and removes only those; anything else in the\n" +
	"# folder is left alone. Edits to this file are put back.\n"

// markerDocsHeader follows markerHeader in the marker of a Mirror that
// edits documents in place.
const markerDocsHeader = "# The documents listed are edited in place: each is removed from its file\n" +
	"# when its object is deleted; the rest of the file is never touched.\n"

// Marker is what MarkerFile records: who owns the folder, and which of its
// files.
type Marker struct {
	Mirror MarkerOwner `json:"mirror"`
	Files  []string    `json:"files"`
	// Documents are the documents of files the Mirror did not create that
	// it edits in place (layout InPlace): it adopted them because each
	// holds an object it mirrors, and removes only them, never the rest
	// of their files.
	Documents []inplace.DocRef `json:"documents,omitempty"`
}

// MarkerOwner names the Mirror a marker says owns the folder.
type MarkerOwner struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Owner is the Mirror m names.
func (m Marker) Owner() types.NamespacedName {
	return types.NamespacedName{Namespace: m.Mirror.Namespace, Name: m.Mirror.Name}
}

// Render is the marker's bytes: the same owner and files always give the
// same bytes, so an unchanged folder never rewrites it.
func (m Marker) Render() []byte {
	files := slices.Clone(m.Files)
	slices.Sort(files)
	if files == nil {
		files = []string{}
	}
	docs := slices.Clone(m.Documents)
	inplace.SortDocs(docs)
	b, err := yaml.Marshal(Marker{Mirror: m.Mirror, Files: files, Documents: docs})
	if err != nil {
		// A struct of strings always marshals.
		panic(err)
	}
	head := markerHeader
	if len(docs) > 0 {
		head += markerDocsHeader
	}
	return append([]byte(head), b...)
}

// ParseMarker reads a marker. ok is false when content is not one: someone
// overwrote it, and the ownership it recorded is lost.
func ParseMarker(content []byte) (Marker, bool) {
	if len(content) > yamledit.MaxFileBytes {
		// Written by someone else: a marker of this size lists more
		// files than a folder this provider mirrors holds.
		return Marker{}, false
	}
	var m Marker
	if err := yaml.UnmarshalStrict(content, &m); err != nil || m.Mirror.Name == "" || m.Mirror.Namespace == "" {
		return Marker{}, false
	}
	return m, true
}
