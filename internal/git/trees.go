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

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// A treeCache keeps decoded trees by hash, so a read does not decode the
// trees on its path again. A tree never changes under its hash; decoding
// one costs time in proportion to its entries, and go-git's object cache
// keeps only the encoded object: before this cache every ReadFile of a path
// in a directory of 10,000 entries decoded (and indexed) all of them again,
// 8 ms a read, and a provider restarted over 10,000 Files spent over a
// minute on that, one read at a time under the clone's lock. What
// reconciles read again and again are the few trees on the paths to their
// files: the root, and the directories that hold many resources' files.
// The trees are held within the memory budget of all clones (memory.go),
// by their entries: a count of trees would not bound memory, as every push
// makes a new version of a directory of 10,000 entries. Use it with
// Repository.mu held: a cached tree builds its entry index on first use.
type treeCache struct {
	share *cloneShare
}

func (c *treeCache) get(s storer.EncodedObjectStorer, h plumbing.Hash) (*object.Tree, error) {
	if t, ok := c.share.tree(h); ok {
		return t, nil
	}
	t, err := object.GetTree(s, h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errReadTree, err)
	}
	c.share.putTree(h, t)
	return t, nil
}
