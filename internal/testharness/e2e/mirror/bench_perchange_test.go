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

package mirror_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// BenchmarkMirrorPerChangeBurst edits 1,000 mirrored ConfigMaps at once
// (10 clients) with the provider's default flags, first with a Batched
// Mirror (the baseline, in the same run on the same server), then with a
// PerChange one, and reports for each the time from the first edit until
// every edit is on the remote, the commits and pushes it took, and the
// commit windows the burst of edits spanned. Goals: PerChange makes one
// commit per edit, and about as many pushes as Batched (burst / window,
// plus the one or two a window boundary costs). BENCH_MIRROR_PERCHANGE
// changes the count.
func BenchmarkMirrorPerChangeBurst(b *testing.B) {
	n := e2e.BenchN("BENCH_MIRROR_PERCHANGE", 1000)
	type row struct {
		mode                    v1alpha1.MirrorCommit
		burst, took             time.Duration
		commits, pushes, window int
	}
	for range b.N {
		var rows []row
		for _, mode := range []v1alpha1.MirrorCommit{v1alpha1.MirrorCommitBatched, v1alpha1.MirrorCommitPerChange} {
			bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: e2e.DefaultPoll})
			ns := e2e.BenchFixture(b, nil)
			dir := filepath.Join(e2e.GitRoot, ns+".git")
			createConfigMaps(b, ns, n)
			m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{Commit: mode, Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
			if err := e2e.CP.Client.Create(context.Background(), m); err != nil {
				b.Fatal(err)
			}
			waitMirroredCount(b, dir, ns, n, true, 10*time.Minute)
			for bp.Cache.Pending() != 0 {
				time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
			}
			commits0, pushes0 := commitCount(b, dir), e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total")

			start := time.Now()
			updateConfigMaps(b, ns, n, 1)
			burst := time.Since(start)
			waitFolder(b, dir, 30*time.Minute, func(out string) bool { return strings.Count(out, "\n") >= n },
				"grep", "-l", "round:", "main", "--", e2e.MirrorFolder+"/"+ns+"/core/configmap/")
			took := time.Since(start)
			for bp.Cache.Pending() != 0 {
				time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
			}
			rows = append(rows, row{
				mode: mode, burst: burst, took: took,
				commits: commitCount(b, dir) - commits0,
				pushes:  int(e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total") - pushes0),
				window:  int(burst/e2e.DefaultWindow) + 1,
			})
			bp.Stop()
		}
		fmt.Printf("\n%d mirrored ConfigMaps edited at once (10 clients; commit window %s, --max-reconcile-rate %d)\n"+
			"| commit | edits took | until all are on the remote | commits | pushes | commit windows the edits spanned |\n"+
			"|----|----|----|----|----|----|\n", n, e2e.DefaultWindow, e2e.DefaultRate)
		for _, r := range rows {
			label := string(r.mode)
			if r.mode == v1alpha1.MirrorCommitBatched {
				label += " (baseline, this run)"
			}
			fmt.Printf("| %s | %s | %s | %d | %d | %d |\n", label, r.burst.Round(100*time.Millisecond), r.took.Round(100*time.Millisecond), r.commits, r.pushes, r.window)
		}
		fmt.Printf("goal: PerChange commits = %d; PerChange pushes about Batched's (burst / window + 2)\n", n)
	}
}
