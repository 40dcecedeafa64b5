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

package plan

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/inplace"
)

// Each put or delete of an object's file is a Change, for commit PerChange
// (Git as an audit trail: one commit per object's change). What a Change
// records is an object's state when the plan was made, not each watch
// event: the snapshot keeps the latest state of each object, so an object
// changed several times before its commit is written is one Change of its
// latest state. Ordered puts them in the order the changes were made: by
// the objects' resourceVersion, which an etcd-backed API server takes from
// one revision counter for every write; deletions, whose time the snapshot
// does not keep, follow, by path.

// Verbs of a Change.
const (
	VerbCreate = "Create"
	VerbUpdate = "Update"
	VerbDelete = "Delete"
)

// Change is the object behind one put or delete of an object's file.
type Change struct {
	// File is the full path in the repository.
	File string
	Verb string
	// Kind is the object's kind as the API serves it (ConfigMap); for a
	// deleted object whose kind the Mirror no longer sees, the lower-case
	// kind of its path.
	Kind      string
	Namespace string
	Name      string
	// RV is the object's resourceVersion; "" for a deletion.
	RV string
	// Path is, for a change of layout InPlace, the object's layout path
	// relative to the folder (what attribution knows it by), and Blob the
	// blob SHA of its rendering ("" for a removal); File is then the file
	// of its document.
	Path, Blob string
	// Puts and Deletes are, for a change of layout InPlace planned step by
	// step (inplace.Mirror.Steps), the files it writes and removes as they
	// stand once it and every change before it are made: one object's
	// edit may touch several files, and one file hold several objects'.
	Puts    map[string]git.File
	Deletes []string
}

// Rel is what attribution knows c's object by: its layout path relative
// to folder.
func (c Change) Rel(folder string) string {
	if c.Path != "" {
		return c.Path
	}
	rel, _ := mirror.Rel(folder, c.File)
	return rel
}

// ByVersion returns objs in the order Ordered puts their writes in: by
// resourceVersion, as numbers where both are.
func ByVersion(objs []mirror.Object) []mirror.Object {
	out := slices.Clone(objs)
	slices.SortStableFunc(out, func(a, b mirror.Object) int { return compareVersions(a.ResourceVersion, b.ResourceVersion) })
	return out
}

// inPlaceChanges are ip's steps as changes of the folder's files.
func inPlaceChanges(folder string, ip inplace.Plan) []Change {
	out := make([]Change, 0, len(ip.Steps))
	for _, s := range ip.Steps {
		c := Change{File: mirror.Join(folder, s.Object.File), Verb: VerbUpdate, Kind: s.Object.Kind, Namespace: s.Object.Namespace, Name: s.Object.Name, RV: s.RV, Path: s.Path}
		switch s.Verb {
		case inplace.StepAdded:
			c.Verb = VerbCreate
		case inplace.StepRemoved:
			c.Verb = VerbDelete
		}
		if s.Blob != nil {
			c.Blob = git.BlobSHA(s.Blob)
		}
		if s.Puts != nil {
			c.Puts = make(map[string]git.File, len(s.Puts))
			for rel, b := range s.Puts {
				c.Puts[mirror.Join(folder, rel)] = git.File{Content: b}
			}
			for _, rel := range s.Deletes {
				c.Deletes = append(c.Deletes, mirror.Join(folder, rel))
			}
		}
		out = append(out, c)
	}
	return out
}

// merged is the commit order of an InPlace plan: ip, its steps in the
// order they were planned (their files build on each other), merged with
// rest, the changes of the files laid out as layout Folder does, in
// Ordered's order. Both are writes by resourceVersion then removals, so
// merging keeps each in its order.
func merged(ip, rest []Change) []Change {
	rest = Ordered(rest)
	out := make([]Change, 0, len(ip)+len(rest))
	i, j := 0, 0
	for i < len(ip) && j < len(rest) {
		r, c := rest[j], ip[i]
		first := r.Verb != VerbDelete && (c.Verb == VerbDelete || compareVersions(r.RV, c.RV) < 0)
		if first {
			out = append(out, r)
			j++
			continue
		}
		out = append(out, c)
		i++
	}
	out = append(out, ip[i:]...)
	return append(out, rest[j:]...)
}

// putChange is the change of writing o's file at full.
func putChange(full string, f Folder, o mirror.Object) Change {
	verb := VerbUpdate
	if _, present := f.Files[full]; !present {
		verb = VerbCreate
	}
	return Change{File: full, Verb: verb, Kind: o.GVK.Kind, Namespace: o.Namespace, Name: o.Name, RV: o.ResourceVersion}
}

// deleteChange is the change of removing the owned file at full (rel in
// the folder). Its kind is read from the layout, spelled as the snapshot or
// the Mirror's spec spells it where either knows it.
func deleteChange(full, rel string, snap mirror.Snapshot, m Mirror) Change {
	l, ok := mirror.Parse(rel)
	if !ok {
		// Owned but not in the layout: named by its path.
		return Change{File: full, Verb: VerbDelete, Name: rel}
	}
	return Change{File: full, Verb: VerbDelete, Kind: kindName(l, snap, m.Kinds), Namespace: l.Namespace, Name: l.Name}
}

// kindName spells l's kind as the API serves it, when the snapshot holds
// an object of that kind or the spec names it (kinds); else as the path
// does.
func kindName(l mirror.Location, snap mirror.Snapshot, kinds []schema.GroupKind) string {
	for _, o := range snap.Objects {
		if o.GVK.Group == l.Group && strings.EqualFold(o.GVK.Kind, l.Kind) {
			return o.GVK.Kind
		}
	}
	for _, k := range kinds {
		if k.Kind != "" && k.Group == l.Group && strings.EqualFold(k.Kind, l.Kind) {
			return k.Kind
		}
	}
	return l.Kind
}

// Ordered returns changes in commit order: writes by resourceVersion (as
// numbers where both are, as etcd's are), then deletions, each by path
// where nothing else tells them apart.
func Ordered(changes []Change) []Change {
	out := slices.Clone(changes)
	slices.SortStableFunc(out, func(a, b Change) int {
		if (a.Verb == VerbDelete) != (b.Verb == VerbDelete) {
			if a.Verb == VerbDelete {
				return 1
			}
			return -1
		}
		if c := compareVersions(a.RV, b.RV); c != 0 {
			return c
		}
		return strings.Compare(a.File, b.File)
	})
	return out
}

// compareVersions orders two resourceVersions: numerically when both are
// numbers, else not at all (0). The API promises only that they are opaque;
// an order it does not give falls back to the path.
func compareVersions(a, b string) int {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA != nil || errB != nil {
		return 0
	}
	return cmp.Compare(x, y)
}
