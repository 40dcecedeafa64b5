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

import "net/netip"

// AnnotationEventsAddress is where a member receives the forge deliveries
// the others forward to it (IP:port: its pod's IP and the port of its
// --events-bind-address), absent when it serves no events. A replica that
// receives a delivery for a repository another holds sends it there
// (receiver.Holders): no API write per event, only a request between pods.
const AnnotationEventsAddress = "git.crossplane.io/events-address"

// annotations are those a new Lease of this replica starts with.
func (m *Membership) annotations() map[string]string {
	if m.o.Address == "" {
		return nil
	}
	return map[string]string{AnnotationEventsAddress: m.o.Address}
}

// HolderOf reports whether this replica holds the repository key now, and
// otherwise the address its holder published ("" when it published none,
// or this replica's view names no holder), and how many members are live:
// receiver.Holders. A replica whose own Lease is not current holds nothing
// and names no holder: its view of the others may be as stale as its own.
func (m *Membership) HolderOf(key string) (self bool, addr string, members int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.currentLocked()
	if !v.Active {
		return false, "", len(v.Members)
	}
	h := Holder(key, v.Members)
	if h == v.Self {
		return true, "", len(v.Members)
	}
	return false, m.others[h].address, len(v.Members)
}

// forwardable is addr when a delivery may be forwarded there: an IP and a
// port, of a pod. Anyone who can write a Lease in the replicas' namespace
// could publish any address; link-local (the cloud's metadata service),
// unspecified and multicast addresses are never a pod's, and loopback is
// one only where this replica's own address is (a test bed on one host).
// "" otherwise: that member's deliveries wait for its poll.
func forwardable(addr, own string) string {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || ap.Port() == 0 {
		return ""
	}
	ip := ap.Addr()
	switch {
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast(), ip.IsMulticast(), ip.IsUnspecified():
		return ""
	case ip.IsLoopback():
		if o, err := netip.ParseAddrPort(own); err != nil || !o.Addr().IsLoopback() {
			return ""
		}
	}
	return addr
}
