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

// Package managed is provider-git's managed resource reconciler. It drives
// crossplane-runtime's external connector and client interfaces and keeps the
// contract users rely on (finalizer, management policies, pause, external
// name, create-pending/succeeded/failed annotations, connection details, poll
// interval with jitter), but decides and writes status through a
// session.Session: one optimistic-lock status patch per reconcile, or none
// when nothing changed; top-level status.observedGeneration; and kstatus
// Reconciling/Stalled beside Crossplane's Ready and Synced, so kstatus reads
// Current, InProgress or Failed truthfully.
//
// Every exit maps to one outcome (Ready/Reconciling/Stalled come only from
// the readiness accumulator; Synced is Crossplane's):
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
package managed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-git/internal/session"
)

// Defaults, the same as crossplane-runtime v2.4's managed reconciler.
const (
	defaultPollInterval  = 1 * time.Minute
	defaultGracePeriod   = 30 * time.Second
	defaultTimeout       = 1 * time.Minute
	apiCallGracePeriod   = 30 * time.Second
	defaultFinalizerName = xpmanaged.FinalizerName
)

// Reasons this package adds to Crossplane's. A stalled Ready carries the
// stall's own reason so the first thing a human reads names the cause.
const (
	// ReasonManagementPolicyInvalid: spec.managementPolicies is a
	// combination this reconciler does not support.
	ReasonManagementPolicyInvalid xpv2.ConditionReason = "ManagementPolicyInvalid"
	// ReasonCreateIncomplete: a Create was started but its outcome never
	// recorded, and the external name is not deterministic, so a retry
	// could leak a second external resource.
	ReasonCreateIncomplete xpv2.ConditionReason = "CreateIncomplete"
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

// Error strings.
const (
	errGetManaged        = "cannot get managed resource"
	errUpdateManaged     = "cannot update managed resource"
	errInitialize        = "cannot initialize managed resource"
	errAddFinalizer      = "cannot add finalizer"
	errRemoveFinalizer   = "cannot remove finalizer"
	errCreatePending     = "cannot record that creation is pending"
	errCreateSucceeded   = "cannot record that creation succeeded"
	errPublish           = "cannot publish connection details"
	errUnpublish         = "cannot unpublish connection details"
	errCreateIncomplete  = "cannot determine creation result - remove the " + meta.AnnotationKeyExternalCreatePending + " annotation if it is safe to proceed"
	errNotExist          = "external resource does not exist"
	errNotExistNoCreate  = "external resource does not exist and managementPolicies do not include Create"
	errReconcileConnect  = "connect failed"
	errReconcileObserve  = "observe failed"
	errReconcileCreate   = "create failed"
	errReconcileUpdate   = "update failed"
	errReconcileDelete   = "delete failed"
	errNoSessionAccessor = "managed resource kind does not implement session.Object (SetObservedGeneration, StatusConditions)"
)

// Event reasons for actions on the external resource. Errors get no Event of
// their own: they repeat every retry, and the session already emits one
// Event per persisted Ready transition (Warning only when stalled).
const (
	reasonCreated       = "CreatedExternalResource"
	reasonUpdated       = "UpdatedExternalResource"
	reasonDeleted       = "DeletedExternalResource"
	reasonCannotCreate  = "CannotCreateExternalResource"
	reasonCannotUpdate  = "CannotUpdateExternalResource"
	reasonCannotDelete  = "CannotDeleteExternalResource"
	reasonReconcileAsks = "ReconcileRequestHandled"
)

// Managed is what the reconciler needs of a managed resource: crossplane's
// contract plus the two hand-written status accessors the session needs.
type Managed interface {
	resource.Managed
	session.Object
}

// A Cluster is what NewReconciler needs of a controller manager.
type Cluster interface {
	GetClient() client.Client
	GetScheme() *runtime.Scheme
}

// reconcileRequestTracker is implemented by kinds whose status records the
// last handled crossplane.io/reconcile-requested-at token.
type reconcileRequestTracker interface {
	GetLastHandledReconcileAt() string
	SetLastHandledReconcileAt(token string)
}

// A Reconciler reconciles one managed resource kind with its external
// resources.
type Reconciler struct {
	client     client.Client
	kind       string
	newManaged func() Managed

	connector   xpmanaged.ExternalConnector
	initializer xpmanaged.Initializer
	critical    xpmanaged.CriticalAnnotationUpdater
	publisher   xpmanaged.LocalConnectionPublisher
	finalizer   string

	pollInterval        time.Duration
	minPollInterval     time.Duration
	pollJitter          time.Duration
	timeout             time.Duration
	creationGracePeriod time.Duration
	backoff             workqueue.TypedRateLimiter[reconcile.Request]

	managementPolicies        bool
	supportedPolicies         []sets.Set[xpv2.ManagementAction]
	deterministicExternalName bool

	log      logging.Logger
	recorder record.EventRecorder
	metrics  *session.ConditionMetrics
}

// NewReconciler returns a Reconciler for the managed kind of. It panics if
// of is not registered in c's scheme or does not implement Managed: both are
// programming errors best found at start-up. Without
// WithTypedExternalConnector it reconciles against crossplane-runtime's
// no-op external client.
func NewReconciler(c Cluster, of resource.ManagedKind, o ...ReconcilerOption) *Reconciler {
	gvk := schema.GroupVersionKind(of)
	nm := func() Managed {
		obj := resource.MustCreateObject(gvk, c.GetScheme())
		mg, ok := obj.(Managed)
		if !ok {
			panic(errors.Errorf("%s: %s", gvk, errNoSessionAccessor))
		}
		return mg
	}
	_ = nm()

	r := &Reconciler{
		client:              c.GetClient(),
		kind:                gvk.Kind,
		newManaged:          nm,
		connector:           &xpmanaged.NopConnector{},
		initializer:         xpmanaged.NewNameAsExternalName(c.GetClient()),
		critical:            xpmanaged.NewRetryingCriticalAnnotationUpdater(c.GetClient()),
		publisher:           xpmanaged.NewAPILocalSecretPublisher(c.GetClient(), c.GetScheme()),
		finalizer:           defaultFinalizerName,
		pollInterval:        defaultPollInterval,
		timeout:             defaultTimeout,
		creationGracePeriod: defaultGracePeriod,
		backoff:             ratelimiter.NewController(),
		log:                 logging.NewNopLogger(),
	}
	for _, fn := range o {
		fn(r)
	}
	return r
}

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
)

