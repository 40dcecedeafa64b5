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

package attribution

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestLandedNeverSetsBack: a landed write spends the facts up to what its
// Decision joined, and never sets a path's window back: facts a later
// verdict spent meanwhile (an ignored user's, recorded while the write was
// in flight) stay spent, so no fact authors a second commit.
func TestLandedNeverSetsBack(t *testing.T) {
	t0 := time.Unix(1000, 0)
	cases := map[string]struct {
		reason string
		// before is the path's window when the write lands; spent what
		// the write's Decision spends.
		before, spent time.Time
		want          time.Time
	}{
		"Forward": {
			reason: "A write that joined later facts moves the window up to them.",
			before: t0, spent: t0.Add(time.Second), want: t0.Add(time.Second),
		},
		"NeverBack": {
			reason: "A write that joined facts older than the window leaves the window where it is.",
			before: t0.Add(5 * time.Second), spent: t0.Add(time.Second), want: t0.Add(5 * time.Second),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a := newAttributions(nil, clocktesting.NewFakePassiveClock(t0), 3*time.Second, nil)
			l := newLedger()
			a.ledgers["m"] = l
			a.Spend("m", &Decision{attributed{byPath: map[string]attribution{"x.yaml": {spent: tc.spent}}}})
			l.after["x.yaml"] = tc.before
			a.Landed("m")
			if diff := cmp.Diff(tc.want, l.after["x.yaml"]); diff != "" {
				t.Errorf("%s\nthe path's window after the write landed: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
