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

import "fmt"

// maxPacks is how many pack files a clone may collect before they are merged
// into one. Every fetch that brings objects and every push adds a pack, and
// a lookup consults each pack's index: without compaction a long-running
// provider's reads slow down, and it holds ever more files open.
const maxPacks = 32

const errCompact = "cannot merge the clone's pack files"

// compactLocked merges the clone's packs into one when there are more than
// maxPacks. Call it with r.mu held and only once the refs point at
// everything just stored: objects no ref reaches are dropped. While a fetch
// is receiving (from choosing its haves until its refs are set) it merges
// nothing, and leaves the packs to the next call (at that fetch's end, at
// the latest, whether it failed or not): the fetch's thin pack has deltas against what its haves reached,
// which our own push may meanwhile have left unreachable (a branch deleted),
// and a pack it stored is reachable only once its refs are set.
func (r *Repository) compactLocked() error {
	if r.receiving > 0 {
		return nil
	}
	packs, err := r.st.ObjectPacks()
	if err != nil {
		return fmt.Errorf("%s: %w", errCompact, err)
	}
	if len(packs) <= maxPacks {
		return nil
	}
	err = r.repackLocked()
	// The storage indexes packs once and keeps the index: it must forget
	// the packs that are gone, whether or not the repack finished.
	r.reindexLocked()
	if err != nil {
		return fmt.Errorf("%s: %w", errCompact, err)
	}
	return nil
}
