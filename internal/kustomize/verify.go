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
	"path"
	"reflect"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// Verify builds every root of l with kustomize itself (krusty, in memory:
// the files of the folder and nothing else; builtin transformers only, no
// plugins, no exec, no network, and remote bases were refused before) and
// fails when one renders other objects than this package does. The Mirror
// calls it on the layout an edit leads to, so a commit lands only when
// kustomize build of every overlay gives what was verified.
func (l *Layout) Verify() error {
	mem := filesys.MakeFsInMemory()
	for p, f := range l.Files {
		if err := mem.WriteFile("/"+p, f.Content); err != nil {
			return err
		}
	}
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	for _, root := range l.Roots {
		res, err := k.Run(mem, "/"+path.Dir(root))
		if err != nil {
			return &UnsupportedError{Feature: "a layout kustomize itself does not build (" + err.Error() + ")", File: root}
		}
		theirs := map[yamledit.ID]any{}
		for _, r := range res.Resources() {
			m, err := r.Map()
			if err != nil {
				return err
			}
			theirs[yamledit.ID{Group: r.GetGvk().Group, Kind: r.GetKind(), Namespace: r.GetNamespace(), Name: r.GetName()}] = Normalize(m)
		}
		ours := map[yamledit.ID]any{}
		for _, o := range l.Rendered[root] {
			var v map[string]any
			if err := o.Value.Decode(&v); err != nil {
				return err
			}
			ours[o.ID] = Normalize(v)
		}
		if !reflect.DeepEqual(theirs, ours) {
			return &UnsupportedError{Feature: "a layout kustomize renders differently from this provider's model of it", File: root}
		}
	}
	return nil
}

// Normalize makes decoded YAML comparable across decoders: every integer
// an int64, every map a map[string]any.
func Normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, c := range v {
			out[k] = Normalize(c)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = Normalize(c)
		}
		return out
	case int:
		return int64(v)
	case float64:
		if v == float64(int64(v)) {
			return int64(v)
		}
	}
	return v
}
