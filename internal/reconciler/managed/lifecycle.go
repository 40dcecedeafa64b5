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
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

const (
	errUpdateManaged    = "cannot update managed resource"
	errAddFinalizer     = "cannot add finalizer"
	errRemoveFinalizer  = "cannot remove finalizer"
	errCreatePending    = "cannot record that creation is pending"
	errCreateSucceeded  = "cannot record that creation succeeded"
	errNotExist         = "external resource does not exist"
	errNotExistNoCreate = "external resource does not exist and managementPolicies do not include Create"
	errReconcileConnect = "connect failed"
	errReconcileObserve = "observe failed"
	errReconcileCreate  = "create failed"
	errReconcileUpdate  = "update failed"
	errReconcileDelete  = "delete failed"
)

// Event reasons for actions on the external resource. The session emits one
// Event per persisted Ready transition (Warning only when stalled), which
// already announces a create or a delete (Ready turns False, Creating,
// Deleting or the writer's reason); an update may leave Ready as it was, so
// it has an Event of its own. A failed action gets a Warning when its error
// is new, not on every retry of the same one.
const (
	reasonUpdated      = "UpdatedExternalResource"
	reasonCannotCreate = "CannotCreateExternalResource"
	reasonCannotUpdate = "CannotUpdateExternalResource"
	reasonCannotDelete = "CannotDeleteExternalResource"
)

// observe connects to the external system, observes the external resource,
// and hands the observation to delete, create or update.
func (p *pass) observe(ctx, externalCtx context.Context, policy xpmanaged.ManagementPoliciesChecker) outcome {
	external, err := p.r.connector.Connect(externalCtx, p.mg)
	if err != nil {
		return p.failed(phaseOther, errors.Wrap(err, errReconcileConnect))
	}
	defer func() {
		if err := external.Disconnect(ctx); err != nil {
			p.log.Debug("Cannot disconnect from provider", "error", err)
		}
	}()

	obs, err := external.Observe(externalCtx, p.mg)
	switch {
	case err != nil && meta.WasDeleted(p.mg):
		return p.failed(phaseDeleting, errors.Wrap(err, errReconcileObserve))
	case err != nil:
		return p.failed(phaseOther, errors.Wrap(err, errReconcileObserve))
	case meta.WasDeleted(p.mg):
		return p.delete(ctx, externalCtx, external, obs, policy)
	case !obs.ResourceExists:
		return p.create(ctx, externalCtx, external, obs, policy)
	default:
		return p.update(ctx, externalCtx, external, obs, policy)
	}
}

// claim makes sure our finalizer is on the resource before anything
// external is created or changed for it. mark, when not nil, adds what the
// same write must record (the create-pending mark); an external name set in
// memory is persisted with it too. One write carries all of them: the
// finalizer, the name and the mark are all needed before the external
// create, and none of them is worth a round trip of its own.
func (p *pass) claim(ctx context.Context, mark func(Managed)) error {
	if meta.FinalizerExists(p.mg, finalizerName) && !p.unsaved && mark == nil {
		return nil
	}
	_, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
		meta.AddFinalizer(cp, finalizerName)
		if mark != nil {
			mark(cp)
		}
		return p.r.client.Update(ctx, cp)
	})
	return err
}

