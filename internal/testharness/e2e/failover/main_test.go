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

// Package failover_test holds the end-to-end tests of replicas sharing the
// repositories when one of them fails: killed (SIGKILL) mid-burst, paused
// (SIGSTOP) past its Lease and resumed. Every provider is the real binary,
// a process of its own; every push is attributed to one by the User-Agent
// the Git server logs. A control plane of its own, so that it runs beside
// shards (the same helpers: internal/testharness/e2e/sharing).
package failover_test

import (
	"os"
	"testing"

	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// TestMain starts the control plane and the Git server the tests share.
func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }
