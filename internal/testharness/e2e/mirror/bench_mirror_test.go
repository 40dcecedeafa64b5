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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// BenchmarkMirrorBurstOf1000ConfigMaps creates 1,000 ConfigMaps at once in a
// namespace a Mirror mirrors, with the provider's default flags, and reports
// the time until all are on the remote, the pushes and the commits. The
// baseline, in the same run on the same server, is one commit and one push
// per object (what a mirror without a commit window does), made through the
// engine with a zero window. BENCH_MIRROR_OBJECTS changes the count.
func BenchmarkMirrorBurstOf1000ConfigMaps(b *testing.B) {
	n := e2e.BenchN("BENCH_MIRROR_OBJECTS", 1000)
	for range b.N {
		baseTook, basePushes := mirrorBaseline(b, n)

		// The empty folder's marker lands first: from then on, every
		// commit is the burst's.
		bp, ns, dir, _ := startMirrorBench(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: e2e.DefaultPoll})
		commits0, pushes0 := commitCount(b, dir), e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total")

		start := time.Now()
		createConfigMaps(b, ns, n)
		waitMirroredCount(b, dir, ns, n, false, 30*time.Minute)
		took := time.Since(start)
		pushes := e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total") - pushes0
		commits := commitCount(b, dir) - commits0
		bp.Stop()

		fmt.Printf("\n%d ConfigMaps created at once in a mirrored namespace (commit window %s, --max-reconcile-rate %d)\n"+
			"| | time until all are on the remote | pushes | commits |\n|----|----|----|----|\n"+
			"| one commit per object (baseline, this run) | %s | %d | %d |\n"+
			"| Mirror | %s | %.0f | %d |\n",
			n, e2e.DefaultWindow, e2e.DefaultRate, baseTook.Round(100*time.Millisecond), basePushes, basePushes,
			took.Round(100*time.Millisecond), pushes, commits)
	}
}

// mirrorBaseline writes n object files one commit and one push each.
func mirrorBaseline(b *testing.B, n int) (time.Duration, int) {
	b.Helper()
	name := fmt.Sprintf("baseline-%d.git", time.Now().UnixNano())
	testenv.NewBareRepo(b, e2e.GitRoot, name, map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}}})
	c, err := git.NewCache(b.TempDir(), git.WithCommitWindow(0))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	r, err := c.Repository(git.Remote{URL: e2e.HTTPGit.RepoURL(name), Auth: &git.BasicAuth{Username: e2e.GitUser, Password: e2e.GitToken}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := r.Refresh(ctx, 0, "main"); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i := range n {
		p := fmt.Sprintf("live/ns/core/configmap/cm-%05d.yaml", i)
		content := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%05d\n  namespace: ns\ndata:\n  index: %q\n", i, strconv.Itoa(i))
		if res := r.Submit(ctx, "main", git.Change{Puts: map[string]git.File{p: {Content: []byte(content)}}, Message: "Mirror " + p}); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
	return time.Since(start), n
}

// createConfigMaps creates n ConfigMaps in ns from 32 goroutines.
func createConfigMaps(b *testing.B, ns string, n int) {
	b.Helper()
	var wg sync.WaitGroup
	var next atomic.Int64
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%05d", i)},
					Data: map[string]string{"index": strconv.Itoa(i)}}
				if err := e2e.CP.Client.Create(context.Background(), cm); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// waitMirroredCount waits until main in the bare repository dir holds want
// ConfigMap files of ns under the Mirror's folder (and, with marker, its
// marker), checking every 250ms.
func waitMirroredCount(b *testing.B, dir, ns string, want int, marker bool, timeout time.Duration) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out, _ := testenv.Git(dir, nil, "ls-tree", "-r", "--name-only", "main", e2e.MirrorFolder+"/")
		got, hasMarker := 0, false
		for _, l := range strings.Split(out, "\n") {
			switch {
			case strings.HasPrefix(l, e2e.MirrorFolder+"/"+ns+"/core/configmap/"):
				got++
			case l == e2e.MirrorFolder+"/.mirror.yaml":
				hasMarker = true
			}
		}
		if got >= want && (!marker || hasMarker) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d ConfigMaps on the remote after %s", got, want, timeout)
		}
		time.Sleep(250 * time.Millisecond) // polling interval of a wait on a condition
	}
}

