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
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// boundedRows are BenchmarkBoundedHistory's ways to open the large
// repository, by TestLargeRepositoryChild's mode.
func boundedRows() []struct{ name, mode string } {
	return []struct{ name, mode string }{
		{fmt.Sprintf("engine, history bounded (%d commits)", DefaultHistoryDepth), "engine"},
		{"engine, whole history", "engine-whole"},
		{fmt.Sprintf("git clone --bare --depth=%d", DefaultHistoryDepth), "bare-depth"},
		{"git clone --bare", "bare"},
	}
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
	prog := buildFirstOpen(b)
	rows := boundedRows()
	for range b.N {
		results := alternateMedians(len(rows), func(i int) largeResult { return runLarge(b, prog, rows[i].mode, url) })
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
	for i, row := range boundedRows() {
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
