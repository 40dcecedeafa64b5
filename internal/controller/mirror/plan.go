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
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

const (
	errListFmt       = "cannot list folder %q on branch %q"
	errReadFmt       = "cannot read %q on branch %q"
	errFolderFileFmt = "folder %q is a file on branch %q"
	errOwnedByFmt    = "folder %q on branch %q belongs to Mirror %s (its %s names it); two Mirrors cannot share a folder"
	errForeignFmt    = "%q on branch %q is not this Mirror's and is not a single document of %s %s: move or remove it, or choose another folder"
	errGetOwner      = "cannot check whether the Mirror named in the folder's marker still exists"
)

// read lists mg's folder at head ("" for an empty repository) and checks
// whom its marker names. A marker naming another Mirror that still exists is
// Stalled PathConflict; one naming a Mirror that is gone is taken over, but
// not what it owned: those files stay, unowned, unless they are objects this
// Mirror mirrors (sameObject).
func (e *external) read(ctx context.Context, mg *v1alpha1.Mirror, head string) (plan.Folder, error) {
	p := mg.Spec.ForProvider
	f := plan.Folder{Files: map[string]string{}, Owned: map[string]bool{}}
	if head == "" {
		return f, nil
	}
	files, err := e.repo.ListFiles(head, p.Path)
	if git.KindOf(err) == git.KindPathConflict {
		return plan.Folder{}, managed.Stalled(spec.ReasonPathConflict, errors.Wrapf(err, errFolderFileFmt, p.Path, p.Branch))
	}
	if err != nil {
		return plan.Folder{}, errors.Wrapf(spec.GitErrorBy(err, e.creds), errListFmt, p.Path, p.Branch)
	}
	f.Files = files
	mp := mirror.Join(p.Path, MarkerFile)
	if _, ok := files[mp]; !ok {
		return f, nil
	}
	m, ok, err := e.marker(ctx, mg, head, mp, files[mp])
	if err != nil {
		return plan.Folder{}, err
	}
	if !ok {
		// Overwritten by hand: what it recorded is lost. This Mirror
		// rewrites it with what it writes and adopts.
		return f, nil
	}
	self := types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}
	if owner := m.Owner(); owner != self {
		exists, err := e.mirrorExists(ctx, owner)
		if err != nil {
			return plan.Folder{}, err
		}
		if exists {
			return plan.Folder{}, managed.Stalled(spec.ReasonPathConflict, errors.Errorf(errOwnedByFmt, p.Path, p.Branch, owner, MarkerFile))
		}
		return f, nil
	}
	f.Claimed = true
	f.Docs = m.Documents
	for _, rel := range m.Files {
		f.Owned[rel] = true
	}
	return f, nil
}

// marker reads the marker at mp, blob SHA sha, unless that blob was
// parsed before (a blob never changes): a steady poll reads no blob.
func (e *external) marker(ctx context.Context, mg *v1alpha1.Mirror, head, mp, sha string) (plan.Marker, bool, error) {
	if m, ok, known := e.memo.markerAt(keyOf(mg), sha); known {
		return m, ok, nil
	}
	b, tooLarge, err := e.readBounded(ctx, head, mp, mg.Spec.ForProvider.Branch)
	if err != nil {
		return plan.Marker{}, false, err
	}
	// A marker too large to read is not one, as plan.ParseMarker says of
	// one past the bound: someone else wrote it.
	m, ok := plan.Marker{}, false
	if tooLarge == nil {
		m, ok = plan.ParseMarker(b.Content)
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

// planning is one Observe's plan of a Mirror's folder: what it read, and
// what its plan found the Secrets' files to hold (sealSecret), which the
// memo keeps once the folder is planned.
type planning struct {
	mg *v1alpha1.Mirror
	// head is the branch head the folder was read at; "" in an empty
	// repository.
	head   string
	folder plan.Folder
	snap   mirror.Snapshot
	// guarded are the snapshot paths of Secrets a configuration reads.
	guarded map[string]bool
	// sealed is what the last plan found or made the Secrets' files to
	// hold, by full path.
	sealed map[string]sealedFile
}

// found records what the Secret's file at full holds.
func (pl *planning) found(full string, f sealedFile) {
	if pl.sealed == nil {
		pl.sealed = map[string]sealedFile{}
	}
	pl.sealed[full] = f
}

// plan compares the folder with a synced snapshot and returns the one
// change that makes them equal (plan.Planner.Plan), after the in-place plan
// of the folder when the layout is InPlace; keep are the snapshot paths
// held as Git has them (attribute.go).
func (e *external) plan(ctx context.Context, pl *planning, keep map[string]bool) (plan.Diff, error) {
	pl.sealed = nil
	planner := plan.Planner{
		Mirror: planOf(pl.mg), Keep: keep, Guarded: pl.guarded, Secrets: e.keys != nil,
		File: func(full string, o mirror.Object) (git.File, bool, error) { return e.file(ctx, pl, full, o) },
	}
	if inPlace(pl.mg) {
		ip, err := e.inPlace(ctx, pl.mg, pl.head, pl.folder, pl.snap, keep)
		if err != nil {
			return plan.Diff{}, err
		}
		planner.InPlace = &ip
	}
	return planner.Plan(pl.folder, pl.snap)
}

// planOf is mg as its plan reads it.
func planOf(mg *v1alpha1.Mirror) plan.Mirror {
	p := mg.Spec.ForProvider
	m := plan.Mirror{Namespace: mg.GetNamespace(), Name: mg.GetName(), Path: p.Path, PruneNever: p.Prune == v1alpha1.MirrorPruneNever}
	for _, r := range p.Resources {
		group, _, found := strings.Cut(r.APIVersion, "/")
		if !found {
			group = ""
		}
		m.Kinds = append(m.Kinds, schema.GroupKind{Group: group, Kind: r.Kind})
	}
	return m
}

// file returns what o's file at full must hold, and whether the folder at
// head differs. An object's rendering is compared by blob SHA, without
// reading the file; a Secret's by what it decrypts to (sealSecret). A file
// at o's path that the Mirror does not own is adopted only when it already
// holds that object.
func (e *external) file(ctx context.Context, pl *planning, full string, o mirror.Object) (git.File, bool, error) {
	f := pl.folder
	have, present := f.Files[full]
	if o.Secret {
		return e.sealSecret(ctx, pl, full, o, have, present, f.Owned[o.Path])
	}
	switch {
	case present && have == git.BlobSHA(o.Content):
		return git.File{}, false, nil
	case !present, f.Owned[o.Path]:
		return git.File{Content: o.Content}, true, nil
	}
	p := pl.mg.Spec.ForProvider
	b, tooLarge, err := e.readBounded(ctx, pl.head, full, p.Branch)
	if err != nil {
		return git.File{}, false, err
	}
	if tooLarge != nil {
		// Past the bound, it is no object's (sameObject): say why.
		return git.File{}, false, managed.Stalled(spec.ReasonPathConflict, errors.Wrapf(tooLarge, errForeignFmt, full, p.Branch, o.GVK.Kind, o.NamespacedName()))
	}
	if !sameObject(b.Content, o) {
		return git.File{}, false, managed.Stalled(spec.ReasonPathConflict, errors.Errorf(errForeignFmt, full, p.Branch, o.GVK.Kind, o.NamespacedName()))
	}
	return git.File{Content: o.Content}, true, nil
}
