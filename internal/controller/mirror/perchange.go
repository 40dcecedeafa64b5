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
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/message"
)

// Commit PerChange: Git as an audit trail. The Mirror's plan stays what it
// is, the whole folder against the snapshot, so everything it guarantees
// (ownership, adoption, mark-and-sweep, preconditions) holds unchanged; a
// PerChange Mirror only cuts the one change into parts, one per object
// whose file it writes or removes (git.Part), which the branch writer
// commits in order and pushes with the rest of the window.
//
// What a part records is an object's state when the plan was made, not
// each watch event: the snapshot keeps the latest state of each object, so
// an object changed several times before its commit is written (within the
// window, or while the push before was under way) is one commit of its
// latest state. Parts are ordered by the objects' resourceVersion, which an
// etcd-backed API server takes from one revision counter for every write,
// so the commits follow the order the changes were made; deletions, whose
// time the snapshot does not keep, follow, by path. The marker, which lists
// what the Mirror owns, changes with the last part: a thousand new objects
// are a thousand commits, not a thousand copies of a growing marker, and
// every file a commit adds is one the marker lists by the end of the push.

// Verbs of a PerChange commit.
const (
	verbCreate = "Create"
	verbUpdate = "Update"
	verbDelete = "Delete"
)

// change is the object behind one put or delete of an object's file.
type change struct {
	// file is the full path in the repository.
	file string
	verb string
	// kind is the object's kind as the API serves it (ConfigMap); for a
	// deleted object whose kind the Mirror no longer sees, the lower-case
	// kind of its path.
	kind      string
	namespace string
	name      string
	// rv is the object's resourceVersion; "" for a deletion.
	rv string
}

// putChange is the change of writing o's file at full.
func putChange(full string, f folder, o mirror.Object) change {
	verb := verbUpdate
	if _, present := f.files[full]; !present {
		verb = verbCreate
	}
	return change{file: full, verb: verb, kind: o.GVK.Kind, namespace: o.Namespace, name: o.Name, rv: o.ResourceVersion}
}

// deleteChange is the change of removing the owned file at full (rel in
// the folder). Its kind is read from the layout, spelled as the snapshot or
// the Mirror's spec spells it where either knows it.
func deleteChange(full, rel string, snap mirror.Snapshot, mg *v1alpha1.Mirror) change {
	l, ok := mirror.Parse(rel)
	if !ok {
		// Owned but not in the layout: named by its path.
		return change{file: full, verb: verbDelete, name: rel}
	}
	return change{file: full, verb: verbDelete, kind: kindName(l, snap, mg), namespace: l.Namespace, name: l.Name}
}

// kindName spells l's kind as the API serves it, when the snapshot holds
// an object of that kind or the spec names it; else as the path does.
func kindName(l mirror.Location, snap mirror.Snapshot, mg *v1alpha1.Mirror) string {
	for _, o := range snap.Objects {
		if o.GVK.Group == l.Group && strings.EqualFold(o.GVK.Kind, l.Kind) {
			return o.GVK.Kind
		}
	}
	for _, r := range mg.Spec.ForProvider.Resources {
		group, _, found := strings.Cut(r.APIVersion, "/")
		if !found {
			group = ""
		}
		if r.Kind != "" && group == l.Group && strings.EqualFold(r.Kind, l.Kind) {
			return r.Kind
		}
	}
	return l.Kind
}

// perChange reports whether mg commits each change on its own.
func perChange(mg *v1alpha1.Mirror) bool {
	return mg.Spec.ForProvider.Commit == v1alpha1.MirrorCommitPerChange
}

// ordered returns d's changes in commit order: writes by resourceVersion
// (as numbers where both are, as etcd's are), then deletions, each by path
// where nothing else tells them apart.
func ordered(changes []change) []change {
	out := slices.Clone(changes)
	slices.SortStableFunc(out, func(a, b change) int {
		if (a.verb == verbDelete) != (b.verb == verbDelete) {
			if a.verb == verbDelete {
				return 1
			}
			return -1
		}
		if c := compareVersions(a.rv, b.rv); c != 0 {
			return c
		}
		return strings.Compare(a.file, b.file)
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

// partsOf cuts d into one part per object's change, in commit order (see
// ordered): each with its file, what that file was decided on, and a
// message naming the object. The marker's expectation rides with the first
// part (every part depends on what the marker says the Mirror owns), its
// rewrite with the last, and anything d writes that no object accounts for
// with the last too.
func partsOf(mg *v1alpha1.Mirror, d diff) ([]git.Part, error) {
	changes := ordered(d.changes)
	parts := make([]git.Part, 0, len(changes))
	used := map[string]bool{}
	for _, c := range changes {
		msg, err := partMessage(mg, c)
		if err != nil {
			return nil, err
		}
		p := git.Part{Message: msg}
		if f, ok := d.puts[c.file]; ok {
			p.Puts = map[string]git.File{c.file: f}
		} else {
			p.Deletes = []string{c.file}
		}
		if sha, ok := d.expect[c.file]; ok {
			p.Expect = map[string]string{c.file: sha}
		}
		used[c.file] = true
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	first, last := &parts[0], &parts[len(parts)-1]
	for file, sha := range d.expect {
		if !used[file] {
			if first.Expect == nil {
				first.Expect = map[string]string{}
			}
			first.Expect[file] = sha
		}
	}
	for file, f := range d.puts {
		if !used[file] {
			if last.Puts == nil {
				last.Puts = map[string]git.File{}
			}
			last.Puts[file] = f
		}
	}
	for _, file := range d.deletes {
		if !used[file] {
			last.Deletes = append(last.Deletes, file)
		}
	}
	return parts, nil
}

// partMessage renders the message of the commit that records c: the
// Mirror's template with the object's fields, or by default the verb, the
// kind and the object's name, with the file in the body.
func partMessage(mg *v1alpha1.Mirror, c change) (string, error) {
	p := mg.Spec.ForProvider
	name := c.name
	if c.namespace != "" {
		name = c.namespace + "/" + c.name
	}
	subject := strings.TrimSpace(c.verb + " " + c.kind + " " + name)
	def := fmt.Sprintf("%s\n\nMirror %s/%s: %s", subject, mg.GetNamespace(), mg.GetName(), c.file)
	return message.Render(p.CommitMessage, def, MessageData{
		Path: p.Path, Branch: p.Branch, Name: mg.GetName(), Namespace: mg.GetNamespace(), Changed: 1,
		Verb: c.verb, Kind: c.kind, ObjectNamespace: c.namespace, ObjectName: c.name, File: c.file,
	})
}
