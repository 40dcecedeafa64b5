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
	"slices"
	"sort"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// Layout is a folder's kustomizations as rendered.
type Layout struct {
	Files Files
	// Kustomizations by file.
	Kustomizations map[string]*Kustomization
	// Roots are the kustomizations no other includes, sorted: each is an
	// environment (an overlay, or a base nobody overlays).
	Roots []string
	// Rendered is each root's output.
	Rendered map[string][]Object
	// users are the roots that render each file: kustomizations and
	// resource documents alike.
	users map[string][]string
}

// Build finds and renders every kustomization of fs. It returns nil when
// there is none.
func Build(fs Files) (*Layout, error) {
	l := &Layout{Files: fs, Kustomizations: map[string]*Kustomization{}, Rendered: map[string][]Object{}, users: map[string][]string{}}
	for p := range fs {
		if slices.Contains(FileNames, path.Base(p)) {
			k, err := Load(fs, p)
			if err != nil {
				return nil, err
			}
			l.Kustomizations[p] = k
		}
	}
	if len(l.Kustomizations) == 0 {
		return nil, nil
	}
	included := map[string]bool{}
	for _, k := range l.Kustomizations {
		for _, r := range k.Resources {
			if kf, ok := fs.find(join(k.Dir, r)); ok {
				included[kf] = true
			}
		}
	}
	for p := range l.Kustomizations {
		if !included[p] {
			l.Roots = append(l.Roots, p)
		}
	}
	sort.Strings(l.Roots)
	for _, root := range l.Roots {
		objs, err := Render(fs, root)
		if err != nil {
			return nil, err
		}
		l.Rendered[root] = objs
		for _, o := range objs {
			l.use(o.File, root)
			for _, v := range o.Via {
				l.use(v, root)
			}
		}
		l.use(root, root)
	}
	return l, nil
}

func (l *Layout) use(file, root string) {
	if !slices.Contains(l.users[file], root) {
		l.users[file] = append(l.users[file], root)
	}
}

// Governed reports whether file is part of the layout: a kustomization, or
// a resource one renders. Such a file is edited only through the layout.
func (l *Layout) Governed(file string) bool {
	if l == nil {
		return false
	}
	_, ok := l.users[file]
	_, k := l.Kustomizations[file]
	return ok || k
}

// Shared reports whether more than one root renders file: it is read-only
// context, and a change for one environment goes to that environment's
// kustomization.
func (l *Layout) Shared(file string) bool { return len(l.users[file]) > 1 }

// RootFor is the one root that sets namespace ns, if exactly one does.
func (l *Layout) RootFor(ns string) (string, bool) {
	var found []string
	for _, r := range l.Roots {
		if l.Kustomizations[r].Namespace == ns {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// Object returns what root renders as id.
func (l *Layout) Object(root string, id yamledit.ID) (Object, bool) {
	for _, o := range l.Rendered[root] {
		if o.ID == id {
			return o, true
		}
	}
	return Object{}, false
}
