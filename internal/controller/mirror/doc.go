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

// Package mirror is the controller of Mirror: a folder of a branch kept an
// exact, readable copy of live Kubernetes objects.
//
// Each reconcile computes the whole folder from the Mirror's Snapshot (the
// rendered objects internal/mirror keeps from shared informers) and
// compares it with the folder at the branch head by blob SHA, without
// reading blobs back. What differs becomes one Change of puts and deletes,
// handed to the branch writer under one key per Mirror: a newer Change
// replaces a queued one, so computing the whole difference every time is
// correct, and a burst of object edits becomes one commit per commit window.
// A snapshot whose informers have not listed everything yet drives nothing:
// an object missing from it may merely not be listed yet, and deleting its
// file would be wrong. The same comparison is the mark-and-sweep after a
// restart, a new Mirror or a lost watch: files of objects deleted while
// nobody watched are removed, and objects edited meanwhile are rewritten.
// The comparison itself, and the marker below, are internal/mirror/plan's:
// this package reads the folder from Git for it (plan.go) and hands its
// change to the branch writer.
//
// # The adapter and the domain
//
// This package is the kind's adapter: it reads the spec, the cluster and
// Git, hands plain values to the Mirror's domain packages, classifies what
// they refuse into reasons, and writes status. Each Observe (observe.go)
// reads (admit, readFolder), classifies (planFolder) and acts (act). The
// domain lives beside internal/mirror: the plan (internal/mirror/plan), the
// InPlace layout's edits of YAML and kustomize overlays
// (internal/mirror/inplace; inplace.go reads its files from Git), the
// commits a change is cut into, one per object with commit PerChange
// (internal/mirror/commits; their messages are the Mirror's templates,
// rendered in spec.go), and attribution (internal/attribution). What one
// Observe reads and finds on the way is a planning of its own; the
// external client carries only what Observe hands on to Create, Update,
// Delete and Note.
//
// # Ownership
//
// A Mirror deletes only files it owns, and it records which in the folder
// itself: a marker file, .mirror.yaml at the top of the folder, names the
// Mirror (namespace and name) and lists its files. The marker is rewritten
// in the same commit as the files it lists, so ownership and content never
// disagree, whatever crashes when; a restarted provider reads it at the
// head with one blob read, where commit trailers would need a walk through
// history that a squash or a rewrite by someone else would lose; and a
// person reviewing the folder sees who writes it. A file at an object's
// path that the Mirror does not own is adopted only when it is a single
// document of that very object; anything else is Stalled PathConflict
// naming the path. A marker naming another Mirror that still exists is
// PathConflict too; one naming a Mirror that is gone is taken over without
// what it owned.
//
// The rule holds on the tree the commit lands on, not only on the head the
// plan read: the change carries what it was decided on (the marker's blob,
// and each file it writes without owning it), which the branch writer checks
// wherever it builds the commit, after every rebase too. A file a person
// pushes in between fails the change alone, and the Mirror plans again on
// that head: the rule decides there as if the file had come first.
//
// Before any of that, the Mirror claims its whole folder in the claim index
// (claim.Mirror): a File or Mirror created first anywhere in or around the
// folder holds it off (Stalled Conflict, nothing written), so two resources
// never fight over a folder whose content is computed from live objects
// alone. The marker checks remain for what Git holds without a resource
// behind it.
//
// # Scope
//
// A Mirror reads its own namespace. Other namespaces and cluster-scoped
// kinds need the mirror policy of the ClusterProviderConfig it uses, which
// only a cluster administrator can write (access.go); without it the Mirror
// is Stalled NotAuthorized and reads nothing.
//
// # Secrets
//
// Secrets are read only when the Mirror's configuration encrypts
// (spec.encryption) and is a ClusterProviderConfig whose mirror policy
// lists their namespace in secretNamespaces (access.go): the request then
// opts in to them there, and each Secret is
// written as a SOPS document encrypted to the configuration's age
// recipients, through a Sealer of the Mirror controller's own (secret.go).
// SOPS output is randomized, so a Secret's file is compared by what it
// decrypts to, not by the blob SHA of a new encryption: an unchanged Secret
// is never committed again. That verdict is kept by the blob SHA of the
// file (sealed.go), so a steady poll reads no blob. Without encryption or
// the grant no Secret is listed or watched, and Ready's message says why.
//
// # Attribution
//
// With attribution Audit, Admission or Auto, who made each change is
// internal/attribution's: each plan's changes are joined to audit facts or
// admission facts there (attribute.go hands it the plan and reads the spec
// for it), the changes that wait for their facts are planned again as Git
// has them, and the write is cut into one commit per author and source.
// With Admission or Auto, the Attribution condition (outside Ready) says
// whether the admission webhook saw the last change's write.
package mirror
