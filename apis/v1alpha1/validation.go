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

package v1alpha1

// Shared validation markers are repeated on each field that needs them,
// because controller-gen has no way to reuse a marker. What they enforce, and
// why, is stated once here; internal/validate checks the same rules in code so
// that an object stored before a CRD change cannot slip through.
//
// Branch names: a conservative subset of git check-ref-format — characters
// [A-Za-z0-9._/+-], no component starting with '.' or '-', no '..', no '//',
// not ending in '/', '.' or '.lock', at most 255 characters.
//
// Paths: relative, clean (no '.', '..' or empty components, no trailing '/'),
// nothing inside a .git directory (in any case, with trailing dots or
// spaces, or as GIT~1), no control characters, at most 1024
// characters.
//
// Content: at most 512 KiB, well under the API server's 1.5 MiB object limit
// so a File's status and metadata still fit.
