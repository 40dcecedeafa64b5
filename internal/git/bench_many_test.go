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
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Many repositories: a replica serving a platform's teams, one repository
// each, one resource per repository.
const (
	manyReposDefault = 300
	manyFilesDefault = 2000
	// manyReposEnv and manyFilesEnv change the size (make bench runs the
	// defaults).
	manyReposEnv = "PROVIDER_GIT_MANY_REPOS"
	manyFilesEnv = "PROVIDER_GIT_MANY_FILES"
	// manyWorkers opens clones at once, as a controller's workers do
	// (--max-reconcile-rate's default is 10 workers).
	manyWorkers = 10
	// benchChildEnv names the child test a benchmark's process runs.
	benchChildEnv = "PROVIDER_GIT_BENCH_CHILD"
	// benchHeapEnv, set to a file, makes a child write its heap profile
	// there once at rest: what a clone's memory is made of.
	benchHeapEnv = "PROVIDER_GIT_BENCH_HEAP"
)

// benchFigures is what a benchmark's child process measured.
type benchFigures struct {
	Wall time.Duration
	// BaseKiB is the process's RSS before it opened a clone, PeakKiB its
	// peak (VmHWM), SteadyKiB its RSS at rest afterwards (after a
	// collection, memory returned to the system).
	BaseKiB, PeakKiB, SteadyKiB int64
	// HeapKiB is the Go heap in use at rest.
	HeapKiB int64
	// Cache is what the engine's clones held at rest.
	Cache Memory
	// Writes are the latencies of the writes made once warm, and
	// WritesPeakKiB the process's peak RSS with them.
	Writes        []time.Duration `json:",omitempty"`
	WritesPeakKiB int64           `json:",omitempty"`
	// Bound is set when PeakKiB is only an upper bound (gitPeakRSS).
	Bound bool `json:",omitempty"`
}

