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
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
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

// largeProfileEnv, set to a directory, makes the engine's measured process
// write engine.cpu and engine.mem (its heap once the file is read) there:
// where its time and memory go. Profiling slows it: its figures are not
// the benchmark's then.
const largeProfileEnv = "PROVIDER_GIT_LARGE_PROFILE"

// largeRounds is how many times each way is measured, alternately, so a
// load from elsewhere on a shared machine falls on all of them alike; the
// table gives the medians.
const largeRounds = 3

type largeResult struct {
	// Wall is from the process's start to its exit, the engine's and git's
	// alike.
	Wall time.Duration
	// RSSKiB is the peak RSS of the process that cloned, the engine's or
	// git's, measured alike (timed).
	RSSKiB int64
	// BaseKiB is the engine's process's RSS before it opened the clone:
	// the runtime and the engine's code, part of RSSKiB.
	BaseKiB int64
	// Bound is set when RSSKiB is only an upper bound (timed).
	Bound    bool
	DiskKiB  int64 // allocated blocks of the whole directory
	GitDirKB int64 // allocated blocks of the Git data alone (no worktree)
}

// BenchmarkLargeRepository measures what the engine's clone of a repository
// with largeFiles files and largeCommits commits costs on the way to a
// resource's first Ready (open, refresh of the branch, one read), against
// `git clone --bare` and `git clone --depth=1` of it, each in its own process
// (the engine's testdata/cmd/firstopen), measured alike (runLarge),
// largeRounds times alternately. Run with
// `go test -run '^$' -bench LargeRepository ./internal/git/`.
func BenchmarkLargeRepository(b *testing.B) {
	root := b.TempDir()
	dir := largeRepo(b, root)
	s := testenv.NewHTTPServer(b, root, testUser, testToken)
	url := s.RepoURL(filepath.Base(dir))
	prog := buildFirstOpen(b)
	rows := []struct {
		name string
		mode string
	}{
		{"provider-git engine (open + refresh + read)", "engine"},
		{"git clone --bare", "bare"},
		{"git clone --depth=1", "depth1"},
	}
	for range b.N {
		results := alternateMedians(len(rows), func(i int) largeResult { return runLarge(b, prog, rows[i].mode, url) })
		printLarge(os.Stdout, rows[0].name, rows[1].name, rows[2].name, results)
		eng, bare, depth1 := results[0], results[1], results[2]
		b.ReportMetric(eng.Wall.Seconds(), "engine-s")
		b.ReportMetric(float64(eng.RSSKiB)/1024, "engine-MiB-RSS")
		b.ReportMetric(eng.Wall.Seconds()/bare.Wall.Seconds(), "wall-vs-bare")
		b.ReportMetric(float64(eng.RSSKiB)/float64(bare.RSSKiB), "RSS-vs-bare")
		b.ReportMetric(float64(eng.DiskKiB)/float64(depth1.GitDirKB), "disk-vs-depth1")
	}
}

func printLarge(w io.Writer, engName, bareName, depthName string, results []largeResult) {
	fmt.Fprintf(w, "\nlarge repository: %d files, %d commits, local smart-HTTP server, median of %d alternate runs\n\n", largeFiles, largeCommits, largeRounds)
	fmt.Fprintf(w, "| %-44s | %9s | %10s | %12s | %14s |\n", "how", "wall", "peak RSS", "disk (total)", "disk (Git data)")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|\n", dashes(46), dashes(11), dashes(12), dashes(14), dashes(16))
	for i, name := range []string{engName, bareName, depthName} {
		r := results[i]
		bound := " "
		if r.Bound {
			bound = "≤"
		}
		fmt.Fprintf(w, "| %-44s | %9s | %s%5d MiB | %8.1f MiB | %10.1f MiB |\n", name, r.Wall.Round(time.Millisecond),
			bound, r.RSSKiB/1024, float64(r.DiskKiB)/1024, float64(r.GitDirKB)/1024)
	}
	eng, bare, depth1 := results[0], results[1], results[2]
	fmt.Fprintf(w, "\nengine / git clone --bare: wall %.2fx, peak RSS %.2fx (each a process's ru_maxrss); the engine's process held %d MiB before it opened the clone\n",
		eng.Wall.Seconds()/bare.Wall.Seconds(), float64(eng.RSSKiB)/float64(bare.RSSKiB), eng.BaseKiB/1024)
	fmt.Fprintf(w, "engine disk / --depth=1 Git data: %.2fx; / --depth=1 total: %.2fx\n\n",
		float64(eng.DiskKiB)/float64(depth1.GitDirKB), float64(eng.DiskKiB)/float64(depth1.DiskKiB))
}

