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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Sizes of BenchmarkAzureFullFetch: a GitOps repository of azureFiles
// manifests of about azureFileSize bytes, each commit of its history
// changing one of them, as a bot's do.
const (
	azureFiles    = 200
	azureFileSize = 600
	azureRounds   = 20
)

var azureHistories = []int{100, 1000, 5000}

// BenchmarkAzureFullFetch measures what a fetch that brings one new commit
// costs from a server that requires multi_ack (the engine sends no haves, so
// the server packs everything reachable from the branch) against the same
// server answering as a plain Git server (haves: only the new objects), for
// histories of several lengths: bytes downloaded and wall time per fetch,
// over azureRounds fetches each after one external commit, the pack
// compaction they cause included. Run with
// `go test -run '^$' -bench AzureFullFetch -benchtime=1x ./internal/git/`.
func BenchmarkAzureFullFetch(b *testing.B) {
	for range b.N {
		fmt.Printf("\n%-8s %-12s %14s %12s %12s %12s\n", "commits", "fetch", "bytes/fetch", "p50", "p99", "clone dir")
		for _, n := range azureHistories {
			for _, full := range []bool{false, true} {
				row := azureFetchRun(b, n, full)
				fmt.Printf("%-8d %-12s %14d %12s %12s %12s\n", n, row.mode, row.bytes, row.p50.Round(100*time.Microsecond),
					row.p99.Round(100*time.Microsecond), fmt.Sprintf("%.1f MiB", float64(row.disk)/(1<<20)))
				b.ReportMetric(float64(row.bytes), fmt.Sprintf("bytes/fetch-%s-%d", row.mode, n))
			}
		}
	}
}

type azureRow struct {
	mode     string
	bytes    int64
	p50, p99 time.Duration
	disk     int64
}

func azureFetchRun(b *testing.B, commits int, full bool) azureRow {
	root := b.TempDir()
	repo := testenv.NewBareRepo(b, root, "bench.git", nil)
	importHistory(b, repo.Dir, commits)
	h := testenv.NewHTTPServer(b, root, testUser, testToken)
	p := testenv.NewAzureProxy(b, h.URL)
	p.SetPassthrough(!full)
	r, c := newRepo(b, Remote{URL: p.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}})
	if err := r.Refresh(ctx(b), 0, "main"); err != nil {
		b.Fatal(err)
	}
	w, err := repo.NewWriter()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	p.ResetCounts()
	took := make([]time.Duration, 0, azureRounds)
	for i := range azureRounds {
		want, err := w.Commit("main", testenv.CommitSpec{Files: map[string]string{fmt.Sprintf("apps/f%03d.yaml", i%azureFiles): manifest(commits + i)}})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := r.Refresh(ctx(b), 0, "main"); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		if got := mustHead(b, r, "main"); got != want {
			b.Fatalf("head %s after fetch, want %s", got, want)
		}
	}
	cnt := p.Counts()
	if full != (cnt.Haves == 0) {
		b.Fatalf("full=%v but the fetches sent %d haves", full, cnt.Haves)
	}
	slices.Sort(took)
	mode := "incremental"
	if full {
		mode = "full"
	}
	return azureRow{mode: mode, bytes: cnt.PackBytes / azureRounds, p50: took[len(took)/2], p99: took[len(took)*99/100], disk: dirSize(b, c.dir)}
}

// manifest is a Deployment-like YAML file of about azureFileSize bytes whose
// content depends on v.
func manifest(v int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n  annotations:\n    revision: \"%d\"\nspec:\n  replicas: %d\n", v, v%7+1)
	for s.Len() < azureFileSize {
		fmt.Fprintf(&s, "  # padding %d\n", s.Len())
	}
	return s.String()
}

// importHistory writes commits commits on main into the bare repository at
// dir with git fast-import: the first adds every file, each later one
// changes one.
func importHistory(b *testing.B, dir string, commits int) {
	b.Helper()
	var s strings.Builder
	data := func(v string) { fmt.Fprintf(&s, "data %d\n%s\n", len(v), v) }
	for i := range commits {
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\n", i+1, 1700000000+i)
		data(fmt.Sprintf("commit %d", i))
		if i > 0 {
			fmt.Fprintf(&s, "from :%d\n", i)
		}
		files := []int{i % azureFiles}
		if i == 0 {
			files = make([]int, azureFiles)
			for f := range files {
				files[f] = f
			}
		}
		for _, f := range files {
			fmt.Fprintf(&s, "M 100644 inline apps/f%03d.yaml\n", f)
			data(manifest(i))
		}
	}
	cmd := exec.CommandContext(ctx(b), "git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(s.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v: %s", err, out)
	}
	// As a forge's repository would be: packed, with deltas.
	if _, err := testenv.Git(dir, nil, "gc", "--quiet"); err != nil {
		b.Fatal(err)
	}
}

func dirSize(b *testing.B, dir string) int64 {
	b.Helper()
	var n int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}
