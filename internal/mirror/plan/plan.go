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
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/inplace"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// A Mirror is what the plan reads of a Mirror: who it is (the marker's
// owner), its folder, and what its spec says of pruning and kinds.
type Mirror struct {
	Namespace, Name string
	// Path is the folder ("." for the root).
	Path string
	// PruneNever keeps the owned files of objects that no longer exist
	// (prune Never).
	PruneNever bool
	// Kinds are the kinds the spec names, group and kind as written: they
	// spell the kind of a deleted object the snapshot holds none of.
	Kinds []schema.GroupKind
}

// Folder is what a Mirror's folder holds at a commit: its files and blob
// SHAs, and the marker's ownership record when it names this Mirror.
type Folder struct {
	Files map[string]string
	// Owned are the files (relative) the marker says this Mirror owns.
	Owned map[string]bool
	// Claimed is set when the marker names this Mirror.
	Claimed bool
	// Docs are the documents the marker says this Mirror edits in place.
	Docs []inplace.DocRef
}

// Diff is what a Mirror's folder needs to match a snapshot.
type Diff struct {
	Puts    map[string]git.File
	Deletes []string
	// Expect is what the change was decided on: the blob SHA of each path
	// it writes without owning it ("" where none was), and the marker's.
	// The branch writer checks it where the commit lands (git.Change.Expect).
	Expect map[string]string
	// Claimed is set when the folder already carries this Mirror's marker.
	Claimed bool
	// Skipped names the objects whose path in this folder Git refuses.
	Skipped []string
	// Guarded names the Secrets left out because a configuration reads
	// them (Planner.Guarded).
	Guarded []string
	// Changes name the object behind each put and delete of an object's
	// file, for commit PerChange and attribution (change.go).
	Changes []Change
	// InPlace is set when the folder was planned in place: Changes are in
	// commit order, and those of edits in place carry their files.
	InPlace bool
}

// Empty reports whether d writes and removes nothing.
func (d Diff) Empty() bool { return len(d.Puts) == 0 && len(d.Deletes) == 0 }

// Size is how many files d writes or removes.
func (d Diff) Size() int { return len(d.Puts) + len(d.Deletes) }

// A Planner plans one Mirror's folder against a synced snapshot.
type Planner struct {
	Mirror Mirror
	// InPlace is the folder's in-place plan (layout InPlace); nil for
	// layout Folder.
	InPlace *inplace.Plan
	// Keep are the snapshot paths held as Git has them (attribution waits
	// for their audit event, or ignored users alone changed them).
	Keep map[string]bool
	// Guarded are the snapshot paths of Secrets a configuration reads: a
	// key that protects the repository stays out of it, even encrypted.
	Guarded map[string]bool
	// Secrets is set when the Mirror's Secrets are encrypted before they
	// are written; without it a Secret is never written.
	Secrets bool
	// File returns what o's file at full must hold, and whether the folder
	// differs: by blob SHA, by reading a file it does not own to adopt it,
	// or, for a Secret, by what the file decrypts to.
	File func(full string, o mirror.Object) (git.File, bool, error)
}

// Plan compares the folder f with a synced snapshot and returns the one
// change that makes them equal: every object's file written where it
// differs, owned files of objects gone removed (unless prune is Never),
// owned files of Secrets a configuration reads removed (whatever prune), and
// the marker rewritten to list what the Mirror owns afterwards. Nothing
// outside the folder, and nothing in it the Mirror does not own, is
// touched; a file at an object's path that the Mirror does not own is
// adopted only when it already holds that object (File decides).
func (pl Planner) Plan(f Folder, snap mirror.Snapshot) (Diff, error) {
	p := pl.Mirror
	mp := mirror.Join(p.Path, MarkerFile)
	// The marker says what the Mirror owns, so every write depends on it.
	d := Diff{Puts: map[string]git.File{}, Expect: map[string]string{mp: f.Files[mp]}, Claimed: f.Claimed}
	var owned []string
	want := map[string]bool{}
	objs := snap.Objects
	var ip inplace.Plan
	if pl.InPlace != nil {
		ip = *pl.InPlace
		objs = placed(p.Path, f, snap, ip, &d, want, &owned)
		d.InPlace = true
	}
	for _, o := range objs {
		full := mirror.Join(p.Path, o.Path)
		if validate.Path(full) != nil {
			// A name some kind allows that Git refuses (or that would
			// reach into .git, or is too long inside this folder): left
			// out rather than failing the rest, and said in Ready.
			d.Skipped = append(d.Skipped, o.NamespacedName())
			continue
		}
		if o.Secret && !pl.Secrets {
			// Never in plain text (the request opts in only with keys).
			continue
		}
		if o.Secret && pl.Guarded[o.Path] {
			// A key that protects the repository stays out of it, even
			// encrypted; an owned file of it written before is removed
			// whatever prune says (below).
			d.Guarded = append(d.Guarded, o.NamespacedName())
			continue
		}
		if pl.Keep[o.Path] {
			// Held as Git has it (attribution waits for its audit event,
			// or ignored users alone changed it): owned if it was.
			owned = heldAsIs(o.Path, f, want, owned)
			continue
		}
		want[o.Path] = true
		owned = append(owned, o.Path)
		put, changed, err := pl.File(full, o)
		if err != nil {
			return Diff{}, err
		}
		if changed {
			d.Puts[full] = put
			d.Changes = append(d.Changes, putChange(full, f, o))
			if !f.Owned[o.Path] {
				// Written because no file was there, or because it held this
				// very object: a file someone pushes meanwhile is not ours.
				d.Expect[full] = f.Files[full]
			}
		}
	}
	owned = pl.removals(f, snap, want, &d, owned)
	if d.InPlace {
		d.Changes = merged(inPlaceChanges(p.Path, ip), d.Changes)
	}
	m := Marker{Mirror: MarkerOwner{Namespace: p.Namespace, Name: p.Name}, Files: owned, Documents: ip.Docs}
	mc := m.Render()
	if f.Files[mp] != git.BlobSHA(mc) {
		d.Puts[mp] = git.File{Content: mc}
	}
	return d, nil
}

