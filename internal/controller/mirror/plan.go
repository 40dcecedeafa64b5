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
	"context"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

const (
	errListFmt       = "cannot list folder %q on branch %q"
	errReadFmt       = "cannot read %q on branch %q"
	errFolderFileFmt = "folder %q is a file on branch %q"
	errOwnedByFmt    = "folder %q on branch %q belongs to Mirror %s (its %s names it); two Mirrors cannot share a folder"
	errForeignFmt    = "%q on branch %q is not this Mirror's and is not a single document of %s %s: move or remove it, or choose another folder"
	errGetOwner      = "cannot check whether the Mirror named in the folder's marker still exists"
)

// folder is what a Mirror's folder holds at a commit: its files and blob
// SHAs, and the marker's ownership record when it names this Mirror.
type folder struct {
	files map[string]string
	// owned are the files (relative) the marker says this Mirror owns.
	owned map[string]bool
	// claimed is set when the marker names this Mirror.
	claimed bool
	// docs are the documents the marker says this Mirror edits in place.
	docs []mirror.DocRef
}

// read lists mg's folder at head ("" for an empty repository) and checks
// whom its marker names. A marker naming another Mirror that still exists is
// Stalled PathConflict; one naming a Mirror that is gone is taken over, but
// not what it owned: those files stay, unowned, unless they are objects this
// Mirror mirrors (sameObject).
func (e *external) read(ctx context.Context, mg *v1alpha1.Mirror, head string) (folder, error) {
	p := mg.Spec.ForProvider
	f := folder{files: map[string]string{}, owned: map[string]bool{}}
	if head == "" {
		return f, nil
	}
	files, err := e.repo.ListFiles(head, p.Path)
	if git.KindOf(err) == git.KindPathConflict {
		return folder{}, managed.Stalled(spec.ReasonPathConflict, errors.Wrapf(err, errFolderFileFmt, p.Path, p.Branch))
	}
	if err != nil {
		return folder{}, errors.Wrapf(spec.GitErrorBy(err, e.creds), errListFmt, p.Path, p.Branch)
	}
	f.files = files
	mp := join(p.Path, MarkerFile)
	if _, ok := files[mp]; !ok {
		return f, nil
	}
	m, ok, err := e.marker(mg, head, mp, files[mp])
	if err != nil {
		return folder{}, err
	}
	if !ok {
		// Overwritten by hand: what it recorded is lost. This Mirror
		// rewrites it with what it writes and adopts.
		return f, nil
	}
	self := types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}
	if owner := m.owner(); owner != self {
		exists, err := e.mirrorExists(ctx, owner)
		if err != nil {
			return folder{}, err
		}
		if exists {
			return folder{}, managed.Stalled(spec.ReasonPathConflict, errors.Errorf(errOwnedByFmt, p.Path, p.Branch, owner, MarkerFile))
		}
		return f, nil
	}
	f.claimed = true
	f.docs = m.Documents
	for _, rel := range m.Files {
		f.owned[rel] = true
	}
	return f, nil
}

// marker reads the marker at mp, blob SHA sha, unless that blob was
// parsed before (a blob never changes): a steady poll reads no blob.
func (e *external) marker(mg *v1alpha1.Mirror, head, mp, sha string) (marker, bool, error) {
	if m, ok, known := e.memo.markerAt(keyOf(mg), sha); known {
		return m, ok, nil
	}
	b, tooLarge, err := e.readBounded(head, mp, mg.Spec.ForProvider.Branch)
	if err != nil {
		return marker{}, false, err
	}
	// A marker too large to read is not one, as parseMarker says of one
	// past the bound: someone else wrote it.
	m, ok := marker{}, false
	if tooLarge == nil {
		m, ok = parseMarker(b.Content)
	}
	e.memo.keepMarker(keyOf(mg), sha, m, ok)
	return m, ok, nil
}

func (e *external) mirrorExists(ctx context.Context, nn types.NamespacedName) (bool, error) {
	err := e.kube.Get(ctx, nn, &v1alpha1.Mirror{})
	switch {
	case kerrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, errors.Wrap(err, errGetOwner)
	}
	return true, nil
}

