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
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"
)

const testLease = 15 * time.Second // renew every 5s, settle 10s

// cluster is replicas sharing one API server's Leases and one clock.
type cluster struct {
	t      *testing.T
	clock  *clocktesting.FakeClock
	leases *leases
	keys   []string
}

func newCluster(t *testing.T) *cluster {
	keys := make([]string, 300)
	for i := range keys {
		keys[i] = fmt.Sprintf("git.example.org/org/repo-%d", i)
	}
	return &cluster{t: t, clock: clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), leases: newLeases(), keys: keys}
}

func (c *cluster) member(name string) *Membership {
	c.t.Helper()
	m, err := New(c.leases, Options{Namespace: "crossplane-system", Identity: name, Group: "provider-git", LeaseDuration: testLease, Clock: c.clock})
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

// step advances the clock by d and ticks the running members; after each
// tick no repository is held by two members (what a replica's fence would
// answer at that instant, paused members included).
func (c *cluster) step(d time.Duration, all []*Membership, running ...*Membership) {
	c.t.Helper()
	c.clock.Step(d)
	c.exclusive(all)
	for _, m := range running {
		m.Tick(context.Background())
		c.exclusive(all)
	}
}

// exclusive fails the test when two members may push to one repository.
func (c *cluster) exclusive(all []*Membership) {
	c.t.Helper()
	for _, k := range c.keys {
		var holders []string
		for _, m := range all {
			if m.MayPush(k) {
				holders = append(holders, m.Identity())
			}
		}
		if len(holders) > 1 {
			c.t.Fatalf("at %s %s is held by %v: two writers", c.clock.Now().Format(time.TimeOnly), k, holders)
		}
	}
}

// held counts the repositories each member holds; unheld counts those
// nobody does.
func (c *cluster) held(all []*Membership) (map[string]int, int) {
	out, none := map[string]int{}, 0
	for _, k := range c.keys {
		n := 0
		for _, m := range all {
			if m.MayPush(k) {
				out[m.Identity()]++
				n++
			}
		}
		if n == 0 {
			none++
		}
	}
	return out, none
}

// TestMembershipJoin: a lone member holds nothing until it settled, then
// everything; a second member that joins is seen by the first at its next
// tick, which drops the joiner's share at once, while the joiner takes it
// only once it settled. Never two holders; then about half each.
func TestMembershipJoin(t *testing.T) {
	c := newCluster(t)
	a, b := c.member("a"), c.member("b")
	all := []*Membership{a, b}
	c.step(0, all, a)
	if got := a.View(); got.Active || !cmp.Equal(got.Members, []string{"a"}) {
		t.Fatalf("after the first renewal: %+v, want member a, not active yet", got)
	}
	c.step(5*time.Second, all, a)
	if a.View().Active {
		t.Fatalf("active after one renewal: the settling time is two")
	}
	c.step(5*time.Second, all, a)
	if held, none := c.held(all); held["a"] != len(c.keys) || none != 0 {
		t.Fatalf("settled alone: held %v, %d unheld; want a holding all", held, none)
	}

	c.step(time.Second, all, b)
	if got := b.View(); got.Active || !cmp.Equal(got.Members, []string{"a", "b"}) {
		t.Fatalf("b after joining: %+v, want members a and b, not active", got)
	}
	c.step(0, all, a)
	if held, _ := c.held(all); held["a"] == len(c.keys) {
		t.Fatalf("a kept everything after it saw b join")
	}
	for range 2 {
		c.step(5*time.Second, all, a, b)
	}
	held, none := c.held(all)
	if none != 0 || held["a"] < len(c.keys)/3 || held["b"] < len(c.keys)/3 {
		t.Errorf("settled pair: held %v, %d unheld; want every repository held, about half each", held, none)
	}
}

// TestMembershipExpiry: a member that stops renewing (killed) stops
// pushing two thirds of a lease after its last renewal, by its own clock and
// without a tick; the others take its repositories a whole lease after they
// last saw it renewed, so never while it may still push.
func TestMembershipExpiry(t *testing.T) {
	c := newCluster(t)
	a, b := c.member("a"), c.member("b")
	all := []*Membership{a, b}
	for range 3 {
		c.step(5*time.Second, all, a, b)
	}
	if _, none := c.held(all); none != 0 {
		t.Fatalf("%d repositories unheld once both settled", none)
	}
	// b is killed: it ticks no more.
	var took time.Duration
	for i := 1; i <= 6 && took == 0; i++ {
		c.step(5*time.Second, all, a)
		if held, none := c.held(all); none == 0 && held["a"] == len(c.keys) {
			took = time.Duration(i) * 5 * time.Second
		}
	}
	if took == 0 || took > testLease+5*time.Second {
		t.Fatalf("a took b's repositories after %s, want within a lease plus one renewal (%s)", took, testLease+5*time.Second)
	}
	t.Logf("a held b's repositories %s after b's last renewal", took)
}

// TestMembershipPause: a member paused past its Lease (SIGSTOP) pushes
// nothing once resumed, not even before its first tick; its renewal makes
// it a joiner again, which the others make room for before it settles.
func TestMembershipPause(t *testing.T) {
	c := newCluster(t)
	a, b := c.member("a"), c.member("b")
	all := []*Membership{a, b}
	for range 3 {
		c.step(5*time.Second, all, a, b)
	}
	for range 5 {
		c.step(5*time.Second, all, a) // b paused
	}
	if held, _ := c.held(all); held["b"] != 0 || held["a"] != len(c.keys) {
		t.Fatalf("b paused past its lease: held %v, want all on a", held)
	}
	// Resumed: b's first tick renews; until it settled it holds nothing.
	c.step(0, all, b)
	if b.View().Active {
		t.Fatalf("b active right after resuming: a still holds its repositories")
	}
	for range 3 {
		c.step(5*time.Second, all, a, b)
	}
	held, none := c.held(all)
	if none != 0 || held["b"] == 0 {
		t.Errorf("after b settled again: held %v, %d unheld; want b back with its share", held, none)
	}
}

// TestMembershipLeave: a member that stops (its manager ends) stops
// pushing, then deletes its Lease; the others take its repositories at
// their next tick, not a lease later.
func TestMembershipLeave(t *testing.T) {
	c := newCluster(t)
	a, b := c.member("a"), c.member("b")
	all := []*Membership{a, b}
	for range 3 {
		c.step(5*time.Second, all, a, b)
	}
	b.leave(context.Background())
	c.exclusive(all)
	c.step(0, all, a)
	if held, none := c.held(all); none != 0 || held["a"] != len(c.keys) {
		t.Errorf("after b left: held %v, %d unheld; want all on a at its next tick", held, none)
	}
}

// TestMembershipRequests: at rest a member makes two requests per renewal
// (its renewal and one list): 24 a minute with the default 15s lease.
func TestMembershipRequests(t *testing.T) {
	c := newCluster(t)
	a := c.member("a")
	all := []*Membership{a}
	for range 3 {
		c.step(5*time.Second, all, a)
	}
	before := c.leases.count()
	for range 12 { // one minute
		c.step(5*time.Second, all, a)
	}
	if got := c.leases.count() - before; got != 24 {
		t.Errorf("%d requests in a minute at rest, want 24", got)
	}
}

// TestMembershipAPIUnreachable: renewals that fail leave the member
// holding its repositories for two thirds of a lease after the last one
// that succeeded, then nothing.
func TestMembershipAPIUnreachable(t *testing.T) {
	c := newCluster(t)
	a := c.member("a")
	all := []*Membership{a}
	for range 3 {
		c.step(5*time.Second, all, a)
	}
	c.leases.setDown(true)
	c.step(5*time.Second, all, a)
	if !a.MayPush(c.keys[0]) {
		t.Fatalf("one failed renewal dropped everything: one may fail")
	}
	c.step(5*time.Second, all, a)
	if a.MayPush(c.keys[0]) {
		t.Errorf("still pushing two thirds of a lease after the last renewal")
	}
}

// TestMembershipDeletesStaleLeases: the Lease of a replica killed without
// leaving is deleted once it has not been renewed for ten leases, so lists
// do not grow with every crash; a live member's is kept.
func TestMembershipDeletesStaleLeases(t *testing.T) {
	c := newCluster(t)
	a, b := c.member("a"), c.member("b")
	all := []*Membership{a, b}
	for range 3 {
		c.step(5*time.Second, all, a, b)
	}
	for range 33 { // b killed: 165s, a seeing it renewed last 160s ago, over 10 × 15s
		c.step(5*time.Second, all, a)
	}
	c.leases.mu.Lock()
	_, kept := c.leases.items["provider-git-a"]
	_, stale := c.leases.items["provider-git-b"]
	c.leases.mu.Unlock()
	if !kept || stale {
		t.Errorf("a's Lease kept: %t, b's stale Lease kept: %t; want a's only", kept, stale)
	}
}
