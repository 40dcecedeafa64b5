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

// Package docs holds the tests that keep README.md, docs/ and examples/
// true to the code: every condition reason the code sets is on the
// troubleshooting page and on the reference page of each kind that shows
// it, every field and printer column of the CRDs is on its kind's
// reference page, every relative link and anchor (and every repository
// path the docs' text and the examples' comments name) resolves, and every
// object a ```yaml block or an
// example shows passes a strict server-side dry run on a real API server
// (TestDocObjectsAreValid, the one test here that starts a control plane;
// -short skips it). The package has no code of its own and nothing
// imports it.
package docs
