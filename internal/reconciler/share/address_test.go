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
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestHolderOf: each member publishes where it receives forwarded
// deliveries on its Lease; for every repository exactly one settled member
// says it holds it, and the others name the holder's address (none for a
// member that publishes none). A member not settled yet names nobody.
func TestHolderOf(t *testing.T) {
	c := newCluster(t)
	addrs := map[string]string{"a": "10.0.0.1:8090", "b": "10.0.0.2:8090", "c": ""}
	var all []*Membership
	for _, n := range []string{"a", "b", "c"} {
		m, err := New(c.leases, Options{Namespace: "crossplane-system", Identity: n, Group: "provider-git", LeaseDuration: testLease,
			Clock: c.clock, Address: addrs[n]})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m)
	}
	c.step(0, all, all...)
	for _, k := range c.keys {
		if self, addr, _ := all[2].HolderOf(k); self || addr != "" {
			t.Fatalf("before settling: HolderOf(%s) = %t, %q; want false, \"\" (a member that holds nothing names nobody)", k, self, addr)
		}
	}
	c.step(5*time.Second, all, all...)
	c.step(5*time.Second, all, all...)
	for _, k := range c.keys {
		var holders []string
		for _, m := range all {
			self, addr, n := m.HolderOf(k)
			if n != 3 {
				t.Fatalf("%s counts %d members, want 3", m.Identity(), n)
			}
			if self {
				holders = append(holders, m.Identity())
				continue
			}
			want := addrs[Holder(k, []string{"a", "b", "c"})]
			if addr != want {
				t.Errorf("%s names %q as %s's holder's address, want %q", m.Identity(), addr, k, want)
			}
		}
		if diff := cmp.Diff([]string{Holder(k, []string{"a", "b", "c"})}, holders); diff != "" {
			t.Fatalf("%s: members that say they hold it: -want, +got:\n%s", k, diff)
		}
	}
	for n, want := range addrs {
		l := c.leases.items["provider-git-"+n]
		if got := l.Annotations[AnnotationEventsAddress]; got != want {
			t.Errorf("the Lease of %s publishes %q, want %q", n, got, want)
		}
	}
}

func TestForwardable(t *testing.T) {
	cases := map[string]struct {
		reason    string
		addr, own string
		want      string
	}{
		"PodIP":       {reason: "A pod's IP and port.", addr: "10.244.1.7:8090", own: "10.244.2.9:8090", want: "10.244.1.7:8090"},
		"PodIPv6":     {reason: "A pod's IPv6 address.", addr: "[fd00::7]:8090", own: "[fd00::9]:8090", want: "[fd00::7]:8090"},
		"Metadata":    {reason: "The cloud's metadata service is link-local, never a pod.", addr: "169.254.169.254:80", own: "10.244.2.9:8090"},
		"Loopback":    {reason: "Loopback would be this pod's own sidecars, not a member.", addr: "127.0.0.1:15000", own: "10.244.2.9:8090"},
		"LoopbackBed": {reason: "On a test bed whose replicas all run on loopback, loopback is a member.", addr: "127.0.0.1:41235", own: "127.0.0.1:41234", want: "127.0.0.1:41235"},
		"Unspecified": {reason: "0.0.0.0 is nobody's address.", addr: "0.0.0.0:8090", own: "10.244.2.9:8090"},
		"Name":        {reason: "A name would be resolved: only an IP is published.", addr: "evil.example.com:80", own: "10.244.2.9:8090"},
		"NoPort":      {reason: "No port, no address.", addr: "10.244.1.7", own: "10.244.2.9:8090"},
		"Multicast":   {reason: "Multicast is never a pod.", addr: "224.0.0.1:8090", own: "10.244.2.9:8090"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := forwardable(tc.addr, tc.own); got != tc.want {
				t.Errorf("\n%s\nforwardable(%q, %q) = %q, want %q", tc.reason, tc.addr, tc.own, got, tc.want)
			}
		})
	}
}
