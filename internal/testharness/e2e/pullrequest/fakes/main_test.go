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

// Package fakes_test holds the end-to-end tests of PullRequest through the
// real GitHub, GitLab and Bitbucket clients against fakes that serve their
// documented payloads (forgetest/github, forgetest/gitlab,
// forgetest/bitbucket), with a control plane of its
// own so that go test runs it beside the other PullRequest packages.
package fakes_test

import (
	"os"
	"testing"

	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// TestMain starts the control plane and the Git server the tests share.
func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }
