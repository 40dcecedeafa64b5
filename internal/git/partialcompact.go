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

package git

import (
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	gogitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Compacting a partial clone. go-git's RepackObjects cannot: it opens the
// repository, which refuses the partialclone extension, and it packs every
// object the refs reach, blobs it does not hold included. This packs what
// the refs reach and the clone holds: every commit and tree (a partial
// clone lacks none), and the blobs fetched so far, so compaction neither
// drops a blob a read fetched nor asks for one never fetched. A blob that
// only an unreachable commit used goes, as any object does in a full clone.

// repackPresentLocked merges the clone's packs into one of the objects the
// refs reach and the clone holds. Call it with r.mu held.
func (r *Repository) repackPresentLocked() error {
	old, err := r.st.ObjectPacks()
	if err != nil {
		return err
	}
	objs, err := presentObjects(r.st)
	if err != nil {
		return err
	}
	wc, err := r.st.PackfileWriter()
	if err != nil {
		return err
	}
	// git's and go-git's default window: the delta search of a repack.
	h, err := packfile.NewEncoder(wc, r.st, false).Encode(objs, gogitconfig.DefaultPackWindow)
	if cerr := wc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	for _, p := range old {
		if p == h {
			continue
		}
		if err := r.st.DeleteOldObjectPackAndIndex(p, time.Time{}); err != nil {
			return err
		}
	}
	packed := make(map[plumbing.Hash]bool, len(objs))
	for _, o := range objs {
		packed[o] = true
	}
	return r.st.ForEachObjectHash(func(o plumbing.Hash) error {
		if !packed[o] {
			return nil
		}
		return r.st.DeleteLooseObject(o)
	})
}

// presentObjects lists the objects the refs of st reach, without reading a
// blob: commits and trees must be there (an error otherwise), blobs are
// listed when st holds them. A gitlink names another repository's commit;
// the parents of a shallow clone's boundary commits are not in the clone.
func presentObjects(st *filesystem.Storage) ([]plumbing.Hash, error) {
	shallow, err := st.Shallow()
	if err != nil {
		return nil, err
	}
	boundary := map[plumbing.Hash]bool{}
	for _, h := range shallow {
		boundary[h] = true
	}
	seen := map[plumbing.Hash]bool{}
	var objs, stack []plumbing.Hash
	refs, err := st.IterReferences()
	if err != nil {
		return nil, err
	}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference {
			stack = append(stack, ref.Hash())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		objs = append(objs, h)
		o, err := object.GetObject(st, h)
		if err != nil {
			return nil, errors.Wrapf(err, "%s %s", errCompact, h)
		}
		switch o := o.(type) {
		case *object.Commit:
			stack = append(stack, o.TreeHash)
			if !boundary[h] {
				stack = append(stack, o.ParentHashes...)
			}
		case *object.Tree:
			for _, e := range o.Entries {
				switch {
				case e.Mode == filemode.Dir:
					stack = append(stack, e.Hash)
				case e.Mode == filemode.Submodule || seen[e.Hash]:
				default:
					// A blob: seen once, held or not (an absent one
					// costs a lookup, not one per tree naming it).
					seen[e.Hash] = true
					if st.HasEncodedObject(e.Hash) == nil {
						objs = append(objs, e.Hash)
					}
				}
			}
		case *object.Tag:
			stack = append(stack, o.Target)
		}
	}
	return objs, nil
}
