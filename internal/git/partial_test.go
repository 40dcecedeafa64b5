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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Server configurations of the partial clone tests: git's upload-pack
// serves filter only with uploadpack.allowFilter, and wants of blobs only
// with uploadpack.allowAnySHA1InWant (what GitHub, GitLab and Gitea allow)
// or allowReachableSHA1InWant.
var (
	servesFilter = []string{"uploadpack.allowFilter", "true", "uploadpack.allowAnySHA1InWant", "true"}
	// servesFilterReachable allows wants of objects the refs reach only:
	// enough for blobs.
	servesFilterReachable = []string{"uploadpack.allowFilter", "true", "uploadpack.allowReachableSHA1InWant", "true"}
	refusesFilter         = []string(nil)
	// filterTipsOnly serves filter but no wants beyond the refs' tips: a
	// clone without blobs could never read one, so it is cloned whole.
	filterTipsOnly = []string{"uploadpack.allowFilter", "true"}
)

// partialSeed has paths resources read (apps/) and one none does.
func partialSeed() map[string][]testenv.CommitSpec {
	return map[string][]testenv.CommitSpec{
		"main": {
			{Message: "seed", Files: map[string]string{"apps/a.yaml": "a: 1\n", "apps/b.yaml": "b: 1\n", "unused/big.txt": "nobody reads this\n"}},
			{Message: "second", Files: map[string]string{"mirror/x.yaml": "x: 1\n"}},
		},
	}
}

