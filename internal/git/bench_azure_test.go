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
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Sizes of BenchmarkMultiACKFetch: a GitOps repository of azureFiles
// manifests of about azureFileSize bytes, each commit of its history
// changing one of them, as a bot's do.
const (
	azureFiles    = 200
	azureFileSize = 600
	azureRounds   = 20
)

var azureHistories = []int{100, 1000, 5000}

// BenchmarkMultiACKFetch measures what a fetch that brings one new commit
// downloads from a server that requires multi_ack (a git http-backend behind
// testenv.AzureProxy, answering as Azure DevOps), for histories of several
// lengths: the engine (multi_ack, with haves: negotiate.go) beside `git
// fetch` of the same commit from the same server, each over azureRounds
// fetches after one external commit, and the engine's fetch before it
// negotiated (no haves: a fresh clone's request, the whole history). Bytes
// are the upload-pack responses, counted at the proxy. Run with
// `go test -run '^$' -bench MultiACKFetch -benchtime=1x ./internal/git/`.
func BenchmarkMultiACKFetch(b *testing.B) {
	for range b.N {
		fmt.Printf("\n%-8s %14s %14s %10s %18s %10s %10s\n", "commits", "engine B/fetch", "git B/fetch", "engine÷git", "old (no haves) B", "engine p50", "git p50")
		for _, n := range azureHistories {
			row := multiACKFetchRun(b, n)
			fmt.Printf("%-8d %14d %14d %10.2f %18d %10s %10s\n", n, row.engine, row.git, float64(row.engine)/float64(row.git), row.old,
				row.engineP50.Round(100*time.Microsecond), row.gitP50.Round(100*time.Microsecond))
			b.ReportMetric(float64(row.engine), fmt.Sprintf("engine-bytes/fetch-%d", n))
			b.ReportMetric(float64(row.git), fmt.Sprintf("git-bytes/fetch-%d", n))
			b.ReportMetric(float64(row.old), fmt.Sprintf("old-bytes/fetch-%d", n))
		}
	}
}

type multiACKRow struct {
	engine, git, old  int64 // bytes per fetch
	engineP50, gitP50 time.Duration
}

func multiACKFetchRun(b *testing.B, commits int) multiACKRow {
	root := b.TempDir()
	repo := testenv.NewBareRepo(b, root, "bench.git", nil)
	importHistory(b, repo.Dir, commits)
	h := testenv.NewHTTPServer(b, root, testUser, testToken)
	p := testenv.NewAzureProxy(b, h.URL)
	remote := Remote{URL: p.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}}
	r, _ := newRepo(b, remote)
	if err := r.Refresh(ctx(b), 0, "main"); err != nil {
		b.Fatal(err)
	}
	bare := filepath.Join(b.TempDir(), "git.git")
	if out, err := testenv.Git("", nil, "clone", "--bare", "--quiet", testenv.AuthURL(remote.URL, testUser, testToken), bare); err != nil {
		b.Fatalf("git clone: %v: %s", err, out)
	}
	w, err := repo.NewWriter()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	var row multiACKRow
	var engineTook, gitTook []time.Duration
	for i := range azureRounds {
		want, err := w.Commit("main", testenv.CommitSpec{Files: map[string]string{fmt.Sprintf("apps/f%03d.yaml", i%azureFiles): manifest(commits + i)}})
		if err != nil {
			b.Fatal(err)
		}
		n, took := countFetch(b, p, func() error { return r.Refresh(ctx(b), 0, "main") })
		if got := mustHead(b, r, "main"); got != want {
			b.Fatalf("engine head %s after fetch, want %s", got, want)
		}
		row.engine += n
		engineTook = append(engineTook, took)
		n, took = countFetch(b, p, func() error {
			_, err := testenv.Git(bare, nil, "fetch", "--quiet", "origin", "+refs/heads/main:refs/heads/main")
			return err
		})
		row.git += n
		gitTook = append(gitTook, took)
	}
	// What the engine's fetch sent before it negotiated: wants, no haves,
	// which is a fresh clone's request.
	row.old, _ = countFetch(b, p, func() error {
		fresh, _ := newRepo(b, remote)
		return fresh.Refresh(ctx(b), 0, "main")
	})
	row.engine /= azureRounds
	row.git /= azureRounds
	row.engineP50, row.gitP50 = median(engineTook), median(gitTook)
	return row
}

// countFetch runs fetch and returns the upload-pack bytes the proxy served
// it and its wall time.
func countFetch(b *testing.B, p *testenv.AzureProxy, fetch func() error) (int64, time.Duration) {
	p.ResetCounts()
	start := time.Now()
	if err := fetch(); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	c := p.Counts()
	if c.Refused != 0 && c.UploadPacks == c.Refused {
		b.Fatalf("every upload-pack request was refused: %+v", c)
	}
	return c.PackBytes, took
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
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
func importHistory(b testing.TB, dir string, commits int) {
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