// create acts on an observation that found no external resource.
func (p *pass) create(ctx, externalCtx context.Context, external xpmanaged.ExternalClient, obs xpmanaged.ExternalObservation, policy xpmanaged.ManagementPoliciesChecker) outcome {
	if policy.ShouldOnlyObserve() {
		return unavailable(errors.Wrap(errors.New(errNotExist), errReconcileObserve))
	}
	if meta.ExternalCreateSucceededDuring(p.mg, p.r.creationGracePeriod) {
		// An eventually consistent external API may not show it yet; a
		// second Create could make a second one.
		return progressing(corev1.ConditionFalse, xpv2.ReasonCreating, msgWaitExistence)
	}
	if err := p.publish(ctx, obs.ConnectionDetails); err != nil {
		return p.failed(phaseOther, err)
	}
	if !policy.ShouldCreate() {
		if err := p.claim(ctx, nil); err != nil {
			return p.failed(phaseOther, errors.Wrap(err, errAddFinalizer))
		}
		return unavailable(errors.New(errNotExistNoCreate))
	}

	// Record the intent first, with the finalizer and under an optimistic
	// lock: if the process dies during Create, the next reconcile knows a
	// create may have happened; and a stale copy fails here, before
	// anything external.
	if err := p.claim(ctx, func(cp Managed) { meta.SetExternalCreatePending(cp, time.Now()) }); err != nil {
		return p.failed(phaseCreating, errors.Wrap(err, errCreatePending))
	}

	cre, err := external.Create(externalCtx, p.mg)
	we, pending := IsWaiting(err)
	if pending {
		// Handed to an asynchronous writer: the create was accepted, and
		// its outcome comes back with the wake.
		err = nil
	}
	if err != nil {
		err = errors.Wrap(err, errReconcileCreate)
		p.warn(reasonCannotCreate, err)
		// Without the failed mark the next reconcile would refuse to
		// proceed, not knowing whether something was created.
		if _, uerr := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
			meta.SetExternalCreateFailed(cp, time.Now())
			return p.r.critical.UpdateCriticalAnnotations(ctx, cp)
		}); uerr != nil {
			p.log.Debug("Cannot record that creation failed", "error", uerr)
		}
		return p.failed(phaseCreating, err)
	}

	// A create handed to an asynchronous writer has not happened yet, so
	// it gets no succeeded mark, which would claim what the push may still
	// refuse. With a deterministic external name nothing needs one: the
	// name was persisted with the pending mark and Create cannot change it;
	// a reconcile that finds the create incomplete proceeds, and submits the
	// change again only if the branch does not hold it (the writer's
	// trailers find a change that landed before a crash); the outcome is in
	// status once the writer wakes the resource (the commit, or the write's
	// error in Synced). Any other create records it as upstream does, with
	// the external name Create may have set.
	if !pending || !p.r.deterministicExternalName {
		if _, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
			meta.SetExternalCreateSucceeded(cp, time.Now())
			return p.r.critical.UpdateCriticalAnnotations(ctx, cp)
		}); err != nil {
			return p.failed(phaseCreating, errors.Wrap(err, errCreateSucceeded))
		}
	}
	if err := p.publish(ctx, cre.ConnectionDetails); err != nil {
		return p.failed(phaseCreating, err)
	}
	// No Event of its own: the Ready transition this outcome makes
	// (Creating, or the writer's reason) is announced by the session.
	if pending {
		return waiting(we)
	}
	return progressing(corev1.ConditionFalse, xpv2.ReasonCreating, msgCreateRequested)
}

// update acts on an observation that found the external resource.
func (p *pass) update(ctx, externalCtx context.Context, external xpmanaged.ExternalClient, obs xpmanaged.ExternalObservation, policy xpmanaged.ManagementPoliciesChecker) outcome {
	if err := p.publish(ctx, obs.ConnectionDetails); err != nil {
		return p.failed(phaseOther, err)
	}
	if err := p.claim(ctx, nil); err != nil {
		return p.failed(phaseOther, errors.Wrap(err, errAddFinalizer))
	}
	if obs.ResourceLateInitialized && policy.ShouldLateInitialize() {
		// Observe filled unset spec fields; persist them. The spec write
		// bumps the generation, which brings us back to observe again.
		if _, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
			return p.r.client.Update(ctx, cp)
		}); err != nil {
			return p.failed(phaseOther, errors.Wrap(err, errUpdateManaged))
		}
	}

	if obs.ResourceUpToDate {
		return converged(noteOr(external, msgAvailable))
	}
	if obs.Diff != "" {
		p.log.Debug("External resource differs from desired state", "diff", obs.Diff)
	}
	if !policy.ShouldUpdate() {
		return converged(msgAvailableNoUpdate)
	}

	upd, err := external.Update(externalCtx, p.mg)
	we, pending := IsWaiting(err)
	if pending {
		err = nil
	}
	if err != nil {
		err = errors.Wrap(err, errReconcileUpdate)
		p.warn(reasonCannotUpdate, err)
		return p.failed(phaseOther, err)
	}
	if err := p.publish(ctx, upd.ConnectionDetails); err != nil {
		return p.failed(phaseOther, err)
	}
	p.event(corev1.EventTypeNormal, reasonUpdated, msgUpdateRequested)
	if pending {
		return waiting(we)
	}
	// Not converged until an observation says so.
	return progressing(corev1.ConditionUnknown, xpv2.ReasonUpdateRequested, msgUpdateRequested)
}

