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
	"container/list"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// processMetrics are the metrics of the whole process, without labels
// (TestMetrics wants the others labelled by host).
var processMetrics = map[string]bool{
	"provider_git_clone_cache_bytes": true, "provider_git_clone_cache_budget_bytes": true, "provider_git_clones": true,
	"provider_git_clone_index_bytes": true,
}

// blobOf is a blob of n bytes, named by its first byte.
func blobOf(name byte, n int) plumbing.EncodedObject {
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.BlobObject)
	_, _ = o.Write([]byte(strings.Repeat(string(name), n)))
	return o
}

// held lists, per share, the names (first bytes) of the objects it holds.
func held(shares map[string]*cloneShare, objs map[byte]plumbing.EncodedObject) map[string]string {
	out := map[string]string{}
	for clone, s := range shares {
		var names []byte
		for name, o := range objs {
			if _, ok := s.objects[o.Hash()]; ok {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		out[clone] = string(names)
	}
	return out
}

// TestMemoryBudget: the clones' caches draw from one budget, in one
// least-recently-used order across clones, and a clone answers only with
// what it read itself.
func TestMemoryBudget(t *testing.T) {
	t.Parallel()
	const size = 100
	cost := int64(size + entryOverhead)
	objs := map[byte]plumbing.EncodedObject{}
	for _, n := range []byte("abcd") {
		objs[n] = blobOf(n, size)
	}
	objs['z'] = blobOf('z', 4*size)
	type want struct {
		Used int64
		Held map[string]string
	}
	cases := map[string]struct {
		reason string
		budget int64
		ops    func(s map[string]*cloneShare)
		want   want
	}{
		"WithinBudget": {
			reason: "Objects of several clones that fit are all held, each counted once.",
			budget: 10 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].Put(objs['a'])
				s["A"].Put(objs['a'])
				s["B"].Put(objs['b'])
			},
			want: want{Used: 2 * cost, Held: map[string]string{"A": "a", "B": "b"}},
		},
		"LeastRecentlyUsedOfAnyCloneGoesFirst": {
			reason: "A clone's put evicts the object used least recently, whichever clone holds it.",
			budget: 2 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].Put(objs['a'])
				s["B"].Put(objs['b'])
				s["A"].Get(objs['a'].Hash())
				s["A"].Put(objs['c'])
			},
			want: want{Used: 2 * cost, Held: map[string]string{"A": "ac", "B": ""}},
		},
		"LargerThanTheBudget": {
			reason: "An object that would not fit in the whole budget is not held, and evicts nothing.",
			budget: 2 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].Put(objs['a'])
				s["B"].Put(objs['z'])
			},
			want: want{Used: cost, Held: map[string]string{"A": "a", "B": ""}},
		},
		"Released": {
			reason: "A released clone gives back all it held at once, and holds nothing put afterwards.",
			budget: 10 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].Put(objs['a'])
				s["A"].Put(objs['b'])
				s["B"].Put(objs['c'])
				s["A"].release()
				s["A"].Put(objs['d'])
			},
			want: want{Used: cost, Held: map[string]string{"A": "", "B": "c"}},
		},
		"Cleared": {
			reason: "go-git's Clear drops the clone's objects, not another clone's.",
			budget: 10 * cost,
			ops: func(s map[string]*cloneShare) {
				s["A"].Put(objs['a'])
				s["B"].Put(objs['b'])
				s["A"].Clear()
			},
			want: want{Used: cost, Held: map[string]string{"A": "", "B": "b"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := newMemoryBudget(cache.FileSize(tc.budget), nil)
			shares := map[string]*cloneShare{"A": b.share(), "B": b.share()}
			tc.ops(shares)
			used, _ := b.inUse()
			got := want{Used: used, Held: held(shares, objs)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
			if b.peak > b.max {
				t.Errorf("the budget held %d bytes at its peak, above its %d", b.peak, b.max)
			}
		})
	}
}

