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

// BenchmarkLargePartialClone measures the first open of BenchmarkLargeRepository's
// repository (largeFiles files, largeCommits commits) by the engine from a
// server that serves filter (a partial clone: commits and trees, then the
// one blob the read needs) and from one that does not (a full clone),
// beside `git clone --bare --filter=blob:none` and `git clone --bare`, each
// in its own process, largeRounds times alternately. The bytes a clone
// received are its Git data on disk: both keep each pack as it arrived.
// Run with `go test -run '^$' -bench LargePartialClone ./internal/git/`.
func BenchmarkLargePartialClone(b *testing.B) {
	root := b.TempDir()
	full := largeRepo(b, root)
	partial := filepath.Join(root, "large-filter.git")
	if _, err := testenv.Git(root, nil, "clone", "-q", "--bare", full, partial); err != nil {
		b.Fatal(err)
	}
	for _, kv := range [][2]string{{"uploadpack.allowFilter", "true"}, {"uploadpack.allowAnySHA1InWant", "true"}} {
		if _, err := testenv.Git(partial, nil, "config", kv[0], kv[1]); err != nil {
			b.Fatal(err)
		}
	}
	s := testenv.NewHTTPServer(b, root, testUser, testToken)
	prog := buildFirstOpen(b)
	rows := []struct {
		name, mode, repo string
	}{
		{"engine, server serves filter (partial)", "engine", partial},
		{"engine, server without filter (full)", "engine", full},
		{"git clone --bare --filter=blob:none", "bare-filter", partial},
		{"git clone --bare", "bare", full},
	}
	for range b.N {
		runs := make([][]largeResult, len(rows))
		for range largeRounds {
			for i, row := range rows {
				runs[i] = append(runs[i], runLarge(b, prog, row.mode, s.RepoURL(filepath.Base(row.repo))))
			}
		}
		results := make([]largeResult, len(rows))
		names := make([]string, len(rows))
		for i := range rows {
			results[i], names[i] = medianResult(runs[i]), rows[i].name
		}
		printPartial(os.Stdout, names, results)
		part, fullEng, gitPart := results[0], results[1], results[2]
		b.ReportMetric(part.Wall.Seconds(), "partial-s")
		b.ReportMetric(float64(part.RSSKiB)/1024, "partial-MiB-RSS")
		b.ReportMetric(part.Wall.Seconds()/fullEng.Wall.Seconds(), "wall-vs-full")
		b.ReportMetric(part.Wall.Seconds()/gitPart.Wall.Seconds(), "wall-vs-git-filter")
		b.ReportMetric(float64(part.RSSKiB)/float64(gitPart.RSSKiB), "RSS-vs-git-filter")
	}
}

func printPartial(w io.Writer, names []string, results []largeResult) {
	fmt.Fprintf(w, "\nfirst open, partial and full: %d files, %d commits, local smart-HTTP server, median of %d alternate runs\n\n", largeFiles, largeCommits, largeRounds)
	fmt.Fprintf(w, "| %-40s | %9s | %10s | %16s |\n", "how", "wall", "peak RSS", "received (Git data)")
	fmt.Fprintf(w, "|%s|%s|%s|%s|\n", dashes(42), dashes(11), dashes(12), dashes(21))
	for i, r := range results {
		bound := " "
		if r.Bound {
			bound = "≤"
		}
		fmt.Fprintf(w, "| %-40s | %9s | %s%5d MiB | %15.1f MiB |\n", names[i], r.Wall.Round(time.Millisecond), bound, r.RSSKiB/1024, float64(r.GitDirKB)/1024)
	}
	part, full, gitPart := results[0], results[1], results[2]
	fmt.Fprintf(w, "\npartial / full engine: wall %.2fx, peak RSS %.2fx, received %.2fx\n", part.Wall.Seconds()/full.Wall.Seconds(),
		float64(part.RSSKiB)/float64(full.RSSKiB), float64(part.GitDirKB)/float64(full.GitDirKB))
	fmt.Fprintf(w, "partial engine / git clone --bare --filter=blob:none: wall %.2fx, peak RSS %.2fx; the engine's process held %d MiB before it opened the clone\n\n",
		part.Wall.Seconds()/gitPart.Wall.Seconds(), float64(part.RSSKiB)/float64(gitPart.RSSKiB), part.BaseKiB/1024)
}
