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

// Package mirror selects, sanitizes and lays out the live Kubernetes objects
// a Mirror keeps in a folder of a Git branch. It knows nothing of Git: it
// hands the Mirror controller a Snapshot (the files the folder should hold)
// and wakes it when that changes.
//
// # Watches
//
// Sources keeps exactly one informer per (resource, namespace) - or per
// resource for cluster-scoped kinds - shared by every Mirror that needs it:
// started by the first, stopped when the last releases it. Informers never
// resync and never relist on a timer, so in steady state the API server sees
// only the open watches. Each informer's handler renders every object once
// when it arrives (internal/manifest: stable YAML without status and server
// noise) and keeps the bytes, so a Snapshot costs no rendering, and an update
// whose rendering is unchanged - a status-only write, a no-op apply - wakes
// nobody.
//
// # Layout
//
// An object lives at
//
//	{namespace}/{group}/{kind}/{name}.yaml
//
// relative to the Mirror's folder, with group "core" for the core group, the
// kind lower-cased, and "_cluster" in place of the namespace for
// cluster-scoped objects ("_" cannot start a namespace name, so it never
// collides with one). The namespace comes first because that is how people
// own and review a cluster: one folder per team, which CODEOWNERS and a
// reviewer read directly. The version is left out so that a change of the
// served or preferred version does not move every file; the kind rather than
// the plural resource name is what a person reads in the file itself. The
// layout is part of the Mirror's contract with the repository: changing it
// would move every mirrored file, so it does not change.
//
// A core Secret, mirrored only encrypted, lives at {name}.sops.yaml instead:
// the file is a SOPS document, and its name says so to a reviewer and to
// tools that select encrypted files by name (a .sops.yaml creation rule, a
// pre-commit check). Flux decrypts it whatever its name.
//
// This is layout Folder's path for every object, and layout InPlace's for
// an object found nowhere in the folder; where InPlace finds an object's
// YAML already, and how it edits it, is internal/mirror/inplace.
//
// # What is never mirrored
//
// Core Secrets are never read unless the request opts in for their
// namespace (Request.SecretNamespaces), which its caller does only when it
// encrypts them and a cluster administrator allowed it: elsewhere no Secret
// informer starts, and the Snapshot says the Secrets were left out. With it
// a Secret is rendered for encryption and handed over marked
// (Object.Secret); this package holds no encryption code and never writes
// anything. Objects a controller owns (a ReplicaSet of a
// Deployment, a Pod of a ReplicaSet) are skipped when the request says so,
// because their owner is the thing a person changes. What the cluster makes
// by itself is skipped when the request says so (Request.SkipGenerated):
// Endpoints, EndpointSlices, Events and Leases are not even watched, and the
// kube-root-ca.crt ConfigMap, the default ServiceAccount and service-account
// token Secrets of every namespace are left out.
//
// # Changes of ignored field managers
//
// A request may name field managers whose changes alone are not mirrored
// (Request.IgnoreManagers: Flux, Argo CD, Helm), so that a Mirror beside a
// forward GitOps controller does not write back what it applied. Without
// audit events the only record of who changed an object is its
// managedFields: each entry is a manager's (with operation and subresource)
// and carries the time of its last change and the fields it owns. Per owner
// the package keeps the version of each object it last took (holds). A newer
// version keeps the taken version's file when an ignored manager's entry was
// added, removed or changed since, and every other manager's entry is as it
// was or merely lost fields to them (the same time, fewer fields, or gone:
// the API server stamps only the manager that makes a change). Any other
// change takes the whole live object, including what the ignored managers
// applied before: the Mirror mirrors the live object, and only postpones
// what they alone changed. When in doubt (no entry changed) it mirrors. The
// first version an owner sees (after a start, a new request, or the
// object's creation) is compared with no managedFields at all: an object
// only ignored managers ever wrote is not mirrored until someone else
// changes it, and any other is taken as it is. A deletion is always
// mirrored.
package mirror
