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

// Package crossplanetest holds the tests that run provider-git with Crossplane's
// own programs, built from the Go module proxy into ./bin by the Makefile:
//
//   - authoring checks: `crossplane composition render` of every Composition
//     in examples/ with function-patch-and-transform, and `crossplane
//     resource validate` of every example and every rendered resource
//     against package/crds and Crossplane's CRDs;
//   - the package installed into real Crossplane core, from an in-process
//     OCI registry, and the example Compositions driven end to end: the
//     AppEnvironment against a Git server on loopback, the
//     EnvironmentRequest against a real Gitea (./bin/gitea) whose protected
//     main takes its change only through a pull request a reviewer merges.
//
// The package has no code outside its tests.
package crossplanetest
