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
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestBlobPackChecks: what a server answers to a request for blobs is
// stored only when it holds the blobs asked for and nothing else.
func TestBlobPackChecks(t *testing.T) {
	t.Parallel()
	mem := memory.NewStorage()
	asked, err := storeBlob(mem, []byte("asked for\n"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := storeBlob(mem, []byte("someone else's\n"))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := storeObject(mem, &object.Tree{Entries: []object.TreeEntry{{Name: "f", Mode: filemode.Regular, Hash: asked}}})
	if err != nil {
		t.Fatal(err)
	}
	pack := func(hs ...plumbing.Hash) []byte {
		var buf bytes.Buffer
		if _, err := packfile.NewEncoder(&buf, mem, false).Encode(hs, 0); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	cases := map[string]struct {
		reason string
		pack   []byte
		wants  []plumbing.Hash
		stored []plumbing.Hash
		err    string
	}{
		"Asked": {
			reason: "The blob asked for is stored.",
			pack:   pack(asked), wants: []plumbing.Hash{asked}, stored: []plumbing.Hash{asked},
		},
		"AnotherBlob": {
			reason: "A blob answered with another is refused, and nothing of it stored.",
			pack:   pack(other), wants: []plumbing.Hash{asked}, err: errBlobUnasked,
		},
		"Extra": {
			reason: "A server cannot add objects to the clone that nobody asked for.",
			pack:   pack(asked, other), wants: []plumbing.Hash{asked}, err: errBlobUnasked,
		},
		"NotABlob": {
			reason: "Only blobs are asked for: a tree under an asked hash is refused.",
			pack:   pack(tree), wants: []plumbing.Hash{tree}, err: errBlobUnasked,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, _ := newRepo(t, Remote{URL: "https://git.example.com/repo.git"})
			err := r.storeBlobPack(ctx(t), bytes.NewReader(tc.pack), capability.NewList(), tc.wants)
			if got := fmt.Sprint(err); (tc.err == "") != (err == nil) || !strings.Contains(got, tc.err) {
				t.Errorf("%s\nstoreBlobPack() = %v, want an error saying %q", tc.reason, err, tc.err)
			}
			for _, h := range []plumbing.Hash{asked, other, tree} {
				if got, want := holds(r, h.String()), slices.Contains(tc.stored, h); got != want {
					t.Errorf("%s\nthe clone holds %s: %v, want %v", tc.reason, h, got, want)
				}
			}
		})
	}
}

// TestCapped: a batch of blobs may bring so many bytes and no more.
func TestCapped(t *testing.T) {
	t.Parallel()
	c := &capped{r: strings.NewReader("0123456789abc"), left: 10, max: 10}
	got, err := io.ReadAll(c)
	if string(got) != "0123456789" || err == nil || !strings.Contains(err.Error(), errBlobBatchBytes) {
		t.Errorf("ReadAll past the cap = %q, %v; want the first 10 bytes and an error saying %q", got, err, errBlobBatchBytes)
	}
}

// TestBlobTooLargeFailsAlone: a read of a blob larger than a batch may
// bring fails, and does not fail the reads after it, which its path would
// otherwise ride along with in every batch.
func TestBlobTooLargeFailsAlone(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	big := make([]byte, 256<<10)
	rng := rand.New(rand.NewPCG(1, 2)) // incompressible test data, not a secret
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	repo := testenv.NewBareRepo(t, root, "repo.git", map[string][]testenv.CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"big.bin": string(big), "apps/a.yaml": "a: 1\n", "apps/b.yaml": "b: 1\n"}}},
	})
	for _, kv := range [][2]string{{"uploadpack.allowFilter", "true"}, {"uploadpack.allowReachableSHA1InWant", "true"}} {
		if _, err := testenv.Git(repo.Dir, nil, "config", kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	s := testenv.NewHTTPServer(t, root, testUser, testToken)
	r, _ := newRepo(t, Remote{URL: s.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}})
	r.blobs.maxBytes = 64 << 10
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	if !r.Partial() {
		t.Fatal("the clone is not partial: the test tests nothing")
	}
	head := mustHead(t, r, "main")
	if _, err := r.ReadFile(ctx(t), head, "big.bin"); err == nil {
		t.Fatal("a blob larger than a batch may bring was read")
	}
	for _, p := range []string{"apps/a.yaml", "apps/b.yaml"} {
		if b, err := r.ReadFile(ctx(t), head, p); err != nil || len(b.Content) == 0 {
			t.Errorf("ReadFile(%s) after big.bin failed = %q, %v; want its content", p, b.Content, err)
		}
	}
}
