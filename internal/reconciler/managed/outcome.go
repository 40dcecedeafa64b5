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

package managed

import (
	"fmt"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
)

// Messages that are part of the observable contract.
const (
	msgAvailable         = "External resource is up to date"
	msgAvailableNoUpdate = "External resource exists; its differences from the spec are left alone because managementPolicies do not include Update"
	msgCreateRequested   = "Creation of the external resource was requested"
	msgUpdateRequested   = "Update of the external resource was requested"
	msgDeleteRequested   = "Deletion of the external resource was requested"
	msgWaitFinalizers    = "Waiting for other finalizers to be removed before deleting the external resource"
	msgFinalizing        = "External resource is gone; removing the finalizer"
	msgOrphaning         = "managementPolicies do not include Delete; leaving the external resource in place"
	msgWaitExistence     = "Waiting for the external system to confirm the new external resource exists"
	msgNotStalledFmt     = "%s is not stalled"
)

// An outcome is what one reconcile concluded. Every exit path produces one
// and pass.finish turns it into conditions, exactly one Commit, and a
// requeue. Ready, Reconciling and Stalled come only from the readiness
// accumulator, fed the outcome's one level and verdict; Synced is
// Crossplane's:
//
//	outcome                               Synced                  Ready                        kstatus     requeue
//	up to date                            True ReconcileSuccess   True Available               Current     poll (+jitter)
//	drift, Update not allowed by policy   True ReconcileSuccess   True Available               Current     poll
//	missing, Create issued                True ReconcileSuccess   False Creating               InProgress  backoff
//	drift, Update issued                  True ReconcileSuccess   Unknown UpdateRequested      InProgress  backoff
//	deleting (Delete issued, waiting)     True ReconcileSuccess   False Deleting               InProgress  backoff
//	missing, observe-only / no Create     False ReconcileError    False Unavailable            InProgress  poll
//	transient error                       False ReconcileError    Unknown ReconcileError       InProgress  backoff
//	                                                              (False Creating/Deleting in
//	                                                              those phases, False if it was)
//	error marked with Stalled(reason, …)  False ReconcileError    False <reason>               Failed      poll
//	paused                                False ReconcilePaused   unchanged                    unchanged   none
//	stale copy (Conflict on our write)    unchanged               unchanged                    unchanged   ~100ms
//
// "backoff" is the per-resource exponential backoff (1s..60s, crossplane's
// ratelimiter.NewController) capped at the poll interval, returned as
// RequeueAfter rather than as an error, so a transient failure is retried
// without being logged as a reconciler error and still passes through
// session.RequeueAfter (a lost status write comes back in ~100ms).
type outcome struct {
	// synced is written to Synced; nil leaves Synced as it is.
	synced *xpv2.Condition
	level  level
	// verdict is Ready when progressing or stalled; the accumulator derives
	// Reconciling and Stalled from it.
	verdict session.Verdict
	// readyMessage is Ready's message when converged.
	readyMessage string
	wait         wait
	// after is the requeue of waitAfter.
	after time.Duration
}

// level is how far an outcome leaves the resource from converged. An outcome
// has exactly one, so it cannot claim to be stalled and progressing at once.
// The last three are the readiness accumulator's levels, in its order.
type level int

const (
	// levelUnchanged leaves Ready, Reconciling and Stalled as they are:
	// a paused resource, or a stale copy whose conclusions are worthless.
	levelUnchanged level = iota
	// levelConverged: nothing pending, nothing wrong (kstatus Current).
	levelConverged
	// levelProgressing: clears on its own (kstatus InProgress).
	levelProgressing
	// levelStalled: needs a human; waiting changes nothing (kstatus Failed).
	levelStalled
)

// wait says when a reconcile wants to come back.
type wait int

const (
	// waitNone: only a watch event brings the resource back (paused, gone).
	waitNone wait = iota
	// waitPoll: the poll interval with jitter (converged, stalled, or a
	// state only the external system can change).
	waitPoll
	// waitSoon: per-resource backoff, capped at the poll interval
	// (progressing: a transient error, or an action not yet observed).
	waitSoon
	// waitStale: our copy of the resource was stale (a conflict); come back
	// as soon as the cache has caught up.
	waitStale
	// waitWake: a change is under way and its writer wakes the resource;
	// unlike waitNone the per-resource backoff is kept, so a write that
	// keeps failing is retried ever more slowly.
	waitWake
	// waitAfter: outcome.after, as WaitingFor asked.
	waitAfter
)

