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

package e2e

import (
	"testing"
	"time"
)

// Figure logs a fault's figure line, the one the fault suites
// (internal/testharness/e2e/faults, crash, async) print per fault
// (`go test -v -run TestFault ./internal/testharness/e2e/...`):
//
//	FIGURE fault=<name> requests=<to the Git server during it> converge=<s after recovery> lost=<n> duplicated=<n>
//
// and fails the test when any change was lost or duplicated.
func Figure(t *testing.T, fault string, requests int64, converge time.Duration, lost, duplicated int, extra string) {
	t.Helper()
	t.Logf("FIGURE fault=%s requests=%d converge=%.1fs lost=%d duplicated=%d%s",
		fault, requests, converge.Seconds(), lost, duplicated, extra)
	if lost != 0 || duplicated != 0 {
		t.Errorf("fault %s: %d changes lost and %d duplicated, want none", fault, lost, duplicated)
	}
}
