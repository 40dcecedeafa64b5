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

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// WithEventFilter adds predicates every event of the managed kind must
// pass before it is queued: replicas that split the resources between them
// (by repository) keep the others' resources out of their queues.
func WithEventFilter(p ...predicate.Predicate) ReconcilerOption {
	return func(r *Reconciler) { r.filters = append(r.filters, p...) }
}

// WithSource adds src, which enqueues resources for a reason of its own (a
// change of which replica holds their repository). Unlike WithEventSource
// it says nothing of drift: a converged resource keeps its poll.
func WithSource(src ...source.Source) ReconcilerOption {
	return func(r *Reconciler) { r.sources = append(r.sources, src...) }
}

// WithAdmission sets what a resource must pass, once read, to be
// reconciled here. What fails it was queued before its filter said no (a
// retry, a wake from Git): it is forgotten (the WithGone path) and not
// requeued, as though it were gone, and another replica reconciles it.
func WithAdmission(admit func(ctx context.Context, o client.Object) bool) ReconcilerOption {
	return func(r *Reconciler) { r.admit = admit }
}
