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

package mirror

import (
	"bytes"
	"io"
	"path"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
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

// marker is what MarkerFile records: who owns the folder, and which of its
// files.
type marker struct {
	Mirror markerOwner `json:"mirror"`
	Files  []string    `json:"files"`
	// Documents are the documents of files the Mirror did not create that
	// it edits in place (layout InPlace): it adopted them because each
	// holds an object it mirrors, and removes only them, never the rest
	// of their files.
	Documents []mirror.DocRef `json:"documents,omitempty"`
}

type markerOwner struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (m marker) owner() types.NamespacedName {
	return types.NamespacedName{Namespace: m.Mirror.Namespace, Name: m.Mirror.Name}
}

// render is the marker's bytes: the same owner and files always give the
// same bytes, so an unchanged folder never rewrites it.
func (m marker) render() []byte {
	files := slices.Clone(m.Files)
	slices.Sort(files)
	if files == nil {
		files = []string{}
	}
	docs := slices.Clone(m.Documents)
	mirror.SortDocs(docs)
	b, err := yaml.Marshal(marker{Mirror: m.Mirror, Files: files, Documents: docs})
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

// parseMarker reads a marker. ok is false when content is not one: someone
// overwrote it, and the ownership it recorded is lost.
func parseMarker(content []byte) (marker, bool) {
	if len(content) > yamledit.MaxFileBytes {
		// Written by someone else: a marker of this size lists more
		// files than a folder this provider mirrors holds.
		return marker{}, false
	}
	var m marker
	if err := yaml.UnmarshalStrict(content, &m); err != nil || m.Mirror.Name == "" || m.Mirror.Namespace == "" {
		return marker{}, false
	}
	return m, true
}

// join returns the path of rel inside folder ("." is the root).
func join(folder, rel string) string {
	if folder == "." {
		return rel
	}
	return path.Join(folder, rel)
}

// sameObject reports whether content is a single YAML document of the
// object o is the rendering of: same apiVersion, kind, namespace and name.
// Such a file may be adopted (its content is replaced by o's); anything
// else at o's path belongs to someone else.
//
// A file past yamledit.MaxFileBytes is no object's: it is not parsed. The
// decoder bounds alias expansion (go.yaml.in/yaml/v2 refuses a document
// whose aliases make most of its nodes), so a small file cannot expand to
// a large one here.
func sameObject(content []byte, o mirror.Object) bool {
	if len(content) > yamledit.MaxFileBytes {
		return false
	}
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(content), 4096)
	var first map[string]any
	if err := d.Decode(&first); err != nil || first == nil {
		return false
	}
	var next map[string]any
	if err := d.Decode(&next); !errors.Is(err, io.EOF) || next != nil {
		return false
	}
	u := unstructured.Unstructured{Object: first}
	return u.GroupVersionKind() == o.GVK && u.GetNamespace() == o.Namespace && u.GetName() == o.Name
}

// diff is what a Mirror's folder needs to match a snapshot.
type diff struct {
	puts    map[string]git.File
	deletes []string
	// expect is what the change was decided on: the blob SHA of each path
	// it writes without owning it ("" where none was), and the marker's.
	// The branch writer checks it where the commit lands (git.Change.Expect).
	expect map[string]string
	// claimed is set when the folder already carries this Mirror's marker.
	claimed bool
	// skipped names the objects whose path in this folder Git refuses.
	skipped []string
	// guarded names the Secrets left out because a configuration reads
	// them (see guardedSecrets).
	guarded []string
	// changes name the object behind each put and delete of an object's
	// file, for commit PerChange (perchange.go).
	changes []change
}

func (d diff) empty() bool { return len(d.puts) == 0 && len(d.deletes) == 0 }

func (d diff) size() int { return len(d.puts) + len(d.deletes) }
