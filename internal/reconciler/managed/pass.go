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
	"context"
	"maps"
	"math/rand/v2"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
)

const (
	errInitialize        = "cannot initialize managed resource"
	errPublish           = "cannot publish connection details"
	errUnpublish         = "cannot unpublish connection details"
	errFmtCopyNotManaged = "deep copy of %T does not implement Managed"
	errCreateIncomplete  = "cannot determine creation result - remove the " + meta.AnnotationKeyExternalCreatePending + " annotation if it is safe to proceed"
)

// reasonReconcileAsks is the Event reason for acknowledging a
// crossplane.io/reconcile-requested-at token.
const reasonReconcileAsks = "ReconcileRequestHandled"

// reconcileRequestTracker is implemented by kinds whose status records the
// last handled crossplane.io/reconcile-requested-at token.
type reconcileRequestTracker interface {
	GetLastHandledReconcileAt() string
	SetLastHandledReconcileAt(token string)
}

// pass is one reconcile of one resource: what it read, and the session
// through which it writes status.
type pass struct {
	r   *Reconciler
	req reconcile.Request
	mg  Managed
	s   *session.Session
	// log is the reconciler's logger with this request, uid and version.
	log           logging.Logger
	readyWasFalse bool
	// unsaved: metadata set in memory (the external name) that the next
	// metadata write persists with whatever it writes; annotationsWere are
	// the annotations as read, put back if nothing persisted it, so the
	// status patch carries no metadata.
	unsaved         bool
	annotationsWere map[string]string
	// persisted are the conditions as read, to undo an external client's
	// writes to the conditions this reconciler derives.
	persisted []xpv2.Condition
}

// reconcile runs the crossplane-runtime contract and returns its outcome. It
// never writes status itself. The order of the steps is the contract: a
// paused resource is left alone before anything is validated, and nothing
// external is touched before the resource is initialized and a create of
// unknown outcome has been ruled out.
func (p *pass) reconcile(ctx context.Context) outcome {
	externalCtx, cancel := context.WithTimeout(ctx, p.r.timeout)
	defer cancel()

	// Namespaced (modern) managed resources have no deletionPolicy: leaving
	// Delete out of managementPolicies orphans the external resource.
	policy := xpmanaged.NewManagementPoliciesResolver(p.r.managementPolicies, p.mg.GetManagementPolicies())

	if meta.IsPaused(p.mg) || policy.IsPaused() {
		p.log.Debug("Reconciliation is paused", "annotation", meta.AnnotationKeyReconciliationPaused)
		return paused()
	}
	p.acknowledgeReconcileRequest()

	if err := policy.Validate(); err != nil {
		return p.failed(phaseOther, Stalled(ReasonManagementPolicyInvalid, err))
	}
	if meta.WasDeleted(p.mg) && !policy.ShouldDelete() {
		return p.orphan(ctx)
	}

	if !meta.WasDeleted(p.mg) {
		if p.r.initializer != nil {
			changed, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
				return p.r.initializer.Initialize(ctx, cp)
			})
			if err != nil {
				return p.failed(phaseOther, errors.Wrap(err, errInitialize))
			}
			if changed {
				// An initializer changed the spec; act on it next time, on
				// what the server holds, not on our older copy.
				return stale()
			}
		}
		p.nameExternal()
	}

	if meta.ExternalCreateIncomplete(p.mg) {
		if !p.r.deterministicExternalName {
			// We may have created something whose identity was never
			// recorded. Retrying could leak a second one; a human decides.
			return p.failed(phaseCreating, Stalled(ReasonCreateIncomplete, errors.New(errCreateIncomplete)))
		}
		p.log.Debug("Cannot determine creation result, but proceeding due to deterministic external name")
	}

	return p.observe(ctx, externalCtx, policy)
}

