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
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// TestTreeCache: a tree read twice is decoded once, the trees held never
// cost more than the budget, and the least recently used goes first.
func TestTreeCache(t *testing.T) {
	t.Parallel()
	const perTree, fit = 1000, 10
	st := memory.NewStorage()
	hashes := make([]plumbing.Hash, fit+1)
	var cost int64
	for i := range hashes {
		tr := &object.Tree{}
		for j := range perTree {
			tr.Entries = append(tr.Entries, object.TreeEntry{Name: fmt.Sprintf("f-%02d-%04d", i, j), Mode: filemode.Regular, Hash: plumbing.ZeroHash})
		}
		cost = treeCost(tr) // the same for each: names of one length
		o := st.NewEncodedObject()
		if err := tr.Encode(o); err != nil {
			t.Fatal(err)
		}
		h, err := st.SetEncodedObject(o)
		if err != nil {
			t.Fatal(err)
		}
		hashes[i] = h
	}
	b := newMemoryBudget(cache.FileSize(fit*cost), nil)
	c := &treeCache{share: b.share()}
	first, err := c.get(st, hashes[0])
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.get(st, hashes[0]); again != first {
		t.Errorf("a tree read again must come from the cache, not be decoded again")
	}
	for _, h := range hashes[1:] {
		if _, err := c.get(st, h); err != nil {
			t.Fatal(err)
		}
	}
	if b.used != fit*cost || len(c.share.trees) != fit || b.peak > b.max {
		t.Errorf("the cache holds %d trees costing %d (at most %d), want %d trees costing %d, never above %d", len(c.share.trees), b.used, b.peak, fit, fit*cost, b.max)
	}
	if _, ok := c.share.tree(hashes[0]); ok {
		t.Errorf("the least recently used tree must go first")
	}
	if _, err := c.get(st, plumbing.NewHash("0123456789012345678901234567890123456789")); err == nil {
		t.Errorf("a tree missing from storage must be an error")
	}
}
