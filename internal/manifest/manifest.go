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

// Package manifest renders Kubernetes objects as the YAML a person would
// commit: stable (sorted keys, so the same object always gives the same bytes
// and the same blob SHA) and free of what the API server adds to a live
// object. File.object and Mirror both write through it.
package manifest

import (
	"bytes"
	"encoding/json"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"sigs.k8s.io/yaml"
)

const (
	errDecode    = "object is not a JSON or YAML map"
	errNoKind    = "object must have apiVersion and kind"
	errSecret    = "refusing to write a Secret to Git in plain text"
	errMarshal   = "cannot render object as YAML"
	errFmtDeep   = "object is nested more than %d levels deep"
	lastApplied  = "kubectl.kubernetes.io/last-applied-configuration"
	kindSecret   = "Secret"
	apiVersionV1 = "v1"
)

// MaxDepth bounds how deeply an object's maps and lists may nest. YAML
// indents every level, so the rendered size grows with the square of the
// depth: an object nested 5,000 levels (which the API server stores) would
// render to about 25 MB before any size cap could refuse it. Kubernetes
// objects nest far less (a Deployment's deepest fields are about 15 levels
// down).
const MaxDepth = 100

// ErrSecret is returned for core v1 Secrets: their data would land in Git in
// clear text, readable by everyone who can read the repository.
var ErrSecret = errors.New(errSecret)

// metadataNoise is what the API server (or kubectl) adds to a live object and
// a manifest must not carry: it changes without the object changing, or only
// makes sense in the cluster it came from.
var metadataNoise = []string{
	"managedFields", "uid", "resourceVersion", "generation", "creationTimestamp",
	"selfLink", "deletionTimestamp", "deletionGracePeriodSeconds",
}

// Render returns obj (JSON or YAML) as stable YAML without status and the
// metadata noise above. It refuses core v1 Secrets with ErrSecret, and
// objects carrying one inside (a List's items) with ErrNestedSecret.
func Render(obj []byte) ([]byte, error) { return render(obj, false) }

// RenderForEncryption renders obj as Render does, a bare Secret included:
// for a caller that encrypts what it writes. An object carrying a Secret
// inside is still ErrNestedSecret (see there why it cannot be encrypted).
func RenderForEncryption(obj []byte) ([]byte, error) { return render(obj, true) }

func render(obj []byte, secrets bool) ([]byte, error) {
	// YAML to JSON, then a decoder that keeps numbers as written: a plain
	// unmarshal turns every number into a float64 and rounds large integers.
	j, err := yaml.YAMLToJSON(obj)
	if err != nil {
		return nil, errors.Wrap(err, errDecode)
	}
	m := map[string]any{}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, errors.Wrap(err, errDecode)
	}
	if depth(m, 0) > MaxDepth {
		return nil, errors.Errorf(errFmtDeep, MaxDepth)
	}
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if apiVersion == "" || kind == "" {
		return nil, errors.New(errNoKind)
	}
	if !secrets && apiVersion == apiVersionV1 && kind == kindSecret {
		return nil, ErrSecret
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		for _, k := range metadataNoise {
			delete(md, k)
		}
		if a, ok := md["annotations"].(map[string]any); ok {
			delete(a, lastApplied)
			if len(a) == 0 {
				delete(md, "annotations")
			}
		}
		if len(md) == 0 {
			delete(m, "metadata")
		}
	}
	// What is left is what Git would hold.
	if err := refuseNestedSecret(m); err != nil {
		return nil, err
	}
	// Back through JSON (json.Number keeps each number's digits), then YAML,
	// which sorts the keys of every map.
	j, err = json.Marshal(m)
	if err != nil {
		return nil, errors.Wrap(err, errMarshal)
	}
	out, err := yaml.JSONToYAML(j)
	return out, errors.Wrap(err, errMarshal)
}

// depth returns how deeply v nests below level, stopping once it is past
// MaxDepth.
func depth(v any, level int) int {
	if level > MaxDepth {
		return level
	}
	deepest := level
	switch v := v.(type) {
	case map[string]any:
		for _, c := range v {
			deepest = max(deepest, depth(c, level+1))
		}
	case []any:
		for _, c := range v {
			deepest = max(deepest, depth(c, level+1))
		}
	}
	return deepest
}
