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

// Source is where a Mirror's join finds who made a change.
type Source int

// The sources of attribution.
const (
	// SourceAudit joins audit facts by object and time (spec attribution
	// Audit).
	SourceAudit Source = iota
	// SourceAdmission joins admission facts exactly (spec attribution
	// Admission); a change no fact joins is authored unresolved at once.
	SourceAdmission
	// SourceAuto joins admission facts exactly and, for a change none
	// joins, audit facts by time (spec attribution Auto).
	SourceAuto
)

func (s Source) admission() bool { return s == SourceAdmission || s == SourceAuto }
func (s Source) audit() bool     { return s == SourceAudit || s == SourceAuto }

// A Mirror is one Mirror with attribution, as the join reads it.
type Mirror struct {
	// Source is where its join finds who made a change.
	Source Source
	// Key names its ledger and its interest in the audit store: the key of
	// its changes in the branch writer.
	Key string
	// Name is whom a fact for one of its deferred changes wakes.
	Name types.NamespacedName
	// Ignore are the users whose changes alone keep a file as Git has it
	// (spec.forProvider.ignore.users).
	Ignore []string
	// IgnoreManagers are the field managers whose changes alone keep a
	// file as Git has it (spec.forProvider.ignore.fieldManagers), as an
	// admission fact (its request's fieldManager) or an audit fact (its
	// requestURI's) names them.
	IgnoreManagers []string
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
	res := snap.Resources
	if !m.Source.audit() {
		// No audit facts kept for it.
		res = nil
	}
	a.want(m.Key, res)
	return &Decision{attributed: a.decide(m, snap, changed, who)}, nil
}

// Admission reports what the join last found of the admission webhook for
// the Mirror: whether the last change it joined had any admission fact,
// and, when it had none, which object's change it was. Admitted is
// AdmissionUnknown before any change, and for a Mirror whose source is
// Audit.
func (d *Decision) Admission() (AdmissionState, string) {
	if d == nil {
		return AdmissionUnknown, ""
	}
	return d.admission.state, d.admission.object
}

// Now is the join's clock's time.
func (a *Attributions) Now() time.Time { return a.clock.Now() }

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
