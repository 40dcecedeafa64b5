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

package encrypt

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMemoBytes(t *testing.T) {
	type op struct {
		put  string // key
		size int    // document bytes
		drop string // key
	}
	type want struct {
		keys []string // oldest first
		size int
	}
	cases := map[string]struct {
		reason string
		max    int
		ops    []op
		want   want
	}{
		"UnderBound": {
			reason: "Documents that fit are all kept.",
			max:    10,
			ops:    []op{{put: "a", size: 4}, {put: "b", size: 6}},
			want:   want{keys: []string{"a", "b"}, size: 10},
		},
		"OldestGoesFirst": {
			reason: "Past the bound the oldest documents go until the rest fit.",
			max:    10,
			ops:    []op{{put: "a", size: 4}, {put: "b", size: 4}, {put: "c", size: 4}},
			want:   want{keys: []string{"b", "c"}, size: 8},
		},
		"LargeEvictsMany": {
			reason: "One large document evicts as many small ones as it takes, whatever their number.",
			max:    10,
			ops:    []op{{put: "a", size: 2}, {put: "b", size: 2}, {put: "c", size: 2}, {put: "d", size: 2}, {put: "e", size: 8}},
			want:   want{keys: []string{"d", "e"}, size: 10},
		},
		"OversizeKeptAlone": {
			reason: "A document larger than the bound is kept, alone: its queued write needs the same bytes again.",
			max:    10,
			ops:    []op{{put: "a", size: 4}, {put: "b", size: 12}},
			want:   want{keys: []string{"b"}, size: 12},
		},
		"ReplacedCountsOnce": {
			reason: "A key put again counts its new document only, as the newest.",
			max:    10,
			ops:    []op{{put: "a", size: 4}, {put: "b", size: 4}, {put: "a", size: 5}},
			want:   want{keys: []string{"b", "a"}, size: 9},
		},
		"DropFreesBytes": {
			reason: "A dropped document (its write landed) frees its bytes.",
			max:    10,
			ops:    []op{{put: "a", size: 4}, {put: "b", size: 4}, {drop: "a"}, {put: "c", size: 6}},
			want:   want{keys: []string{"b", "c"}, size: 10},
		},
		"DropUnknown": {
			reason: "Dropping a key the memo does not hold changes nothing.",
			max:    10,
			ops:    []op{{put: "a", size: 4}, {drop: "z"}},
			want:   want{keys: []string{"a"}, size: 4},
		},
	}
	key := func(s string) [sha256.Size]byte { return sha256.Sum256([]byte(s)) }
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := newMemo(tc.max)
			for _, o := range tc.ops {
				if o.drop != "" {
					m.drop(key(o.drop))
					continue
				}
				m.put(key(o.put), []byte(strings.Repeat(o.put, o.size)))
			}
			got := want{size: m.size}
			for e := m.order.Front(); e != nil; e = e.Next() {
				doc := string(e.Value.(*memoEntry).doc)
				got.keys = append(got.keys, doc[:1])
				if d, ok := m.get(key(doc[:1])); !ok || string(d) != doc {
					t.Errorf("%s\nget(%q): want its document, got %q, %t", tc.reason, doc[:1], d, ok)
				}
			}
			if len(m.m) != m.order.Len() {
				t.Errorf("%s\nmemo index holds %d keys, its order %d", tc.reason, len(m.m), m.order.Len())
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nmemo after %v: -want, +got:\n%s", tc.reason, tc.ops, diff)
			}
		})
	}
}
