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

	"github.com/google/go-cmp/cmp"
)

// TestPacksAreCompacted: every push adds a pack to the clone; past maxPacks
// they are merged into one, and every file is still readable.
func TestPacksAreCompacted(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	r.SetCommitWindow(0)
	pushes := maxPacks + 8
	for i := range pushes {
		res := r.Submit(ctx(t), "main", Change{
			Puts:    map[string]File{fmt.Sprintf("p/%02d.txt", i): {Content: []byte(fmt.Sprint(i))}},
			Message: "pack", Resource: Resource{Kind: "File", Namespace: "ns", Name: fmt.Sprint(i), UID: fmt.Sprint("uid-", i)},
		})
		if res.Err != nil {
			t.Fatalf("push %d: %v", i, res.Err)
		}
	}
	packs, err := r.st.ObjectPacks()
	if err != nil {
		t.Fatal(err)
	}
	if len(packs) > maxPacks {
		t.Errorf("%d packs after %d pushes, want at most %d", len(packs), pushes, maxPacks)
	}
	head, err := r.Head("main")
	if err != nil {
		t.Fatal(err)
	}
	for i := range pushes {
		b, err := r.ReadFile(ctx(t), head, fmt.Sprintf("p/%02d.txt", i))
		if err != nil {
			t.Fatalf("read after compaction: %v", err)
		}
		if diff := cmp.Diff(fmt.Sprint(i), string(b.Content)); diff != "" {
			t.Errorf("p/%02d.txt: -want, +got:\n%s", i, diff)
		}
	}
	// History survives too: the first change is found by its UID.
	if _, found, err := r.FindCommitByUID(ctx(t), "main", "uid-0", 100); err != nil || !found {
		t.Errorf("FindCommitByUID after compaction: found=%v, err=%v", found, err)
	}
}
