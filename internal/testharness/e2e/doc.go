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

// Package e2e is the end-to-end harness of the controller tests; only tests
// import it. A test package's TestMain calls Main, which starts one control
// plane and one Git server for the package's tests; StartProvider runs the
// provider's controllers in-process, NewFixture makes a namespace with a
// ProviderConfig and a repository of its own, and WaitFor, ReconciledAgain
// and WritesLanded wait on conditions, never on time alone.
//
// The harness keeps what Main started in package variables, as the test
// packages did before they shared it: each test binary runs one Main.
// internal/localenv's TestLinksNoTestBed keeps this package out of every
// shipped binary.
package e2e