func commitCount(b *testing.B, dir string) int {
	b.Helper()
	out, err := testenv.Git(dir, nil, "rev-list", "--count", "main")
	if err != nil {
		b.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkMirrorSteadyStateOf5000Objects mirrors 5,000 ConfigMaps, then
// measures what a poll interval costs while nothing changes: Mirror
// reconciles, API requests beyond the open watches, fetches, remote checks
// and status writes, and the provider's memory (the test process's RSS,
// which holds the provider; the API server runs apart). Goals: 0 API
// requests, <= 1 fetch, 0 status writes per poll; RSS < 400 MiB.
// BENCH_MIRROR_STEADY changes the count.
func BenchmarkMirrorSteadyStateOf5000Objects(b *testing.B) {
	n := e2e.BenchN("BENCH_MIRROR_STEADY", 5000)
	const poll, intervals = 10 * time.Second, 3
	for range b.N {
		bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: 100, Poll: poll})
		ns := e2e.BenchFixture(b, nil)
		dir := filepath.Join(e2e.GitRoot, ns+".git")
		createConfigMaps(b, ns, n)
		m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
		start := time.Now()
		if err := e2e.CP.Client.Create(context.Background(), m); err != nil {
			b.Fatal(err)
		}
		waitMirroredCount(b, dir, ns, n, true, 30*time.Minute)
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
		// The push's wake, its status write and the first poll pass.
		waitPolls(1)
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(m), m); err != nil {
			b.Fatal(err)
		}
		rv0, r0, a0 := m.ResourceVersion, e2e.ReconcilesOf(m), bp.API.N.Load()
		f0, p0 := e2e.MetricSum(b, bp.Reg, "provider_git_fetches_total"), pollsNow()
		t0 := time.Now()
		waitPolls(intervals)
		measured := time.Since(t0)
		per := func(v float64) float64 { return v / intervals }
		reconcilesPer := per(float64(e2e.ReconcilesOf(m) - r0))
		apiPer := per(float64(bp.API.N.Load() - a0))
		fetchesPer := per(e2e.MetricSum(b, bp.Reg, "provider_git_fetches_total") - f0)
		checksPer := per(pollsNow() - p0)
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(m), m); err != nil {
			b.Fatal(err)
		}
		statusWrites := "0"
		if m.ResourceVersion != rv0 {
			statusWrites = "> 0 (resourceVersion moved)"
		}
		rss := rssMiB(b)
		bp.Stop()

		fmt.Printf("\n%d mirrored ConfigMaps, per poll interval (%s, %d intervals measured over %s)\n"+
			"| Mirror reconciles | API requests | fetches | remote checks | status writes | RSS |\n"+
			"|----|----|----|----|----|----|\n"+
			"| %.1f | %.1f | %.1f | %.1f | %s | %d MiB |\n"+
			"goal: 0 API requests, <= 1 fetch, 0 status writes per poll; RSS < 400 MiB\n"+
			"setup: %d objects on the remote %s after the Mirror was created\n",
			n, poll, intervals, measured.Round(time.Second), reconcilesPer, apiPer, fetchesPer, checksPer, statusWrites, rss,
			n, converge.Round(100*time.Millisecond))
	}
}

// rssMiB is this process's resident set size.
func rssMiB(b *testing.B) int {
	b.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.Atoi(f[1])
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// BenchmarkMirrorChurn updates 100 mirrored ConfigMaps every second for 30
// seconds and reports the pushes, next to the number of commit windows the
// churn spans, and how long each change took to reach the remote (from its
// update to the first head that holds it or a later state of the object),
// p50 and p99. Goals: pushes <= windows + 2; p50 <= window + 1 s.
// BENCH_MIRROR_CHURN_OBJECTS and BENCH_MIRROR_CHURN_SECONDS change the
// sizes.
func BenchmarkMirrorChurn(b *testing.B) {
	n := e2e.BenchN("BENCH_MIRROR_CHURN_OBJECTS", 100)
	seconds := e2e.BenchN("BENCH_MIRROR_CHURN_SECONDS", 30)
	for range b.N {
		bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: e2e.DefaultPoll})
		ns := e2e.BenchFixture(b, nil)
		dir := filepath.Join(e2e.GitRoot, ns+".git")
		createConfigMaps(b, ns, n)
		m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
		if err := e2e.CP.Client.Create(context.Background(), m); err != nil {
			b.Fatal(err)
		}
		waitMirroredCount(b, dir, ns, n, true, 5*time.Minute)
		for bp.Cache.Pending() != 0 {
			time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
		}
		pushes0 := e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total")

		// updated[r][name] is when round r's update of ConfigMap name was
		// accepted.
		updated := make([]map[string]time.Time, seconds+1)
		remote := newRemoteRounds(dir, e2e.MirrorFolder+"/"+ns+"/core/configmap/", n)
		stop := make(chan struct{})
		watched := make(chan struct{})
		go func() { defer close(watched); remote.watch(b, stop) }()
		tick := time.NewTicker(time.Second)
		for r := 1; r <= seconds; r++ {
			<-tick.C
			updated[r] = updateConfigMaps(b, ns, n, r)
		}
		tick.Stop()
		if !remote.waitRound(seconds, 2*time.Minute) {
			b.Fatalf("round %d never reached the remote", seconds)
		}
		close(stop)
		<-watched
		pushes := e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total") - pushes0
		bp.Stop()

		var lat []time.Duration
		for r := 1; r <= seconds; r++ {
			for file, at := range remote.landed(r) {
				name := strings.TrimSuffix(filepath.Base(file), ".yaml")
				lat = append(lat, at.Sub(updated[r][name]))
			}
		}
		slices.Sort(lat)
		pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
		windows := int(time.Duration(seconds)*time.Second/e2e.DefaultWindow) + 1
		fmt.Printf("\n%d mirrored ConfigMaps updated every second for %d s (commit window %s)\n"+
			"| pushes | commit windows spanned | change -> on remote p50 | p99 |\n|----|----|----|----|\n"+
			"| %.0f | %d | %s | %s |\n"+
			"goal: pushes <= windows + 2; p50 <= window + 1 s\n",
			n, seconds, e2e.DefaultWindow, pushes, windows, pct(0.5).Round(10*time.Millisecond), pct(0.99).Round(10*time.Millisecond))
	}
}