// plan compares the folder at head with a synced snapshot and returns the
// one change that makes them equal: every object's file written where it
// differs, owned files of objects gone removed (unless prune is Never),
// owned files of Secrets a configuration reads removed (whatever prune), and
// the marker rewritten to list what the Mirror owns afterwards. Nothing
// outside the folder, and nothing in it the Mirror does not own, is
// touched; a file at an object's path that the Mirror does not own is
// adopted only when it already holds that object.
func (e *external) plan(mg *v1alpha1.Mirror, head string, f folder, snap mirror.Snapshot) (diff, error) {
	p := mg.Spec.ForProvider
	mp := join(p.Path, MarkerFile)
	// The marker says what the Mirror owns, so every write depends on it.
	d := diff{puts: map[string]git.File{}, expect: map[string]string{mp: f.files[mp]}, claimed: f.claimed}
	var owned []string
	want := map[string]bool{}
	objs := snap.Objects
	var ip mirror.InPlacePlan
	if inPlace(mg) {
		var err error
		if ip, err = e.inPlace(mg, head, f, snap); err != nil {
			return diff{}, err
		}
		objs = placed(p.Path, f, snap, ip, &d, want, &owned)
	}
	for _, o := range objs {
		full := join(p.Path, o.Path)
		if validate.Path(full) != nil {
			// A name some kind allows that Git refuses (or that would
			// reach into .git, or is too long inside this folder): left
			// out rather than failing the rest, and said in Ready.
			d.skipped = append(d.skipped, objectName(o))
			continue
		}
		if o.Secret && e.keys == nil {
			// Never in plain text (the request opts in only with keys).
			continue
		}
		if o.Secret && e.guarded[o.Path] {
			// A key that protects the repository stays out of it, even
			// encrypted; an owned file of it written before is removed
			// whatever prune says (below).
			d.guarded = append(d.guarded, objectName(o))
			continue
		}
		if e.keep[o.Path] {
			// Held as Git has it (attribution waits for its audit event,
			// or ignored users alone changed it): owned if it was.
			owned = heldAsIs(o.Path, f, want, owned)
			continue
		}
		want[o.Path] = true
		owned = append(owned, o.Path)
		put, changed, err := e.file(mg, head, f, full, o)
		if err != nil {
			return diff{}, err
		}
		if changed {
			d.puts[full] = put
			d.changes = append(d.changes, putChange(full, f, o))
			if !f.owned[o.Path] {
				// Written because no file was there, or because it held this
				// very object: a file someone pushes meanwhile is not ours.
				d.expect[full] = f.files[full]
			}
		}
	}
	owned = e.removals(mg, f, snap, want, &d, owned)
	m := marker{Mirror: markerOwner{Namespace: mg.GetNamespace(), Name: mg.GetName()}, Files: owned, Documents: ip.Docs}
	mc := m.render()
	if f.files[mp] != git.BlobSHA(mc) {
		d.puts[mp] = git.File{Content: mc}
	}
	return d, nil
}

// removals adds to d the owned files of objects no longer wanted (or that
// prune keeps, to owned), and returns owned.
func (e *external) removals(mg *v1alpha1.Mirror, f folder, snap mirror.Snapshot, want map[string]bool, d *diff, owned []string) []string {
	p := mg.Spec.ForProvider
	for rel := range f.owned {
		full := join(p.Path, rel)
		if want[rel] || rel == MarkerFile {
			continue
		}
		if _, present := f.files[full]; !present || slices.Contains(d.deletes, full) {
			continue
		}
		if e.keepsFile(p.Prune, rel) {
			owned = append(owned, rel)
			continue
		}
		d.deletes = append(d.deletes, full)
		d.changes = append(d.changes, deleteChange(full, rel, snap, mg))
	}
	slices.Sort(d.deletes)
	return owned
}