// partialServer is a smart-HTTP server whose repository has config set.
func partialServer(t *testing.T, config []string) *server {
	t.Helper()
	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "repo.git", partialSeed())
	for i := 0; i+1 < len(config); i += 2 {
		if _, err := testenv.Git(repo.Dir, nil, "config", config[i], config[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	s := testenv.NewHTTPServer(t, root, testUser, testToken)
	return &server{name: "HTTP", root: root, repo: repo, http: s,
		remote: Remote{URL: s.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}}}
}

// holds reports whether the clone's object store holds the object sha.
func holds(r *Repository, sha string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hasLocked(plumbing.NewHash(sha))
}

// uploadPacks is how many upload-pack requests (fetches of objects, not
// advertisements) the server answered.
func uploadPacks(s *server) int64 { return s.http.ReadsOf(s.repo.Name).Fetches }

func TestPartialCloneReads(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason  string
		config  []string
		partial bool
	}{
		"ServesFilter": {
			reason: "A server that serves filter gets a clone without blobs; reads fetch theirs, in batches, once.",
			config: servesFilter, partial: true,
		},
		"ServesFilterReachable": {
			reason: "A server that allows wants of reachable objects serves the blobs a partial clone reads.",
			config: servesFilterReachable, partial: true,
		},
		"RefusesFilter": {
			reason: "A server without filter gets today's full clone: every read is local.",
			config: refusesFilter,
		},
		"FilterTipsOnly": {
			reason: "A server that filters but refuses wants of blobs gets a full clone: a partial one could never read.",
			config: filterTipsOnly,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := partialServer(t, tc.config)
			dir := t.TempDir()
			m, reg := NewMetrics(), prometheus.NewRegistry()
			if err := m.Register(reg); err != nil {
				t.Fatal(err)
			}
			c, err := NewCache(dir, WithMetrics(m))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r, err := c.Repository(s.remote)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			if r.Partial() != tc.partial {
				t.Fatalf("%s\nPartial() = %v, want %v", tc.reason, r.Partial(), tc.partial)
			}
			unused, a, b := hashObject(t, "nobody reads this\n"), hashObject(t, "a: 1\n"), hashObject(t, "b: 1\n")
			if holds(r, unused) == tc.partial || holds(r, a) == tc.partial {
				t.Errorf("%s\nafter the first fetch: holds unused blob %v, read blob %v; want %v", tc.reason, holds(r, unused), holds(r, a), !tc.partial)
			}
			head, _ := r.Head("main")
			before := uploadPacks(s)
			read := func(p, want string) {
				t.Helper()
				got, err := r.ReadFile(ctx(t), head, p)
				if err != nil || string(got.Content) != want {
					t.Fatalf("%s\nReadFile(%s) = %q, %v; want %q", tc.reason, p, got.Content, err, want)
				}
			}
			read("apps/a.yaml", "a: 1\n")
			read("apps/a.yaml", "a: 1\n")
			read("apps/b.yaml", "b: 1\n")
			wantFetches := int64(0)
			if tc.partial {
				wantFetches = 2 // a, then b: each read first alone
			}
			if got := uploadPacks(s) - before; got != wantFetches {
				t.Errorf("%s\nthree reads of two files: %d upload-pack requests, want %d (a read again is local)", tc.reason, got, wantFetches)
			}
			if !holds(r, a) || !holds(r, b) || holds(r, unused) == tc.partial {
				t.Errorf("%s\nafter the reads: holds a %v, b %v, unused %v", tc.reason, holds(r, a), holds(r, b), holds(r, unused))
			}

			// Someone changes both read files and the unused one: the first
			// read at the new head brings both new blobs in one request.
			if _, err := s.repo.Commit("main", testenv.CommitSpec{Files: map[string]string{
				"apps/a.yaml": "a: 2\n", "apps/b.yaml": "b: 2\n", "unused/big.txt": "still nobody\n",
			}}); err != nil {
				t.Fatal(err)
			}
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			head, _ = r.Head("main")
			before = uploadPacks(s)
			read("apps/b.yaml", "b: 2\n")
			read("apps/a.yaml", "a: 2\n")
			if tc.partial {
				wantFetches = 1
			}
			if got := uploadPacks(s) - before; got != wantFetches {
				t.Errorf("%s\ntwo reads after a head move: %d upload-pack requests, want %d", tc.reason, got, wantFetches)
			}
			if got := holds(r, hashObject(t, "still nobody\n")); got == tc.partial {
				t.Errorf("%s\nthe unused path's new blob: held %v, want %v", tc.reason, got, !tc.partial)
			}
			// Three requests (a; b; a and b again), for four blobs.
			var wantRequests, wantBlobs float64
			if tc.partial {
				wantRequests, wantBlobs = 3, 4
			}
			if got := counterOf(t, reg, "provider_git_blob_fetches_total", "success"); got != wantRequests {
				t.Errorf("%s\nprovider_git_blob_fetches_total{result=success} = %v, want %v", tc.reason, got, wantRequests)
			}
			if got := counterOf(t, reg, "provider_git_blobs_fetched_total", ""); got != wantBlobs {
				t.Errorf("%s\nprovider_git_blobs_fetched_total = %v, want %v", tc.reason, got, wantBlobs)
			}

			// A restarted provider reopens the clone: still partial, and
			// what it fetched is still there.
			c.Close()
			c2, err := NewCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			r2, err := c2.Repository(s.remote)
			if err != nil {
				t.Fatal(err)
			}
			if r2.Partial() != tc.partial {
				t.Errorf("%s\nreopened: Partial() = %v, want %v", tc.reason, r2.Partial(), tc.partial)
			}
			before = uploadPacks(s)
			if got, err := r2.ReadFile(ctx(t), head, "apps/a.yaml"); err != nil || string(got.Content) != "a: 2\n" {
				t.Errorf("%s\nreopened: ReadFile = %q, %v", tc.reason, got.Content, err)
			}
			if got := uploadPacks(s) - before; got != 0 {
				t.Errorf("%s\nreopened: a blob fetched before was fetched again (%d requests)", tc.reason, got)
			}
		})
	}
}

