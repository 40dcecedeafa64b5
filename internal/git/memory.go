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
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/prometheus/client_golang/prometheus"
)

// The clones' memory budget. Every clone keeps objects it read (go-git's
// object cache: commits, trees and blobs as stored, and the delta bases a
// read resolved) and decoded trees (trees.go). Each clone once had caches
// of its own (16 MiB of objects and 100,000 tree entries, some 13 MiB), so
// a process serving 300 repositories could hold 8 GiB in them. Now every
// clone of a Cache draws from one budget: one least-recently-used list of
// the entries of all of them, which never holds more than the budget in
// all, however many clones read at once. A clone evicted for going idle
// gives its entries back at once.
//
// The budget counts the clones' pack indexes too: go-git's storage reads
// each pack's .idx into memory at a clone's first read and keeps it until
// the packs change (indexObjectCost an object), 118 MiB for the 1.2
// million objects of a 50,000-commit monorepo's whole history. An index
// cannot be evicted while its clone is open, so it is charged when the
// clone opens and whenever its packs change (a fetch, a compaction, the
// pack of our own push), and the caches of every clone give way to it,
// least recently used first. The caches always keep
// a quarter of the budget (cacheLimitLocked): without it, a process whose
// indexes outgrew the budget would read every tree and delta base from
// its packs again at every reconcile, for no memory saved, since the
// indexes are held either way. Such a process holds its indexes and a
// quarter of the budget.
//
// Locking: memoryBudget.mu guards everything in the budget and in its
// shares (used, the list, each share's index and whether it was
// released). It is a leaf: nothing is taken under it, and it is taken
// under Repository.mu (reads) and Cache.mu (eviction).

// DefaultCloneMemory is the budget of the clones' object and tree caches of
// one process. A 512 MiB container holds the provider's own heap (10,001
// Files on one repository measured 248 MiB RSS with a clone's 29 MiB of
// caches) and the Go collector's headroom, which may grow the heap to twice
// what is live (GOGC=100): 64 MiB can cost 128 MiB. It counts the clones'
// pack indexes too (100 bytes an object: 2 MiB for a repository of 10,000
// files and its bounded history), and holds beside them the trees and
// files reconciles read again of several such repositories.
const DefaultCloneMemory = 64 << 20

// Accounting. An object costs its size, as go-git's own cache counts it,
// plus what holding it costs beside its content (the object, the list
// element and the index entries: entryOverhead). A decoded tree costs
// entryOverhead and, per entry, treeEntrySize (a go-git TreeEntry is 40
// bytes; the rest rounds its name's allocation up) and its name's bytes:
// measured with runtime.MemStats over ten decoded trees of 10,000 entries
// of 14-byte names, 61 bytes an entry, where this counts 62.
const (
	entryOverhead = 160
	treeEntrySize = 48
)

// indexObjectCost is what go-git's storage holds for one object of a
// clone's packs: its entry of the decoded .idx (name, CRC-32 and offset:
// 31 bytes an object) and of the map from offsets to names it builds at
// the first delta read (65 more). Measured with runtime.MemStats over the
// .idx of a pack of 20,203 objects: 96 bytes an object once both are built.
const indexObjectCost = 100

func treeCost(t *object.Tree) int64 {
	n := int64(entryOverhead)
	for i := range t.Entries {
		n += treeEntrySize + int64(len(t.Entries[i].Name))
	}
	return n
}

// memoryBudget is the one budget every clone of a Cache draws from.
type memoryBudget struct {
	max     int64
	metrics *Metrics

	mu sync.Mutex
	// used is what the entries held cost in all, indexes what the open
	// clones' pack indexes cost; used is never above cacheLimitLocked once
	// an entry is put. over is the most it was above after a put, and
	// peak the most used+indexes was, for tests to check those bounds.
	used, indexes, over, peak int64
	// lru holds *budgetEntry, the most recently used at the front.
	lru list.List
}

func newMemoryBudget(limit cache.FileSize, m *Metrics) *memoryBudget {
	b := &memoryBudget{max: int64(limit), metrics: m}
	m.cloneMemory(0, 0, b.max)
	return b
}

// budgetEntry is one object or decoded tree of one clone.
type budgetEntry struct {
	share *cloneShare
	hash  plumbing.Hash
	obj   plumbing.EncodedObject // set for an object,
	tree  *object.Tree           // or for a decoded tree
	cost  int64
}