// heldAsIs records the file at rel as kept as Git has it: still owned (and
// not pruned) if the Mirror owned it.
func heldAsIs(rel string, f folder, want map[string]bool, owned []string) []string {
	if !f.owned[rel] {
		return owned
	}
	want[rel] = true
	return append(owned, rel)
}

// keepsFile reports whether the owned file at rel of an object gone stays:
// held by the join (its deletion waits for its audit event), or prune
// Never, which keeps the files of objects that no longer exist (a guarded
// Secret exists, and must not be in Git at all).
func (e *external) keepsFile(prune v1alpha1.MirrorPrune, rel string) bool {
	return e.keep[rel] || (prune == v1alpha1.MirrorPruneNever && !e.guarded[rel])
}

// file returns what o's file at full must hold, and whether the folder at
// head differs. An object's rendering is compared by blob SHA, without
// reading the file; a Secret's by what it decrypts to (sealSecret). A file
// at o's path that the Mirror does not own is adopted only when it already
// holds that object.
func (e *external) file(mg *v1alpha1.Mirror, head string, f folder, full string, o mirror.Object) (git.File, bool, error) {
	have, present := f.files[full]
	if o.Secret {
		return e.sealSecret(mg, head, full, o, have, present, f.owned[o.Path])
	}
	switch {
	case present && have == git.BlobSHA(o.Content):
		return git.File{}, false, nil
	case !present, f.owned[o.Path]:
		return git.File{Content: o.Content}, true, nil
	}
	p := mg.Spec.ForProvider
	b, tooLarge, err := e.readBounded(head, full, p.Branch)
	if err != nil {
		return git.File{}, false, err
	}
	if tooLarge != nil {
		// Past the bound, it is no object's (sameObject): say why.
		return git.File{}, false, managed.Stalled(spec.ReasonPathConflict, errors.Wrapf(tooLarge, errForeignFmt, full, p.Branch, o.GVK.Kind, objectName(o)))
	}
	if !sameObject(b.Content, o) {
		return git.File{}, false, managed.Stalled(spec.ReasonPathConflict, errors.Errorf(errForeignFmt, full, p.Branch, o.GVK.Kind, objectName(o)))
	}
	return git.File{Content: o.Content}, true, nil
}

// removal is the change that takes a Mirror's owned files and its marker
// out of the folder.
func removal(mg *v1alpha1.Mirror, f folder) diff {
	p := mg.Spec.ForProvider
	mp := join(p.Path, MarkerFile)
	// Removed because the marker names this Mirror: not once it names
	// another.
	d := diff{claimed: f.claimed, expect: map[string]string{mp: f.files[mp]}}
	for rel := range f.owned {
		if full := join(p.Path, rel); f.files[full] != "" {
			d.deletes = append(d.deletes, full)
		}
	}
	if f.files[mp] != "" {
		d.deletes = append(d.deletes, mp)
	}
	slices.Sort(d.deletes)
	return d
}

func objectName(o mirror.Object) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// placed adds the in-place plan ip to d: the files it edits or removes,
// each expected to be the blob it was computed from, and the files that
// stay owned. It returns the objects left to lay out (those found nowhere,
// and Secrets), which the Folder layout writes.
func placed(folder string, f folder, snap mirror.Snapshot, ip mirror.InPlacePlan, d *diff, want map[string]bool, owned *[]string) []mirror.Object {
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
	for full, sha := range f.files {
		d.expect[full] = sha
	}
	for rel, c := range ip.Puts {
		full := join(folder, rel)
		d.puts[full] = git.File{Content: c}
		d.expect[full] = f.files[full]
	}
	for _, rel := range ip.Deletes {
		full := join(folder, rel)
		d.deletes = append(d.deletes, full)
		d.expect[full] = f.files[full]
	}
	// Files it created in a kustomization, and owned files that hold a
	// document it found, stay owned.
	for _, rel := range ip.Created {
		want[rel] = true
		*owned = append(*owned, rel)
	}
	for _, r := range ip.Docs {
		if f.owned[r.File] && !want[r.File] {
			want[r.File] = true
			*owned = append(*owned, r.File)
		}
	}
	return objs
}