// TestPartialCloneWrites lands every write path on a clone whose remote
// moved since it last fetched, so each is rebuilt on the new head and
// pushed again: File (a put), CommitRequest (a commit of its own), Mirror
// (a folder written on expectations), Branch (created from a branch).
// Nothing may be lost or forced, and no write may fetch a blob.
func TestPartialCloneWrites(t *testing.T) {
	t.Parallel()
	for name, config := range map[string][]string{"ServesFilter": servesFilter, "RefusesFilter": refusesFilter} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			partial := name == "ServesFilter"
			s := partialServer(t, config)
			m, reg := NewMetrics(), prometheus.NewRegistry()
			if err := m.Register(reg); err != nil {
				t.Fatal(err)
			}
			r, _ := newRepo(t, s.remote, WithCommitWindow(time.Millisecond), WithMetrics(m))
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			if r.Partial() != partial {
				t.Fatalf("Partial() = %v, want %v", r.Partial(), partial)
			}
			unused := hashObject(t, "nobody reads this\n")
			before := uploadPacks(s)
			writes := []struct {
				what  string
				write func() Result
			}{
				{"File", func() Result {
					return r.Submit(ctx(t), "main", Change{Puts: map[string]File{"apps/a.yaml": {Content: []byte("a: file\n")}}, Message: "file"})
				}},
				{"CommitRequest", func() Result {
					return r.Submit(ctx(t), "main", Change{OwnCommit: true, Message: "request",
						Puts: map[string]File{"apps/new.yaml": {Content: []byte("new: 1\n")}}, Deletes: []string{"apps/b.yaml"}})
				}},
				{"Mirror", func() Result {
					x := hashObject(t, "x: 1\n")
					return r.Submit(ctx(t), "main", Change{Message: "mirror",
						Puts:   map[string]File{"mirror/x.yaml": {Content: []byte("x: 2\n")}, "mirror/y.yaml": {Content: []byte("y: 1\n")}},
						Expect: map[string]string{"mirror/x.yaml": x, "mirror/y.yaml": ""}})
				}},
				{"Branch", func() Result { return r.CreateBranch(ctx(t), "feature", "main") }},
			}
			var external []string
			for _, w := range writes {
				// The remote moves under the clone before every write.
				p := "ext/" + strings.ToLower(w.what)
				if _, err := s.repo.Commit("main", testenv.CommitSpec{Message: "external", Files: map[string]string{p: p}}); err != nil {
					t.Fatal(err)
				}
				external = append(external, p)
				if res := w.write(); res.Err != nil {
					t.Fatalf("%s on a moved remote: %v", w.what, res.Err)
				}
			}
			files := s.repo.Files(t, "main")
			want := map[string]string{"apps/a.yaml": "a: file\n", "apps/new.yaml": "new: 1\n", "mirror/x.yaml": "x: 2\n", "mirror/y.yaml": "y: 1\n", "unused/big.txt": "nobody reads this\n"}
			for _, p := range external {
				want[p] = p
			}
			for p, content := range want {
				if files[p] != content {
					t.Errorf("%s on the server: %q, want %q (lost?)", p, files[p], content)
				}
			}
			if _, ok := files["apps/b.yaml"]; ok {
				t.Error("apps/b.yaml: the CommitRequest's delete was lost")
			}
			if got, want := s.repo.Head(t, "feature"), s.repo.Head(t, "main"); got != want {
				t.Errorf("feature at %s, want main's head %s", got, want)
			}
			for _, u := range s.repo.Reflog(t, "main") {
				if u.Old != strings.Repeat("0", 40) && !s.repo.IsAncestor(t, u.Old, u.New) {
					t.Errorf("main moved %s -> %s without fast-forward", u.Old[:7], u.New[:7])
				}
			}
			if partial && holds(r, unused) {
				t.Errorf("the clone holds the unused path's blob after the writes (%d upload-pack requests)", uploadPacks(s)-before)
			}
			if got := counterOf(t, reg, "provider_git_blob_fetches_total", ""); got != 0 {
				t.Errorf("the writes and their rebases fetched blobs: %v requests, want 0", got)
			}
			// What the writes pushed is held: reading it back is local.
			head, _ := r.Head("main")
			before = uploadPacks(s)
			for _, p := range []string{"apps/a.yaml", "mirror/y.yaml"} {
				if got, err := r.ReadFile(ctx(t), head, p); err != nil || string(got.Content) != want[p] {
					t.Errorf("ReadFile(%s) = %q, %v; want %q", p, got.Content, err, want[p])
				}
			}
			if got := uploadPacks(s) - before; got != 0 {
				t.Errorf("reading back what the engine pushed: %d upload-pack requests, want 0", got)
			}
		})
	}
}

