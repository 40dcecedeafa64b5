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

package git

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestIndexCharge: the clones' pack indexes are counted in the one budget
// the caches draw from, are never evicted, and make the caches of every
// clone give way.
func TestIndexCharge(t *testing.T) {
	t.Parallel()
	const size = 100
	cost := int64(size + entryOverhead)
	objs := map[byte]plumbing.EncodedObject{}
	for _, n := range []byte("abc") {
		objs[n] = blobOf(n, size)
	}
	type want struct {
		Used, Indexes int64
		Held          map[string]string
	}
	cases := map[string]struct {
		reason string
		budget int64
		ops    func(s map[string]*cloneShare)
		want   want
	}{
		"FitsBeside": {
			reason: "Indexes and caches that fit the budget together are all held.",
			budget: 4 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].Put(objs['a'])
				s["B"].chargeIndex(2 * cost)
				s["B"].Put(objs['b'])
			},
			want: want{Used: 2 * cost, Indexes: 2 * cost, Held: map[string]string{"A": "a", "B": "b"}},
		},
		"EvictsCachesOfAnyClone": {
			reason: "A clone's index evicts the entry used least recently, whichever clone holds it.",
			budget: 3 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].Put(objs['a'])
				s["B"].Put(objs['b'])
				s["B"].chargeIndex(2 * cost)
			},
			want: want{Used: cost, Indexes: 2 * cost, Held: map[string]string{"A": "", "B": "b"}},
		},
		"PutsFitBesideIt": {
			reason: "With an index charged, a put evicts until the caches fit beside it.",
			budget: 3 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].chargeIndex(cost)
				s["A"].Put(objs['a'])
				s["B"].Put(objs['b'])
				s["B"].Put(objs['c'])
			},
			want: want{Used: 2 * cost, Indexes: cost, Held: map[string]string{"A": "", "B": "bc"}},
		},
		"TakesTheWholeBudget": {
			reason: "Indexes larger than the budget leave the caches their quarter of it; an entry larger than that is not held, and nothing fails.",
			budget: 2 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].Put(objs['a'])
				s["A"].chargeIndex(3 * cost)
				s["B"].Put(objs['b'])
			},
			want: want{Indexes: 3 * cost, Held: map[string]string{"A": "", "B": ""}},
		},
		"CachesKeepAQuarter": {
			reason: "Indexes larger than the budget leave the caches a quarter of it: reads are not all decoded again from the packs.",
			budget: 8 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].chargeIndex(10 * cost)
				s["A"].Put(objs['a'])
				s["B"].Put(objs['b'])
				s["B"].Put(objs['c'])
			},
			want: want{Used: 2 * cost, Indexes: 10 * cost, Held: map[string]string{"A": "", "B": "bc"}},
		},
		"ChargedAgain": {
			reason: "A clone's index is charged what it costs now, in place of what it cost before (a merge of its packs).",
			budget: 10 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].chargeIndex(3 * cost)
				s["A"].chargeIndex(cost)
			},
			want: want{Indexes: cost, Held: map[string]string{"A": "", "B": ""}},
		},
		"Released": {
			reason: "A released clone gives its index back, and is charged nothing afterwards.",
			budget: 10 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].chargeIndex(cost)
				s["B"].chargeIndex(2 * cost)
				s["A"].release()
				s["A"].chargeIndex(cost)
			},
			want: want{Indexes: 2 * cost, Held: map[string]string{"A": "", "B": ""}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := newMemoryBudget(cache.FileSize(tc.budget), nil)
			shares := map[string]*cloneShare{"A": b.share(), "B": b.share()}
			tc.ops(shares)
			used, indexes := b.inUse()
			got := want{Used: used, Indexes: indexes, Held: held(shares, objs)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
			checkBudget(t, b)
		})
	}
}

