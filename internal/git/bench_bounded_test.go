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
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// boundedChildEnv makes the test binary, run again, do one measured first
// open for BenchmarkBoundedHistory in a process of its own.
const boundedChildEnv = "PROVIDER_GIT_BOUNDED_CHILD"

// boundedRows are BenchmarkBoundedHistory's ways to open the large
// repository, by child mode.
var boundedRows = []struct{ name, mode string }{
	{fmt.Sprintf("engine, history bounded (%d commits)", DefaultHistoryDepth), "engine"},
	{"engine, whole history", "engine-whole"},
	{fmt.Sprintf("git clone --bare --depth=%d", DefaultHistoryDepth), "bare-depth"},
	{"git clone --bare", "bare"},
}

// BenchmarkBoundedHistory measures the first open of the large repository
// (largeFiles files, largeCommits commits: BenchmarkLargeRepository's) with
// the engine's bounded history and with the whole history, beside git
// fetching each: wall and peak RSS, each way in its own process,
// largeRounds times alternately, medians. Run with
// `go test -run '^$' -bench BoundedHistory ./internal/git/`.
func BenchmarkBoundedHistory(b *testing.B) {
	root := b.TempDir()
	dir := largeRepo(b, root)
	s := testenv.NewHTTPServer(b, root, testUser, testToken)
	url := s.RepoURL(filepath.Base(dir))
	for range b.N {
		runs := make([][]largeResult, len(boundedRows))
		for range largeRounds {
			for i, row := range boundedRows {
				runs[i] = append(runs[i], runBoundedChild(b, row.mode, url))
			}
		}
		results := make([]largeResult, len(boundedRows))
		for i := range boundedRows {
			results[i] = medianResult(runs[i])
		}
		printBounded(os.Stdout, results)
		bounded, whole, gitDepth := results[0], results[1], results[2]
		b.ReportMetric(bounded.Wall.Seconds()/whole.Wall.Seconds(), "wall-vs-whole")
		b.ReportMetric(float64(bounded.RSSKiB)/float64(whole.RSSKiB), "RSS-vs-whole")
		b.ReportMetric(bounded.Wall.Seconds()/gitDepth.Wall.Seconds(), "wall-vs-git-depth")
		b.ReportMetric(float64(bounded.RSSKiB)/float64(gitDepth.RSSKiB), "RSS-vs-git-depth")
	}
}

func printBounded(w io.Writer, results []largeResult) {
	fmt.Fprintf(w, "\nfirst open, bounded history: %d files, %d commits, local smart-HTTP server, median of %d alternate runs\n\n", largeFiles, largeCommits, largeRounds)
	fmt.Fprintf(w, "| %-40s | %9s | %10s | %15s |\n", "how", "wall", "peak RSS", "disk (Git data)")
	fmt.Fprintf(w, "|%s|%s|%s|%s|\n", dashes(42), dashes(11), dashes(12), dashes(17))
	for i, row := range boundedRows {
		r := results[i]
		bound := " "
		if r.Bound {
			bound = "≤"
		}
		fmt.Fprintf(w, "| %-40s | %9s | %s%5d MiB | %11.1f MiB |\n", row.name, r.Wall.Round(time.Millisecond), bound, r.RSSKiB/1024, float64(r.GitDirKB)/1024)
	}
	bounded, whole, gitDepth := results[0], results[1], results[2]
	fmt.Fprintf(w, "\nbounded / whole history: wall %.2fx, peak RSS %.2fx; bounded engine / git --depth: wall %.2fx, peak RSS %.2fx\n\n",
		bounded.Wall.Seconds()/whole.Wall.Seconds(), float64(bounded.RSSKiB)/float64(whole.RSSKiB),
		bounded.Wall.Seconds()/gitDepth.Wall.Seconds(), float64(bounded.RSSKiB)/float64(gitDepth.RSSKiB))
}

func runBoundedChild(b *testing.B, mode, url string) largeResult {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.CommandContext(ctx(b), exe, "-test.run=^TestBoundedHistoryChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), boundedChildEnv+"="+mode, "LARGE_URL="+url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v: %s", mode, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if j, ok := strings.CutPrefix(line, "RESULT "); ok {
			var res largeResult
			if err := json.Unmarshal([]byte(j), &res); err != nil {
				b.Fatal(err)
			}
			return res
		}
	}
	b.Fatalf("%s: no result in %s", mode, out)
	return largeResult{}
}

// TestBoundedHistoryChild is BenchmarkBoundedHistory's measured process; it
// does nothing when run on its own.
func TestBoundedHistoryChild(t *testing.T) {
	mode := os.Getenv(boundedChildEnv)
	if mode == "" {
		t.Skip("runs only as BenchmarkBoundedHistory's child")
	}
	url, work := os.Getenv("LARGE_URL"), t.TempDir()
	dest := filepath.Join(work, "clone")
	base := procStatusKiB(t, "VmRSS")
	start := time.Now()
	var res largeResult
	switch mode {
	case "engine", "engine-whole":
		var opts []Option
		if mode == "engine-whole" {
			opts = append(opts, WithHistoryDepth(0))
		}
		largeEngineOpen(t, url, dest, opts...)
		res.RSSKiB, res.BaseKiB = procStatusKiB(t, "VmHWM"), base
	case "bare", "bare-depth":
		args := []string{"clone", "-q", "--bare", testenv.AuthURL(url, testUser, testToken), dest}
		if mode == "bare-depth" {
			args = append(args, fmt.Sprintf("--depth=%d", DefaultHistoryDepth))
		}
		res.RSSKiB, res.Bound = gitPeakRSS(t, work, args)
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	res.Wall, res.GitDirKB = time.Since(start), diskKiB(t, dest)
	j, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("RESULT " + string(j))
}