// envInt reads a size from the environment, or def.
func envInt(b testing.TB, name string, def int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// BenchmarkManyRepositories measures a replica of one process serving
// PROVIDER_GIT_MANY_REPOS repositories (300) of PROVIDER_GIT_MANY_FILES
// files (2,000) each, one resource per repository, through the engine's
// Cache: each clone opened, refreshed and read once, by manyWorkers at a
// time; then the same in a second process on the same cache directory (a
// restart). Beside it, `git clone --bare` of every repository, as many at
// a time. Run with `go test -run '^$' -bench ManyRepositories ./internal/git/`.
func BenchmarkManyRepositories(b *testing.B) {
	repos, files := envInt(b, manyReposEnv, manyReposDefault), envInt(b, manyFilesEnv, manyFilesDefault)
	root := b.TempDir()
	start := time.Now()
	urls := manyServed(b, root, repos, files)
	generated := time.Since(start)
	list := filepath.Join(b.TempDir(), "urls")
	if err := os.WriteFile(list, []byte(strings.Join(urls, "\n")), 0o600); err != nil {
		b.Fatal(err)
	}
	for range b.N {
		newBenchDir(b)
		cold := runBenchChild(b, "many-open", "MANY_URLS="+list)
		restart := runBenchChild(b, "many-open", "MANY_URLS="+list)
		bare := runBenchChild(b, "many-bare", "MANY_URLS="+list)
		printMany(os.Stdout, repos, files, generated, cold, restart, bare)
		b.ReportMetric(cold.Wall.Seconds(), "open-all-s")
		b.ReportMetric(restart.Wall.Seconds(), "restart-all-s")
		b.ReportMetric(float64(cold.PeakKiB)/1024, "peak-MiB")
		b.ReportMetric(float64(cold.SteadyKiB)/1024, "steady-MiB")
	}
}

func printMany(w io.Writer, repos, files int, generated time.Duration, cold, restart, bare benchFigures) {
	fmt.Fprintf(w, "\n%d repositories of %d files (generated in %s), one resource each, %d at a time, local smart-HTTP server\n\n",
		repos, files, generated.Round(time.Second), manyWorkers)
	fmt.Fprintf(w, "| %-50s | %9s | %9s | %10s | %9s | %11s |\n", "how", "all read", "peak RSS", "steady RSS", "Go heap", "clone cache")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|%s|\n", dashes(52), dashes(11), dashes(11), dashes(12), dashes(11), dashes(13))
	row := func(name string, f benchFigures) {
		fmt.Fprintf(w, "| %-50s | %9s | %5d MiB | %6d MiB | %5d MiB | %7.1f MiB |\n", name, f.Wall.Round(time.Millisecond),
			f.PeakKiB/1024, f.SteadyKiB/1024, f.HeapKiB/1024, float64(f.Cache.CacheBytes)/(1<<20))
	}
	row("engine, first start (open + refresh + read each)", cold)
	row("engine, restarted on the same cache directory", restart)
	fmt.Fprintf(w, "| %-50s | %9s | ≤%4d MiB | %10s | %9s | %11s |\n", "git clone --bare of each (one process's peak)", bare.Wall.Round(time.Millisecond), bare.PeakKiB/1024, "-", "-", "-")
	perClone := float64(cold.SteadyKiB-cold.BaseKiB) / float64(repos)
	fmt.Fprintf(w, "\nthe engine's process held %d MiB before it opened a clone; at rest, %d clones: %.0f KiB each above that (cache %d of %d MiB budget)\n\n",
		cold.BaseKiB/1024, cold.Cache.Clones, perClone, cold.Cache.CacheBytes>>20, cold.Cache.CacheBudget>>20)
}

// manyServed writes repos repositories of files files each and serves them;
// it returns their URLs. One is generated (fast-import, then packed as a
// forge would); the others are its copies: the engine keeps one clone per
// repository whatever its content.
func manyServed(b *testing.B, root string, repos, files int) []string {
	b.Helper()
	first := generateRepo(b, root, "r0000.git", files, 1, 0)
	for i := 1; i < repos; i++ {
		if err := os.CopyFS(filepath.Join(root, fmt.Sprintf("r%04d.git", i)), os.DirFS(first)); err != nil {
			b.Fatal(err)
		}
	}
	s := testenv.NewHTTPServer(b, root, testUser, testToken)
	urls := make([]string, repos)
	for i := range urls {
		urls[i] = s.RepoURL(fmt.Sprintf("r%04d.git", i))
	}
	return urls
}

// generateRepo writes a bare repository of files files in directories of
// 100 (apps/team-NNN/app-NN/file-NNN.yaml) and commits commits on main,
// each after the first changing churn files, with git fast-import, then
// packs it as a forge would (git gc). It returns its directory.
func generateRepo(b testing.TB, root, name string, files, commits, churn int) string {
	b.Helper()
	dir := filepath.Join(root, name)
	if _, err := testenv.Git(root, nil, "init", "-q", "--bare", "-b", "main", dir); err != nil {
		b.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), "git", "fast-import", "--quiet")
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	werr := writeStream(in, files, commits, churn)
	_ = in.Close()
	if err := cmd.Wait(); err != nil || werr != nil {
		b.Fatalf("fast-import: %v %v: %s", err, werr, out.String())
	}
	// Not testenv.Git: its two minutes do not pack the largest sizes.
	if out, err := exec.CommandContext(context.Background(), "git", "-C", dir, "gc", "-q").CombinedOutput(); err != nil {
		b.Fatalf("git gc: %v: %s", err, out)
	}
	return dir
}

// monoPath is file i's path: 100 files a directory, 10 directories a team.
func monoPath(i int) string {
	return fmt.Sprintf("apps/team-%03d/app-%02d/file-%03d.yaml", i/1000, i/100%10, i%100)
}

func monoContent(i, v int) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-%06d\n  namespace: team-%03d\ndata:\n  version: \"%d\"\n", i, i/1000, v)
}

// writeStream writes git fast-import's input, one commit at a time.
func writeStream(w io.Writer, files, commits, churn int) error {
	bw := newErrWriter(w)
	inline := func(path, data string) {
		bw.printf("M 100644 inline %s\ndata %d\n%s\n", path, len(data), data)
	}
	for c := range commits {
		msg := fmt.Sprintf("change %d", c)
		bw.printf("commit refs/heads/main\ncommitter Seed <seed@example.org> %d +0000\ndata %d\n%s\n", 1700000000+c*60, len(msg), msg)
		if c == 0 {
			for i := range files {
				inline(monoPath(i), monoContent(i, 0))
			}
			continue
		}
		for k := range churn {
			i := (c*7919 + k*104729) % files
			inline(monoPath(i), monoContent(i, c))
		}
	}
	return bw.err
}

// errWriter keeps the first write error, so a stream is written without
// checking each line.
type errWriter struct {
	w   io.Writer
	err error
}

func newErrWriter(w io.Writer) *errWriter { return &errWriter{w: w} }

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}

// benchDir is where the children of the benchmark process pid keep their
// clones: the same for a second process, as for a restarted provider.
func benchDir(pid int) string {
	return filepath.Join(os.TempDir(), "provider-git-bench-"+strconv.Itoa(pid))
}