// An outcome is what one reconcile concluded. Every exit path produces one
// and finish turns it into conditions, exactly one Commit, and a requeue.
type outcome struct {
	// synced is written to Synced; nil leaves Synced as it is.
	synced *xpv2.Condition
	// readiness: when false, Ready/Reconciling/Stalled are left as they are
	// (paused, stale).
	readiness bool
	// level and verdict of the one contribution; converged when neither.
	stalled, progressing bool
	verdict              session.Verdict
	// readyMessage is Ready's message when converged.
	readyMessage string
	wait         wait
}

func converged(msg string) outcome {
	s := xpv2.ReconcileSuccess()
	return outcome{synced: &s, readiness: true, readyMessage: msg, wait: waitPoll}
}

// progressing is an action that went well but whose effect is not yet
// observed.
func progressing(status corev1.ConditionStatus, reason xpv2.ConditionReason, msg string) outcome {
	s := xpv2.ReconcileSuccess()
	return outcome{synced: &s, readiness: true, progressing: true,
		verdict: session.Verdict{Status: status, Reason: reason, Message: msg}, wait: waitSoon}
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
//     retried with per-resource backoff. Ready is False while creating or
//     deleting (known not ready), else Unknown (we lost sight of it) unless
//     it was already False.
func (p *pass) failed(ph phase, err error) outcome {
	if kerrors.IsConflict(err) {
		return outcome{wait: waitStale}
	}
	s := xpv2.ReconcileError(err)
	if reason, ok := StalledReason(err); ok {
		return outcome{synced: &s, readiness: true, stalled: true,
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
	return outcome{synced: &s, readiness: true, progressing: true, verdict: v, wait: waitSoon}
}

// pass is one reconcile of one resource.
type pass struct {
	*Reconciler
	req           reconcile.Request
	mg            Managed
	s             *session.Session
	log           logging.Logger
	readyWasFalse bool
	// persisted are the conditions as read, to undo an external client's
	// writes to the conditions this reconciler derives.
	persisted []xpv2.Condition
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

// Reconcile one managed resource. It always ends in exactly one
// session.Commit once the resource was read, and routes every requeue
// through session.RequeueAfter so a lost status write comes back in ~100ms.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := r.log.WithValues("request", req)
	ctx, cancel := context.WithTimeout(ctx, r.timeout+apiCallGracePeriod)
	defer cancel()

	mg := r.newManaged()
	if err := r.client.Get(ctx, req.NamespacedName, mg); err != nil {
		if kerrors.IsNotFound(err) {
			// Gone for good: nothing to write, nothing to publish.
			r.backoff.Forget(req)
			if r.metrics != nil {
				r.metrics.Forget(r.kind, req.Namespace, req.Name)
			}
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, errors.Wrap(err, errGetManaged)
	}

	opts := []session.Option{session.WithLogger(log)}
	if r.recorder != nil {
		opts = append(opts, session.WithRecorder(r.recorder))
	}
	if r.metrics != nil {
		opts = append(opts, session.WithMetrics(r.metrics, r.kind))
	}
	p := &pass{Reconciler: r, req: req, mg: mg, log: log.WithValues("uid", mg.GetUID(), "version", mg.GetResourceVersion())}
	if c := session.Find(*mg.StatusConditions(), xpv2.TypeReady); c != nil && c.Status == corev1.ConditionFalse {
		p.readyWasFalse = true
	}
	p.persisted = slices.Clone(*mg.StatusConditions())
	p.s = session.Begin(r.client, mg, opts...)

	return p.finish(ctx, p.reconcile(ctx))
}

// finish applies o, commits once, and picks the requeue.
func (p *pass) finish(ctx context.Context, o outcome) (reconcile.Result, error) {
	p.restoreDerived()
	if o.synced != nil {
		p.s.Set(*o.synced)
	}
	if o.readiness {
		rd := session.NewReadiness(xpv2.ReasonAvailable, o.readyMessage, fmt.Sprintf(msgNotStalledFmt, p.kind))
		rd.StalledIf(o.stalled, o.verdict.Reason, o.verdict.Message)
		rd.ProgressingIf(o.progressing, o.verdict.Status, o.verdict.Reason, o.verdict.Message)
		p.s.ApplyReadiness(rd)
	}
	if err := p.s.Commit(ctx); err != nil {
		// A real status write failure: let controller-runtime back off.
		return reconcile.Result{}, err
	}

	var after time.Duration
	switch o.wait {
	case waitNone:
		p.backoff.Forget(p.req)
	case waitPoll:
		p.backoff.Forget(p.req)
		after = p.poll()
	case waitSoon:
		after = min(p.backoff.When(p.req), p.poll())
	case waitStale:
		after = session.RequeueWriteLostInterval
	}
	after = p.s.RequeueAfter(after)
	if after > 0 && p.s.WriteLost() {
		p.log.Debug("Status write lost; requeueing promptly", "requeue-after", after)
	}
	return reconcile.Result{RequeueAfter: after}, nil
}

// poll returns the poll interval for this resource: the
// crossplane.io/poll-interval annotation (not below the minimum) or the
// default, with jitter.
func (p *pass) poll() time.Duration {
	d := p.pollInterval
	if a, ok := meta.GetPollInterval(p.mg); ok {
		d = max(a, p.minPollInterval)
	}
	if p.pollJitter > 0 {
		d += time.Duration((rand.Float64()*2 - 1) * float64(p.pollJitter)) //nolint:gosec // Jitter needs no secure randomness.
	}
	return max(d, 0)
}

func (p *pass) event(eventType, reason, msg string) {
	if p.recorder != nil {
		p.recorder.Event(p.mg, eventType, reason, msg)
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
	cp, _ := p.mg.DeepCopyObject().(Managed)
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
	return cp.GetGeneration() != p.mg.GetGeneration(), nil
}

func (p *pass) publish(ctx context.Context, cd xpmanaged.ConnectionDetails) error {
	so, ok := p.mg.(resource.LocalConnectionSecretOwner)
	if !ok {
		// Namespaced managed resources own local Secrets; a kind that does
		// not has nothing to publish.
		return nil
	}
	_, err := p.publisher.PublishConnection(ctx, so, cd)
	return errors.Wrap(err, errPublish)
}

func (p *pass) unpublish(ctx context.Context, cd xpmanaged.ConnectionDetails) error {
	so, ok := p.mg.(resource.LocalConnectionSecretOwner)
	if !ok {
		return nil
	}
	return errors.Wrap(p.publisher.UnpublishConnection(ctx, so, cd), errUnpublish)
}

func (p *pass) otherFinalizers() bool {
	for _, f := range p.mg.GetFinalizers() {
		if f != p.finalizer {
			return true
		}
	}
	return false
}

// removeFinalizer removes ours, if present, and reports the resource as
// finalizing; the status write after it usually finds the resource gone,
// which the session treats as success.
func (p *pass) removeFinalizer(ctx context.Context, msg string) outcome {
	if meta.FinalizerExists(p.mg, p.finalizer) {
		_, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
			meta.RemoveFinalizer(cp, p.finalizer)
			return resource.IgnoreNotFound(p.client.Update(ctx, cp))
		})
		if err != nil {
			return p.failed(phaseDeleting, errors.Wrap(err, errRemoveFinalizer))
		}
	}
	p.log.Debug("Finalized managed resource")
	o := progressing(corev1.ConditionFalse, xpv2.ReasonDeleting, msg)
	o.wait = waitNone
	if p.otherFinalizers() {
		// Someone else still holds it; their removal is a watch event.
		o.wait = waitPoll
	}
	return o
}

// reconcile runs the crossplane-runtime contract and returns its outcome. It
// never writes status itself.
func (p *pass) reconcile(ctx context.Context) outcome { //nolint:gocyclo // One linear lifecycle; splitting it hides the order, which is the contract.
	mg := p.mg
	externalCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()

	var opts []xpmanaged.ManagementPoliciesResolverOption
	if p.supportedPolicies != nil {
		opts = append(opts, xpmanaged.WithSupportedManagementPolicies(p.supportedPolicies))
	}
	// Namespaced (modern) managed resources have no deletionPolicy: leaving
	// Delete out of managementPolicies orphans the external resource.
	policy := xpmanaged.NewManagementPoliciesResolver(p.managementPolicies, mg.GetManagementPolicies(), opts...)

	if meta.IsPaused(mg) || policy.IsPaused() {
		p.log.Debug("Reconciliation is paused", "annotation", meta.AnnotationKeyReconciliationPaused)
		s := xpv2.ReconcilePaused()
		return outcome{synced: &s, wait: waitNone}
	}

	if token, ok := meta.GetReconcileRequest(mg); ok {
		if t, ok := mg.(reconcileRequestTracker); ok && t.GetLastHandledReconcileAt() != token {
			// Persisted by this reconcile's commit, like any status.
			t.SetLastHandledReconcileAt(token)
			p.event(corev1.EventTypeNormal, reasonReconcileAsks, "Handling reconcile request "+token)
		}
	}

	if err := policy.Validate(); err != nil {
		return p.failed(phaseOther, Stalled(ReasonManagementPolicyInvalid, err))
	}

	if meta.WasDeleted(mg) && !policy.ShouldDelete() {
		// Orphan: no need to observe what we will not delete.
		if err := p.unpublish(ctx, xpmanaged.ConnectionDetails{}); err != nil {
			return p.failed(phaseDeleting, err)
		}
		return p.removeFinalizer(ctx, msgOrphaning)
	}

	if !meta.WasDeleted(mg) {
		changed, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
			return p.initializer.Initialize(ctx, cp)
		})
		if err != nil {
			return p.failed(phaseOther, errors.Wrap(err, errInitialize))
		}
		if changed {
			// An initializer changed the spec; act on it next time, on
			// what the server holds, not on our older copy.
			return outcome{wait: waitStale}
		}
	}

	if meta.ExternalCreateIncomplete(mg) {
		if !p.deterministicExternalName {
			// We may have created something whose identity was never
			// recorded. Retrying could leak a second one; a human decides.
			err := Stalled(ReasonCreateIncomplete, errors.New(errCreateIncomplete))
			return p.failed(phaseCreating, err)
		}
		p.log.Debug("Cannot determine creation result, but proceeding due to deterministic external name")
	}

	external, err := p.connector.Connect(externalCtx, mg)
	if err != nil {
		return p.failed(phaseOther, errors.Wrap(err, errReconcileConnect))
	}
	defer func() {
		if err := external.Disconnect(ctx); err != nil {
			p.log.Debug("Cannot disconnect from provider", "error", err)
		}
	}()

	obs, err := external.Observe(externalCtx, mg)
	if err != nil {
		ph := phaseOther
		if meta.WasDeleted(mg) {
			ph = phaseDeleting
		}
		return p.failed(ph, errors.Wrap(err, errReconcileObserve))
	}

	if meta.WasDeleted(mg) {
		return p.delete(ctx, externalCtx, external, obs, policy)
	}

	if !obs.ResourceExists && policy.ShouldOnlyObserve() {
		// Only the external resource appearing resolves this, and
		// something other than a human may create it: progressing, at the
		// poll interval rather than with backoff.
		o := p.failed(phaseOther, errors.Wrap(errors.New(errNotExist), errReconcileObserve))
		o.verdict.Status, o.verdict.Reason = corev1.ConditionFalse, xpv2.ReasonUnavailable
		o.wait = waitPoll
		return o
	}

	if !obs.ResourceExists && meta.ExternalCreateSucceededDuring(mg, p.creationGracePeriod) {
		return progressing(corev1.ConditionFalse, xpv2.ReasonCreating, msgWaitExistence)
	}

	if err := p.publish(ctx, obs.ConnectionDetails); err != nil {
		return p.failed(phaseOther, err)
	}

	if !meta.FinalizerExists(mg, p.finalizer) {
		if _, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
			meta.AddFinalizer(cp, p.finalizer)
			return p.client.Update(ctx, cp)
		}); err != nil {
			return p.failed(phaseOther, errors.Wrap(err, errAddFinalizer))
		}
	}

	if !obs.ResourceExists {
		if !policy.ShouldCreate() {
			o := p.failed(phaseOther, errors.New(errNotExistNoCreate))
			o.verdict.Status, o.verdict.Reason = corev1.ConditionFalse, xpv2.ReasonUnavailable
			o.wait = waitPoll
			return o
		}
		return p.create(ctx, externalCtx, external)
	}

	if obs.ResourceLateInitialized && policy.ShouldLateInitialize() {
		// Observe filled unset spec fields; persist them. The spec write
		// bumps the generation, which brings us back to observe again.
		if _, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
			return p.client.Update(ctx, cp)
		}); err != nil {
			return p.failed(phaseOther, errors.Wrap(err, errUpdateManaged))
		}
	}

	if obs.ResourceUpToDate {
		return converged(msgAvailable)
	}
	if obs.Diff != "" {
		p.log.Debug("External resource differs from desired state", "diff", obs.Diff)
	}
	if !policy.ShouldUpdate() {
		return converged(msgAvailableNoUpdate)
	}

	upd, err := external.Update(externalCtx, mg)
	if err != nil {
		p.event(corev1.EventTypeWarning, reasonCannotUpdate, err.Error())
		return p.failed(phaseOther, errors.Wrap(err, errReconcileUpdate))
	}
	if err := p.publish(ctx, upd.ConnectionDetails); err != nil {
		return p.failed(phaseOther, err)
	}
	p.event(corev1.EventTypeNormal, reasonUpdated, msgUpdateRequested)
	// Not converged until an observation says so.
	return progressing(corev1.ConditionUnknown, xpv2.ReasonUpdateRequested, msgUpdateRequested)
}

