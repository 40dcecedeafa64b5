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
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/google/go-cmp/cmp"
)

// TestPartialCloneCompacts: merging a partial clone's packs (every push
// and blob fetch adds one; past maxPacks they are merged) keeps the blobs
// the clone holds, does not ask for the others, and loses no commit or
// tree.
func TestPartialCloneCompacts(t *testing.T) {
	t.Parallel()
	s := partialServer(t, servesFilter)
	r, _ := newRepo(t, s.remote, WithCommitWindow(0))
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	head, _ := r.Head("main")
	if _, err := r.ReadFile(ctx(t), head, "apps/a.yaml"); err != nil {
		t.Fatal(err)
	}
	for i := range maxPacks {
		p := fmt.Sprintf("apps/c%02d.yaml", i)
		if res := r.Submit(ctx(t), "main", Change{Puts: map[string]File{p: {Content: []byte(p)}}}); res.Err != nil {
			t.Fatalf("push %d: %v", i, res.Err)
		}
	}
	r.mu.Lock()
	packs, _ := r.st.ObjectPacks()
	r.mu.Unlock()
	if len(packs) > maxPacks {
		t.Errorf("%d packs after %d pushes: never merged", len(packs), maxPacks)
	}
	if !holds(r, hashObject(t, "a: 1\n")) || !holds(r, hashObject(t, "apps/c00.yaml")) {
		t.Error("the merge dropped a blob the clone held")
	}
	if holds(r, hashObject(t, "nobody reads this\n")) {
		t.Error("the merge fetched a blob nobody read")
	}
	head, _ = r.Head("main")
	if got, found, err := r.FindCommitByUID(ctx(t), "main", "none", 100); err != nil || found {
		t.Errorf("history walk after the merge: %+v, %v, %v", got, found, err)
	}
	before := uploadPacks(s)
	if got, err := r.ReadFile(ctx(t), head, "apps/c00.yaml"); err != nil || string(got.Content) != "apps/c00.yaml" {
		t.Errorf("ReadFile after the merge = %q, %v", got.Content, err)
	}
	if got := uploadPacks(s) - before; got != 0 {
		t.Errorf("a held blob was fetched again after the merge (%d requests)", got)
	}
	if got, err := r.ReadFile(ctx(t), head, "apps/b.yaml"); err != nil || string(got.Content) != "b: 1\n" {
		t.Errorf("ReadFile of a blob never fetched, after the merge = %q, %v", got.Content, err)
	}
}

// TestReachableStopsAtShallowBoundary: a partial clone that is also
// bounded lacks the parents of its boundary commits and the blobs it never
// read; compaction lists what it holds and does not fail on the rest.
func TestReachableStopsAtShallowBoundary(t *testing.T) {
	t.Parallel()
	st := filesystem.NewStorage(osfs.New(t.TempDir()), cache.NewObjectLRUDefault())
	blob, err := storeBlob(st, []byte("held\n"))
	if err != nil {
		t.Fatal(err)
	}
	absent := plumbing.ComputeHash(plumbing.BlobObject, []byte("never fetched\n"))
	tree, err := storeObject(st, &object.Tree{Entries: []object.TreeEntry{
		{Name: "absent", Mode: filemode.Regular, Hash: absent},
		{Name: "held", Mode: filemode.Regular, Hash: blob},
	}})
	if err != nil {
		t.Fatal(err)
	}
	parent := plumbing.ComputeHash(plumbing.CommitObject, []byte("not in the clone"))
	commit, err := storeObject(st, &object.Commit{TreeHash: tree, ParentHashes: []plumbing.Hash{parent}, Message: "boundary"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetShallow([]plumbing.Hash{commit}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetReference(plumbing.NewHashReference(branchRef("main"), commit)); err != nil {
		t.Fatal(err)
	}
	r := &Repository{st: st}
	r.partial.Store(true)
	got, err := r.reachableLocked()
	if err != nil {
		t.Fatalf("reachableLocked: %v", err)
	}
	slices.SortFunc(got, func(a, b plumbing.Hash) int { return strings.Compare(a.String(), b.String()) })
	want := []plumbing.Hash{commit, tree, blob}
	slices.SortFunc(want, func(a, b plumbing.Hash) int { return strings.Compare(a.String(), b.String()) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reachableLocked: -want, +got:\n%s", diff)
	}
}
