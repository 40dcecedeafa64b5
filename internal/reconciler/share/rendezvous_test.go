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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHolder(t *testing.T) {
	type args struct {
		key     string
		members []string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   string
	}{
		"NoMembers": {
			reason: "Nobody holds anything when nobody is a member.",
			args:   args{key: "git.example.org/org/repo"},
			want:   "",
		},
		"OneMember": {
			reason: "A lone member holds every repository.",
			args:   args{key: "git.example.org/org/repo", members: []string{"a"}},
			want:   "a",
		},
		"Three": {
			reason: "The highest score wins (the value is fixed by SHA-256).",
			args:   args{key: "git.example.org/org/repo", members: []string{"a", "b", "c"}},
			want:   Holder("git.example.org/org/repo", []string{"c", "b", "a"}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Holder(tc.args.key, tc.args.members)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nHolder(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestHolderIsOrderFree: every permutation of the members picks the same
// holder, so replicas that list Leases in another order agree.
func TestHolderIsOrderFree(t *testing.T) {
	perms := [][]string{{"a", "b", "c"}, {"a", "c", "b"}, {"b", "a", "c"}, {"b", "c", "a"}, {"c", "a", "b"}, {"c", "b", "a"}}
	for i := range 1000 {
		key := fmt.Sprintf("git.example.org/org/repo-%d", i)
		want := Holder(key, perms[0])
		for _, p := range perms[1:] {
			if got := Holder(key, p); got != want {
				t.Fatalf("Holder(%q, %v) = %q, want %q as for %v", key, p, got, want, perms[0])
			}
		}
	}
}

// TestHolderMovesAboutOneInN: over 1,000 keys, a member joining three takes
// about a quarter of the keys and only from the others to itself; one
// leaving gives only its own keys away. Balance: no member of three holds
// more than 1.25 times its fair share.
func TestHolderMovesAboutOneInN(t *testing.T) {
	const n = 1000
	three, four := []string{"replica-a", "replica-b", "replica-c"}, []string{"replica-a", "replica-b", "replica-c", "replica-d"}
	held := map[string]int{}
	moved := 0
	for i := range n {
		key := fmt.Sprintf("git.example.org/org/repo-%d", i)
		before, after := Holder(key, three), Holder(key, four)
		held[before]++
		if before != after {
			moved++
			if after != "replica-d" {
				t.Fatalf("%s moved from %s to %s on a join: only the joiner may gain", key, before, after)
			}
		}
		// The reverse, replica-d leaving, gives back exactly what it took.
		if Holder(key, three) != before {
			t.Fatalf("%s: not deterministic", key)
		}
	}
	// 1/4 of 1,000 is 250; binomial standard deviation ≈ 14: 4σ either way.
	if moved < 195 || moved > 305 {
		t.Errorf("a fourth member took %d of %d keys, want about %d", moved, n, n/4)
	}
	for m, c := range held {
		if c > n/3*5/4 {
			t.Errorf("%s holds %d of %d keys with three members, more than 1.25× its share", m, c, n)
		}
	}
	t.Logf("join of a 4th member moved %d/%d keys; held with 3: %v", moved, n, held)
}
