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

package admission

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestStoreBounds(t *testing.T) {
	type step struct {
		uid, ns string
		advance time.Duration
		// group is the size of the one group the fact's user has.
		group int
	}
	cases := map[string]struct {
		reason   string
		maxFacts int
		maxBytes int64
		steps    []step
		// want are the UIDs whose facts are kept, oldest first.
		want []string
	}{
		"Count": {
			reason:   "Past the count bound the oldest fact is dropped, whichever object it is of.",
			maxFacts: 2,
			steps:    []step{{uid: "a"}, {uid: "b"}, {uid: "c"}},
			want:     []string{"b", "c"},
		},
		"Bytes": {
			reason:   "Past the byte bound the oldest facts are dropped: a client that sends a user with groups of a megabyte holds no more than the bound.",
			maxFacts: 10, maxBytes: 4 << 10,
			steps: []step{{uid: "a"}, {uid: "b"}, {uid: "c", group: 3584}},
			want:  []string{"c"},
		},
		"NamespaceFlood": {
			reason:   "Past the count bound the namespace holding the most facts loses its oldest: one namespace flooding writes cannot evict another's facts before its Mirror joins them.",
			maxFacts: 4,
			steps: []step{{uid: "a", ns: "quiet"}, {uid: "b", ns: "quiet"}, {uid: "f1", ns: "flood"}, {uid: "f2", ns: "flood"},
				{uid: "f3", ns: "flood"}, {uid: "f4", ns: "flood"}, {uid: "f5", ns: "flood"}},
			want: []string{"a", "b", "f4", "f5"},
		},
		"NamespaceTie": {
			reason:   "Between namespaces holding as many facts, the one whose oldest fact is older loses it.",
			maxFacts: 4,
			steps:    []step{{uid: "a", ns: "x"}, {uid: "b", ns: "y"}, {uid: "c", ns: "x"}, {uid: "d", ns: "y"}, {uid: "e", ns: "z"}},
			want:     []string{"b", "c", "d", "e"},
		},
		"NamespaceBytes": {
			reason:   "Past the byte bound the namespace holding the most bytes loses its oldest: another's small facts stay.",
			maxFacts: 10, maxBytes: 4 << 10,
			steps: []step{{uid: "a", ns: "quiet"}, {uid: "f1", ns: "flood", group: 1200}, {uid: "f2", ns: "flood", group: 1200}, {uid: "f3", ns: "flood", group: 1200}},
			want:  []string{"a", "f2", "f3"},
		},
		"AgeAfterEviction": {
			reason:   "Facts evicted from the middle of the arrival order leave nothing behind: the quiet namespace's fact still ages out, and the bound still holds.",
			maxFacts: 2,
			steps: []step{{uid: "a", ns: "quiet"}, {uid: "f1", ns: "flood"}, {uid: "f2", ns: "flood"}, {uid: "f3", ns: "flood"},
				{uid: "f4", ns: "flood", advance: DefaultMaxAge + time.Second}},
			want: []string{"f4"},
		},
		"Age": {
			reason:   "A fact older than the age bound is dropped.",
			maxFacts: 10,
			steps:    []step{{uid: "a"}, {uid: "b", advance: DefaultMaxAge}, {uid: "c", advance: time.Second}},
			want:     []string{"b", "c"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(time.Unix(100, 0))
			m := NewMetrics()
			o := []StoreOption{WithClock(clk), WithMaxFacts(tc.maxFacts), WithMetrics(m)}
			if tc.maxBytes > 0 {
				o = append(o, WithMaxBytes(tc.maxBytes))
			}
			s := NewStore(o...)
			for _, st := range tc.steps {
				clk.SetTime(clk.Now().Add(st.advance))
				f := Fact{UID: st.uid, Namespace: st.ns}
				if st.group > 0 {
					f.User.Groups = []string{strings.Repeat("g", st.group)}
				}
				s.Add(f)
			}
			var got []string
			for _, st := range tc.steps {
				for range s.Of(st.uid, time.Time{}) {
					got = append(got, st.uid)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nkept: -want, +got:\n%s", tc.reason, diff)
			}
			if s.Len() != len(tc.want) {
				t.Errorf("%s\nLen %d, want %d", tc.reason, s.Len(), len(tc.want))
			}
		})
	}
}

// TestFingerprintKeyed: two stores fingerprint the same content apart (the
// key is each process's own), one store alike.
func TestFingerprintKeyed(t *testing.T) {
	a, b := NewStore(), NewStore()
	c := []byte("data:\n  k: v\n")
	if first, again := a.Fingerprint(c), a.Fingerprint(c); first != again {
		t.Error("one store fingerprints the same content apart")
	}
	if a.Fingerprint(c) == b.Fingerprint(c) {
		t.Error("two stores fingerprint alike: the key is not the store's own")
	}
	if a.Fingerprint(c) == a.Fingerprint(append(c, strconv.Itoa(1)...)) {
		t.Error("different contents fingerprint alike")
	}
}
