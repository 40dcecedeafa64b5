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
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// The monorepo: a company's GitOps repository grown for years.
const (
	monoFilesDefault   = 200000
	monoCommitsDefault = 50000
	// monoFilesEnv and monoCommitsEnv change the size (make bench runs the
	// defaults); monoWritesEnv the number of writes measured.
	monoFilesEnv   = "PROVIDER_GIT_MONOREPO_FILES"
	monoCommitsEnv = "PROVIDER_GIT_MONOREPO_COMMITS"
	monoWritesEnv  = "PROVIDER_GIT_MONOREPO_WRITES"
	monoWrites     = 11
	// monoChurn is how many files each commit after the first changes.
	monoChurn = 4
)

// BenchmarkMonorepo measures the engine on a generated monorepo of
// PROVIDER_GIT_MONOREPO_FILES files (200,000) and
// PROVIDER_GIT_MONOREPO_COMMITS commits (50,000): the first open (open,
// refresh, one read: a resource's first Ready) in a process of its own
// (testdata/cmd/firstopen), wall and peak RSS measured as git's are, beside
// `git clone --bare`, both under GNU time; then, in a test process that
// opens it again, warm File-style writes (one changed file committed and
// pushed, each landed before the next, the commit window 0), and that
// process's RSS at rest.
// Run with `go test -run '^$' -bench Monorepo ./internal/git/`.
func BenchmarkMonorepo(b *testing.B) {
	files, commits := envInt(b, monoFilesEnv, monoFilesDefault), envInt(b, monoCommitsEnv, monoCommitsDefault)
	writes := envInt(b, monoWritesEnv, monoWrites)
	root := b.TempDir()
	start := time.Now()
	dir := generateRepo(b, root, "mono.git", files, commits, monoChurn)
	generated := time.Since(start)
	s := testenv.NewHTTPServer(b, root, testUser, testToken)
	url := s.RepoURL(filepath.Base(dir))
	prog := buildFirstOpen(b)
	for range b.N {
		work := newBenchDir(b)
		open := firstOpen(b, prog, b.TempDir(), url, filepath.Join(b.TempDir(), "clone"), monoPath(0))
		eng := runBenchChild(b, "mono-open", "MONO_URL="+url, "MONO_WRITES="+strconv.Itoa(writes), "MONO_FILES="+strconv.Itoa(files))
		bare := runBenchChild(b, "many-bare", "MANY_URLS="+urlsFile(b, b.TempDir(), url))
		bare.Writes = gitWrites(b, filepath.Join(work, "bare", "0"), url, writes, files)
		printMono(os.Stdout, monoRepo{files, commits, objectsInPacks(b, dir), packBytes(b, dir), generated}, open, eng, bare)
		b.ReportMetric(open.Wall.Seconds(), "open-s")
		b.ReportMetric(float64(open.RSSKiB)/1024, "peak-MiB")
		b.ReportMetric(open.Wall.Seconds()/bare.Wall.Seconds(), "wall-vs-bare")
		b.ReportMetric(float64(open.RSSKiB)/float64(bare.PeakKiB), "RSS-vs-bare")
		b.ReportMetric(p50(eng.Writes).Seconds(), "write-p50-s")
	}
}