func (p *pass) create(ctx, externalCtx context.Context, external xpmanaged.ExternalClient) outcome {
	// Record the intent first, with an optimistic lock: if the process
	// dies during Create, the next reconcile knows a create may have
	// happened; and a stale copy fails here, before anything external.
	if _, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
		meta.SetExternalCreatePending(cp, time.Now())
		return p.client.Update(ctx, cp)
	}); err != nil {
		return p.failed(phaseCreating, errors.Wrap(err, errCreatePending))
	}

	cre, err := external.Create(externalCtx, p.mg)
	if err != nil {
		p.event(corev1.EventTypeWarning, reasonCannotCreate, err.Error())
		// Without the failed mark the next reconcile would refuse to
		// proceed, not knowing whether something was created.
		if _, uerr := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
			meta.SetExternalCreateFailed(cp, time.Now())
			return p.critical.UpdateCriticalAnnotations(ctx, cp)
		}); uerr != nil {
			p.log.Debug("Cannot record that creation failed", "error", uerr)
		}
		return p.failed(phaseCreating, errors.Wrap(err, errReconcileCreate))
	}

	// Create may have set the external name; persist it with the mark.
	if _, err := p.writeMetadata(ctx, func(ctx context.Context, cp Managed) error {
		meta.SetExternalCreateSucceeded(cp, time.Now())
		return p.critical.UpdateCriticalAnnotations(ctx, cp)
	}); err != nil {
		return p.failed(phaseCreating, errors.Wrap(err, errCreateSucceeded))
	}
	if err := p.publish(ctx, cre.ConnectionDetails); err != nil {
		return p.failed(phaseCreating, err)
	}
	p.event(corev1.EventTypeNormal, reasonCreated, msgCreateRequested)
	return progressing(corev1.ConditionFalse, xpv2.ReasonCreating, msgCreateRequested)
}

func (p *pass) delete(ctx, externalCtx context.Context, external xpmanaged.ExternalClient, obs xpmanaged.ExternalObservation, policy xpmanaged.ManagementPoliciesChecker) outcome {
	if p.otherFinalizers() {
		// Other controllers still depend on the external resource.
		return progressing(corev1.ConditionFalse, xpv2.ReasonDeleting, msgWaitFinalizers)
	}
	if obs.ResourceExists && policy.ShouldDelete() {
		if _, err := external.Delete(externalCtx, p.mg); err != nil {
			p.event(corev1.EventTypeWarning, reasonCannotDelete, err.Error())
			return p.failed(phaseDeleting, errors.Wrap(err, errReconcileDelete))
		}
		p.event(corev1.EventTypeNormal, reasonDeleted, msgDeleteRequested)
		// Finalize only once an observation confirms it is gone.
		return progressing(corev1.ConditionFalse, xpv2.ReasonDeleting, msgDeleteRequested)
	}
	if err := p.unpublish(ctx, obs.ConnectionDetails); err != nil {
		return p.failed(phaseDeleting, err)
	}
	return p.removeFinalizer(ctx, msgFinalizing)
}
