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

// Package commits cuts a Mirror's planned change (plan.Diff) into the
// git.Change its branch writer commits: one commit (commit Batched), one
// commit per object's change (commit PerChange), or, with attribution
// Audit, commits by who made each change (internal/attribution).
//
// # PerChange: Git as an audit trail
//
// The Mirror's plan stays what it is, the whole folder against the
// snapshot, so everything it guarantees (ownership, adoption,
// mark-and-sweep, preconditions) holds unchanged; a PerChange Mirror only
// cuts the one change into parts, one per object whose file it writes or
// removes (git.Part, one per plan.Change), which the branch writer commits
// in order and pushes with the rest of the window.
//
// What a part records is an object's state when the plan was made, not
// each watch event: the snapshot keeps the latest state of each object, so
// an object changed several times before its commit is written (within the
// window, or while the push before was under way) is one commit of its
// latest state. Parts are in the order the changes were made
// (plan.Ordered). The marker, which lists what the Mirror owns, changes
// with the last part: a thousand new objects are a thousand commits, not a
// thousand copies of a growing marker, and every file a commit adds is one
// the marker lists by the end of the push. A Mirror's first write, which
// claims the folder, and its removal are one commit either way: a Mirror
// over 10,000 objects starts with one commit, not 10,000.
//
// # Imports
//
// Cutting commits is the Mirror controller's domain logic. It imports the
// plan it cuts (internal/mirror/plan), the Git types it makes
// (internal/git: a change, its parts; no repository) and the cut by author
// (internal/attribution), and is handed plain values for the rest: the
// Mirror as it reads it is a Mirror, not the API type, and its messages
// are rendered by callbacks (the Mirror's commitMessage template is the
// controller's). It imports no API types (apis), no controller or
// reconciler machinery (internal/controller, internal/reconciler,
// controller-runtime, client-go). .golangci.yml's depguard rule
// mirror_commits_imports_only_its_domain states it.
package commits
