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

package session

import (
	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// Condition types added to Crossplane's Ready and Synced so kstatus (Flux
// health checks, kstatus.Compute) can tell progressing from stalled. kstatus
// never reads Ready; it reads these two for True only.
const (
	TypeReconciling xpv2.ConditionType = "Reconciling"
	TypeStalled     xpv2.ConditionType = "Stalled"
)

// Generic reasons. Succeeded and Progressing are the strings of Flux's meta
// package, so dashboards written for Flux read ours too.
const (
	ReasonSucceeded   xpv2.ConditionReason = "Succeeded"
	ReasonProgressing xpv2.ConditionReason = "Progressing"
	// ReasonUnspecified replaces an empty reason: the CRD schema requires a
	// reason, and an empty one would 422 the whole status write and hide
	// everything it carried. A visibly wrong reason is strictly better.
	ReasonUnspecified xpv2.ConditionReason = "Unspecified"
)

// Fixed trio messages: tools and people match on them, so they are part of
// the observable contract and never carry details (the reason and Synced do).
const (
	msgReconciled  = "Reconciliation complete"
	msgProgressing = "Reconciliation is making progress"
	msgStalled     = "Reconciliation is stalled"
)

// A Verdict is a condition without its type. Gates return verdicts instead of
// writing conditions, so "who wrote Ready?" always has one answer.
type Verdict struct {
	Status  corev1.ConditionStatus
	Reason  xpv2.ConditionReason
	Message string
}

// A Trio is the derived kstatus trio.
type Trio struct {
	Ready       Verdict
	Reconciling Verdict
	Stalled     Verdict
}

// level orders contributions; a higher level outranks a lower one.
type level int

const (
	levelConverged   level = iota // kstatus Current
	levelProgressing              // clears on its own: kstatus InProgress
	levelStalled                  // needs a human: kstatus Failed
)

// Readiness accumulates gate verdicts into one trio. A contribution replaces
// the stored one only if its level is strictly greater, so ties go to the
// first contributor: the order of the calls IS the documented precedence.
// Without this, a later, milder gate (a dependency still coming up) could
// overwrite a terminal refusal and flip kstatus from Failed to InProgress,
// leaving `kubectl wait` to time out on an object that can never converge.
type Readiness struct {
	readyReason       xpv2.ConditionReason
	readyMessage      string
	notStalledMessage string

	level   level
	verdict Verdict
}

// NewReadiness starts at converged. Its converged Ready is True with
// readyReason: Crossplane managed resources use Available so Composition
// readiness checks and `crossplane beta trace` keep working; ProviderConfigs
// may use ReasonSucceeded. notStalledMessage names the kind
// ("<Kind> is not stalled").
func NewReadiness(readyReason xpv2.ConditionReason, readyMessage, notStalledMessage string) *Readiness {
	return &Readiness{readyReason: readyReason, readyMessage: readyMessage, notStalledMessage: notStalledMessage}
}

// Stalled contributes a verdict that needs a human: waiting changes nothing.
func (r *Readiness) Stalled(reason xpv2.ConditionReason, message string) {
	r.contribute(levelStalled, Verdict{Status: corev1.ConditionFalse, Reason: reason, Message: message})
}

// Progressing contributes a verdict that clears on its own. readyStatus is
// False ("known not yet") or Unknown ("not established at all"); anything
// else is taken as False, because Ready=True beside Reconciling=True would
// tell humans and kstatus different stories.
func (r *Readiness) Progressing(readyStatus corev1.ConditionStatus, reason xpv2.ConditionReason, message string) {
	if readyStatus != corev1.ConditionUnknown {
		readyStatus = corev1.ConditionFalse
	}
	r.contribute(levelProgressing, Verdict{Status: readyStatus, Reason: reason, Message: message})
}

// Converged reports that nothing was contributed.
func (r *Readiness) Converged() bool { return r.level == levelConverged }

// Converging reports that the strongest contribution is Progressing. A
// stalled object is neither Converged nor Converging.
func (r *Readiness) Converging() bool { return r.level == levelProgressing }

func (r *Readiness) contribute(l level, v Verdict) {
	if l > r.level {
		r.level, r.verdict = l, v
	}
}

// Trio derives Ready, Reconciling and Stalled from one readiness level.
//
// Reconciling and Stalled are always present, False when they do not apply.
// This is the single knowing deviation from the API conventions (which say
// abnormal-true conditions SHOULD be present only when True): `kubectl wait
// --for=condition=Stalled=false` and our e2e suite read the explicit False,
// and a vanishing condition is harder to reason about. kstatus tolerates it.
func (r *Readiness) Trio() Trio {
	v := r.verdict
	switch r.level {
	case levelStalled:
		return Trio{
			Ready:       v,
			Reconciling: Verdict{Status: corev1.ConditionFalse, Reason: v.Reason, Message: msgStalled},
			Stalled:     Verdict{Status: corev1.ConditionTrue, Reason: v.Reason, Message: v.Message},
		}
	case levelProgressing:
		return Trio{
			Ready:       v,
			Reconciling: Verdict{Status: corev1.ConditionTrue, Reason: v.Reason, Message: v.Message},
			Stalled:     Verdict{Status: corev1.ConditionFalse, Reason: ReasonProgressing, Message: msgProgressing},
		}
	default:
		return Trio{
			Ready:       Verdict{Status: corev1.ConditionTrue, Reason: r.readyReason, Message: r.readyMessage},
			Reconciling: Verdict{Status: corev1.ConditionFalse, Reason: ReasonSucceeded, Message: msgReconciled},
			Stalled:     Verdict{Status: corev1.ConditionFalse, Reason: ReasonSucceeded, Message: r.notStalledMessage},
		}
	}
}