// A Noter is an external client with something to tell people about an
// external resource that is up to date (a Mirror that left Secrets out):
// Ready's message says it instead of the default. "" keeps the default.
type Noter interface {
	Note() string
}

// noteOr is c's note, or def when it has none.
func noteOr(c xpmanaged.ExternalClient, def string) string {
	if n, ok := c.(Noter); ok {
		if msg := n.Note(); msg != "" {
			return msg
		}
	}
	return def
}

// delete acts on an observation of a resource being deleted whose
// managementPolicies include Delete.
func (p *pass) delete(ctx, externalCtx context.Context, external xpmanaged.ExternalClient, obs xpmanaged.ExternalObservation, policy xpmanaged.ManagementPoliciesChecker) outcome {
	if p.otherFinalizers() {
		// Other controllers still depend on the external resource.
		return progressing(corev1.ConditionFalse, xpv2.ReasonDeleting, msgWaitFinalizers)
	}
	if obs.ResourceExists && policy.ShouldDelete() {
		_, err := external.Delete(externalCtx, p.mg)
		// No Event of its own: the Ready transition (Deleting, or the
		// writer's reason) is announced by the session.
		if we, ok := IsWaiting(err); ok {
			o := waiting(we)
			o.verdict.Status = corev1.ConditionFalse
			return o
		}
		if err != nil {
			err = errors.Wrap(err, errReconcileDelete)
			p.warn(reasonCannotDelete, err)
			return p.failed(phaseDeleting, err)
		}
		// Finalize only once an observation confirms it is gone.
		return progressing(corev1.ConditionFalse, xpv2.ReasonDeleting, msgDeleteRequested)
	}
	if err := p.unpublish(ctx, obs.ConnectionDetails); err != nil {
		return p.failed(phaseDeleting, err)
	}
	return p.removeFinalizer(ctx, msgFinalizing)
}

// orphan lets a resource being deleted go without deleting its external
// resource, which managementPolicies say to leave in place. Nothing is
// observed: there is nothing to decide.
func (p *pass) orphan(ctx context.Context) outcome {
	if err := p.unpublish(ctx, xpmanaged.ConnectionDetails{}); err != nil {
		return p.failed(phaseDeleting, err)
	}
	return p.removeFinalizer(ctx, msgOrphaning)
}

func (p *pass) otherFinalizers() bool {
	for _, f := range p.mg.GetFinalizers() {
		if f != finalizerName {
			return true
		}
	}
	return false
}

// removeFinalizer removes ours, if present, and reports the resource as
// finalizing. Its status is written only while another finalizer still
// holds it: once the last one goes, so does the resource, and the session's
// Commit writes nothing.
func (p *pass) removeFinalizer(ctx context.Context, msg string) outcome {
	if meta.FinalizerExists(p.mg, finalizerName) {
		_, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
			meta.RemoveFinalizer(cp, finalizerName)
			return resource.IgnoreNotFound(p.r.client.Update(ctx, cp))
		})
		if err != nil {
			return p.failed(phaseDeleting, errors.Wrap(err, errRemoveFinalizer))
		}
	}
	p.log.Debug("Finalized managed resource")
	// Nothing more is done for it, whoever else still holds it: what was
	// kept for it goes now, not only when a later reconcile finds it gone
	// (another finalizer may keep it for long).
	p.r.forget(p.req.NamespacedName)
	o := progressing(corev1.ConditionFalse, xpv2.ReasonDeleting, msg)
	o.wait = waitNone
	if p.otherFinalizers() {
		// Someone else still holds it; their removal is a watch event.
		o.wait = waitPoll
	}
	return o
}
