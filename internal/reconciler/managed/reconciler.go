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
// The package is read in this order: reconciler.go (the Reconciler and
// Reconcile), pass.go (one reconcile of one resource: the order of the
// contract's steps), lifecycle.go (observe, then create, update or delete),
// outcome.go (what a reconcile concluded, and how that becomes conditions
// and a requeue), typed.go (adapters for typed external clients).
package managed

import (
	"context"
	"slices"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
)

// Defaults, the same as crossplane-runtime v2.4's managed reconciler.
const (
	defaultPollInterval = 1 * time.Minute
	defaultGracePeriod  = 30 * time.Second
	defaultTimeout      = 1 * time.Minute
	apiCallGracePeriod  = 30 * time.Second
	// finalizerName is crossplane-runtime's, so a resource moved between
	// reconcilers keeps the finalizer that protects its external resource.
	finalizerName = xpmanaged.FinalizerName
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

const (
	errGetManaged      = "cannot get managed resource"
	errFmtNotSessioned = "managed resource kind %s does not implement session.Object (SetObservedGeneration, StatusConditions)"
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

// A Reconciler reconciles one managed resource kind with its external
// resources. It holds configuration only; everything one reconcile learns
// lives in a pass.
type Reconciler struct {
	client     client.Client
	kind       string
	newManaged func() Managed

	connector xpmanaged.ExternalConnector
	// initializer persists what it sets itself; nil when there is none.
	initializer xpmanaged.Initializer
	// externalName, when set, names the external resource; the name is
	// persisted with the next metadata write (see WithExternalNameOf).
	externalName func(resource.Managed) string
	critical     xpmanaged.CriticalAnnotationUpdater
	publisher    xpmanaged.LocalConnectionPublisher

	pollInterval        time.Duration
	minPollInterval     time.Duration
	pollJitter          time.Duration
	timeout             time.Duration
	creationGracePeriod time.Duration
	backoff             workqueue.TypedRateLimiter[reconcile.Request]

	managementPolicies        bool
	deterministicExternalName bool

	// sources wake resources when their external resource changed; with
	// any added by WithEventSource, converged resources are not polled
	// (eventDriven).
	sources     []source.Source
	eventDriven bool
	// filters are the predicates of the kind's events besides
	// DesiredStateChanged (WithEventFilter); admit, when set, is what a
	// resource read must pass to be reconciled here (WithAdmission).
	filters []predicate.Predicate
	admit   func(ctx context.Context, o client.Object) bool

	// gone drop what was kept for a resource that is gone (WithGone).
	gone []Forgetter

	log      logging.Logger
	recorder record.EventRecorder
	metrics  *session.ConditionMetrics
	// unheard keeps the Ready transitions of status writes whose reply was
	// lost, so each stored transition still gets its one Event.
	unheard *session.Unheard
	// superseded keeps the versions each resource's last reconcile
	// replaced with its own writes, to recognise a stale read of them.
	superseded *session.Superseded
}

// NewReconciler returns a Reconciler for the managed kind of. It panics if
// of is not registered in c's scheme or does not implement Managed: both are
// programming errors best found at start-up. Without
// WithTypedExternalConnector it reconciles against crossplane-runtime's
// no-op external client.
func NewReconciler(c Cluster, of resource.ManagedKind, o ...ReconcilerOption) *Reconciler {
	gvk := schema.GroupVersionKind(of)
	r := &Reconciler{
		client:              c.GetClient(),
		kind:                gvk.Kind,
		newManaged:          mustManagedConstructor(c.GetScheme(), gvk),
		connector:           &xpmanaged.NopConnector{},
		initializer:         xpmanaged.NewNameAsExternalName(c.GetClient()),
		critical:            xpmanaged.NewRetryingCriticalAnnotationUpdater(c.GetClient()),
		publisher:           xpmanaged.NewAPILocalSecretPublisher(c.GetClient(), c.GetScheme()),
		pollInterval:        defaultPollInterval,
		timeout:             defaultTimeout,
		creationGracePeriod: defaultGracePeriod,
		backoff:             ratelimiter.NewController(),
		log:                 logging.NewNopLogger(),
		unheard:             session.NewUnheard(),
		superseded:          session.NewSuperseded(),
	}
	for _, fn := range o {
		fn(r)
	}
	return r
}

// mustManagedConstructor returns a function that makes an empty resource of
// gvk, and panics at once unless gvk is registered in s with a Go type that
// implements Managed. Both facts are fixed when the binary is built and the
// scheme is filled at start-up, so once this first call succeeds the
// returned function cannot fail on any later reconcile.
func mustManagedConstructor(s *runtime.Scheme, gvk schema.GroupVersionKind) func() Managed {
	newManaged := func() Managed {
		mg, ok := resource.MustCreateObject(gvk, s).(Managed)
		if !ok {
			panic(errors.Errorf(errFmtNotSessioned, gvk))
		}
		return mg
	}
	newManaged()
	return newManaged
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
			r.superseded.Forget(req.NamespacedName)
			if r.metrics != nil {
				r.metrics.Forget(r.kind, req.Namespace, req.Name)
			}
			r.forget(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, errors.Wrap(err, errGetManaged)
	}

	if r.admit != nil && !r.admit(ctx, mg) {
		// Another replica holds its repository now.
		log.Debug("Not held by this replica; forgetting it")
		r.backoff.Forget(req)
		r.superseded.Forget(req.NamespacedName)
		if r.metrics != nil {
			// Its holder publishes it now.
			r.metrics.Forget(r.kind, req.Namespace, req.Name)
		}
		r.forget(req.NamespacedName)
		return reconcile.Result{}, nil
	}
	if r.superseded.Stale(req.NamespacedName, mg.GetResourceVersion()) {
		// The cache has not seen this reconciler's own last write yet:
		// what we read is what that write replaced. Whatever a reconcile
		// concluded from it, its status patch would be refused (Conflict);
		// come back once the cache caught up.
		log.Debug("Read a version our own last write replaced; requeueing promptly", "version", mg.GetResourceVersion())
		return reconcile.Result{RequeueAfter: session.RequeueWriteLostInterval}, nil
	}
	opts := []session.Option{session.WithLogger(log), session.WithUnheard(r.unheard), session.WithSuperseded(r.superseded)}
	if r.recorder != nil {
		opts = append(opts, session.WithRecorder(r.recorder))
	}
	if r.metrics != nil {
		opts = append(opts, session.WithMetrics(r.metrics, r.kind))
	}
	p := &pass{r: r, req: req, mg: mg, log: log.WithValues("uid", mg.GetUID(), "version", mg.GetResourceVersion())}
	if c := session.Find(*mg.StatusConditions(), xpv2.TypeReady); c != nil && c.Status == corev1.ConditionFalse {
		p.readyWasFalse = true
	}
	p.persisted = slices.Clone(*mg.StatusConditions())
	p.s = session.Begin(r.client, mg, opts...)

	return p.finish(ctx, p.reconcile(ctx))
}

// forget tells every Forgetter that the resource nn is gone: the one path
// every exit of a resource takes (reconcile of a NotFound resource, and
// removeFinalizer, through which deletion and orphaning both end).
func (r *Reconciler) forget(nn types.NamespacedName) {
	for _, f := range r.gone {
		f.Forget(nn)
	}
}