// waiting is a change handed to an asynchronous writer that wakes the
// resource when it landed or failed.
func waiting(we *WaitingError) outcome {
	s := xpv2.ReconcileSuccess()
	o := outcome{synced: &s, level: levelProgressing,
		verdict: session.Verdict{Status: corev1.ConditionFalse, Reason: we.Reason, Message: we.Message}, wait: waitWake}
	if we.After > 0 {
		o.wait, o.after = waitAfter, we.After
	}
	return o
}

// converged is an external resource that matches the spec (or may not be
// changed to match it).
func converged(msg string) outcome {
	s := xpv2.ReconcileSuccess()
	return outcome{synced: &s, level: levelConverged, readyMessage: msg, wait: waitPoll}
}

// progressing is an action that went well but whose effect is not yet
// observed.
func progressing(status corev1.ConditionStatus, reason xpv2.ConditionReason, msg string) outcome {
	s := xpv2.ReconcileSuccess()
	return outcome{synced: &s, level: levelProgressing,
		verdict: session.Verdict{Status: status, Reason: reason, Message: msg}, wait: waitSoon}
}

// unavailable is an external resource that does not exist and that this
// reconciler may not create. Only its appearing resolves this, and something
// other than a human may create it: progressing, at the poll interval rather
// than with backoff.
func unavailable(err error) outcome {
	s := xpv2.ReconcileError(err)
	return outcome{synced: &s, level: levelProgressing,
		verdict: session.Verdict{Status: corev1.ConditionFalse, Reason: xpv2.ReasonUnavailable, Message: err.Error()}, wait: waitPoll}
}

// paused touches nothing but Synced, and waits for a watch event.
func paused() outcome {
	s := xpv2.ReconcilePaused()
	return outcome{synced: &s, wait: waitNone}
}

// stale publishes nothing computed from our copy of the resource and comes
// back as soon as the cache has caught up.
func stale() outcome {
	return outcome{wait: waitStale}
}

// phase is what the reconcile was doing when an error happened; it decides
// Ready for a transient error.
type phase int

const (
	phaseOther phase = iota
	phaseCreating
	phaseDeleting
)

// failed classifies err:
//   - a Kubernetes conflict means our copy was stale: nothing computed from
//     it is published, and the resource comes back promptly;
//   - an error marked with Stalled needs a human: Stalled=True with its
//     reason (kstatus Failed), polled at the normal interval;
//   - anything else is transient: Reconciling=True (kstatus InProgress),
//     retried with per-resource backoff, with ReconcileError or the reason
//     Progressing marked it with. Ready is False while creating or
//     deleting (known not ready), else Unknown (we lost sight of it) unless
//     it was already False.
func (p *pass) failed(ph phase, err error) outcome {
	if kerrors.IsConflict(err) {
		return stale()
	}
	if we, ok := IsWaiting(err); ok {
		return waiting(we)
	}
	s := xpv2.ReconcileError(err)
	if reason, ok := StalledReason(err); ok {
		return outcome{synced: &s, level: levelStalled,
			verdict: session.Verdict{Status: corev1.ConditionFalse, Reason: reason, Message: err.Error()}, wait: waitPoll}
	}
	v := session.Verdict{Status: corev1.ConditionUnknown, Reason: xpv2.ReasonReconcileError, Message: err.Error()}
	switch {
	case ph == phaseCreating:
		v.Status, v.Reason = corev1.ConditionFalse, xpv2.ReasonCreating
	case ph == phaseDeleting:
		v.Status, v.Reason = corev1.ConditionFalse, xpv2.ReasonDeleting
	case p.readyWasFalse:
		v.Status = corev1.ConditionFalse
	}
	if reason, ok := ProgressingReason(err); ok && ph == phaseOther {
		v.Reason = reason
	}
	return outcome{synced: &s, level: levelProgressing, verdict: v, wait: waitSoon}
}

// readiness feeds o's one contribution to a readiness accumulator for kind,
// or returns nil when o leaves the trio as it is.
func (o outcome) readiness(kind string) *session.Readiness {
	if o.level == levelUnchanged {
		return nil
	}
	rd := session.NewReadiness(xpv2.ReasonAvailable, o.readyMessage, fmt.Sprintf(msgNotStalledFmt, kind))
	switch o.level {
	case levelStalled:
		rd.Stalled(o.verdict.Reason, o.verdict.Message)
	case levelProgressing:
		rd.Progressing(o.verdict.Status, o.verdict.Reason, o.verdict.Message)
	case levelUnchanged, levelConverged:
		// Converged contributes nothing: the accumulator starts there.
	}
	return rd
}
