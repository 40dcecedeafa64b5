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
// belongs. The subset is rendered here rather than with
// sigs.k8s.io/kustomize/api, which would add about 19 MiB to the provider
// binary for features that are refused anyway (docs/development.md); the
// tests render every golden layout and a fuzzed corpus with kustomize
// itself (krusty) and require the same objects.
//
// Rendering reads nothing but the files it is given (the Mirror's folder
// at one commit): no plugins, no exec, no network.
package kustomize
