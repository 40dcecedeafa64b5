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

// Package kustomize renders the simple kustomize layouts a Mirror edits in
// place, and finds the declaration that governs a value: the images entry
// that sets a container's image, the replicas entry that sets a count.
//
// It models exactly this subset of a kustomization: resources (files and
// directories, and the deprecated bases), namespace, images and replicas.
// Everything else a kustomization may say (generators, components, name
// prefixes and suffixes, labels, patches, replacements, vars, helmCharts,
// transformers and other plugins, remote bases) is refused by name with
// the file that says it (UnsupportedError), before anything is written: a
// Mirror that does not know what a field does cannot know where a change
// belongs. The model is this package's own because finding the governing
// entry needs to know where each value comes from; kustomize itself
// (krusty) checks it twice: the tests render every golden layout and a
// fuzzed corpus with both and require the same objects, and Layout.Verify
// builds every edited layout with krusty before the Mirror commits it
// (2.2 MiB of the provider binary, docs/development.md).
//
// Rendering reads nothing but the files it is given (the Mirror's folder
// at one commit): no plugins, no exec, no network.
package kustomize
