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
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// A Ref names one resource of one kind.
type Ref struct {
	Kind string
	types.NamespacedName
}

// Key names r's changes in a branch writer, and so its write's result in
// the clone cache: one name, so whoever forgets a resource that is gone
// drops the result its controller would have collected.
func (r Ref) Key() string { return r.Kind + "/" + r.Namespace + "/" + r.Name }

// A Loc is where a resource lives in Git: a path on a branch of a
// repository (Repository.ID). An empty Path stands for the branch head
// itself (a Branch resource). With Folder set, Path is a folder ("." for the
// root) and the resource lives at every path under it (a Mirror).
type Loc struct {
	Repo, Branch, Path string
	Folder             bool
}

// locations is repository → branch → path → resources.
type locations map[string]map[string]map[string]map[Ref]struct{}

func (m locations) add(r Ref, repo, branch, p string) {
	branches, ok := m[repo]
	if !ok {
		branches = map[string]map[string]map[Ref]struct{}{}
		m[repo] = branches
	}
	paths, ok := branches[branch]
	if !ok {
		paths = map[string]map[Ref]struct{}{}
		branches[branch] = paths
	}
	refs, ok := paths[p]
	if !ok {
		refs = map[Ref]struct{}{}
		paths[p] = refs
	}
	refs[r] = struct{}{}
}

func (m locations) remove(r Ref, repo, branch, p string) {
	refs := m[repo][branch][p]
	delete(refs, r)
	if len(refs) == 0 {
		delete(m[repo][branch], p)
	}
	if len(m[repo][branch]) == 0 {
		delete(m[repo], branch)
	}
	if len(m[repo]) == 0 {
		delete(m, repo)
	}
}

// Index maps locations in Git to the resources at them, so a tree diff turns
// into exactly the resources to reconcile. Each resource has one location;
// tracking it again moves it. Safe for concurrent use.
type Index struct {
	mu sync.Mutex
	// at holds the resources at one path, folders those under a folder:
	// a changed path finds the first by lookup, the second by a scan of the
	// branch's folders, which are few (one per Mirror).
	at      locations
	folders locations
	of      map[Ref]Loc
	// heads holds the resources that follow branch heads as a whole (path
	// ""), headsOf the branches each follows (heads.go).
	heads   locations
	headsOf map[Ref]headsLoc
}

// NewIndex returns an empty Index.
func NewIndex() *Index {
	return &Index{at: locations{}, folders: locations{}, of: map[Ref]Loc{}, heads: locations{}, headsOf: map[Ref]headsLoc{}}
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
	if l.Folder {
		x.folders.add(r, l.Repo, l.Branch, l.Path)
		return
	}
	x.at.add(r, l.Repo, l.Branch, l.Path)
}

// Tracks reports whether r lives anywhere.
func (x *Index) Tracks(r Ref) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.of[r]
	_, follows := x.headsOf[r]
	return ok || follows
}

// Forget drops r.
func (x *Index) Forget(r Ref) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if l, ok := x.of[r]; ok {
		x.removeLocked(r, l)
		delete(x.of, r)
	}
	x.forgetHeadsLocked(r)
}

func (x *Index) removeLocked(r Ref, l Loc) {
	if l.Folder {
		x.folders.remove(r, l.Repo, l.Branch, l.Path)
		return
	}
	x.at.remove(r, l.Repo, l.Branch, l.Path)
}

// Moved returns the resources a move of branch in repo touches: those at
// one of paths or at a folder holding one, and those tracking the head
// (Path ""), or, with all, every resource on the branch. Each is returned
// once.
func (x *Index) Moved(repo, branch string, paths []string, all bool) []Ref {
	x.mu.Lock()
	defer x.mu.Unlock()
	byPath, byFolder := x.at[repo][branch], x.folders[repo][branch]
	seen := map[Ref]struct{}{}
	var out []Ref
	add := func(refs map[Ref]struct{}) {
		for r := range refs {
			if _, ok := seen[r]; !ok {
				seen[r] = struct{}{}
				out = append(out, r)
			}
		}
	}
	if all {
		for _, refs := range byPath {
			add(refs)
		}
		for _, refs := range byFolder {
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
	for folder, refs := range byFolder {
		for _, p := range paths {
			if under(p, folder) {
				add(refs)
				break
			}
		}
	}
	return out
}

// under reports whether path p lies in folder ("." is the root).
func under(p, folder string) bool {
	return folder == "." || strings.HasPrefix(p, folder+"/")
}

// Repos returns the repositories any resource lives in.
func (x *Index) Repos() map[string]struct{} {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make(map[string]struct{}, len(x.at)+len(x.folders)+len(x.heads))
	for _, m := range []locations{x.at, x.folders, x.heads} {
		for r := range m {
			out[r] = struct{}{}
		}
	}
	return out
}
