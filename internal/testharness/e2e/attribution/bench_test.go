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

package attribution_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// benchRun is one Mirror over a new namespace, with or without attribution.
type benchRun struct {
	bp      *e2e.BenchProvider
	metrics *audit.Metrics
	ns, dir string
}

func startRun(b *testing.B, attribution v1alpha1.MirrorAttribution) *benchRun {
	b.Helper()
	r := &benchRun{metrics: audit.NewMetrics()}
	r.bp = e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: e2e.DefaultPoll, Audit: store, AuditMetrics: r.metrics})
	if err := r.metrics.Register(r.bp.Reg); err != nil {
		b.Fatal(err)
	}
	r.ns = e2e.BenchFixture(b, nil)
	r.dir = filepath.Join(e2e.GitRoot, r.ns+".git")
	m := e2e.NewMirror(r.ns, "m", v1alpha1.MirrorParameters{
		Resources:   []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}},
		Attribution: attribution,
	}, e2e.PCRef())
	if err := e2e.CP.Client.Create(context.Background(), m); err != nil {
		b.Fatal(err)
	}
	// The empty folder's marker lands first.
	r.waitFiles(b, func(out string) bool { return strings.Contains(out, e2e.MirrorFolder+"/.mirror.yaml") }, time.Minute)
	return r
}

// waitFiles polls the remote's tree every 100ms until done accepts it.
func (r *benchRun) waitFiles(b *testing.B, done func(string) bool, timeout time.Duration) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out, _ := testenv.Git(r.dir, nil, "ls-tree", "-r", "--name-only", "main", e2e.MirrorFolder+"/")
		if done(out) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("the remote does not hold what it should after %s", timeout)
		}
		time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
	}
}

func (r *benchRun) commits(b *testing.B) int {
	b.Helper()
	out, err := testenv.Git(r.dir, nil, "rev-list", "--count", "main")
	if err != nil {
		b.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func (r *benchRun) counter(b *testing.B, name, label, value string) float64 {
	b.Helper()
	mfs, err := r.bp.Reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if label == "" || (l.GetName() == label && l.GetValue() == value) {
					sum += m.GetCounter().GetValue()
					break
				}
			}
		}
	}
	return sum
}

// burst creates n ConfigMaps at once and returns how long until all are on
// the remote, and the commits and pushes it took.
func (r *benchRun) burst(b *testing.B, n int) (time.Duration, int, float64) {
	b.Helper()
	commits0, pushes0 := r.commits(b), e2e.MetricSum(b, r.bp.Reg, "provider_git_pushes_total")
	start := time.Now()
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 32 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: fmt.Sprintf("cm-%05d", i)}, Data: map[string]string{"index": strconv.Itoa(i)}}
				if err := e2e.CP.Client.Create(context.Background(), cm); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	prefix := e2e.MirrorFolder + "/" + r.ns + "/core/configmap/"
	r.waitFiles(b, func(out string) bool { return strings.Count(out, prefix) >= n }, 30*time.Minute)
	return time.Since(start), r.commits(b) - commits0, e2e.MetricSum(b, r.bp.Reg, "provider_git_pushes_total") - pushes0
}

