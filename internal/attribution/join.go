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

	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// A Mirror is one Mirror with attribution Audit, as the join reads it.
type Mirror struct {
	// Key names its ledger and its interest in the audit store: the key of
	// its changes in the branch writer.
	Key string
	// Name is whom a fact for one of its deferred changes wakes.
	Name types.NamespacedName
	// Ignore are the users whose changes alone keep a file as Git has it
	// (spec.forProvider.ignore.users).
	Ignore []string
	// AuthorName and AuthorEmail are its author templates
	// (spec.forProvider.author); empty: the defaults.
	AuthorName, AuthorEmail string
}

// A Decision is what the join decided for one plan of one Mirror: who
// authors each change in the write, and which changes are held out of it.
type Decision struct {
	attributed
}

// Join joins the changes of m's first plan of snap to audit facts and
// records the resources snap covers as the facts m needs. changed holds
// the blob SHA of each file the plan writes and "" for each it deletes, by
// path relative to m's folder, the marker aside. The error is m's author
// template that cannot render; nothing is recorded then.
func (a *Attributions) Join(m Mirror, snap mirror.Snapshot, changed map[string]string) (*Decision, error) {
	who, err := newAuthors(m.AuthorName, m.AuthorEmail)
	if err != nil {
		return nil, err
	}
	a.want(m.Key, snap.Resources)
	return &Decision{attributed: a.decide(m, snap, changed, who)}, nil
}

// Wait is how long a change waits for the facts that name who made it.
func (a *Attributions) Wait() time.Duration { return a.wait }

// Keep are the paths the plan must hold as Git has them: their changes
// wait for their facts, or ignored users alone made them.
func (d *Decision) Keep() map[string]bool { return d.keep }

// Deferred reports how many changes wait for their facts, and how long
// until the first wait ends; none for a nil Decision (no join).
func (d *Decision) Deferred() (n int, next time.Duration) {
	if d == nil {
		return 0, 0
	}
	return d.deferred, d.wait
}
