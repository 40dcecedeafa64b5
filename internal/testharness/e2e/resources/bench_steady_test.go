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

package resources_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// BenchmarkSteadyStateOf10000Files converges 10,000 Files on one branch
// (their content already in Git), then measures what a poll interval costs
// while nothing changes: File reconciles, API requests, fetches and remote
// checks, next to crossplane-runtime's per-MR poll, which reconciles every
// MR once per interval by construction. It then creates one more File and
// reports its time to Ready. Goals: 0 reconciles, 0 API requests, 1 remote
// check per interval; the new File Ready in < 2 s + the commit window.
// Last, the provider's real binary, with its default flags, starts on the
// converged Files: its own resident set is the memory figure (< 300 MiB),
// apart from the harness and Git server this process holds.
// BENCH_STEADY_FILES changes the count; the poll interval is 10 s so that
// several intervals fit in a run (a longer one changes nothing per
// interval), and the rate is 100 so that setting up 10,000 Files is quick.
func BenchmarkSteadyStateOf10000Files(b *testing.B) {
	n := e2e.BenchN("BENCH_STEADY_FILES", 10000)
	const poll, intervals = 10 * time.Second, 3
	for range b.N {
		files := make(map[string]string, n)
		for i := range n {
			files[benchPath(i)] = benchContent(i)
		}
		ns := e2e.BenchFixture(b, files)
		bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: 100, Poll: poll})
		start := time.Now()
		createFiles(b, ns, 0, n)
		waitReady(b, ns, n, 30*time.Minute)
		converge := time.Since(start)
		for bp.Cache.Pending() != 0 {
			time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
		}
		pollsNow := func() float64 { return e2e.MetricSum(b, bp.Reg, "provider_git_polls_total") }
		waitPolls := func(k float64) {
			p0 := pollsNow()
			for pollsNow() < p0+k {
				time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
			}
		}
		// Let the informers' initial work and the first poll pass.
		waitPolls(1)
		r0, a0 := e2e.TotalReconciles(), bp.API.N.Load()
		f0, p0 := e2e.MetricSum(b, bp.Reg, "provider_git_fetches_total"), pollsNow()
		t0 := time.Now()
		waitPolls(intervals)
		measured := time.Since(t0)
		per := func(v float64) float64 { return v / intervals }
		reconcilesPer := per(float64(e2e.TotalReconciles() - r0))
		apiPer := per(float64(bp.API.N.Load() - a0))
		fetchesPer := per(e2e.MetricSum(b, bp.Reg, "provider_git_fetches_total") - f0)
		checksPer := per(pollsNow() - p0)

		// One more File while n exist.
		created := time.Now()
		createFiles(b, ns, n, n+1)
		// Watched by itself: a List of n Files every 250ms would cost more
		// than what is measured.
		late := benchFile(ns, n)
		for {
			if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(late), late); err != nil {
				b.Fatal(err)
			}
			if late.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue {
				break
			}
			if time.Since(created) > 5*time.Minute {
				b.Fatal("the new File never became Ready")
			}
			time.Sleep(20 * time.Millisecond) // polling interval of a wait on a condition
		}
		newReady := time.Since(created)
		heap, rss := memoryInUse(b)
		disk := diskUsage(b, bp.Dir)
		bp.Stop()

		// Restart: a new provider with an empty cache (a new pod) finds
		// n+1 converged Files.
		before := make([]int, n+1)
		for i := range before {
			before[i] = e2e.ReconcilesOf(benchFile(ns, i))
		}
		bp = e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: 100, Poll: poll})
		restarted := time.Now()
		for !allReconciledSince(ns, before) {
			if time.Since(restarted) > 10*time.Minute {
				b.Fatal("not every File was reconciled within 10 minutes of the restart")
			}
			time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
		}
		observed := time.Since(restarted)
		settle(bp)
		restartPushes := e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total")
		restartStatus := bp.API.Count("PATCH files/status") + bp.API.Count("PUT files/status")
		restartMeta := bp.API.Count("PUT files")
		bp.Stop()
		binRSS, binPeak, binTook := binaryMemory(b, n+1)

		fmt.Printf("\n%d converged Files on one branch, per poll interval (%s, %d intervals measured over %s)\n"+
			"| reconciler                               | File reconciles | API requests | fetches | remote checks |\n"+
			"|------------------------------------------|-----------------|--------------|---------|---------------|\n"+
			"| crossplane-runtime per-MR poll (baseline) | %d | >= %d | - | - |\n"+
			"| this tree (drift from Git)                | %.1f | %.1f | %.1f | %.1f |\n"+
			"goal: 0 reconciles, 0 API requests, 1 remote check\n"+
			"setup: %d Files Ready in %s\n"+
			"\nnew File created while %d exist: Ready after %s (goal < 2 s + commit window %s)\n"+
			"\nprovider restart (empty cache) with %d converged Files\n"+
			"| measure | value | goal |\n|----|----|----|\n"+
			"| time until every File was reconciled | %s | < 60 s |\n"+
			"| pushes | %.0f | 0 |\n"+
			"| File status writes | %d | 0 |\n"+
			"| File metadata writes | %d | 0 |\n"+
			"\nmemory with %d Files on one repository\n"+
			"| measure | value | goal |\n|----|----|----|\n"+
			"| provider binary (default flags), RSS once every File was reconciled (after %s) | %.0f MiB | < 300 MiB |\n"+
			"| provider binary, peak RSS | %.0f MiB | - |\n"+
			"| benchmark process (provider, Git server and harness): Go heap in use after GC | %.0f MiB | - |\n"+
			"| benchmark process: RSS | %.0f MiB | - |\n"+
			"| clone cache on disk | %.1f MiB | - |\n",
			n, poll, intervals, measured.Round(time.Second), n, n, reconcilesPer, apiPer, fetchesPer, checksPer,
			n, converge.Round(time.Second), n, newReady.Round(10*time.Millisecond), e2e.DefaultWindow,
			n+1, observed.Round(100*time.Millisecond), restartPushes, restartStatus, restartMeta,
			n+1, binTook.Round(100*time.Millisecond), mib(binRSS), mib(binPeak), mib(heap), mib(rss), mib(disk))
	}
}

// allReconciledSince reports whether every File i of ns has been reconciled
// more often than before[i].
func allReconciledSince(ns string, before []int) bool {
	for i, n := range before {
		if e2e.ReconcilesOf(benchFile(ns, i)) <= n {
			return false
		}
	}
	return true
}

// settle waits until the provider has nothing queued for a branch writer
// and no File reconcile started for two seconds.
func settle(bp *e2e.BenchProvider) {
	last, quiet := e2e.TotalReconciles(), time.Now()
	for bp.Cache.Pending() != 0 || time.Since(quiet) < 2*time.Second {
		time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
		if n := e2e.TotalReconciles(); n != last {
			last, quiet = n, time.Now()
		}
	}
}

// memoryInUse is the process's Go heap in use after a collection, and its
// resident set, in bytes.
func memoryInUse(b *testing.B) (heap, rss uint64) {
	b.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	return ms.HeapInuse, statusKiB(b, status, "VmRSS:")
}

// diskUsage is the size of the files under dir, in bytes.
func diskUsage(b *testing.B, dir string) uint64 {
	b.Helper()
	var n uint64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		n += uint64(fi.Size())
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
