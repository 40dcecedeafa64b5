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

package share

import (
	"testing"
)

// TestMembershipSlowRenewalAnnounced: a renewal that starts while the Lease
// is current but lands after two thirds of a lease (a loaded API server)
// leaves a gap in which the replica holds nothing: its Filter drops events
// and Admit forgets what its queues held. Both edges of the gap must be
// announced on Changed, so the Handover forgets at the first and enqueues
// everything held again at the second. Before, neither was: the Files that
// fell into the gap stayed unready after a replica's kill -9 (TestShareKill).
func TestMembershipSlowRenewalAnnounced(t *testing.T) {
	c := newCluster(t)
	a := c.member("a")
	all := []*Membership{a}
	for range 3 {
		c.step(testLease/3, all, a)
	}
	if !a.View().Active {
		t.Fatalf("a lone member is not active once settled: %+v", a.View())
	}
	key := c.keys[0]
	before := a.Changed()
	var inGap View
	var lapseAnnounced bool
	var during <-chan struct{}
	c.leases.slow = func() {
		// The renewal is in flight past two thirds of a lease since the
		// last one started.
		c.clock.Step(testLease / 2)
		inGap = a.View()
		lapseAnnounced = closed(before)
		during = a.Changed()
	}
	c.step(testLease/3, all, a)
	c.leases.slow = nil

	if inGap.Active || inGap.Holds(key) {
		t.Errorf("during the slow renewal the view is %+v: it holds what a lapsed Lease may not push", inGap)
	}
	if !lapseAnnounced {
		t.Errorf("the lapse of the Lease was not announced on Changed: the Handover never forgets what it held")
	}
	after := a.View()
	if !after.Active || !after.Holds(key) {
		t.Fatalf("after the renewal landed the view is %+v, want active and holding again (it never stopped being a member)", after)
	}
	if during == nil || !closed(during) {
		t.Errorf("the renewal that ended the lapse was not announced on Changed: the Handover never enqueues again what the gap forgot")
	}
}

// closed reports whether ch is closed, without waiting.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
