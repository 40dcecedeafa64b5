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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// MarkerFile is the ownership record at the top of a Mirror's folder: it
// names the Mirror and lists the files it owns (plan.Marker).
const MarkerFile = plan.MarkerFile

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
