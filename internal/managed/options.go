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
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-git/internal/session"
)

const errFmtUnexpectedType = "managed resource %T is not of the type this connector expects"

// A ReconcilerOption configures a Reconciler.
type ReconcilerOption func(*Reconciler)

// WithTypedExternalConnector sets how the Reconciler connects to the external
// system for managed resources of type T.
func WithTypedExternalConnector[T resource.Managed](c xpmanaged.TypedExternalConnector[T]) ReconcilerOption {
	return func(r *Reconciler) {
		r.connector = typedConnector[T]{c: c}
	}
}

// WithExternalConnector sets an untyped connector.
func WithExternalConnector(c xpmanaged.ExternalConnector) ReconcilerOption {
	return func(r *Reconciler) {
		r.connector = c
	}
}

// WithPollInterval sets how long a converged (or stalled) resource waits
// before it is observed again. Nothing notifies us when the external
// resource drifts, so polling is the only way to see it.
func WithPollInterval(d time.Duration) ReconcilerOption {
	return func(r *Reconciler) { r.pollInterval = d }
}

// WithMinPollInterval sets the floor for a per-resource
// crossplane.io/poll-interval annotation.
func WithMinPollInterval(d time.Duration) ReconcilerOption {
	return func(r *Reconciler) { r.minPollInterval = d }
}

// WithPollJitter spreads polls by a random amount in [-d, +d], so N
// resources created together do not poll in lockstep forever.
func WithPollJitter(d time.Duration) ReconcilerOption {
	return func(r *Reconciler) { r.pollJitter = d }
}

// WithTimeout bounds all calls to the external system in one reconcile. API
// server calls, including the final status write, get a grace period on top
// so an external timeout can still be reported.
func WithTimeout(d time.Duration) ReconcilerOption {
	return func(r *Reconciler) { r.timeout = d }
}

// WithCreationGracePeriod sets how long after a successful Create an
// observation of "does not exist" is distrusted, for eventually consistent
// external APIs.
func WithCreationGracePeriod(d time.Duration) ReconcilerOption {
	return func(r *Reconciler) { r.creationGracePeriod = d }
}

// WithLogger sets the logger.
func WithLogger(l logging.Logger) ReconcilerOption {
	return func(r *Reconciler) { r.log = l }
}

// WithRecorder sets where Events go: one per persisted Ready transition
// (emitted by the session) and one per action on the external resource.
func WithRecorder(er record.EventRecorder) ReconcilerOption {
	return func(r *Reconciler) { r.recorder = er }
}

// WithConditionMetrics publishes each resource's Ready, Reconciling and
// Stalled on m under the managed kind's name.
func WithConditionMetrics(m *session.ConditionMetrics) ReconcilerOption {
	return func(r *Reconciler) { r.metrics = m }
}

// WithManagementPolicies honours spec.managementPolicies. Without it any
// value other than ["*"] (or empty) is refused as a stalled error, exactly as
// crossplane-runtime refuses it when the feature flag is off.
func WithManagementPolicies() ReconcilerOption {
	return func(r *Reconciler) { r.managementPolicies = true }
}

// WithReconcilerSupportedManagementPolicies replaces crossplane-runtime's
// default list of supported policy combinations.
func WithReconcilerSupportedManagementPolicies(supported []sets.Set[xpv2.ManagementAction]) ReconcilerOption {
	return func(r *Reconciler) { r.supportedPolicies = supported }
}

// WithDeterministicExternalName declares that the external name never
// depends on what Create returns (for Git: a branch name, a path). Then a
// create whose outcome was never recorded is safe to retry, instead of a
// stall that waits for a human to remove the external-create-pending
// annotation.
func WithDeterministicExternalName(b bool) ReconcilerOption {
	return func(r *Reconciler) { r.deterministicExternalName = b }
}

// WithInitializers replaces the default initializer, which sets the
// external-name annotation to metadata.name when it is unset.
// Initializers run on a copy of the resource; the metadata they persist is
// carried back, so they cannot discard the status being computed.
func WithInitializers(i ...xpmanaged.Initializer) ReconcilerOption {
	return func(r *Reconciler) { r.initializer = xpmanaged.InitializerChain(i) }
}

// WithFinalizerName sets the finalizer the reconciler adds before it
// creates anything and removes once the external resource is gone.
func WithFinalizerName(name string) ReconcilerOption {
	return func(r *Reconciler) { r.finalizer = name }
}

// WithCriticalAnnotationUpdater sets how the external-create-succeeded and
// external-create-failed annotations are persisted (the default retries).
func WithCriticalAnnotationUpdater(u xpmanaged.CriticalAnnotationUpdater) ReconcilerOption {
	return func(r *Reconciler) { r.critical = u }
}

// WithLocalConnectionPublisher sets how connection details are published for
// resources that own a local connection Secret.
func WithLocalConnectionPublisher(p xpmanaged.LocalConnectionPublisher) ReconcilerOption {
	return func(r *Reconciler) { r.publisher = p }
}

// WithBackoff sets the per-resource backoff for resources that are
// progressing (a transient error, or an action whose effect is not yet
// observed). It is capped at the poll interval.
func WithBackoff(l workqueue.TypedRateLimiter[reconcile.Request]) ReconcilerOption {
	return func(r *Reconciler) { r.backoff = l }
}

// typedConnector adapts a TypedExternalConnector to the untyped interface the
// reconciler drives, failing (not panicking) on a type mismatch.
type typedConnector[T resource.Managed] struct {
	c xpmanaged.TypedExternalConnector[T]
}

func (tc typedConnector[T]) Connect(ctx context.Context, mg resource.Managed) (xpmanaged.ExternalClient, error) {
	cr, ok := mg.(T)
	if !ok {
		return nil, errors.Errorf(errFmtUnexpectedType, mg)
	}
	ec, err := tc.c.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	return typedClient[T]{c: ec}, nil
}

type typedClient[T resource.Managed] struct {
	c xpmanaged.TypedExternalClient[T]
}

func (tc typedClient[T]) Observe(ctx context.Context, mg resource.Managed) (xpmanaged.ExternalObservation, error) {
	cr, ok := mg.(T)
	if !ok {
		return xpmanaged.ExternalObservation{}, errors.Errorf(errFmtUnexpectedType, mg)
	}
	return tc.c.Observe(ctx, cr)
}

func (tc typedClient[T]) Create(ctx context.Context, mg resource.Managed) (xpmanaged.ExternalCreation, error) {
	cr, ok := mg.(T)
	if !ok {
		return xpmanaged.ExternalCreation{}, errors.Errorf(errFmtUnexpectedType, mg)
	}
	return tc.c.Create(ctx, cr)
}

func (tc typedClient[T]) Update(ctx context.Context, mg resource.Managed) (xpmanaged.ExternalUpdate, error) {
	cr, ok := mg.(T)
	if !ok {
		return xpmanaged.ExternalUpdate{}, errors.Errorf(errFmtUnexpectedType, mg)
	}
	return tc.c.Update(ctx, cr)
}

func (tc typedClient[T]) Delete(ctx context.Context, mg resource.Managed) (xpmanaged.ExternalDelete, error) {
	cr, ok := mg.(T)
	if !ok {
		return xpmanaged.ExternalDelete{}, errors.Errorf(errFmtUnexpectedType, mg)
	}
	return tc.c.Delete(ctx, cr)
}

func (tc typedClient[T]) Disconnect(ctx context.Context) error { return tc.c.Disconnect(ctx) }