// alternateMedians runs each of n ways largeRounds times, alternately (so a
// load from elsewhere falls on all alike), and returns the median of each.
func alternateMedians(n int, run func(i int) largeResult) []largeResult {
	runs := make([][]largeResult, n)
	for range largeRounds {
		for i := range n {
			runs[i] = append(runs[i], run(i))
		}
	}
	results := make([]largeResult, n)
	for i := range n {
		results[i] = medianResult(runs[i])
	}
	return results
}

// medianResult is the run of median wall, with the median of each figure.
func medianResult(rs []largeResult) largeResult {
	med := func(f func(largeResult) int64) int64 {
		v := make([]int64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[len(v)/2]
	}
	out := rs[0]
	out.Wall = time.Duration(med(func(r largeResult) int64 { return int64(r.Wall) }))
	out.RSSKiB = med(func(r largeResult) int64 { return r.RSSKiB })
	out.BaseKiB = med(func(r largeResult) int64 { return r.BaseKiB })
	return out
}

// largeRepo writes the repository with git fast-import and packs it as a
// forge would (git gc), and returns its directory.
func largeRepo(b testing.TB, root string) string {
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

// firstOpenEnv names the engine's credentials for testdata/cmd/firstopen,
// which takes them from its environment, never its command line.
var firstOpenEnv = []string{"FIRSTOPEN_USER=" + testUser, "FIRSTOPEN_TOKEN=" + testToken}

// buildFirstOpen builds testdata/cmd/firstopen, the engine's first open in
// a process of its own, into a temporary directory and returns its path.
// It links only the engine (not this test binary's harnesses: 39 MiB of
// RSS before it does anything), as the provider's binary links it.
func buildFirstOpen(b testing.TB) string {
	b.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		b.Fatalf("the go command builds the engine's measured program: %v", err)
	}
	out := filepath.Join(b.TempDir(), "firstopen")
	cmd := exec.CommandContext(context.Background(), goBin, "build", "-trimpath", "-o", out, "./testdata/cmd/firstopen")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build ./testdata/cmd/firstopen: %v: %s", err, msg)
	}
	return out
}

// runLarge opens the repository at url one way (mode: the engine, bounded
// or whole, or a git clone) in a process of its own, and measures it as
// every way is measured: its wall from start to exit, its peak RSS
// (ru_maxrss, see timed), and its directory's size on disk.
func runLarge(b *testing.B, prog, mode, url string) largeResult {
	b.Helper()
	work, err := os.MkdirTemp(b.TempDir(), mode)
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(work)
	dest := filepath.Join(work, "clone")
	gitDir := dest
	var res largeResult
	switch mode {
	case "engine", "engine-whole":
		var args []string
		if mode == "engine-whole" { // BenchmarkBoundedHistory's
			args = append(args, "-depth=0")
		}
		res = firstOpen(b, prog, work, url, dest, "apps/team-000/app-00000.yaml", args...)
	case "bare", "depth1", "bare-depth", "bare-filter":
		args := []string{"clone", "-q", "--bare", testenv.AuthURL(url, testUser, testToken), dest}
		switch mode {
		case "bare-depth": // BenchmarkBoundedHistory's
			args = append(args, fmt.Sprintf("--depth=%d", DefaultHistoryDepth))
		case "depth1":
			args = []string{"clone", "-q", "--depth=1", testenv.AuthURL(url, testUser, testToken), dest}
			gitDir = filepath.Join(dest, ".git")
		case "bare-filter": // BenchmarkLargePartialClone
			args = []string{"clone", "-q", "--bare", "--filter=blob:none", testenv.AuthURL(url, testUser, testToken), dest}
		}
		res.Wall, res.RSSKiB, res.Bound, _ = timed(b, work, nil, "git", args...)
	default:
		b.Fatalf("unknown mode %q", mode)
	}
	res.DiskKiB, res.GitDirKB = diskKiB(b, dest), diskKiB(b, gitDir)
	return res
}