// TestCloneAnswersOnlyWithItsOwn: an object one clone read is not an
// answer to another clone that never fetched it (a clone of other
// credentials must not learn it exists).
func TestCloneAnswersOnlyWithItsOwn(t *testing.T) {
	t.Parallel()
	b := newMemoryBudget(cache.MiByte, nil)
	a, other := b.share(), b.share()
	o := blobOf('a', 10)
	a.Put(o)
	if _, ok := other.Get(o.Hash()); ok {
		t.Errorf("a clone answered with an object only another clone read")
	}
	if _, ok := a.Get(o.Hash()); !ok {
		t.Errorf("the clone that read the object must find it")
	}
}

// manyRepos serves n repositories of files files of about 2 KiB each on one
// smart-HTTP server and returns their remotes.
func manyRepos(t *testing.T, n, files int) []Remote {
	t.Helper()
	root := t.TempDir()
	names := make([]string, n)
	for i := range names {
		content := map[string]string{}
		for f := range files {
			content[fmt.Sprintf("apps/f%02d.yaml", f)] = strings.Repeat(fmt.Sprintf("repo %d file %d\n", i, f), 100)
		}
		names[i] = testenv.NewBareRepo(t, root, fmt.Sprintf("r%02d.git", i), map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: content}}}).Name
	}
	s := testenv.NewHTTPServer(t, root, testUser, testToken)
	remotes := make([]Remote, n)
	for i, name := range names {
		remotes[i] = Remote{URL: s.RepoURL(name), Auth: &BasicAuth{Username: testUser, Password: testToken}}
	}
	return remotes
}

// openAll opens and refreshes a clone of each remote.
func openAll(t *testing.T, c *Cache, remotes []Remote) []*Repository {
	t.Helper()
	repos := make([]*Repository, len(remotes))
	for i, rm := range remotes {
		r, err := c.Repository(rm)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Refresh(ctx(t), 0, "main"); err != nil {
			t.Fatal(err)
		}
		repos[i] = r
	}
	return repos
}

// readAll reads every file of r rounds times.
func readAll(t *testing.T, r *Repository, files, rounds int) {
	t.Helper()
	h, err := r.Head("main")
	if err != nil {
		t.Error(err)
		return
	}
	for range rounds {
		for f := range files {
			if _, err := r.ReadFile(ctx(t), h, fmt.Sprintf("apps/f%02d.yaml", f)); err != nil {
				t.Error(err)
			}
		}
	}
}

// checkBudget checks the budget's structure: what it counts is what its
// list holds, every entry is indexed by its clone, and it never held more
// than its bound.
func checkBudget(t *testing.T, b *memoryBudget) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var sum int64
	for el := b.lru.Front(); el != nil; el = el.Next() {
		e := el.Value.(*budgetEntry) //nolint:forcetypeassert // the list holds nothing else
		sum += e.cost
		index := e.share.trees
		if e.obj != nil {
			index = e.share.objects
		}
		if index[e.hash] != el {
			t.Errorf("entry %s is not indexed by its clone", e.hash)
		}
	}
	if sum != b.used {
		t.Errorf("the budget counts %d bytes, its entries cost %d", b.used, sum)
	}
	if b.over > 0 || b.used > b.cacheLimitLocked() {
		t.Errorf("the clones' caches held %d bytes above what the budget of %d leaves them beside %d of indexes (%d now)", b.over, b.max, b.indexes, b.used)
	}
}

