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
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// FileNames are the names a kustomization file may have, in the order
// kustomize looks for them.
var FileNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// modelled are the fields of a kustomization this package renders.
var modelled = []string{"apiVersion", "kind", "metadata", "resources", "bases", "namespace", "images", "replicas"}

// UnsupportedError says a layout uses what this package does not model.
type UnsupportedError struct {
	// Feature names it as a person would look for it: the field.
	Feature string
	// File is the file that uses it, relative to the folder.
	File string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s uses %s", e.File, e.Feature)
}

// Image is one images entry.
type Image struct {
	Name, NewName, NewTag, Digest string
}

// Replica is one replicas entry.
type Replica struct {
	Name  string
	Count int64
}

// Kustomization is a parsed kustomization file.
type Kustomization struct {
	// Dir is its directory, File its path, relative to the folder.
	Dir, File string
	Namespace string
	// Resources are the resource entries as written, bases after them.
	Resources []string
	Images    []Image
	Replicas  []Replica
	// Source is the parsed file, for edits.
	Source *yamledit.File
}

// Files is the folder: parsed YAML files by path relative to it.
type Files map[string]*yamledit.File

// find returns the kustomization file of dir, if it has one.
func (fs Files) find(dir string) (string, bool) {
	for _, n := range FileNames {
		p := join(dir, n)
		if _, ok := fs[p]; ok {
			return p, true
		}
	}
	return "", false
}

// isDir reports whether any file is under dir.
func (fs Files) isDir(dir string) bool {
	prefix := dir + "/"
	for p := range fs {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

func join(dir, rel string) string {
	if dir == "" || dir == "." {
		return path.Clean(rel)
	}
	return path.Join(dir, rel)
}

// Load parses the kustomization file at file and refuses what it does not
// model.
func Load(fs Files, file string) (*Kustomization, error) {
	f := fs[file]
	k := &Kustomization{Dir: path.Dir(file), File: file, Source: f}
	if k.Dir == "." {
		k.Dir = ""
	}
	var root *yaml.Node
	for _, d := range f.Docs {
		if d.Root == nil {
			continue
		}
		if root != nil {
			return nil, &UnsupportedError{Feature: "more than one document", File: file}
		}
		if d.Err != nil {
			// Anchors, a key twice, or nesting past yamledit.MaxDepth:
			// an edit could not keep it, and kustomize would inflate
			// every alias of it.
			return nil, &UnsupportedError{Feature: "a document an edit could not keep (" + d.Err.Error() + ")", File: file}
		}
		root = d.Root
	}
	if root == nil {
		return k, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &UnsupportedError{Feature: "a kustomization that is not a mapping", File: file}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, v := root.Content[i].Value, root.Content[i+1]
		if !slices.Contains(modelled, key) {
			return nil, &UnsupportedError{Feature: key, File: file}
		}
		var err error
		switch key {
		case "kind":
			if v.Value != "Kustomization" {
				return nil, &UnsupportedError{Feature: "kind " + v.Value, File: file}
			}
		case "resources", "bases":
			err = strings2(v, &k.Resources)
		case "namespace":
			k.Namespace = v.Value
		case "images":
			k.Images, err = images(v)
		case "replicas":
			k.Replicas, err = replicas(v)
		}
		if err != nil {
			return nil, &UnsupportedError{Feature: key + " written as " + err.Error(), File: file}
		}
	}
	for _, r := range k.Resources {
		if remote(r) {
			return nil, &UnsupportedError{Feature: "the remote base " + r, File: file}
		}
	}
	return k, nil
}

// remote reports whether a resource entry names something outside the
// repository: a URL, a Git address, or a go-getter path.
func remote(r string) bool {
	return strings.Contains(r, "://") || strings.HasPrefix(r, "git@") || strings.Contains(r, "?ref=") ||
		strings.HasPrefix(r, "github.com/") || strings.HasPrefix(r, "gitlab.com/") || strings.HasPrefix(r, "bitbucket.org/")
}

type notModelled string

func (e notModelled) Error() string { return string(e) }

func strings2(v *yaml.Node, out *[]string) error {
	if v.Kind != yaml.SequenceNode {
		return notModelled("something other than a list")
	}
	for _, it := range v.Content {
		if it.Kind != yaml.ScalarNode {
			return notModelled("a list of something other than paths")
		}
		*out = append(*out, it.Value)
	}
	return nil
}

var imageFields = []string{"name", "newName", "newTag", "digest"}

func images(v *yaml.Node) ([]Image, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, notModelled("something other than a list")
	}
	var out []Image
	for _, it := range v.Content {
		m, err := fields(it, imageFields)
		if err != nil {
			return nil, err
		}
		if m["name"] == "" {
			return nil, notModelled("an entry without a name")
		}
		out = append(out, Image{Name: m["name"], NewName: m["newName"], NewTag: m["newTag"], Digest: m["digest"]})
	}
	return out, nil
}

func replicas(v *yaml.Node) ([]Replica, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, notModelled("something other than a list")
	}
	var out []Replica
	for _, it := range v.Content {
		m, err := fields(it, []string{"name", "count"})
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseInt(m["count"], 10, 64)
		if err != nil || m["name"] == "" || n < 0 {
			return nil, notModelled("an entry without a name and a count")
		}
		out = append(out, Replica{Name: m["name"], Count: n})
	}
	return out, nil
}

// fields reads a mapping of scalars with only the keys allowed.
func fields(n *yaml.Node, allowed []string) (map[string]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, notModelled("an entry that is not a mapping")
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if !slices.Contains(allowed, k) {
			return nil, notModelled("an entry with " + k)
		}
		// kustomize reads entries into typed fields: a tag of 1.27 is a
		// number, and refused there as here.
		want := "!!str"
		if k == "count" {
			want = "!!int"
		}
		if v.Kind != yaml.ScalarNode || v.ShortTag() != want {
			return nil, notModelled("an entry whose " + k + " is not a " + strings.TrimPrefix(want, "!!"))
		}
		out[k] = v.Value
	}
	return out, nil
}