// newBenchDir empties this process's children's directory, and removes it
// when the benchmark ends.
func newBenchDir(b *testing.B) string {
	b.Helper()
	dir := benchDir(os.Getpid())
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// runBenchChild runs the test binary again as child, one measurement in a
// process of its own, so its peak RSS is its own.
func runBenchChild(b *testing.B, child string, env ...string) benchFigures {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), exe, "-test.run=^TestBenchChild$", "-test.count=1", "-test.timeout=2h")
	cmd.Env = append(append(os.Environ(), benchChildEnv+"="+child), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v: %s", child, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if j, ok := strings.CutPrefix(line, "FIGURES "); ok {
			var f benchFigures
			if err := json.Unmarshal([]byte(j), &f); err != nil {
				b.Fatal(err)
			}
			return f
		}
	}
	b.Fatalf("%s: no figures in %s", child, out)
	return benchFigures{}
}

// TestBenchChild is a benchmark's measured process; it does nothing when
// run on its own.
func TestBenchChild(t *testing.T) {
	var f benchFigures
	switch child := os.Getenv(benchChildEnv); child {
	case "":
		t.Skip("runs only as a benchmark's child")
	case "many-open":
		f = manyOpen(t, readLines(t, os.Getenv("MANY_URLS")), filepath.Join(benchDir(os.Getppid()), "engine"))
	case "many-bare":
		f = manyBare(t, readLines(t, os.Getenv("MANY_URLS")), filepath.Join(benchDir(os.Getppid()), "bare"))
	case "mono-open":
		f = monoOpen(t, os.Getenv("MONO_URL"), filepath.Join(benchDir(os.Getppid()), "engine"), envInt(t, "MONO_WRITES", 1), envInt(t, "MONO_FILES", 1))
	default:
		t.Fatalf("unknown child %q", child)
	}
	j, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("FIGURES " + string(j))
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

// atRest returns the process's figures once what it did is over: after a
// collection, with the memory the heap no longer uses returned.
func atRest(t *testing.T, f *benchFigures) {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	if p := os.Getenv(benchHeapEnv); p != "" {
		out, err := os.Create(filepath.Clean(p))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		if err := pprof.WriteHeapProfile(out); err != nil {
			t.Fatal(err)
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	f.PeakKiB, f.SteadyKiB, f.HeapKiB = procStatusKiB(t, "VmHWM"), procStatusKiB(t, "VmRSS"), int64(ms.HeapInuse/1024)
}

// manyOpen is what a resource's first Ready costs in each repository: the
// clone opened (fetched, unless a previous process left it), refreshed,
// and one file read, manyWorkers at a time.
func manyOpen(t *testing.T, urls []string, cacheDir string) benchFigures {
	t.Helper()
	f := benchFigures{BaseKiB: procStatusKiB(t, "VmRSS")}
	start := time.Now()
	c, err := NewCache(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	forEach(len(urls), manyWorkers, func(i int) {
		if _, err := firstRead(ctx(t), c, urls[i], monoPath(i%100)); err != nil {
			t.Error(err)
		}
	})
	f.Wall = time.Since(start)
	atRest(t, &f)
	f.Cache = c.Memory()
	return f
}

// firstRead is what a resource's first Ready costs the engine: the clone
// of url opened, main refreshed, and the file at path read.
func firstRead(ctx context.Context, c *Cache, url, path string) (*Repository, error) {
	r, err := c.Repository(Remote{URL: url, Auth: &BasicAuth{Username: testUser, Password: testToken}})
	if err != nil {
		return nil, err
	}
	if err := r.Refresh(ctx, 0, "main"); err != nil {
		return nil, err
	}
	h, err := r.Head("main")
	if err != nil {
		return nil, err
	}
	_, err = r.ReadFile(ctx, h, path)
	return r, err
}

// manyBare clones each repository with git clone --bare, manyWorkers at a
// time; the peak RSS is the largest of one git process's (GNU time's).
func manyBare(t *testing.T, urls []string, dir string) benchFigures {
	t.Helper()
	var mu sync.Mutex
	var f benchFigures
	start := time.Now()
	forEach(len(urls), manyWorkers, func(i int) {
		kib, bound := gitPeakRSS(t, t.TempDir(), []string{"clone", "-q", "--bare", testenv.AuthURL(urls[i], testUser, testToken), filepath.Join(dir, strconv.Itoa(i))})
		mu.Lock()
		defer mu.Unlock()
		f.PeakKiB, f.Bound = max(f.PeakKiB, kib), f.Bound || bound
	})
	f.Wall = time.Since(start)
	return f
}

// forEach runs fn(0) … fn(n-1), workers at a time.
func forEach(n, workers int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