// removals adds to d the owned files of objects no longer wanted (or that
// prune keeps, to owned), and returns owned.
func (pl Planner) removals(f Folder, snap mirror.Snapshot, want map[string]bool, d *Diff, owned []string) []string {
	p := pl.Mirror
	for rel := range f.Owned {
		full := mirror.Join(p.Path, rel)
		if want[rel] || rel == MarkerFile {
			continue
		}
		if _, present := f.Files[full]; !present || slices.Contains(d.Deletes, full) {
			continue
		}
		if pl.keepsFile(p.PruneNever, rel) {
			owned = append(owned, rel)
			continue
		}
		d.Deletes = append(d.Deletes, full)
		d.Changes = append(d.Changes, deleteChange(full, rel, snap, p))
	}
	slices.Sort(d.Deletes)
	return owned
}

// heldAsIs records the file at rel as kept as Git has it: still owned (and
// not pruned) if the Mirror owned it.
func heldAsIs(rel string, f Folder, want map[string]bool, owned []string) []string {
	if !f.Owned[rel] {
		return owned
	}
	want[rel] = true
	return append(owned, rel)
}

// keepsFile reports whether the owned file at rel of an object gone stays:
// held by the join (its deletion waits for its audit event), or prune
// Never, which keeps the files of objects that no longer exist (a guarded
// Secret exists, and must not be in Git at all).
func (pl Planner) keepsFile(pruneNever bool, rel string) bool {
	return pl.Keep[rel] || (pruneNever && !pl.Guarded[rel])
}

// Removal is the change that takes a Mirror's owned files and its marker
// out of the folder.
func Removal(m Mirror, f Folder) Diff {
	mp := mirror.Join(m.Path, MarkerFile)
	// Removed because the marker names this Mirror: not once it names
	// another.
	d := Diff{Claimed: f.Claimed, Expect: map[string]string{mp: f.Files[mp]}}
	for rel := range f.Owned {
		if full := mirror.Join(m.Path, rel); f.Files[full] != "" {
			d.Deletes = append(d.Deletes, full)
		}
	}
	if f.Files[mp] != "" {
		d.Deletes = append(d.Deletes, mp)
	}
	slices.Sort(d.Deletes)
	return d
}

// placed adds the in-place plan ip to d: the files it edits or removes,
// each expected to be the blob it was computed from, and the files that
// stay owned. It returns the objects left to lay out (those found nowhere,
// and Secrets), which the Folder layout writes.
func placed(folder string, f Folder, snap mirror.Snapshot, ip inplace.Plan, d *Diff, want map[string]bool, owned *[]string) []mirror.Object {
	objs := ip.New
	for _, o := range snap.Objects {
		if o.Secret {
			objs = append(objs, o)
		}
	}
	// The edit was decided on every file of the folder (a base, another
	// overlay, a kustomization it does not write) and checked by
	// kustomize there: each must still hold what it held where the commit
	// lands, or the Mirror plans and checks again on that head.
	for full, sha := range f.Files {
		d.Expect[full] = sha
	}
	for rel, c := range ip.Puts {
		full := mirror.Join(folder, rel)
		d.Puts[full] = git.File{Content: c}
		d.Expect[full] = f.Files[full]
	}
	for _, rel := range ip.Deletes {
		full := mirror.Join(folder, rel)
		d.Deletes = append(d.Deletes, full)
		d.Expect[full] = f.Files[full]
	}
	// Files it created in a kustomization, and owned files that hold a
	// document it found, stay owned.
	for _, rel := range ip.Created {
		want[rel] = true
		*owned = append(*owned, rel)
	}
	for _, r := range ip.Docs {
		if f.Owned[r.File] && !want[r.File] {
			want[r.File] = true
			*owned = append(*owned, r.File)
		}
	}
	return objs
}