// cloneShare is one clone's view of the budget: go-git's object cache of
// its storage (cache.Object), and its decoded trees. Entries are keyed by
// the clone as well as the hash, so a clone never answers with what
// another clone read: a credential's clone cannot learn from the cache
// what another credential's clone holds, and a decoded tree, whose index
// is built under its own clone's lock, is never used under another's.
type cloneShare struct {
	b *memoryBudget
	// objects and trees index this clone's entries in b.lru; released
	// says the clone was closed: nothing is put any more.
	objects  map[plumbing.Hash]*list.Element
	trees    map[plumbing.Hash]*list.Element
	released bool
	// passing says the clone's reads go by without being held (passBy).
	passing bool
	// index is what this clone's pack indexes are charged (chargeIndex).
	index int64
}

var _ cache.Object = (*cloneShare)(nil)

func (b *memoryBudget) share() *cloneShare {
	return &cloneShare{b: b, objects: map[plumbing.Hash]*list.Element{}, trees: map[plumbing.Hash]*list.Element{}}
}

func (b *memoryBudget) inUse() (caches, indexes int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used, b.indexes
}

// reportLocked sets the memory gauges. Call it with b.mu held.
func (b *memoryBudget) reportLocked() {
	b.metrics.cloneMemory(b.used, b.indexes, b.max)
}

// putLocked adds e, evicting the least recently used entries of any clone until
// the whole fits. An entry that would not fit in the whole budget is not
// held. Call it with b.mu held.
func (b *memoryBudget) putLocked(index map[plumbing.Hash]*list.Element, e *budgetEntry) {
	limit := b.cacheLimitLocked()
	if e.share.released || e.cost > limit {
		return
	}
	if old, ok := index[e.hash]; ok {
		b.removeLocked(old)
	}
	for b.used+e.cost > limit {
		b.removeLocked(b.lru.Back())
	}
	index[e.hash] = b.lru.PushFront(e)
	b.used += e.cost
	b.over = max(b.over, b.used-limit)
	b.peak = max(b.peak, b.used+b.indexes)
	b.reportLocked()
}

// cacheLimitLocked is what the caches may hold: the budget less the
// indexes, and never less than a quarter of the budget. Call it with b.mu
// held.
func (b *memoryBudget) cacheLimitLocked() int64 {
	return max(b.max-b.indexes, b.max/4)
}

func (b *memoryBudget) removeLocked(el *list.Element) {
	e := b.lru.Remove(el).(*budgetEntry) //nolint:forcetypeassert // the list holds nothing else
	if e.obj != nil {
		delete(e.share.objects, e.hash)
	} else {
		delete(e.share.trees, e.hash)
	}
	b.used -= e.cost
}

func (b *memoryBudget) getLocked(index map[plumbing.Hash]*list.Element, h plumbing.Hash) (*budgetEntry, bool) {
	el, ok := index[h]
	if !ok {
		return nil, false
	}
	b.lru.MoveToFront(el)
	return el.Value.(*budgetEntry), true //nolint:forcetypeassert // the list holds nothing else
}

// Put holds o, as go-git's object cache does, unless the clone's reads
// pass by.
func (s *cloneShare) Put(o plumbing.EncodedObject) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.passing {
		return
	}
	s.b.putLocked(s.objects, &budgetEntry{share: s, hash: o.Hash(), obj: o, cost: o.Size() + entryOverhead})
}

// Get returns the object h this clone holds.
func (s *cloneShare) Get(h plumbing.Hash) (plumbing.EncodedObject, bool) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	e, ok := s.b.getLocked(s.objects, h)
	if !ok {
		return nil, false
	}
	return e.obj, true
}

// Clear drops this clone's objects (its decoded trees stay).
func (s *cloneShare) Clear() {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.clearLocked(s.objects)
	s.b.reportLocked()
}

func (s *cloneShare) clearLocked(index map[plumbing.Hash]*list.Element) {
	for _, el := range index {
		s.b.removeLocked(el)
	}
}

func (s *cloneShare) tree(h plumbing.Hash) (*object.Tree, bool) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	e, ok := s.b.getLocked(s.trees, h)
	if !ok {
		return nil, false
	}
	return e.tree, true
}

