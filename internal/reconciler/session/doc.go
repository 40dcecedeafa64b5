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

// Package session is the one way a reconciler writes an object's status.
//
// A Session is opened right after the object is read, collects every
// condition the reconcile writes, and commits the difference exactly once as
// an optimistic-lock merge patch of the status subresource. A Readiness
// accumulator is the only writer of the kstatus trio (Ready, Reconciling,
// Stalled), so the trio reflects the most severe gate rather than whichever
// gate ran last. ConditionMetrics publishes the trio as a Prometheus gauge.
// Superseded remembers the versions a reconcile's own writes replaced, so
// the next reconcile can tell it read from a cache that has not seen them
// (and would only lose its write to the optimistic lock).
//
// The package knows nothing of Git; it is shared by managed resources and
// ProviderConfigs alike.
package session
