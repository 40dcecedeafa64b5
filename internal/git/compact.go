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
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	gogit "github.com/go-git/go-git/v5"
)

// maxPacks is how many pack files a clone may collect before they are merged
// into one. Every fetch that brings objects and every push adds a pack, and
// a lookup consults each pack's index: without compaction a long-running
// provider's reads slow down, and it holds ever more files open.
const maxPacks = 32

// fullFetchMaxPacks is maxPacks for a clone that fetches without haves
// (multiack.go): each of its fetches stores a pack of the whole history, so
// a few of them already hold many copies of every object.
const fullFetchMaxPacks = 8

const errCompact = "cannot merge the clone's pack files"

// compactLocked merges the clone's packs into one when there are more than
// maxPacks. Call it with r.mu held and only once the refs point at
// everything just stored: objects no ref reaches are dropped.
func (r *Repository) compactLocked() error {
	if r.unreferenced > 0 {
		// A fetch stored a pack and has not yet pointed refs at it: merging
		// now would drop what it downloaded.
		return nil
	}
	limit := maxPacks
	if r.fullFetch.Load() {
		limit = fullFetchMaxPacks
	}
	packs, err := r.st.ObjectPacks()
	if err != nil || len(packs) <= limit {
		return errors.Wrap(err, errCompact)
	}
	if r.partial.Load() {
		err = r.repackPresentLocked() // partialcompact.go
		r.st.Reindex()
		return errors.Wrap(err, errCompact)
	}
	repo, err := gogit.Open(r.st, nil)
	if err != nil {
		return errors.Wrap(err, errCompact)
	}
	err = repo.RepackObjects(&gogit.RepackConfig{})
	// The storage indexes packs once and keeps the index: it must forget
	// the packs that are gone, whether or not the repack finished.
	r.st.Reindex()
	return errors.Wrap(err, errCompact)
}
