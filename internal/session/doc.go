// Package session is the one way a reconciler writes an object's status.
//
// A Session is opened right after the object is read, collects every
// condition the reconcile writes, and commits the difference exactly once as
// an optimistic-lock merge patch of the status subresource. A Readiness
// accumulator is the only writer of the kstatus trio (Ready, Reconciling,
// Stalled), so the trio reflects the most severe gate rather than whichever
// gate ran last. ConditionMetrics publishes the trio as a Prometheus gauge.
//
// The package knows nothing of Git; it is shared by managed resources and
// ProviderConfigs alike.
package session
