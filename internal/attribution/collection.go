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

package attribution

import (
	"time"

	"github.com/crossplane-contrib/provider-git/internal/audit"
)

// pendingDeletion is a deletion that waits for a fact of its own object:
// its key, the start of its facts' window, and the end of its wait.
type pendingDeletion struct {
	key   audit.Key
	since time.Time
	until time.Time
}

// factID names one fact of the store: its request's audit ID and its
// arrival (an audit ID alone may be empty, or sent at several stages).
type factID struct {
	auditID string
	arrived int64
}

func idOf(f audit.Fact) factID { return factID{auditID: f.AuditID, arrived: f.Arrived.UnixNano()} }

// holdCollections keeps the deletions one deletecollection deleted in one
// commit. The deletions of one request reach the Mirror as separate watch
// events, often noticed by separate plans; each waits for a fact of its own
// object (a deletecollection's event names none) and so ends its wait at
// its own time. A deletion the deletecollection authors is held while
// another deletion that the same deletecollection may have deleted still
// waits, until the last such wait ends: at most the time between the
// first and the last notice. The others then resolve in the same plan, or
// to their own facts. One pass over what waits, then one lookup per
// deletion authored: a namespace emptied by the namespace controller is
// thousands of both. Call with mu held.
func (a *Attributions) holdCollections(out *attributed, now time.Time) {
	if len(out.collected) == 0 || len(out.pending) == 0 {
		return
	}
	// The latest end of the waits of the deletions each deletecollection
	// may have deleted.
	until := map[factID]time.Time{}
	for _, p := range out.pending {
		for _, f := range a.store.Collection(p.key.GroupResource, p.key.Namespace, p.since) {
			if id := idOf(f); p.until.After(until[id]) {
				until[id] = p.until
			}
		}
	}
	for rel, id := range out.collected {
		u, ok := until[id]
		if !ok {
			continue
		}
		delete(out.byPath, rel)
		out.keep[rel] = true
		out.deferred++
		if w := u.Sub(now); out.wait == 0 || w < out.wait {
			out.wait = w
		}
	}
}
