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

// Package inplace is a Mirror's InPlace layout: live objects written where
// their YAML already lives in the folder, rather than one file per object.
//
// An Index holds every YAML document of a Mirror's folder by identity,
// kept between plans and read again only where a blob changed, and the
// folder's kustomizations as rendered (internal/kustomize). Index.Plan
// decides, for each live object, which file its change goes into: the
// document that holds it (a plain file, or one a kustomization renders,
// changed through its overlay), a new file added to the kustomization that
// sets its namespace, or the caller's layout path when it is found nowhere.
// Each document is edited under FieldRule (what a person wrote stays, what
// the API server defaulted is not added), owned documents of objects gone
// are removed, and every kustomize edit is checked against what kustomize
// itself builds from the edited folder. What the layout does not model (a
// generator, anchors, a document in two places) is refused by name:
// *UnsupportedLayoutError, *FoundTwiceError.
//
// # Imports
//
// The InPlace layout is the Mirror controller's domain logic. It imports
// the objects it places (internal/mirror), the kustomize layouts and YAML
// edits it makes (internal/kustomize, internal/yamledit) and YAML, and is
// handed plain values for the rest: the Mirror as it reads it is a Mirror,
// not the API type, and files come from a read callback, not from Git. It
// imports no API types (apis), no Git (internal/git), no controller or
// reconciler machinery (internal/controller, internal/reconciler,
// controller-runtime, client-go). internal/mirror/plan adds its Plan to the
// folder's change; internal/controller/mirror's inplace.go reads the files
// from Git and says which reason a refusal is. .golangci.yml's depguard
// rule mirror_inplace_imports_only_its_domain states it.
package inplace
