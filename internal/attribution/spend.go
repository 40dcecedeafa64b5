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

import "time"

// The ledger's side of a write: what a Decision spends is recorded when the
// write that carries it is handed to the branch writer, and spent only once
// it landed.

// Spend records what the write of at, the Mirror key's, spends once it
// lands (Landed), and counts nothing until then.
func (a *Attributions) Spend(key string, at *Decision) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.ledgers[key]
	if l == nil {
		return
	}
	l.spending = map[string]time.Time{}
	l.resolved, l.unresolved = 0, 0
	for rel, v := range at.byPath {
		l.spending[rel] = v.spent
		if v.verdict == unattributed {
			l.unresolved++
		} else {
			l.resolved++
		}
	}
}

// Landed spends what the landed write of the Mirror key attributed, and
// counts it.
func (a *Attributions) Landed(key string) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.ledgers[key]
	if l == nil || l.spending == nil {
		return
	}
	for rel, t := range l.spending {
		// Never back: a plan made while the write waited in the branch
		// writer's window may have spent later facts of the path (an
		// ignored user's verdict), and facts once spent author nothing
		// more.
		if t.After(l.after[rel]) {
			l.after[rel] = t
		}
		l.noticeDone(rel)
	}
	l.spending = nil
	a.metrics.Attributed("resolved", l.resolved)
	a.metrics.Attributed("unresolved", l.unresolved)
}

// Failed forgets what a write of the Mirror key that did not land would
// have spent.
func (a *Attributions) Failed(key string) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if l := a.ledgers[key]; l != nil {
		l.spending = nil
	}
}