// firstOpen runs prog (buildFirstOpen) in work: the engine's first open of
// url into the cache directory dest, reading path, in a process of its own
// measured as git's are (timed), with args added to its command line.
func firstOpen(b testing.TB, prog, work, url, dest, path string, args ...string) largeResult {
	b.Helper()
	args = append([]string{"-url", url, "-dir", dest, "-path", path}, args...)
	if dir := os.Getenv(largeProfileEnv); dir != "" {
		args = append(args, "-profile", dir)
	}
	var res largeResult
	var out string
	res.Wall, res.RSSKiB, res.Bound, out = timed(b, work, firstOpenEnv, prog, args...)
	res.BaseKiB = firstOpenBase(b, out)
	return res
}

// firstOpenBase reads the RSS the engine's process held before it opened
// the clone from firstopen's RESULT line.
func firstOpenBase(b testing.TB, out string) int64 {
	b.Helper()
	for _, line := range strings.Split(out, "\n") {
		if j, ok := strings.CutPrefix(line, "RESULT "); ok {
			var r struct{ BaseKiB int64 }
			if err := json.Unmarshal([]byte(j), &r); err != nil {
				b.Fatal(err)
			}
			return r.BaseKiB
		}
	}
	b.Fatalf("no RESULT in %s", out)
	return 0
}

// timed runs name with args in dir, env added to this process's, and
// returns its wall, its peak RSS and its standard output. The peak is the
// process's ru_maxrss (with its children's), as GNU time reports it: time
// forks the command from a process of a few MiB. Linux keeps a process's
// peak RSS across execve, taken from the address space it replaces, so a
// command started by this (Go, so vfork-like) process would count this
// process's whole RSS as its own; without GNU time that is all there is,
// and the peak is only an upper bound (bound).
func timed(b testing.TB, dir string, env []string, name string, args ...string) (wall time.Duration, kib int64, bound bool, stdout string) {
	b.Helper()
	tm, err := exec.LookPath("time")
	bound = err != nil
	cmd := exec.CommandContext(context.Background(), name, args...)
	if !bound {
		cmd = exec.CommandContext(context.Background(), tm, append([]string{"-f", "MAXRSS %M", name}, args...)...)
	}
	var out, errOut bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, append(os.Environ(), env...), &out, &errOut
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		b.Fatalf("%s %v: %v: %s%s", name, args, err, out.String(), errOut.String())
	}
	if bound {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			kib = ru.Maxrss
		}
		return wall, kib, true, out.String()
	}
	for _, line := range strings.Split(errOut.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "MAXRSS "); ok {
			if kib, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
				b.Fatal(err)
			}
			return wall, kib, false, out.String()
		}
	}
	b.Fatalf("no MAXRSS in %s", errOut.String())
	return wall, 0, false, ""
}

// gitPeakRSS runs git with args in dir and returns the peak RSS of its
// processes (timed).
func gitPeakRSS(t testing.TB, dir string, args []string) (int64, bool) {
	t.Helper()
	_, kib, bound, _ := timed(t, dir, nil, "git", args...)
	return kib, bound
}

// procStatusKiB reads a figure in kB of /proc/self/status: VmRSS (now) or
// VmHWM (this address space's peak, not one inherited across execve).
func procStatusKiB(t *testing.T, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kib
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// diskKiB sums the blocks allocated to the files under dir.
func diskKiB(t testing.TB, dir string) int64 {
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
