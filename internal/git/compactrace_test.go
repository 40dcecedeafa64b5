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
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// gate holds the first request it sees once armed until released.
type gate struct {
	armed   atomic.Bool
	arrived chan struct{}
	release chan struct{}
	once    sync.Once
}

func newGate() *gate { return &gate{arrived: make(chan struct{}, 1), release: make(chan struct{})} }

// hold reports whether this request is the one held, and if so waits for
// the release (or the request's end).
func (g *gate) hold(r *http.Request) bool {
	if !g.armed.CompareAndSwap(true, false) {
		return false
	}
	g.arrived <- struct{}{}
	select {
	case <-g.release:
	case <-r.Context().Done():
	}
	return true
}

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// answerHolder is a smart-HTTP proxy that, each once armed, holds the
// answer of an upload-pack request (forwarded, the whole answer read from
// the server, not yet written to the client) and a receive-pack request
// (before it is forwarded).
type answerHolder struct {
	URL         string
	fetch, push *gate
	// failFetch answers the held upload-pack request 500 in place of the
	// server's answer.
	failFetch atomic.Bool
}

func newAnswerHolder(t testing.TB, target string) *answerHolder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	h := &answerHolder{fetch: newGate(), push: newGate()}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack") && h.fetch.armed.Load():
			rec := httptest.NewRecorder()
			rp.ServeHTTP(rec, r)
			if !h.fetch.hold(r) {
				break
			}
			if h.failFetch.Load() {
				http.Error(w, "held and failed", http.StatusInternalServerError)
				return
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack"):
			h.push.hold(r)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	// Runs before srv.Close: a request still held is let go.
	t.Cleanup(func() { h.fetch.open(); h.push.open() })
	h.URL = srv.URL
	return h
}

// TestCompactionWaitsForFetchInFlight: a fetch from a server that requires
// multi_ack gets a thin pack, whose deltas are made against objects the
// clone holds because a have reached them. While its answer is on its way,
// our own writes delete the branch that have was the head of and push past
// maxPacks packs; the compaction they trigger must not drop the deltas'
// bases, or the fetch fails with nothing wrong on the server.
func TestCompactionWaitsForFetchInFlight(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	p := testenv.NewAzureProxy(t, s.http.URL)
	h := newAnswerHolder(t, p.URL)
	remote := s.remote
	remote.URL = h.URL + "/" + s.repo.Name

	// A large file only branch old reaches (random, so that only a delta
	// against itself makes its modification small).
	raw := make([]byte, 128<<10)
	_, _ = rand.Read(raw)
	big := hex.EncodeToString(raw)
	s.repo.Branch(t, "main", map[string]testenv.CommitSpec{"old": {Message: "big", Files: map[string]string{"data/big.txt": big}}})
	s.repo.CreateBranch(t, "fill", "main")

	r, _ := newRepo(t, remote)
	r.SetCommitWindow(0)
	c := ctx(t)
	if err := r.Refresh(c, 0, "main", "old", "fill"); err != nil {
		t.Fatalf("clone: %v", err)
	}
	if !r.multiACK.Load() {
		t.Fatal("the server's refusal did not make the clone declare multi_ack: the answers are not thin")
	}
	// Our own writes to fill until the clone holds maxPacks packs: the next
	// pack makes a compaction.
	fillToMaxPacks(t, r)

	// Our deletion of old: its fetch first, then its push, held at the
	// proxy until the fetch below chose its haves.
	deleted := deleteHeld(t, h, r, "old")

	// Someone else merges old into main, changing the large file a little
	// (a pull request merged, the branch then deleted): old's head is a
	// parent of the commit wanted and a have, so the server sends the file
	// as a delta against the blob of old's head.
	want := mergeInto(t, s.repo, "main", "old", map[string]string{"data/big.txt": big + "changed\n"})
	p.ResetCounts()
	fetched := refreshHeld(t, h, r)
	// The answer is thin: the changed file comes as a delta, a small
	// fraction of its size, against the blob only old reaches.
	if c := p.Counts(); len(c.PackSizes) != 1 || c.PackSizes[0]*8 > int64(len(big)) {
		t.Fatalf("answers of %v bytes for a %d-byte file changed a little: not a delta against the clone's blob, the test tests nothing", c.PackSizes, len(big))
	}

	// While the answer is held: the deletion lands, and a write past
	// maxPacks packs compacts the clone.
	h.push.open()
	if res := <-deleted; res.Err != nil {
		t.Fatalf("DeleteBranch: %v", res.Err)
	}
	fill(t, r, "last")

	h.fetch.open()
	if err := <-fetched; err != nil {
		t.Fatalf("the fetch in flight during the compaction: %v", err)
	}
	if got := mustHead(t, r, "main"); got != want {
		t.Fatalf("Head(main) = %s, want %s", got, want)
	}
	readWant(t, r, want, "data/big.txt", big+"changed\n")
	// The compaction left for later ran at the fetch's end.
	if n := packCount(t, r); n > maxPacks {
		t.Errorf("%d packs once the fetch ended, want at most %d: the compaction never ran", n, maxPacks)
	}
}