// urlsFile writes url to a file of URLs, as manyBare reads them.
func urlsFile(b *testing.B, dir, url string) string {
	b.Helper()
	p := filepath.Join(dir, "urls")
	if err := os.WriteFile(p, []byte(url), 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

func p50(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// packBytes is the size of the repository's packs: what a clone fetches.
func packBytes(b *testing.B, dir string) int64 {
	b.Helper()
	packs, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, p := range packs {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// monoRepo is the generated repository's size.
type monoRepo struct {
	files, commits int
	objects, bytes int64
	generated      time.Duration
}

// printMono prints the first open of the engine's own process (open, as
// git's is measured) and of the test process that then writes (eng), beside
// git's (bare).
func printMono(w io.Writer, repo monoRepo, open largeResult, eng, bare benchFigures) {
	fmt.Fprintf(w, "\nmonorepo: %d files, %d commits (generated in %s: %d objects, a %.1f MiB pack), local smart-HTTP server\n\n",
		repo.files, repo.commits, repo.generated.Round(time.Second), repo.objects, float64(repo.bytes)/(1<<20))
	fmt.Fprintf(w, "| %-44s | %9s | %9s |\n", "first open", "wall", "peak RSS")
	fmt.Fprintf(w, "|%s|%s|%s|\n", dashes(46), dashes(11), dashes(11))
	bound := func(b bool) string {
		if b {
			return "≤"
		}
		return " "
	}
	fmt.Fprintf(w, "| %-44s | %9s | %s%4d MiB |\n", "provider-git engine (open + refresh + read)", open.Wall.Round(time.Millisecond), bound(open.Bound), open.RSSKiB/1024)
	fmt.Fprintf(w, "| %-44s | %9s | %5d MiB |\n", "the same, in the process that then writes", eng.Wall.Round(time.Millisecond), eng.PeakKiB/1024)
	fmt.Fprintf(w, "| %-44s | %9s | %s%4d MiB |\n", "git clone --bare", bare.Wall.Round(time.Millisecond), bound(bare.Bound), bare.PeakKiB/1024)
	fmt.Fprintf(w, "\nengine / git clone --bare: wall %.2fx, peak RSS %.2fx (each a process's ru_maxrss); the engine's process held %d MiB before it opened the clone\n",
		open.Wall.Seconds()/bare.Wall.Seconds(), float64(open.RSSKiB)/float64(bare.PeakKiB), open.BaseKiB/1024)
	fmt.Fprintf(w, "warm, %d writes of one file each, landed: engine (commit window 0) p50 %s, max %s; git CLI in the bare clone (hash-object, update-index, write-tree, commit-tree, push) p50 %s, max %s\n",
		len(eng.Writes), p50(eng.Writes).Round(time.Millisecond), slices.Max(append([]time.Duration{0}, eng.Writes...)).Round(time.Millisecond),
		p50(bare.Writes).Round(time.Millisecond), slices.Max(append([]time.Duration{0}, bare.Writes...)).Round(time.Millisecond))
	fmt.Fprintf(w, "peak RSS of the process with the writes: %d MiB\n", eng.WritesPeakKiB/1024)
	fmt.Fprintf(w, "at rest after them: RSS %d MiB (%d MiB above the process before the clone: %d bytes an object), Go heap %d MiB, clone cache %.1f of %d MiB\n\n",
		eng.SteadyKiB/1024, (eng.SteadyKiB-eng.BaseKiB)/1024, (eng.SteadyKiB-eng.BaseKiB)*1024/max(repo.objects, 1), eng.HeapKiB/1024,
		float64(eng.Cache.CacheBytes)/(1<<20), eng.Cache.CacheBudget>>20)
}

// monoOpen opens, refreshes and reads the monorepo, taking the peak RSS
// of that first open; then, warm, makes writes File-style writes of one
// changed file each, each landed before the next.
func monoOpen(t *testing.T, url, cacheDir string, writes, files int) benchFigures {
	t.Helper()
	f := benchFigures{BaseKiB: procStatusKiB(t, "VmRSS")}
	start := time.Now()
	c, err := NewCache(cacheDir, WithCommitWindow(0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := firstRead(ctx(t), c, url, monoPath(0))
	if err != nil {
		t.Fatal(err)
	}
	f.Wall = time.Since(start)
	openPeak := procStatusKiB(t, "VmHWM")
	for i := range writes {
		n := (i * 7919) % files
		began := time.Now()
		res := r.Submit(ctx(t), "main", Change{
			Puts:    map[string]File{monoPath(n): {Content: []byte(monoContent(n, 1_000_000+i))}},
			Message: fmt.Sprintf("write %d", i),
		})
		if res.Err != nil || res.UpToDate {
			t.Fatalf("write %d: %+v", i, res)
		}
		f.Writes = append(f.Writes, time.Since(began))
	}
	atRest(t, &f)
	f.Cache = c.Memory()
	// The peak of the first open, beside git's; the process's with the
	// writes, which atRest read, apart.
	f.PeakKiB, f.WritesPeakKiB = openPeak, f.PeakKiB
	return f
}

// gitWrites is the git CLI's cost of the same writes, the baseline: in the
// bare clone dir (its index read once, untimed), each one changed file
// hashed, staged, committed on the branch's head and pushed.
func gitWrites(b *testing.B, dir, url string, writes, files int) []time.Duration {
	b.Helper()
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(dir, "bench-index")}
	git := func(stdin string, args ...string) string {
		cmd := exec.CommandContext(context.Background(), "git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, append(os.Environ(), env...), strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	git("", "read-tree", "main")
	head := git("", "rev-parse", "main")
	push := testenv.AuthURL(url, testUser, testToken)
	var took []time.Duration
	for i := range writes {
		n := (i*7919 + 17) % files
		began := time.Now()
		blob := git(monoContent(n, 2_000_000+i), "hash-object", "-w", "--stdin")
		git("", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+monoPath(n))
		tree := git("", "write-tree")
		head = git("", "-c", "user.name=Bench", "-c", "user.email=bench@example.org", "commit-tree", tree, "-p", head, "-m", fmt.Sprintf("git write %d", i))
		git("", "push", "-q", push, head+":refs/heads/main")
		took = append(took, time.Since(began))
	}
	return took
}
