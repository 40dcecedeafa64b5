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

// Package plan decides what a Mirror's folder in Git needs to match the
// live objects: the diff of a Snapshot (internal/mirror) against the folder
// at the branch head, as one change of puts and deletes and what each was
// decided on, and the marker that records what the Mirror owns.
//
// Planner.Plan computes the whole folder every time: every object's file
// written where it differs, owned files of objects gone removed (unless
// prune is Never), the files a layout InPlace edit writes or removes
// (inplace.Plan), and the marker (MarkerFile, .mirror.yaml at the top
// of the folder) rewritten to list what the Mirror owns afterwards. A file
// the Mirror does not own is never written unless it holds that very
// object, and every file written without owning it is expected to be the
// blob it was decided on (Diff.Expect), which the branch writer checks
// where the commit lands. What cannot be decided from the folder's blob
// SHAs alone, reading a file to adopt it or what a Secret's file decrypts
// to, is the caller's (Planner.File). Each put and delete of an object's
// file is also a Change, in the order the changes were made (Ordered), for
// commit PerChange. Removal is the change that takes the folder out.
//
// # Imports
//
// The plan is the Mirror controller's domain logic. It imports the
// snapshot and layout it reads (internal/mirror), the edits of layout
// InPlace it adds to the change (internal/mirror/inplace), the Git types
// it writes (internal/git: a file, a blob SHA; no repository), path and
// YAML rules (internal/validate, internal/yamledit) and YAML for the
// marker, and is handed plain values for the rest: the Mirror as Plan reads it is a
// Mirror, not the API type. It imports no API types (apis), no controller
// or reconciler machinery (internal/controller, internal/reconciler,
// controller-runtime, client-go), and no attribution: what the join holds
// back is a set of paths (Planner.Keep), and internal/mirror/commits cuts
// the change into commits. internal/controller/mirror's plan.go reads the
// folder from Git and the spec for it. .golangci.yml's depguard rule
// mirror_plan_imports_only_its_domain states it.
package plan
