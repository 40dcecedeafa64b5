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
	arrived time.Time
}

func idOf(f audit.Fact) factID { return factID{auditID: f.AuditID, arrived: f.Arrived} }

// is reports whether f is the fact id names.
func (id factID) is(f audit.Fact) bool {
	return f.AuditID == id.auditID && f.Arrived.Equal(id.arrived)
}

// holdCollections keeps the deletions one deletecollection deleted in one
// commit. The deletions of one request reach the Mirror as separate watch
// events, often noticed by separate plans; each waits for a fact of its own
// object (a deletecollection's event names none) and so ends its wait at
// its own time. A deletion the deletecollection authors is held while
// another deletion that the same deletecollection may have deleted still
// waits, until the last such wait ends: at most the time between the
// first and the last notice. The others then resolve in the same plan, or
// to their own facts. Call with mu held.
func (a *Attributions) holdCollections(out *attributed, now time.Time) {
	for rel, id := range out.collected {
		until, ok := a.coveredWait(out, rel, id)
		if !ok {
			continue
		}
		delete(out.byPath, rel)
		out.keep[rel] = true
		out.deferred++
		if w := until.Sub(now); out.wait == 0 || w < out.wait {
			out.wait = w
		}
	}
}

// coveredWait returns the latest end of the waits of the pending
// deletions, other than rel, that the deletecollection id may have
// deleted.
func (a *Attributions) coveredWait(out *attributed, rel string, id factID) (time.Time, bool) {
	var until time.Time
	found := false
	for q, p := range out.pending {
		if q == rel {
			continue
		}
		for _, f := range a.store.Collection(p.key.GroupResource, p.key.Namespace, p.since) {
			if id.is(f) && p.until.After(until) {
				until, found = p.until, true
			}
		}
	}
	return until, found
}