// TestExternalWriterRacePartial is TestExternalWriterRace on a partial
// clone: engine writers lose placed races to an external writer, rebase on
// the moved head and push again; nothing is lost, nothing forced.
func TestExternalWriterRacePartial(t *testing.T) {
	t.Parallel()
	s := partialServer(t, servesFilter)
	externalWriterRace(t, s)
}

// TestAzureDevOpsIsNotPartial: Azure DevOps advertises filter, but over
// the protocol go-git v5 speaks no want beyond a ref's tip
// (allow-tip-sha1-in-want only): a partial clone could never fetch a blob,
// so it is cloned whole.
func TestAzureDevOpsIsNotPartial(t *testing.T) {
	t.Parallel()
	s, _ := azureServer(t)
	r, _ := newRepo(t, s.remote)
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	if r.Partial() {
		t.Error("a clone from Azure DevOps is partial: its reads could never fetch a blob")
	}
}

// TestFullCloneStaysFull: a clone that began full holds every blob, and
// keeps fetching them when its server starts serving filter: a later read
// never waits on the network.
func TestFullCloneStaysFull(t *testing.T) {
	t.Parallel()
	s := partialServer(t, refusesFilter)
	r, _ := newRepo(t, s.remote)
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(servesFilter); i += 2 {
		if _, err := testenv.Git(s.repo.Dir, nil, "config", servesFilter[i], servesFilter[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.repo.Commit("main", testenv.CommitSpec{Files: map[string]string{"later.txt": "later\n"}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	if r.Partial() || !holds(r, hashObject(t, "later\n")) {
		t.Errorf("a full clone after its server began to serve filter: Partial() = %v, holds the new blob %v; want false, true",
			r.Partial(), holds(r, hashObject(t, "later\n")))
	}
}

// TestPartialCloneConcurrentReads: reads that miss at once share requests.
// Once the paths were read, the first miss after a head move asks for all
// of their new blobs; a read that missed before that request was queued
// joins the next one. However the reads interleave, that is at most two
// requests for twenty reads.
func TestPartialCloneConcurrentReads(t *testing.T) {
	t.Parallel()
	s := partialServer(t, servesFilter)
	r, _ := newRepo(t, s.remote)
	const n = 20
	write := func(v int) {
		t.Helper()
		files := map[string]string{}
		for i := range n {
			files[fmt.Sprintf("many/f%02d.yaml", i)] = fmt.Sprintf("f%02d: %d\n", i, v)
		}
		if _, err := s.repo.Commit("main", testenv.CommitSpec{Files: files}); err != nil {
			t.Fatal(err)
		}
		if err := r.Refresh(ctx(t), 0, "main"); err != nil {
			t.Fatal(err)
		}
	}
	readAll := func(v int) {
		t.Helper()
		head, _ := r.Head("main")
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, want := fmt.Sprintf("many/f%02d.yaml", i), fmt.Sprintf("f%02d: %d\n", i, v)
				if got, err := r.ReadFile(ctx(t), head, p); err != nil || string(got.Content) != want {
					t.Errorf("ReadFile(%s) = %q, %v; want %q", p, got.Content, err, want)
				}
			}()
		}
		wg.Wait()
	}
	write(1)
	if !r.Partial() {
		t.Fatal("the clone is not partial")
	}
	readAll(1)
	write(2)
	before := uploadPacks(s)
	readAll(2)
	if got := uploadPacks(s) - before; got < 1 || got > 2 {
		t.Errorf("%d concurrent reads after a head move: %d upload-pack requests, want 1 or 2", n, got)
	}
}
