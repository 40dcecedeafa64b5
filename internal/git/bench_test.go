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
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Benchmark sizes. The naive baseline costs a clone and a push per change
// (~0.1–0.3 s each here, so about two minutes for all of them); it runs the
// same 1,000 changes as the engine, measured rather than extrapolated.
const (
	benchChanges = 1000
	naiveChanges = benchChanges
	benchReaders = 1000
	seedFiles    = 1000
	pollInterval = time.Minute
)

type benchRow struct {
	name            string
	changes         int
	wall            time.Duration
	pushes, fetches int64
}

// BenchmarkEngineVsNaive measures, side by side against one local smart-HTTP
// server: (a) benchChanges file changes on one branch through the engine,
// (b) the naive baseline (fresh clone, commit, push per change), and (c)
// benchReaders readers refreshing within one poll interval. Run with
// `go test -run '^$' -bench . ./internal/git/`; it prints a table.
func BenchmarkEngineVsNaive(b *testing.B) {
	for range b.N {
		rows := []benchRow{engineRun(b), naiveRun(b)}
		readers := readersRun(b)
		printTable(rows, readers)
		b.ReportMetric(float64(rows[0].pushes), "engine-pushes")
		b.ReportMetric(float64(rows[0].fetches), "engine-fetches")
		b.ReportMetric(float64(readers.fetches), "reader-fetches")
		b.ReportMetric(rows[1].perChange().Seconds()/rows[0].perChange().Seconds(), "speedup")
	}
}

func (r benchRow) perChange() time.Duration { return r.wall / time.Duration(r.changes) }

func benchServer(b *testing.B) *server {
	b.Helper()
	root := b.TempDir()
	files := make(map[string]string, seedFiles)
	for i := range seedFiles {
		files[fmt.Sprintf("seed/d%02d/f%04d.yaml", i%20, i)] = fmt.Sprintf("seed: %d\n", i)
	}
	repo := testenv.NewBareRepo(b, root, "bench.git", map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: files}}})
	s := testenv.NewHTTPServer(b, root, testUser, testToken)
	return &server{name: "HTTP", root: root, repo: repo, http: s,
		remote: Remote{URL: s.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}}}
}

func benchCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Minute)
}

// engineRun submits benchChanges changes concurrently, as benchChanges
// resources reconciling at once would, with the default commit window.
func engineRun(b *testing.B) benchRow {
	s := benchServer(b)
	c, err := NewCache(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	r, err := c.Repository(s.remote)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := benchCtx()
	defer cancel()
	s.http.ResetCounts()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, benchChanges)
	for i := range benchChanges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := fmt.Sprintf("apps/f%04d.yaml", i)
			res := r.Submit(ctx, "main", Change{Puts: map[string]File{p: {Content: []byte(fmt.Sprintf("v: %d\n", i))}},
				Message: "set " + p, Resource: Resource{Kind: "File", Namespace: "bench", Name: p, UID: p}})
			errs <- res.Err
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	if got := len(s.repo.Files(b, "main")); got != seedFiles+benchChanges {
		b.Fatalf("engine: server holds %d files, want %d", got, seedFiles+benchChanges)
	}
	cnt := s.http.Counts()
	return benchRow{name: "engine (1 cache, batched)", changes: benchChanges, wall: wall, pushes: cnt.ReceivePackPosts, fetches: cnt.UploadPackAdverts}
}