// acknowledgeReconcileRequest records a new
// crossplane.io/reconcile-requested-at token in status; this reconcile's
// commit persists it like any status.
func (p *pass) acknowledgeReconcileRequest() {
	token, ok := meta.GetReconcileRequest(p.mg)
	if !ok {
		return
	}
	if t, ok := p.mg.(reconcileRequestTracker); ok && t.GetLastHandledReconcileAt() != token {
		t.SetLastHandledReconcileAt(token)
		p.event(corev1.EventTypeNormal, reasonReconcileAsks, "Handling reconcile request "+token)
	}
}

// nameExternal sets the external name WithExternalNameOf asks for, in
// memory: the next metadata write persists it.
func (p *pass) nameExternal() {
	if p.r.externalName == nil {
		return
	}
	want := p.r.externalName(p.mg)
	if want == "" || meta.GetExternalName(p.mg) == want {
		return
	}
	p.annotationsWere = maps.Clone(p.mg.GetAnnotations())
	meta.SetExternalName(p.mg, want)
	p.unsaved = true
}

// finish applies o, commits once, and picks the requeue.
func (p *pass) finish(ctx context.Context, o outcome) (reconcile.Result, error) {
	if p.unsaved && o.level != levelUnchanged && !meta.WasDeleted(p.mg) {
		// No write of this reconcile carried the external name (its Observe
		// failed before any); persist it so it shows while that lasts.
		if _, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
			return p.r.client.Update(ctx, cp)
		}); err != nil {
			p.log.Debug("Cannot persist the external name", "error", err)
		}
	}
	if p.unsaved {
		p.mg.SetAnnotations(p.annotationsWere)
	}
	p.restoreDerived()
	if o.synced != nil {
		p.s.Set(*o.synced)
	}
	if rd := o.readiness(p.r.kind); rd != nil {
		p.s.ApplyReadiness(rd)
	}
	if err := p.s.Commit(ctx); err != nil {
		// A real status write failure: let controller-runtime back off.
		return reconcile.Result{}, err
	}

	var after time.Duration
	switch o.wait {
	case waitNone:
		p.r.backoff.Forget(p.req)
	case waitPoll:
		p.r.backoff.Forget(p.req)
		after = p.poll()
		if o.level == levelConverged && p.r.eventDriven {
			// An event source reports drift; a timer would only repeat
			// what it says. An explicit poll-interval annotation still
			// asks for a timer.
			if _, ok := meta.GetPollInterval(p.mg); !ok {
				after = 0
			}
		}
	case waitWake:
	case waitAfter:
		p.r.backoff.Forget(p.req)
		after = o.after
	case waitSoon:
		after = min(p.r.backoff.When(p.req), p.poll())
	case waitStale:
		after = session.RequeueWriteLostInterval
	}
	after = p.s.RequeueAfter(after)
	if after > 0 && p.s.WriteLost() {
		p.log.Debug("Status write lost; requeueing promptly", "requeue-after", after)
	}
	// One line per reconcile at debug level, so a resource that stops
	// being reconciled shows in the log as the end of its lines, not as
	// silence that a converged resource's reconciles look alike to.
	p.log.Debug("Reconciled", "reason", o.verdict.Reason, "requeue-after", after)
	return reconcile.Result{RequeueAfter: after}, nil
}

// derived are the condition types only the reconciler writes: Synced from
// the outcome, the trio from the accumulator.
func derived(t xpv2.ConditionType) bool {
	return t == xpv2.TypeReady || t == xpv2.TypeSynced || t == session.TypeReconciling || t == session.TypeStalled
}

// restoreDerived undoes what an external client wrote to Ready or Synced
// (crossplane-runtime providers call SetConditions(Available()) in Observe).
// Left in place, such a write would race the accumulator and, because
// Available() carries a fresh lastTransitionTime and no message, turn every
// steady-state poll into a status write.
func (p *pass) restoreDerived() {
	conds := p.mg.StatusConditions()
	out := make([]xpv2.Condition, 0, len(*conds))
	for _, c := range *conds {
		if !derived(c.Type) {
			out = append(out, c)
			continue
		}
		if was := session.Find(p.persisted, c.Type); was != nil {
			out = append(out, *was)
		}
	}
	for _, was := range p.persisted {
		if derived(was.Type) && session.Find(out, was.Type) == nil {
			out = append(out, was)
		}
	}
	*conds = out
}

