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

// Package share lets several replicas of the provider share the
// repositories: each replica is a member by one coordination.k8s.io Lease of
// its own, renewed while it runs; every repository is assigned to one live
// member by rendezvous hashing; a replica reconciles only the resources of
// the repositories it holds (an event filter), and the Git engine asks it
// before every push whether it still holds the repository with a current
// Lease (git.Fence). Kubernetes is the coordinator: no consensus of our own,
// only Leases, the API server's view of them, and time.
package share

import (
	"crypto/sha256"
	"encoding/binary"
)

// Holder returns the member that holds key among members, by rendezvous
// (highest random weight) hashing: each member scores the key, the highest
// score wins. Every replica that sees the same members picks the same holder
// with no communication, and when a member joins or leaves only the keys it
// wins or held move, about 1/N of them. "" when there are no members.
func Holder(key string, members []string) string {
	var best string
	var top uint64
	for _, m := range members {
		s := score(m, key)
		// Ties (a 64-bit collision) go to the smaller name, so the choice
		// does not depend on the order members are listed in.
		if best == "" || s > top || (s == top && m < best) {
			best, top = m, s
		}
	}
	return best
}

// score is member's weight for key: the first 8 bytes of SHA-256 over
// both, separated so that ("ab","c") and ("a","bc") differ.
func score(member, key string) uint64 {
	h := sha256.New()
	h.Write([]byte(member))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return binary.BigEndian.Uint64(h.Sum(nil))
}
