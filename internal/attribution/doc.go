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

// Package attribution names who made each change a Mirror with attribution
// commits: it joins the changes a Mirror's plan finds to the facts of the
// audit store (internal/audit) by object and time, or to the admission
// webhook's facts (internal/admission) exactly (admitted.go), and splits
// the write into commits by author and source (the Attributed-By
// trailer).
//
// Attributions is the join, shared by every reconcile of every Mirror of
// the process: a ledger per Mirror of when each change was noticed and
// which facts a landed commit spent, and the Mirrors whose deferred
// changes wait for a fact (woken when one arrives). Join decides one plan:
// each change is authored by the last user its facts name (the others are
// Co-authored-by trailers), waits out of the write for its facts, is held
// as Git has it when ignored users alone made it, or is authored
// unresolved once the wait is over; a deletion no fact of its own object
// names is authored by a deletecollection of its resource in the same
// window (collection.go). Spend, Landed and Failed (spend.go) follow the
// write that carries the Decision, so facts are spent only by a commit that
// landed. Parts and AuthorObjects cut the write into commits by the
// Decision's authors (commits.go); the author templates
// (spec.forProvider.author) render who a fact names (author.go).
//
// # Imports
//
// The package is the Mirror controller's domain logic, and imports only
// what that logic is about: the audit store's and the admission webhook's
// facts (internal/audit, internal/admission), the
// commits it cuts (internal/git) and the Mirror's snapshot and layout
// (internal/mirror), with plain values for the rest: the Mirror as Join
// reads it is a Mirror, not the API type. It imports no API types (apis),
// no controller or reconciler machinery (internal/controller,
// internal/reconciler, controller-runtime, client-go): the controller
// holds the adapter (internal/controller/mirror's attribute.go), which
// reads the spec, reports a refused author template as InvalidSpec and
// hands each Decision to the write. .golangci.yml's depguard rule
// attribution_imports_only_its_domain states it.
package attribution
