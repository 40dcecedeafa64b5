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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
)

// ControllerName is the conventional controller name for a managed kind,
// the same as crossplane-runtime's.
func ControllerName(kind string) string { return xpmanaged.ControllerName(kind) }

// SetupWithManager registers r with mgr as the controller for its kind.
// For() admits only DesiredStateChanged updates, so our own status writes do
// not come back as reconciles. o is usually crossplane's
// controller.Options.ForControllerRuntime() (per-item backoff, panic
// recovery); global, when not nil, limits reconciles across all controllers
// (crossplane's ratelimiter.NewGlobal).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, o controller.Options, global ratelimiter.RateLimiter) error {
	var rec reconcile.Reconciler = r
	name := ControllerName(r.kind)
	// The global limiter rations polls. An event-driven controller has
	// none: what reaches it is a new or edited resource, a landed write or a
	// drift found in Git, and queueing those behind a rate meant for polls
	// would only delay them (a new resource behind thousands of others). The
	// API client's own QPS limit still bounds what they cost.
	if global != nil && !r.eventDriven {
		rec = ratelimiter.NewReconciler(name, r, global)
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(r.newManaged(), builder.WithPredicates(append([]predicate.Predicate{DesiredStateChanged()}, r.filters...)...)).
		WithOptions(o)
	for _, src := range r.sources {
		b = b.WatchesRawSource(src)
	}
	return b.Complete(rec)
}