// naiveRun is the baseline: per change a fresh in-memory clone, a worktree
// commit and a push, one after another, so no push is ever rejected:
// concurrent naive writers would only add non-fast-forward retries.
func naiveRun(b *testing.B) benchRow {
	s := benchServer(b)
	ctx, cancel := benchCtx()
	defer cancel()
	auth := &githttp.BasicAuth{Username: testUser, Password: testToken}
	s.http.ResetCounts()
	start := time.Now()
	for i := range naiveChanges {
		fs := memfs.New()
		repo, err := gogit.CloneContext(ctx, memory.NewStorage(), fs, &gogit.CloneOptions{
			URL: s.remote.URL, Auth: auth, ReferenceName: plumbing.NewBranchReferenceName("main"), SingleBranch: true,
		})
		if err != nil {
			b.Fatal(err)
		}
		wt, err := repo.Worktree()
		if err != nil {
			b.Fatal(err)
		}
		p := fmt.Sprintf("apps/f%04d.yaml", i)
		if err := util.WriteFile(fs, p, []byte(fmt.Sprintf("v: %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := wt.Add(p); err != nil {
			b.Fatal(err)
		}
		sig := &object.Signature{Name: "naive", Email: "naive@example.com", When: time.Now()}
		if _, err := wt.Commit("set "+p, &gogit.CommitOptions{Author: sig}); err != nil {
			b.Fatal(err)
		}
		if err := repo.PushContext(ctx, &gogit.PushOptions{Auth: auth}); err != nil {
			b.Fatal(err)
		}
	}
	wall := time.Since(start)
	if got := len(s.repo.Files(b, "main")); got != seedFiles+naiveChanges {
		b.Fatalf("naive: server holds %d files, want %d", got, seedFiles+naiveChanges)
	}
	cnt := s.http.Counts()
	return benchRow{name: "naive (clone+commit+push each)", changes: naiveChanges, wall: wall,
		pushes: cnt.ReceivePackPosts, fetches: cnt.UploadPackAdverts}
}

type readersResult struct {
	wall    time.Duration
	fetches int64
}

// readersRun starts benchReaders readers spread over one second, each doing
// what a resource's Observe does: Refresh with the poll interval as maxAge,
// then read its file.
func readersRun(b *testing.B) readersResult {
	s := benchServer(b)
	c, err := NewCache(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	r, err := c.Repository(s.remote)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := benchCtx()
	defer cancel()
	s.http.ResetCounts()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range benchReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * time.Second / benchReaders)
			if err := r.Refresh(ctx, pollInterval, "main"); err != nil {
				b.Error(err)
				return
			}
			h, err := r.Head("main")
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := r.ReadFile(ctx, h, fmt.Sprintf("seed/d%02d/f%04d.yaml", i%20, i%seedFiles)); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	return readersResult{wall: time.Since(start), fetches: s.http.Counts().UploadPackAdverts}
}

func printTable(rows []benchRow, rd readersResult) {
	eng, naive := rows[0], rows[1]
	naiveFull := naive.perChange() * benchChanges
	w := os.Stdout
	fmt.Fprintf(w, "\nprovider-git engine vs naive, %d file changes on one branch, local smart-HTTP server, seed %d files\n\n", benchChanges, seedFiles)
	fmt.Fprintf(w, "| %-44s | %12s | %10s | %7s | %7s |\n", "how", "wall", "per change", "pushes", "fetches")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|\n", dashes(46), dashes(14), dashes(12), dashes(9), dashes(9))
	fmt.Fprintf(w, "| %-44s | %12s | %10s | %7d | %7d |\n", fmt.Sprintf("%s, %d changes", eng.name, eng.changes),
		eng.wall.Round(time.Millisecond), eng.perChange().Round(time.Microsecond), eng.pushes, eng.fetches)
	fmt.Fprintf(w, "| %-44s | %12s | %10s | %7d | %7d |\n", fmt.Sprintf("%s, %d changes (measured)", "naive", naive.changes),
		naive.wall.Round(time.Millisecond), naive.perChange().Round(time.Microsecond), naive.pushes, naive.fetches)
	if naive.changes != benchChanges {
		fmt.Fprintf(w, "| %-44s | %12s | %10s | %7d | %7d |\n", fmt.Sprintf("naive, %d changes (extrapolated x%d)", benchChanges, benchChanges/naive.changes),
			naiveFull.Round(time.Second), naive.perChange().Round(time.Microsecond), naive.pushes*benchChanges/int64(naive.changes), naive.fetches*benchChanges/int64(naive.changes))
	}
	fmt.Fprintf(w, "\nspeed-up (naive / engine, per change): %.0fx\n", naive.perChange().Seconds()/eng.perChange().Seconds())
	fmt.Fprintf(w, "%d readers refreshing within one poll interval (%s), spread over 1 s: %d fetch(es), %s wall\n\n",
		benchReaders, pollInterval, rd.fetches, rd.wall.Round(time.Millisecond))
}

func dashes(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '-'
	}
	return string(b)
}
