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
	"strconv"
	"strings"
	"sync"
)

// registration is one owner's interest: the watches its request needs, and
// the last synced snapshot they gave, which Ensure returns again as long as
// none of them changed. A Mirror's reconcile then costs a few comparisons,
// not a walk over thousands of objects.
type registration struct {
	watches     []*watch
	fingerprint string // what else the snapshot depends on: resources, view, notes
	// holds is what the owner took of each object, for its ignored field
	// managers; nil when it ignores none.
	holds *holds

	mu       sync.Mutex // guards snap and versions
	snap     *Snapshot
	versions []uint64 // of watches, when snap was taken
}

// cached returns the kept snapshot if no watch changed since.
func (r *registration) cached() (Snapshot, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snap == nil {
		return Snapshot{}, false
	}
	for i, w := range r.watches {
		w.mu.RLock()
		v := w.version
		w.mu.RUnlock()
		if v != r.versions[i] {
			return Snapshot{}, false
		}
	}
	return *r.snap, true
}

// keep remembers snap, taken when the watches were at versions.
func (r *registration) keep(snap Snapshot, versions []uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.snap, r.versions = &snap, versions
}

// fingerprint names what a snapshot depends on besides its watches.
func fingerprint(res []resolved, v view, skipped []string, ignore []string) string {
	var b strings.Builder
	for _, r := range res {
		b.WriteString(r.gvr.String())
		b.WriteByte(';')
	}
	b.WriteString(v.selector.String())
	b.WriteByte(';')
	b.WriteString(strconv.FormatBool(v.skipControlled))
	b.WriteString(strconv.FormatBool(v.skipGenerated))
	for _, m := range ignore {
		b.WriteString(";ignore=")
		b.WriteString(m)
	}
	for _, s := range skipped {
		b.WriteByte(';')
		b.WriteString(s)
	}
	return b.String()
}