// TestFailedFetchCompacts: a fetch that fails after choosing its haves
// held compaction back while it ran and left it undone: against a server
// whose every fetch fails, our own pushes' packs piled up without bound.
func TestFailedFetchCompacts(t *testing.T) {
	t.Parallel()
	s, h, remote := heldServer(t)
	s.repo.CreateBranch(t, "fill", "main")
	r, _ := newRepo(t, remote)
	r.SetCommitWindow(0)
	c := ctx(t)
	if err := r.Refresh(c, 0, "main", "fill"); err != nil {
		t.Fatalf("clone: %v", err)
	}
	fillToMaxPacks(t, r)

	// Someone else's commit, so the fetch wants one; its answer held,
	// then failed.
	if _, err := s.repo.Commit("main", testenv.CommitSpec{Message: "theirs", Files: map[string]string{"theirs.txt": "theirs"}}); err != nil {
		t.Fatal(err)
	}
	h.failFetch.Store(true)
	fetched := refreshHeld(t, h, r)
	fill(t, r, "past")
	if n := packCount(t, r); n <= maxPacks {
		t.Fatalf("%d packs with a fetch receiving, want more than %d: the test tests nothing", n, maxPacks)
	}
	h.fetch.open()
	if err := <-fetched; err == nil {
		t.Fatal("the fetch answered 500 succeeded")
	}
	if n := receivingOf(r); n != 0 {
		t.Errorf("%d fetches counted as receiving after the failed one ended, want 0", n)
	}
	if n := packCount(t, r); n > maxPacks {
		t.Errorf("%d packs once the failed fetch ended, want at most %d: the compaction it held back never ran", n, maxPacks)
	}
}

// TestCompactionKeepsAHeadNotWanted: a fetch does not want a head the
// clone already holds, and sets the branch's ref to it once its other
// wants arrived. Held only through a branch our own push deleted
// meanwhile, that head went with a compaction in between, and the ref
// named a commit the clone no longer had.
func TestCompactionKeepsAHeadNotWanted(t *testing.T) {
	t.Parallel()
	s, h, remote := heldServer(t)
	heads := s.repo.Branch(t, "main", map[string]testenv.CommitSpec{"y": {Message: "y", Files: map[string]string{"y.txt": "only y\n"}}})
	s.repo.CreateBranch(t, "fill", "main")
	r, _ := newRepo(t, remote)
	r.SetCommitWindow(0)
	if err := r.Refresh(ctx(t), 0, "main", "y", "fill"); err != nil {
		t.Fatalf("clone: %v", err)
	}
	fillToMaxPacks(t, r)

	// Our deletion of y: its fetch first, then its push, held.
	deleted := deleteHeld(t, h, r, "y")
	// Someone else makes x from y and commits to main: the fetch of both
	// wants main's commit, not x's head, which the clone holds through y.
	s.repo.CreateBranch(t, "x", "y")
	if _, err := s.repo.Commit("main", testenv.CommitSpec{Message: "theirs", Files: map[string]string{"theirs.txt": "theirs"}}); err != nil {
		t.Fatal(err)
	}
	fetched := refreshHeld(t, h, r, "main", "x")

	// While its answer is held: y goes, and a write past maxPacks packs
	// compacts the clone.
	h.push.open()
	if res := <-deleted; res.Err != nil {
		t.Fatalf("DeleteBranch: %v", res.Err)
	}
	fill(t, r, "past")
	h.fetch.open()
	if err := <-fetched; err != nil {
		t.Fatalf("the fetch in flight during the compaction: %v", err)
	}
	if got := mustHead(t, r, "x"); got != heads["y"] {
		t.Fatalf("Head(x) = %s, want %s", got, heads["y"])
	}
	readWant(t, r, heads["y"], "y.txt", "only y\n")
}

