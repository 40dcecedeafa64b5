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

// Package gitea_test holds the end-to-end tests and benchmarks of
// PullRequest on a real Gitea (testenv.StartGitea), with a control plane of
// its own so that go test runs it beside the other PullRequest packages.
package gitea_test

import (
	"os"
	"testing"

	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// shared is the Gitea every test of the package uses, each in a repository
// of its own (one per namespace); benchmarks start their own.
var shared testenv.SharedGitea

// pageSize is the most pull requests a page of the shared Gitea's API holds
// (its MAX_RESPONSE_ITEMS, 50 by default): small, so that a few dozen open
// pull requests take the provider's list through several pages.
const pageSize = 10

// sharedGitea is the package's Gitea, or Forgejo per opts, answering pages
// of pageSize.
func sharedGitea(t *testing.T, opts ...testenv.GiteaOption) *testenv.Gitea {
	t.Helper()
	return shared.Get(t, append([]testenv.GiteaOption{testenv.GiteaPageSize(pageSize)}, opts...)...)
}

// TestMain starts the control plane and the Git server the tests share,
// and stops the Gitea they shared once they all ran.
func TestMain(m *testing.M) {
	code := e2e.Main(m)
	shared.Stop()
	os.Exit(code)
}
