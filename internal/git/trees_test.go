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
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// TestTreeCache: a tree read twice is decoded once, the cache holds at most
// maxTreeEntries entries, and the oldest tree goes first.
func TestTreeCache(t *testing.T) {
	t.Parallel()
	const perTree = 1000
	st := memory.NewStorage()
	hashes := make([]plumbing.Hash, maxTreeEntries/perTree+1)
	for i := range hashes {
		tr := &object.Tree{}
		for j := range perTree {
			tr.Entries = append(tr.Entries, object.TreeEntry{Name: fmt.Sprintf("f-%d-%04d", i, j), Mode: filemode.Regular, Hash: plumbing.ZeroHash})
		}
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
	c := &treeCache{}
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
	if c.entries != maxTreeEntries || len(c.trees)*perTree != maxTreeEntries || len(c.order) != len(c.trees) {
		t.Errorf("the cache holds %d trees (%d in order) of %d entries, want %d entries at most", len(c.trees), len(c.order), c.entries, maxTreeEntries)
	}
	if _, ok := c.trees[hashes[0]]; ok {
		t.Errorf("the oldest tree must go first")
	}
	if _, err := c.get(st, plumbing.NewHash("0123456789012345678901234567890123456789")); err == nil {
		t.Errorf("a tree missing from storage must be an error")
	}
}
