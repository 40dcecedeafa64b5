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

package azure

import "testing"

// TestPinsBounded: past the bound one pin goes, not all: a pull request
// that lost its pin is cancelled and set again (fail closed), so dropping
// every pin at once would be a burst of both.
func TestPinsBounded(t *testing.T) {
	c := &Client{pins: map[int64]string{}}
	for n := range int64(maxKept) {
		c.pin(n, "head")
	}
	c.pin(maxKept, "new")
	if got := len(c.pins); got != maxKept {
		t.Errorf("%d pins after one past the bound, want %d (one forgotten, not all)", got, maxKept)
	}
	if c.pins[maxKept] != "new" {
		t.Errorf("the newest pin was not kept")
	}
	c.pin(maxKept, "newer")
	if got := len(c.pins); got != maxKept {
		t.Errorf("pinning a pull request again forgot another's pin: %d pins, want %d", got, maxKept)
	}
}