// BenchmarkAttributionBurstOf1000ConfigMaps creates 1,000 ConfigMaps at
// once in a namespace a Mirror with attribution: Audit mirrors, the API
// server's audit webhook posting to the provider (batch wait 100ms), and
// reports the time until all are on the remote, the commits and pushes,
// and how many changes were attributed. The baseline, in the same run, is
// the same burst with attribution off. BENCH_ATTRIBUTION_OBJECTS changes
// the count.
func BenchmarkAttributionBurstOf1000ConfigMaps(b *testing.B) {
	n := e2e.BenchN("BENCH_ATTRIBUTION_OBJECTS", 1000)
	for range b.N {
		off := startRun(b, v1alpha1.MirrorAttributionNone)
		offTook, offCommits, offPushes := off.burst(b, n)
		off.bp.Stop()

		on := startRun(b, v1alpha1.MirrorAttributionAudit)
		onTook, onCommits, onPushes := on.burst(b, n)
		resolved := on.counter(b, "provider_git_mirror_attributions_total", "result", "resolved")
		unresolved := on.counter(b, "provider_git_mirror_attributions_total", "result", "unresolved")
		on.bp.Stop()

		fmt.Printf("\n%d ConfigMaps created at once in a mirrored namespace (commit window %s, --max-reconcile-rate %d, audit batch wait 100ms)\n"+
			"| | time until all are on the remote | commits | pushes | attributed / unresolved |\n|----|----|----|----|----|\n"+
			"| attribution off (baseline, this run) | %s | %d | %.0f | - |\n"+
			"| attribution: Audit | %s | %d | %.0f | %.0f / %.0f |\n",
			n, e2e.DefaultWindow, e2e.DefaultRate, offTook.Round(100*time.Millisecond), offCommits, offPushes,
			onTook.Round(100*time.Millisecond), onCommits, onPushes, resolved, unresolved)
	}
}

// seqOf finds each ConfigMap's seq in `git grep` output.
var seqOf = regexp.MustCompile(`configmap/(cm-\d+)\.yaml:\s*seq:\s*"(\d+)"`)

// BenchmarkAttributionSteady100PerSecond edits 100 ConfigMaps of a
// mirrored namespace at 100 changes per second, round robin, as four users,
// for BENCH_ATTRIBUTION_SECONDS (default 10; the figure is for 60),
// with attribution: Audit, and reports p50 and p99 from a change to the
// remote holding it (the remote polled every 100ms), the changes
// attributed and unresolved, and the join state's size (the audit store's
// estimate, at its largest; the store is the package's, so it holds the
// facts of the benchmarks before it too, up to --audit-store-max-age).
// The baseline, in the same run, is the same load with attribution off.
func BenchmarkAttributionSteady100PerSecond(b *testing.B) {
	secs := e2e.BenchN("BENCH_ATTRIBUTION_SECONDS", 10)
	users := make([]client.Client, 4)
	for i := range users {
		users[i] = benchUser(b, fmt.Sprintf("user-%d", i))
	}
	for range b.N {
		off := steady(b, v1alpha1.MirrorAttributionNone, users, secs)
		on := steady(b, v1alpha1.MirrorAttributionAudit, users, secs)
		fmt.Printf("\n%d changes per second for %ds to %d mirrored ConfigMaps by 4 users (commit window %s, audit batch wait 100ms)\n"+
			"| | change → remote p50 | p99 | changes seen on the remote | file changes attributed / unresolved | join state (audit store, largest) |\n|----|----|----|----|----|----|\n"+
			"| attribution off (baseline, this run) | %s | %s | %d of %d | - | - |\n"+
			"| attribution: Audit | %s | %s | %d of %d | %.0f / %.0f | %d KiB |\n",
			steadyRate, secs, steadyObjects, e2e.DefaultWindow,
			off.p50, off.p99, off.seen, off.total,
			on.p50, on.p99, on.seen, on.total, on.resolved, on.unresolved, on.maxBytes/1024)
	}
}

// steadyResult is what one steady run measured.
type steadyResult struct {
	p50, p99             time.Duration
	seen, total          int
	resolved, unresolved float64
	maxBytes             int64
}

const steadyObjects, steadyRate = 100, 100