// TestPackIndexCharged: a clone is charged indexObjectCost for each object
// its packs hold, as git counts them, from its first fetch on; the metrics
// follow, and a clone evicted gives it back.
func TestPackIndexCharged(t *testing.T) {
	t.Parallel()
	const files = 8
	remotes := manyRepos(t, 1, files)
	clk := newFakeClock()
	m := NewMetrics()
	c, err := NewCache(t.TempDir(), WithClock(clk), WithIdleTimeout(testIdle), WithMetrics(m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	r := openAll(t, c, remotes)[0]
	readAll(t, r, files, 1)
	inPack := objectsInPacks(t, r.dir)
	if inPack < files {
		t.Fatalf("git counts %d objects in the clone's packs, want at least its %d files", inPack, files)
	}
	got := c.Memory()
	want := Memory{CacheBytes: shareBytes(r.trees.share), IndexBytes: inPack * indexObjectCost, CacheBudget: DefaultCloneMemory, Clones: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after a fetch: -want +got:\n%s", diff)
	}
	if diff := cmp.Diff(got, memoryMetricsOf(m)); diff != "" {
		t.Errorf("the metrics must report what the cache holds: -cache +metrics:\n%s", diff)
	}
	clk.Step(testIdle)
	if n := c.Sweep(); n != 1 {
		t.Fatalf("Sweep removed %d clones, want the idle one", n)
	}
	if diff := cmp.Diff(Memory{CacheBudget: DefaultCloneMemory}, memoryMetricsOf(m)); diff != "" {
		t.Errorf("after the clone's eviction: -want +got:\n%s", diff)
	}
}

// TestPushedPackCharged: the pack of our own push was charged to the
// budget only at the next read of the clone's packs (a fetch, a
// compaction), though go-git holds its index from the moment it is stored.
func TestPushedPackCharged(t *testing.T) {
	t.Parallel()
	remotes := manyRepos(t, 1, 4)
	c, err := NewCache(t.TempDir(), WithClock(newFakeClock()), WithIdleTimeout(testIdle), WithCommitWindow(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	r := openAll(t, c, remotes)[0]
	before := c.Memory().IndexBytes
	for i := range 3 {
		if res := r.Submit(ctx(t), "main", putChange(fmt.Sprintf("pushed/%d.yaml", i), "ours\n")); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	want := objectsInPacks(t, r.dir) * indexObjectCost
	if got := c.Memory().IndexBytes; got != want || got <= before {
		t.Errorf("after three pushes the indexes are charged %d bytes (%d before), want %d: what git counts in the clone's packs", got, before, want)
	}
}

// objectsInPacks is git's count of the objects in the packs of dir.
func objectsInPacks(t testing.TB, dir string) int64 {
	t.Helper()
	out, err := testenv.Git(dir, nil, "count-objects", "-v")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "in-pack: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no in-pack count in %q", out)
	return 0
}

// TestCompactionLeavesTheCaches: a compaction reads every object its clone
// holds, and each was put in the shared budget as a read for a reconcile
// is, pushing out what the other clones' reconciles read again and again;
// none of it is read again by the compaction.
func TestCompactionLeavesTheCaches(t *testing.T) {
	t.Parallel()
	const files = 20
	remotes := manyRepos(t, 2, 2*files)
	c, err := NewCache(t.TempDir(), WithClock(newFakeClock()), WithIdleTimeout(testIdle), WithCloneMemory(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	repos := openAll(t, c, remotes)
	a, b := repos[0], repos[1]
	readAll(t, b, files, 1)
	held, own := shareBytes(b.trees.share), shareBytes(a.trees.share)
	if held == 0 {
		t.Fatal("the clone that read its files holds none of them: the test tests nothing")
	}

	a.mu.Lock()
	err = a.repackLocked()
	a.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if got := shareBytes(b.trees.share); got != held {
		t.Errorf("after another clone's compaction the clone that read its files holds %d bytes of them, want the %d it held before", got, held)
	}
	if got := shareBytes(a.trees.share); got != own {
		t.Errorf("the compacted clone holds %d bytes in the caches, want the %d its own reads left", got, own)
	}
}
