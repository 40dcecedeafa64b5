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
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
)

// A ReconcilerOption configures a Reconciler.
type ReconcilerOption func(*Reconciler)

// WithTypedExternalConnector sets how the Reconciler connects to the external
// system for managed resources of type T.
func WithTypedExternalConnector[T resource.Managed](c xpmanaged.TypedExternalConnector[T]) ReconcilerOption {
	return func(r *Reconciler) {
		r.connector = typedConnector[T]{c: c}
	}
}

// WithPollInterval sets how long a converged (or stalled) resource waits
// before it is observed again. Nothing notifies us when the external
// resource drifts, so polling is the only way to see it.
func WithPollInterval(d time.Duration) ReconcilerOption {
	return func(r *Reconciler) { r.pollInterval = d }
}

// WithEventSource adds src, which enqueues resources whose external
// resource changed (or whose pending change landed), and says that it is
// the one that reports drift: a converged resource is then not requeued on
// a timer at all (the informer's resync stays as the safety net; an
// explicit crossplane.io/poll-interval annotation still asks for polls).
// Stalled and failing resources keep their poll and backoff.
func WithEventSource(src ...source.Source) ReconcilerOption {
	return func(r *Reconciler) {
		r.sources = append(r.sources, src...)
		r.eventDriven = true
	}
}

// WithWakeSource adds src, which enqueues resources when something they
// follow changed, without saying it reports every drift: converged
// resources are still polled (a pull request a person edits on the forge
// is seen only by a poll), and polls are still rationed by the global
// limiter. A wake comes in addition to the poll, sooner.
func WithWakeSource(src ...source.Source) ReconcilerOption {
	return func(r *Reconciler) {
		r.sources = append(r.sources, src...)
	}
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

// WithDeterministicExternalName declares that the external name never
// depends on what Create returns (for Git: a branch name, a path). Then a
// create whose outcome was never recorded is safe to retry, instead of a
// stall that waits for a human to remove the external-create-pending
// annotation.
func WithDeterministicExternalName(b bool) ReconcilerOption {
	return func(r *Reconciler) { r.deterministicExternalName = b }
}

// WithExternalNameOf names the external resource after what name returns
// (a branch, a path), which must depend on the spec alone. It replaces the
// initializers and implies WithDeterministicExternalName(true).
//
// The name is set in memory on every reconcile and persisted with the
// reconciler's next metadata write, not with one of its own: on a new
// resource that is the write that adds the finalizer and the create-pending
// mark, before anything external is created, so a new resource costs one
// metadata write instead of three. A reconcile that makes no metadata write
// at all (its Observe failed) persists the name on its own at its end.
func WithExternalNameOf(name func(resource.Managed) string) ReconcilerOption {
	return func(r *Reconciler) {
		r.externalName = name
		r.initializer = nil
		r.deterministicExternalName = true
	}
}

// A Forgetter drops what was kept outside the API server for a managed
// resource that is gone for good: its place in a drift index (which would
// otherwise poll its repository forever and keep the clone from going
// idle), a write's result nobody will collect.
type Forgetter interface {
	Forget(nn types.NamespacedName)
}

// A ForgetterFn is a function that satisfies Forgetter.
type ForgetterFn func(nn types.NamespacedName)

// Forget calls fn.
func (fn ForgetterFn) Forget(nn types.NamespacedName) { fn(nn) }

// WithGone adds f to what the reconciler tells when a resource is gone for
// good, which is every way a resource can go: its deletion completed, it
// was orphaned (managementPolicies without Delete: nothing is observed, so
// no external client ever learns of it), or a reconcile finds it NotFound
// (its finalizer removed by hand, so it had no last reconcile of its own).
// A Forgetter may be told more than once of one resource.
func WithGone(f ...Forgetter) ReconcilerOption {
	return func(r *Reconciler) { r.gone = append(r.gone, f...) }
}

// WithInitializers replaces the default initializer, which sets the
// external-name annotation to metadata.name when it is unset.
// Initializers run on a copy of the resource; the metadata they persist is
// carried back, so they cannot discard the status being computed.
func WithInitializers(i ...xpmanaged.Initializer) ReconcilerOption {
	return func(r *Reconciler) { r.initializer = xpmanaged.InitializerChain(i) }
}
