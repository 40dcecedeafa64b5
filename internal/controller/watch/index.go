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

package watch

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// A Ref names one resource of one kind.
type Ref struct {
	Kind string
	types.NamespacedName
}

// A Loc is where a resource lives in Git: a path on a branch of a
// repository (Repository.ID). An empty Path stands for the branch head
// itself (a Branch resource).
type Loc struct {
	Repo, Branch, Path string
}

// Index maps locations in Git to the resources at them, so a tree diff turns
// into exactly the resources to reconcile. Each resource has one location;
// tracking it again moves it. Safe for concurrent use.
type Index struct {
	mu sync.Mutex
	// at is repository → branch → path → resources.
	at map[string]map[string]map[string]map[Ref]struct{}
	of map[Ref]Loc
}

// NewIndex returns an empty Index.
func NewIndex() *Index {
	return &Index{at: map[string]map[string]map[string]map[Ref]struct{}{}, of: map[Ref]Loc{}}
}

// Track records that r lives at l, forgetting where it lived before.
func (x *Index) Track(r Ref, l Loc) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if was, ok := x.of[r]; ok {
		if was == l {
			return
		}
		x.removeLocked(r, was)
	}
	x.of[r] = l
	branches, ok := x.at[l.Repo]
	if !ok {
		branches = map[string]map[string]map[Ref]struct{}{}
		x.at[l.Repo] = branches
	}
	paths, ok := branches[l.Branch]
	if !ok {
		paths = map[string]map[Ref]struct{}{}
		branches[l.Branch] = paths
	}
	refs, ok := paths[l.Path]
	if !ok {
		refs = map[Ref]struct{}{}
		paths[l.Path] = refs
	}
	refs[r] = struct{}{}
}

// Forget drops r.
func (x *Index) Forget(r Ref) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if l, ok := x.of[r]; ok {
		x.removeLocked(r, l)
		delete(x.of, r)
	}
}

func (x *Index) removeLocked(r Ref, l Loc) {
	refs := x.at[l.Repo][l.Branch][l.Path]
	delete(refs, r)
	if len(refs) == 0 {
		delete(x.at[l.Repo][l.Branch], l.Path)
	}
	if len(x.at[l.Repo][l.Branch]) == 0 {
		delete(x.at[l.Repo], l.Branch)
	}
	if len(x.at[l.Repo]) == 0 {
		delete(x.at, l.Repo)
	}
}

// Moved returns the resources a move of branch in repo touches: those at
// one of paths and those tracking the head (Path ""), or, with all, every
// resource on the branch.
func (x *Index) Moved(repo, branch string, paths []string, all bool) []Ref {
	x.mu.Lock()
	defer x.mu.Unlock()
	byPath := x.at[repo][branch]
	var out []Ref
	add := func(refs map[Ref]struct{}) {
		for r := range refs {
			out = append(out, r)
		}
	}
	if all {
		for _, refs := range byPath {
			add(refs)
		}
		return out
	}
	add(byPath[""])
	for _, p := range paths {
		if p != "" {
			add(byPath[p])
		}
	}
	return out
}

// Repos returns the repositories any resource lives in.
func (x *Index) Repos() map[string]struct{} {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make(map[string]struct{}, len(x.at))
	for r := range x.at {
		out[r] = struct{}{}
	}
	return out
}
