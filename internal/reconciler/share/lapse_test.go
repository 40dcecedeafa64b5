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
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMembershipSlowRenewalAnnounced: a renewal that starts while the Lease
// is current but lands after two thirds of a lease (a loaded API server)
// leaves a gap in which the replica holds nothing: its Filter drops events
// and Admit forgets what its queues held. Both edges of the gap must be
// announced on Changed, so the Handover forgets at the first and enqueues
// everything held again at the second. Before, neither was: the Files that
// fell into the gap stayed unready after a replica's kill -9 (TestShareKill).
// The renewal landed late, so the second edge is the end of a rejoin's
// settling time (TestMembershipLateRenewalRejoins), not the landing itself.
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
	c.leases.slow = func() {
		c.leases.slow = nil
		// The renewal is in flight past two thirds of a lease since the
		// last one started.
		c.clock.Step(testLease / 2)
		inGap = a.View()
		lapseAnnounced = closed(before)
	}
	c.step(testLease/3, all, a)

	if inGap.Active || inGap.Holds(key) {
		t.Errorf("during the slow renewal the view is %+v: it holds what a lapsed Lease may not push", inGap)
	}
	if !lapseAnnounced {
		t.Errorf("the lapse of the Lease was not announced on Changed: the Handover never forgets what it held")
	}
	if got := a.View(); got.Active {
		t.Errorf("right after a renewal that landed past two thirds of a lease the view is %+v, want inactive until settled (a rejoin)", got)
	}
	var activated bool
	for range 4 {
		during := a.Changed()
		c.step(testLease/3, all, a)
		if a.View().Active {
			activated = true
			if !closed(during) {
				t.Errorf("the tick that ended the gap was not announced on Changed: the Handover never enqueues again what the gap forgot")
			}
			break
		}
	}
	if after := a.View(); !activated || !after.Holds(key) {
		t.Fatalf("once settled again the view is %+v, want active and holding", after)
	}
}

// TestMembershipSlowListNoLapse: a renewal that lands in time followed by a
// slow List of the members' Leases is no lapse. Before, the renewal was
// recorded only once the List had returned too, so a View taken during the
// List saw the Lease as lapsed: two announcements, and every kind's
// Handover listing and queueing all it holds, at every slow List.
func TestMembershipSlowListNoLapse(t *testing.T) {
	c := newCluster(t)
	a := c.member("a")
	all := []*Membership{a}
	for range 3 {
		c.step(testLease/3, all, a)
	}
	if !a.View().Active {
		t.Fatalf("a lone member is not active once settled: %+v", a.View())
	}
	before := a.Changed()
	var inList View
	c.leases.slowList = func() {
		c.leases.slowList = nil
		// Past two thirds of a lease since the previous renewal, a
		// half since this one.
		c.clock.Step(testLease / 2)
		inList = a.View()
	}
	c.step(testLease/3, all, a)

	if !inList.Active {
		t.Errorf("during a slow List after a timely renewal the view is %+v, want active", inList)
	}
	if closed(before) {
		t.Errorf("a slow List after a timely renewal was announced as a change of the view")
	}
}

// TestMembershipLateRenewalRejoins: a renewal that starts while the Lease is
// current but lands once it is not (two thirds of a lease after the last
// one started, here close to a whole lease because the tick before ran
// long) may come after another member counted this one gone and took its
// repositories; that member sees the renewal only at its next tick. The
// late one must hold nothing until every other member has read the
// renewal: it rejoins, settling from when the response arrived. Before, it
// was active at once, and two members held the same repositories.
func TestMembershipLateRenewalRejoins(t *testing.T) {
	c := newCluster(t)
	a, b := c.member("a"), c.member("b")
	all := []*Membership{a, b}
	for range 4 {
		c.step(testLease/3, all, a, b)
	}
	if !a.View().Active || !b.View().Active {
		t.Fatalf("two members are not active once settled: %+v, %+v", a.View(), b.View())
	}
	// a's renewal starts 9s after its last (the tick before ran long),
	// inside two thirds of a lease (10s), and lands 15s after it: b,
	// ticking every 5s and last just before it lands, counts a gone.
	c.clock.Step(5 * time.Second)
	b.Tick(context.Background())
	c.clock.Step(4 * time.Second)
	c.leases.slow = func() {
		c.leases.slow = nil
		c.clock.Step(time.Second)
		b.Tick(context.Background())
		c.clock.Step(5 * time.Second)
		b.Tick(context.Background())
		c.exclusive(all)
		if got := b.View(); !got.Active || !cmp.Equal(got.Members, []string{"b"}) {
			t.Fatalf("b a lease after a last renewed: %+v, want active, only b", got)
		}
	}
	a.Tick(context.Background())
	c.exclusive(all)
	// Then every second, each on its own schedule: a's ticker fired while
	// its tick ran, so it ticks again at once and then every 5s; b every
	// 5s after its tick in the hook.
	a.Tick(context.Background())
	c.exclusive(all)
	for s := 1; s <= 15; s++ {
		c.clock.Step(time.Second)
		if s%5 == 4 {
			a.Tick(context.Background())
		}
		if s%5 == 0 {
			b.Tick(context.Background())
		}
		c.exclusive(all)
	}
	if got := a.View(); !got.Active || !cmp.Equal(got.Members, []string{"a", "b"}) {
		t.Errorf("a once settled again: %+v, want active with a and b", got)
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
