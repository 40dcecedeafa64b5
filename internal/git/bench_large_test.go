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
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// The large repository: a GitOps monorepo grown for years.
const (
	largeFiles   = 20000
	largeCommits = 5000
	// largeChurn is how many files each commit after the first changes.
	largeChurn = 4
)

// largeChildEnv makes the test binary, run again, do one measured clone in
// a process of its own, so its peak RSS is its own.
const largeChildEnv = "PROVIDER_GIT_LARGE_CHILD"

type largeResult struct {
	Wall     time.Duration
	RSSKiB   int64 // peak RSS of the process or of its largest child (git's index-pack)
	DiskKiB  int64 // allocated blocks of the whole directory
	GitDirKB int64 // allocated blocks of the Git data alone (no worktree)
}

// BenchmarkLargeRepository measures what the engine's clone of a repository
// with largeFiles files and largeCommits commits costs on the way to a
// resource's first Ready (open, refresh of the branch, one read), against
// `git clone --bare` and `git clone --depth=1` of it, each in its own process.
// Run with `go test -run '^$' -bench LargeRepository ./internal/git/`.
func BenchmarkLargeRepository(b *testing.B) {
	root := b.TempDir()
	dir := largeRepo(b, root)
	s := testenv.NewHTTPServer(b, root, testUser, testToken)
	url := s.RepoURL(filepath.Base(dir))
	for range b.N {
		rows := []struct {
			name string
			mode string
		}{
			{"provider-git engine (open + refresh + read)", "engine"},
			{"git clone --bare", "bare"},
			{"git clone --depth=1", "depth1"},
		}
		results := make([]largeResult, len(rows))
		for i, row := range rows {
			results[i] = runLargeChild(b, row.mode, url)
		}
		w := os.Stdout
		fmt.Fprintf(w, "\nlarge repository: %d files, %d commits, local smart-HTTP server\n\n", largeFiles, largeCommits)
		fmt.Fprintf(w, "| %-44s | %9s | %9s | %12s | %14s |\n", "how", "wall", "peak RSS", "disk (total)", "disk (Git data)")
		fmt.Fprintf(w, "|%s|%s|%s|%s|%s|\n", dashes(46), dashes(11), dashes(11), dashes(14), dashes(16))
		for i, row := range rows {
			r := results[i]
			fmt.Fprintf(w, "| %-44s | %9s | %6d MiB | %8.1f MiB | %10.1f MiB |\n", row.name, r.Wall.Round(time.Millisecond),
				r.RSSKiB/1024, float64(r.DiskKiB)/1024, float64(r.GitDirKB)/1024)
		}
		eng, depth1 := results[0], results[2]
		fmt.Fprintf(w, "\nengine disk / --depth=1 Git data: %.2fx; / --depth=1 total: %.2fx\n\n",
			float64(eng.DiskKiB)/float64(depth1.GitDirKB), float64(eng.DiskKiB)/float64(depth1.DiskKiB))
		b.ReportMetric(eng.Wall.Seconds(), "engine-s")
		b.ReportMetric(float64(eng.RSSKiB)/1024, "engine-MiB-RSS")
		b.ReportMetric(float64(eng.DiskKiB)/float64(depth1.GitDirKB), "disk-vs-depth1")
	}
}

// largeRepo writes the repository with git fast-import and packs it as a
// forge would (git gc), and returns its directory.
func largeRepo(b *testing.B, root string) string {
	b.Helper()
	dir := filepath.Join(root, "large.git")
	var stream bytes.Buffer
	content := func(i, v int) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-%05d\n  namespace: team-%03d\ndata:\n  version: \"%d\"\n  owner: team-%03d\n", i, i%200, v, i%200)
	}
	inline := func(path, data string) {
		fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", path, len(data), data)
	}
	pathOf := func(i int) string { return fmt.Sprintf("apps/team-%03d/app-%05d.yaml", i%200, i) }
	for c := range largeCommits {
		msg := fmt.Sprintf("change %d", c)
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter Seed <seed@example.org> %d +0000\ndata %d\n%s\n", 1700000000+c*60, len(msg), msg)
		if c == 0 {
			for i := range largeFiles {
				inline(pathOf(i), content(i, 0))
			}
			continue
		}
		for k := range largeChurn {
			i := (c*7919 + k*104729) % largeFiles
			inline(pathOf(i), content(i, c))
		}
	}
	for _, args := range [][]string{{"init", "-q", "--bare", "-b", "main", dir}} {
		if _, err := testenv.Git(root, nil, args...); err != nil {
			b.Fatal(err)
		}
	}
	cmd := exec.CommandContext(context.Background(), "git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = dir, &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v: %s", err, out)
	}
	if _, err := testenv.Git(dir, nil, "gc", "-q"); err != nil {
		b.Fatal(err)
	}
	return dir
}

func runLargeChild(b *testing.B, mode, url string) largeResult {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), exe, "-test.run=^TestLargeRepositoryChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), largeChildEnv+"="+mode, "LARGE_URL="+url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v: %s", mode, err, out)
	}
	var res largeResult
	for _, line := range strings.Split(string(out), "\n") {
		if j, ok := strings.CutPrefix(line, "RESULT "); ok {
			if err := json.Unmarshal([]byte(j), &res); err != nil {
				b.Fatal(err)
			}
			return res
		}
	}
	b.Fatalf("%s: no result in %s", mode, out)
	return res
}

// TestLargeRepositoryChild is BenchmarkLargeRepository's measured process;
// it does nothing when run on its own.
func TestLargeRepositoryChild(t *testing.T) {
	mode := os.Getenv(largeChildEnv)
	if mode == "" {
		t.Skip("runs only as BenchmarkLargeRepository's child")
	}
	url, work := os.Getenv("LARGE_URL"), t.TempDir()
	dest := filepath.Join(work, "clone")
	start := time.Now()
	gitDir := dest
	switch mode {
	case "engine":
		c, err := NewCache(dest)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Repository(Remote{URL: url, Auth: &BasicAuth{Username: testUser, Password: testToken}})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Refresh(ctx(t), 0, "main"); err != nil {
			t.Fatal(err)
		}
		h, err := r.Head("main")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.ReadFile(h, "apps/team-000/app-00000.yaml"); err != nil {
			t.Fatal(err)
		}
		c.Close()
	case "bare", "depth1":
		args := []string{"clone", "-q", "--bare", testenv.AuthURL(url, testUser, testToken), dest}
		if mode == "depth1" {
			args = []string{"clone", "-q", "--depth=1", testenv.AuthURL(url, testUser, testToken), dest}
			gitDir = filepath.Join(dest, ".git")
		}
		if _, err := testenv.Git(work, nil, args...); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	res := largeResult{Wall: time.Since(start), DiskKiB: diskKiB(t, dest), GitDirKB: diskKiB(t, gitDir)}
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	res.RSSKiB = max(self.Maxrss, children.Maxrss)
	if mode != "engine" {
		// The test binary itself is not the clone: only git's processes count.
		res.RSSKiB = children.Maxrss
	}
	j, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("RESULT " + string(j))
}

// diskKiB sums the blocks allocated to the files under dir.
func diskKiB(t *testing.T, dir string) int64 {
	t.Helper()
	var blocks int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			blocks += st.Blocks
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return blocks * 512 / 1024
}