func (s *cloneShare) putTree(h plumbing.Hash, t *object.Tree) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.passing {
		return
	}
	s.b.putLocked(s.trees, &budgetEntry{share: s, hash: h, tree: t, cost: treeCost(t)})
}

// passBy holds none of the clone's reads until the returned func is
// called: a walk of every object the clone holds (a compaction) reads each
// once, and held, they would push out of the budget what every clone's
// reconciles read again. Call it, and what it returns, with the clone's
// lock held, so no other read of the clone passes by with the walk's.
func (s *cloneShare) passBy() (hold func()) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.passing = true
	return func() {
		s.b.mu.Lock()
		defer s.b.mu.Unlock()
		s.passing = false
	}
}

// release gives back everything the clone holds, at once, and holds
// nothing of it again: the clone was closed.
func (s *cloneShare) release() {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.released = true
	s.clearLocked(s.objects)
	s.clearLocked(s.trees)
	s.b.indexes -= s.index
	s.index = 0
	s.b.reportLocked()
}

// chargeIndex charges the clone's pack indexes n bytes (packIndexCost),
// in place of what they were charged before, and evicts the least
// recently used entries of any clone until the caches fit beside the
// indexes (cacheLimitLocked).
func (s *cloneShare) chargeIndex(n int64) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.released {
		return
	}
	s.b.indexes += n - s.index
	s.index = n
	for s.b.used > s.b.cacheLimitLocked() && s.b.lru.Len() > 0 {
		s.b.removeLocked(s.b.lru.Back())
	}
	s.b.reportLocked()
}

// reindexLocked makes go-git's storage read the clone's pack indexes again
// (it reads them once and keeps them) and charges the budget what they
// cost now. Call it with r.mu held, once the packs changed.
func (r *Repository) reindexLocked() {
	r.st.Reindex()
	r.trees.share.chargeIndex(packIndexCost(r.dir))
}

// packIndexCost is what go-git will hold of the pack indexes of the clone
// in dir: indexObjectCost for each object they name. An index it cannot
// read costs nothing here; go-git fails to read it too.
func packIndexCost(dir string) int64 {
	idx, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.idx"))
	var n int64
	for _, p := range idx {
		n += idxObjects(p)
	}
	return n * indexObjectCost
}

// idxObjects reads how many objects a version 2 .idx names: the last of
// the 256 counts of its fan-out table, after its magic and version
// (gitformat-pack(5)); 0 for another file.
func idxObjects(path string) int64 {
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		return 0
	}
	defer f.Close() //nolint:errcheck // read only
	var hdr [8 + 256*4]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return 0
	}
	if string(hdr[:4]) != "\377tOc" || binary.BigEndian.Uint32(hdr[4:8]) != 2 {
		return 0
	}
	return int64(binary.BigEndian.Uint32(hdr[len(hdr)-4:]))
}

// memoryMetrics are the process's figures of the clones' memory, without
// labels: one budget and one set of clones per process.
type memoryMetrics struct {
	cacheBytes  prometheus.Gauge
	indexBytes  prometheus.Gauge
	budgetBytes prometheus.Gauge
	clones      prometheus.Gauge
}

func newMemoryMetrics() memoryMetrics {
	return memoryMetrics{
		cacheBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "provider_git_clone_cache_bytes", Help: "Bytes the object and tree caches of all open clones hold (with provider_git_clone_index_bytes, never above provider_git_clone_cache_budget_bytes).",
		}),
		indexBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "provider_git_clone_index_bytes", Help: "Bytes the pack indexes of all open clones are charged in the clones' memory budget (100 an object).",
		}),
		budgetBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "provider_git_clone_cache_budget_bytes", Help: "The clones' cache budget of this process (--clone-memory).",
		}),
		clones: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "provider_git_clones", Help: "Local clones open in this process.",
		}),
	}
}

func (m *Metrics) cloneMemory(used, indexes, budget int64) {
	if m != nil {
		m.memory.cacheBytes.Set(float64(used))
		m.memory.indexBytes.Set(float64(indexes))
		m.memory.budgetBytes.Set(float64(budget))
	}
}

func (m *Metrics) openClones(n int) {
	if m != nil {
		m.memory.clones.Set(float64(n))
	}
}