// heldServer is a Git server on loopback behind an answerHolder, and the
// remote that reaches it through the holder.
func heldServer(t *testing.T) (*server, *answerHolder, Remote) {
	t.Helper()
	s := httpServer(t)
	h := newAnswerHolder(t, s.http.URL)
	remote := s.remote
	remote.URL = h.URL + "/" + s.repo.Name
	return s, h, remote
}

// deleteHeld starts our deletion of branch, whose push h holds, and
// returns once it is held (its fetch done); the Result comes on the
// channel.
func deleteHeld(t *testing.T, h *answerHolder, r *Repository, branch string) <-chan Result {
	t.Helper()
	h.push.armed.Store(true)
	deleted := make(chan Result, 1)
	go func() { deleted <- r.DeleteBranch(ctx(t), branch) }()
	select {
	case <-h.push.arrived:
	case res := <-deleted:
		t.Fatalf("DeleteBranch ended before it pushed: %+v", res)
	}
	return deleted
}

// refreshHeld starts a Refresh of branches (main when none) whose
// upload-pack answer h holds, and returns once it is held; the Refresh's
// error comes on the channel.
func refreshHeld(t *testing.T, h *answerHolder, r *Repository, branches ...string) <-chan error {
	t.Helper()
	if len(branches) == 0 {
		branches = []string{"main"}
	}
	h.fetch.armed.Store(true)
	fetched := make(chan error, 1)
	go func() { fetched <- r.Refresh(ctx(t), 0, branches...) }()
	select {
	case <-h.fetch.arrived:
	case err := <-fetched:
		t.Fatalf("the fetch ended before its answer was held: %v", err)
	}
	return fetched
}

// fill lands our own write of fill/name on branch fill.
func fill(t *testing.T, r *Repository, name string) {
	t.Helper()
	if res := r.Submit(ctx(t), "fill", Change{Puts: map[string]File{"fill/" + name: {Content: []byte(name)}}}); res.Err != nil {
		t.Fatalf("push %s: %v", name, res.Err)
	}
}

// fillToMaxPacks writes to branch fill until the clone holds maxPacks
// packs: the next pack stored makes a compaction.
func fillToMaxPacks(t *testing.T, r *Repository) {
	t.Helper()
	for i := 0; packCount(t, r) != maxPacks; i++ {
		if i > 2*maxPacks {
			t.Fatalf("%d packs after %d pushes, never %d", packCount(t, r), i, maxPacks)
		}
		fill(t, r, fmt.Sprintf("%02d", i))
	}
}

// receivingOf is how many fetches r counts as receiving.
func receivingOf(r *Repository) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.receiving
}

func packCount(t testing.TB, r *Repository) int {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	packs, err := r.st.ObjectPacks()
	if err != nil {
		t.Fatal(err)
	}
	return len(packs)
}

// mergeInto makes a merge commit of branch from into branch into on the
// server, whose tree is from's with files written, and returns it.
func mergeInto(t testing.TB, repo *testenv.BareRepo, into, from string, files map[string]string) string {
	t.Helper()
	repo.CreateBranch(t, "merging", from)
	side, err := repo.Commit("merging", testenv.CommitSpec{Message: "side", Files: files})
	if err != nil {
		t.Fatal(err)
	}
	out, err := testenv.Git(repo.Dir, nil, "commit-tree", side+"^{tree}", "-p", repo.Head(t, into), "-p", repo.Head(t, from), "-m", "merge "+from)
	if err != nil {
		t.Fatal(err)
	}
	merge := strings.TrimSpace(out)
	for _, args := range [][]string{{"update-ref", "refs/heads/" + into, merge}, {"update-ref", "-d", "refs/heads/merging"}} {
		if _, err := testenv.Git(repo.Dir, nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	return merge
}