// poll returns the poll interval for this resource: the
// crossplane.io/poll-interval annotation (not below the minimum) or the
// default, with jitter.
func (p *pass) poll() time.Duration {
	d := p.r.pollInterval
	if a, ok := meta.GetPollInterval(p.mg); ok {
		d = max(a, p.r.minPollInterval)
	}
	if p.r.pollJitter > 0 {
		d += time.Duration((rand.Float64()*2 - 1) * float64(p.r.pollJitter)) //nolint:gosec // Jitter needs no secure randomness.
	}
	return max(d, 0)
}

// warn emits a Warning for err unless Synced already reports the same
// error: a failure retried with backoff would otherwise add an Event per
// retry, each saying what the last one said.
func (p *pass) warn(reason string, err error) {
	if c := session.Find(p.persisted, xpv2.TypeSynced); c != nil && c.Status == corev1.ConditionFalse && c.Message == err.Error() {
		return
	}
	p.event(corev1.EventTypeWarning, reason, err.Error())
}

func (p *pass) event(eventType, reason, msg string) {
	if p.r.recorder != nil {
		p.r.recorder.Event(p.mg, eventType, reason, msg)
	}
}

// writeMetadata runs write on a copy of the resource and carries back only
// metadata (annotations, labels, finalizers, resourceVersion).
//
// A write into the resource itself would decode the API server's reply over
// it and reset the status this reconcile is computing (crossplane-runtime
// v2.4 loses what Create computed this way). After the write the session is
// told, so its optimistic lock is taken against our own write. specChanged
// reports that the server now holds another generation than the one read.
func (p *pass) writeMetadata(ctx context.Context, write func(ctx context.Context, cp Managed) error) (specChanged bool, err error) {
	cp := mustDeepCopy(p.mg)
	if err := write(ctx, cp); err != nil {
		return false, err
	}
	if cp.GetResourceVersion() == p.mg.GetResourceVersion() {
		return false, nil
	}
	p.mg.SetAnnotations(cp.GetAnnotations())
	p.mg.SetLabels(cp.GetLabels())
	p.mg.SetFinalizers(cp.GetFinalizers())
	p.mg.SetResourceVersion(cp.GetResourceVersion())
	p.s.MetadataWritten()
	p.unsaved = false
	p.s.StoredSeen(cp)
	return cp.GetGeneration() != p.mg.GetGeneration(), nil
}

// mustDeepCopy returns a deep copy of mg. DeepCopyObject returns a value of
// mg's own concrete type, which implements Managed because mg does, so the
// assertion cannot fail.
func mustDeepCopy(mg Managed) Managed {
	cp, ok := mg.DeepCopyObject().(Managed)
	if !ok {
		panic(errors.Errorf(errFmtCopyNotManaged, mg))
	}
	return cp
}

func (p *pass) publish(ctx context.Context, cd xpmanaged.ConnectionDetails) error {
	so, ok := p.mg.(resource.LocalConnectionSecretOwner)
	if !ok {
		// Namespaced managed resources own local Secrets; a kind that does
		// not has nothing to publish.
		return nil
	}
	_, err := p.r.publisher.PublishConnection(ctx, so, cd)
	return errors.Wrap(err, errPublish)
}

func (p *pass) unpublish(ctx context.Context, cd xpmanaged.ConnectionDetails) error {
	so, ok := p.mg.(resource.LocalConnectionSecretOwner)
	if !ok {
		return nil
	}
	return errors.Wrap(p.r.publisher.UnpublishConnection(ctx, so, cd), errUnpublish)
}
