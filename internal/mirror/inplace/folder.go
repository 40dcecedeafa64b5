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

package inplace

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// A Mirror is what the InPlace layout reads of a Mirror.
type Mirror struct {
	// Path is the folder in the repository ("." for its root). A Plan's
	// files are relative to it; its errors name files by their path in
	// the repository, since in a repository of many kustomizations nobody
	// finds "kustomization.yaml".
	Path string
	// Namespace is the Mirror's: a document without a namespace holds an
	// object of it, or a cluster-scoped one.
	Namespace string
	// Prune removes the owned documents of objects gone (prune OnDelete);
	// without it they stay (prune Never).
	Prune bool
	// Steps makes the plan step by step: each object's change with the
	// files it writes (Plan.Steps), for commit PerChange and attribution.
	Steps bool
	// Hold are the objects, by layout path (mirror.Object.Path), whose
	// documents stay as Git has them: their change waits for who made it,
	// or ignored users alone made it. A held object found nowhere is left
	// to the caller (Plan.New), who holds it too.
	Hold map[string]bool
}

// UpdateFolder brings x to the folder's files at a commit: files are its
// files by path in the repository and blob SHA (as listed at the commit),
// and read reads one by its path in the repository. As Update, a file whose
// blob x has parsed is not read again, and one read refuses with a
// *yamledit.BoundError is indexed as unusable.
func (x *Index) UpdateFolder(folder string, files map[string]string, read func(full string) ([]byte, error)) error {
	rel := make(map[string]string, len(files))
	for full, sha := range files {
		r, _ := mirror.Rel(folder, full)
		rel[r] = sha
	}
	return x.Update(rel, func(r string) ([]byte, error) { return read(mirror.Join(folder, r)) })
}

// Plan plans m's folder, as x holds it, for objs, the live objects of a
// synced snapshot, and owned, the documents the Mirror's marker says it
// edits: each object found edited in its document, new objects added to
// the kustomization that sets their namespace or left to the caller, owned
// documents of objects gone removed (when m prunes), and every kustomize
// edit checked against what kustomize builds. A *FoundTwiceError or an
// *UnsupportedLayoutError names files by their path in the repository.
func (x *Index) Plan(m Mirror, objs []mirror.Object, owned []DocRef) (Plan, error) {
	p, err := x.plan(objs, owned, m)
	var twice *FoundTwiceError
	var unsupported *UnsupportedLayoutError
	switch {
	case errors.As(err, &twice):
		twice.First, twice.Second = mirror.Join(m.Path, twice.First), mirror.Join(m.Path, twice.Second)
	case errors.As(err, &unsupported):
		unsupported.File = mirror.Join(m.Path, unsupported.File)
	}
	return p, err
}
