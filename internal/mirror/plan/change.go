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

	"github.com/crossplane-contrib/provider-git/internal/mirror"
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