// steady runs the steady load on a new Mirror with attribution.
func steady(b *testing.B, attribution v1alpha1.MirrorAttribution, users []client.Client, secs int) steadyResult {
	b.Helper()
	const objects, rate = steadyObjects, steadyRate
	r := startRun(b, attribution)
	for i := range objects {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: fmt.Sprintf("cm-%05d", i)}, Data: map[string]string{"seq": "0"}}
		if err := e2e.CP.Client.Create(context.Background(), cm); err != nil {
			b.Fatal(err)
		}
	}
	prefix := e2e.MirrorFolder + "/" + r.ns + "/core/configmap/"
	r.waitFiles(b, func(out string) bool { return strings.Count(out, prefix) >= objects }, 10*time.Minute)
	resolved0 := r.counter(b, "provider_git_mirror_attributions_total", "result", "resolved")
	unresolved0 := r.counter(b, "provider_git_mirror_attributions_total", "result", "unresolved")

	total := secs * rate
	sent := make([]time.Time, total+1)
	var mu sync.Mutex
	landed := make([]time.Duration, total+1)
	var maxBytes atomic.Int64
	stop := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Go(func() {
		// The remote, every 100ms: the newest seq of each object.
		seen := map[string]int{}
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if n := store.Bytes(); n > maxBytes.Load() {
				maxBytes.Store(n)
			}
			out, _ := testenv.Git(r.dir, nil, "grep", "-e", "seq:", "main", "--", prefix)
			now := time.Now()
			for _, mm := range seqOf.FindAllStringSubmatch(out, -1) {
				seq, _ := strconv.Atoi(mm[2])
				name := mm[1]
				mu.Lock()
				// Every change of this object up to seq is on the remote.
				for s := seq; s > seen[name]; s -= objects {
					if s <= total && landed[s] == 0 && !sent[s].IsZero() {
						landed[s] = now.Sub(sent[s])
					}
				}
				if seq > seen[name] {
					seen[name] = seq
				}
				mu.Unlock()
			}
		}
	})
	// Each change in a goroutine of its own, so that a slow request
	// does not slow the rate; an object changes once a second, so its
	// changes do not overtake each other.
	tick := time.NewTicker(time.Second / rate)
	var senders sync.WaitGroup
	for seq := 1; seq <= total; seq++ {
		<-tick.C
		name := fmt.Sprintf("cm-%05d", seq%objects)
		patch := client.RawPatch("application/merge-patch+json", []byte(fmt.Sprintf(`{"data":{"seq":%q}}`, strconv.Itoa(seq))))
		mu.Lock()
		sent[seq] = time.Now()
		mu.Unlock()
		c := users[seq%len(users)]
		senders.Go(func() {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: name}}
			if err := c.Patch(context.Background(), cm, patch); err != nil {
				b.Error(err)
			}
		})
	}
	tick.Stop()
	senders.Wait()
	// The last change of every object on the remote.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		mu.Lock()
		done := true
		for s := total - objects + 1; s <= total; s++ {
			if landed[s] == 0 {
				done = false
			}
		}
		mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			m := &v1alpha1.Mirror{}
			_ = e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: r.ns, Name: "m"}, m)
			missing := 0
			mu.Lock()
			for s := total - objects + 1; s <= total; s++ {
				if landed[s] == 0 {
					missing++
				}
			}
			mu.Unlock()
			b.Fatalf("attribution %q: %d of the last %d changes are not on the remote after 2 minutes; the Mirror is Ready %s %s: %s",
				attribution, missing, objects, m.GetCondition("Ready").Status, m.GetCondition("Ready").Reason, m.GetCondition("Ready").Message)
		}
		time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
	}
	close(stop)
	watcher.Wait()
	var lat []time.Duration
	for s := 1; s <= total; s++ {
		if landed[s] > 0 {
			lat = append(lat, landed[s])
		}
	}
	slices.Sort(lat)
	p := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	resolved := r.counter(b, "provider_git_mirror_attributions_total", "result", "resolved") - resolved0
	unresolved := r.counter(b, "provider_git_mirror_attributions_total", "result", "unresolved") - unresolved0
	r.bp.Stop()
	return steadyResult{
		p50: p(0.5).Round(10 * time.Millisecond), p99: p(0.99).Round(10 * time.Millisecond),
		seen: len(lat), total: total, resolved: resolved, unresolved: unresolved, maxBytes: maxBytes.Load(),
	}
}

// benchUser is a client of user in system:masters.
func benchUser(b *testing.B, user string) client.Client {
	b.Helper()
	cfg, err := e2e.CP.UserConfig(user, "system:masters")
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	c, err := client.New(cfg, client.Options{Scheme: e2e.CP.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	return c
}