// updateConfigMaps sets round r on the n ConfigMaps of ns, from 10
// goroutines, and returns when each update was accepted.
func updateConfigMaps(b *testing.B, ns string, n, r int) map[string]time.Time {
	b.Helper()
	var mu sync.Mutex
	done := make(map[string]time.Time, n)
	var wg sync.WaitGroup
	var next atomic.Int64
	errs := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				patch := fmt.Sprintf(`{"data":{"round":"%d"}}`, r)
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%05d", i)}}
				if err := e2e.CP.Client.Patch(context.Background(), cm, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				done[cm.Name] = time.Now()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return done
}

// remoteRounds follows which round of each object the remote's main holds,
// and when each first appeared.
type remoteRounds struct {
	dir, prefix string
	n           int
	mu          sync.Mutex
	seen        map[string]int               // file -> newest round on the remote
	at          map[int]map[string]time.Time // round -> file -> when it first held it or a later one
	head        string
}

func newRemoteRounds(dir, prefix string, n int) *remoteRounds {
	return &remoteRounds{dir: dir, prefix: prefix, n: n, seen: map[string]int{}, at: map[int]map[string]time.Time{}}
}

// watch reads the remote every 50ms until stop.
func (rr *remoteRounds) watch(b *testing.B, stop <-chan struct{}) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		rr.read(b)
	}
}

func (rr *remoteRounds) read(b *testing.B) {
	head, err := testenv.Git(rr.dir, nil, "rev-parse", "main")
	if err != nil || strings.TrimSpace(head) == rr.head {
		return
	}
	now := time.Now()
	out, err := testenv.Git(rr.dir, nil, "grep", "round:", strings.TrimSpace(head), "--", rr.prefix)
	if err != nil {
		return
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.head = strings.TrimSpace(head)
	for _, l := range strings.Split(out, "\n") {
		// <head>:<path>:  round: "<r>"
		i := strings.LastIndex(l, "round:")
		if i < 0 {
			continue
		}
		file := strings.TrimRight(strings.TrimPrefix(l[:i], rr.head+":"), ": \t")
		r, err := strconv.Atoi(strings.Trim(strings.TrimSpace(l[i+len("round:"):]), `"'`))
		if err != nil {
			continue
		}
		for k := rr.seen[file] + 1; k <= r; k++ {
			if rr.at[k] == nil {
				rr.at[k] = map[string]time.Time{}
			}
			rr.at[k][file] = now
		}
		if r > rr.seen[file] {
			rr.seen[file] = r
		}
	}
}

// landed returns, by file, when each object first held round r (or a
// later one).
func (rr *remoteRounds) landed(r int) map[string]time.Time {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return maps.Clone(rr.at[r])
}

// waitRound waits until every object's round r is on the remote.
func (rr *remoteRounds) waitRound(r int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if len(rr.landed(r)) >= rr.n {
			return true
		}
		time.Sleep(50 * time.Millisecond) // polling interval of a wait on a condition
	}
	return false
}