// TestCloneMemoryShared: many clones reading at once never hold more than
// the one budget in their caches, though what they read is several times
// larger, and the budget is used.
func TestCloneMemoryShared(t *testing.T) {
	t.Parallel()
	const clones, files, budget = 6, 24, 64 << 10
	remotes := manyRepos(t, clones, files)
	m := NewMetrics()
	c, err := NewCache(t.TempDir(), WithCloneMemory(budget), WithIdleTimeout(0), WithMetrics(m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	repos := openAll(t, c, remotes)
	var wg sync.WaitGroup
	for _, r := range repos {
		for range 2 {
			wg.Add(1)
			go func() { defer wg.Done(); readAll(t, r, files, 3) }()
		}
	}
	wg.Wait()
	checkBudget(t, c.memory)
	var all int64
	for _, r := range repos {
		all += shareBytes(r.trees.share)
	}
	if all > budget {
		t.Errorf("the clones hold %d bytes together, above the budget of %d", all, budget)
	}
	// Each clone read about 24 × 2 KiB: all of them together, six times
	// the budget. Were the budget not used, the check above proves nothing.
	got := c.Memory()
	if got.CacheBytes < budget/2 || c.memory.peak < budget*3/4 {
		t.Errorf("the clones' caches hold %d bytes (at most %d) of a %d budget, want it used", got.CacheBytes, c.memory.peak, budget)
	}
	if got.IndexBytes == 0 {
		t.Errorf("the clones' pack indexes are charged nothing, want them counted in the budget")
	}
	if diff := cmp.Diff(Memory{CacheBytes: got.CacheBytes, IndexBytes: got.IndexBytes, CacheBudget: budget, Clones: clones}, got); diff != "" {
		t.Errorf("Memory: -want +got:\n%s", diff)
	}
	if diff := cmp.Diff(got, memoryMetricsOf(m)); diff != "" {
		t.Errorf("the metrics must report what the cache holds: -cache +metrics:\n%s", diff)
	}
}

// memoryMetricsOf is what m's memory gauges report.
func memoryMetricsOf(m *Metrics) Memory {
	return Memory{
		CacheBytes:  int64(testutil.ToFloat64(m.memory.cacheBytes)),
		IndexBytes:  int64(testutil.ToFloat64(m.memory.indexBytes)),
		CacheBudget: int64(testutil.ToFloat64(m.memory.budgetBytes)),
		Clones:      int(testutil.ToFloat64(m.memory.clones)),
	}
}

// shareBytes is what one clone holds of the budget.
func shareBytes(s *cloneShare) int64 {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	var n int64
	for _, index := range []map[plumbing.Hash]*list.Element{s.objects, s.trees} {
		for _, el := range index {
			n += el.Value.(*budgetEntry).cost //nolint:forcetypeassert // the list holds nothing else
		}
	}
	return n
}

// TestEvictedCloneReleasesItsShare: a clone evicted for going idle gives
// its share of the budget back at once, the other clones keep theirs, and
// the metrics follow.
func TestEvictedCloneReleasesItsShare(t *testing.T) {
	t.Parallel()
	const files = 8
	remotes := manyRepos(t, 2, files)
	clk := newFakeClock()
	m := NewMetrics()
	c, err := NewCache(t.TempDir(), WithClock(clk), WithIdleTimeout(testIdle), WithMetrics(m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	repos := openAll(t, c, remotes)
	idle, kept := repos[0], repos[1]
	readAll(t, idle, files, 1)
	readAll(t, kept, files, 1)
	idleBytes, keptBytes := shareBytes(idle.trees.share), shareBytes(kept.trees.share)
	if idleBytes == 0 || keptBytes == 0 {
		t.Fatalf("the clones hold %d and %d bytes after their reads, want both some", idleBytes, keptBytes)
	}
	clk.Step(testIdle)
	readAll(t, kept, files, 1)
	if n := c.Sweep(); n != 1 {
		t.Fatalf("Sweep removed %d clones, want the idle one", n)
	}
	got := c.Memory()
	want := Memory{CacheBytes: shareBytes(kept.trees.share), IndexBytes: packIndexCost(kept.dir), CacheBudget: DefaultCloneMemory, Clones: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after the idle clone's eviction: -want +got:\n%s", diff)
	}
	if n := shareBytes(idle.trees.share); n != 0 {
		t.Errorf("the evicted clone still holds %d bytes of the budget", n)
	}
	checkBudget(t, c.memory)
	if diff := cmp.Diff(got, memoryMetricsOf(m)); diff != "" {
		t.Errorf("the metrics must report what the cache holds: -cache +metrics:\n%s", diff)
	}
}

// TestCloneMemoryRefused: a budget of 0 or less is refused, naming it.
func TestCloneMemoryRefused(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		bytes  int64
		want   string
	}{
		"Zero":     {reason: "No cache at all would decode every tree on every read.", bytes: 0, want: errMemory + ", not 0"},
		"Negative": {reason: "A negative budget is refused like 0.", bytes: -1, want: errMemory + ", not -1"},
		"One":      {reason: "Any positive budget is taken.", bytes: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := NewCache(t.TempDir(), WithCloneMemory(tc.bytes))
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				c.Close()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
