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
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Layout names; doc.go says why the layout is what it is.
const (
	// ClusterFolder stands in for the namespace of cluster-scoped objects.
	// A namespace name is a DNS label, which cannot start with '_'.
	ClusterFolder = "_cluster"
	// CoreGroup stands in for the core API group, whose name is empty.
	CoreGroup = "core"
	// Extension ends every mirrored file's name but a Secret's.
	Extension = ".yaml"
	// SecretExtension ends a core Secret's file name: the file is a SOPS
	// document, and the name says so to a person and to tools that pick
	// encrypted files by name.
	SecretExtension = ".sops.yaml"
)

// isSecret reports whether group and kind (lower-cased, as in a path) name
// a core Secret.
func isSecret(group, kind string) bool {
	return group == "" && kind == "secret"
}

// Path is where the object of kind gvk named name in namespace (empty for a
// cluster-scoped object) lives, relative to the Mirror's folder:
// {namespace}/{group}/{kind}/{name}.yaml, or {name}.sops.yaml for a core
// Secret. The result is not validated: a name
// some kinds allow may still not make a path (see validate.Path).
func Path(gvk schema.GroupVersionKind, namespace, name string) string {
	ns := namespace
	if ns == "" {
		ns = ClusterFolder
	}
	g := gvk.Group
	if g == "" {
		g = CoreGroup
	}
	kind := strings.ToLower(gvk.Kind)
	ext := Extension
	if isSecret(gvk.Group, kind) {
		ext = SecretExtension
	}
	return ns + "/" + g + "/" + kind + "/" + name + ext
}

// PathOf is Path of an object named by group and kind alone (the layout
// path does not hold the version).
func PathOf(group, kind, namespace, name string) string {
	return Path(schema.GroupVersionKind{Group: group, Kind: kind}, namespace, name)
}

// Location is what a layout path says about the object it holds.
type Location struct {
	// Group is the API group; empty for the core group.
	Group string
	// Kind is lower-cased, as in the path.
	Kind string
	// Namespace is empty for a cluster-scoped object.
	Namespace string
	Name      string
}

// Parse reads a path relative to a Mirror's folder. ok is false for a path
// that Path cannot have produced: another shape, a namespace that is not a
// DNS label, a group that is not a DNS subdomain, a kind with upper-case
// letters, a core Secret whose name does not end in SecretExtension. The controller uses it to tell files in the layout apart from
// anything else a person keeps in the folder.
func Parse(path string) (l Location, ok bool) {
	parts := strings.Split(path, "/")
	if len(parts) != 4 {
		return Location{}, false
	}
	ns, group, kind, file := parts[0], parts[1], parts[2], parts[3]
	ext := Extension
	if group == CoreGroup && isSecret("", kind) {
		ext = SecretExtension
	}
	name, found := strings.CutSuffix(file, ext)
	if !found || name == "" || kind == "" || kind != strings.ToLower(kind) {
		return Location{}, false
	}
	switch {
	case ns == ClusterFolder:
		ns = ""
	case len(validation.IsDNS1123Label(ns)) > 0:
		return Location{}, false
	}
	switch {
	case group == CoreGroup:
		group = ""
	case len(validation.IsDNS1123Subdomain(group)) > 0:
		return Location{}, false
	}
	return Location{Group: group, Kind: kind, Namespace: ns, Name: name}, true
}

// Join is the path in the repository of rel, a path relative to a Mirror's
// folder ("." for the root); Rel undoes it.
func Join(folder, rel string) string {
	if folder == "." {
		return rel
	}
	return path.Join(folder, rel)
}

// Rel is full, a path in the repository, relative to a Mirror's folder
// ("." for the root); ok is false for a path outside it.
func Rel(folder, full string) (rel string, ok bool) {
	if folder == "." {
		return full, true
	}
	return strings.CutPrefix(full, folder+"/")
}
