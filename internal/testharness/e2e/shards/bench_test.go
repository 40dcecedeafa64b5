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

package shards_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/share"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e/sharing"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// benchRepos makes n repositories, each with a ProviderConfig "git" in a
// namespace of its own, and returns the namespaces and repository keys.
func benchRepos(b *testing.B, n int) ([]string, map[string]string) {
	b.Helper()
	w := e2e.Window
	nss := make([]string, n)
	keys := map[string]string{}
	for i := range nss {
		nss[i] = e2e.BenchFixtureWindow(b, nil, &w)
		k, err := git.RepositoryKey(e2e.HTTPGit.RepoURL(nss[i] + ".git"))
		if err != nil {
			b.Fatal(err)
		}
		keys[nss[i]] = k
	}
	return nss, keys
}

// benchFile creates one File named name in ns.
func benchFile(b *testing.B, ns, name string) {
	b.Helper()
	fl := &v1alpha1.File{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{
			Branch: "main", Path: "apps/" + name + ".yaml", Content: ptr.To(name + "\n"),
		}},
	}
	fl.Spec.ProviderConfigReference = e2e.PCRef()
	if err := e2e.CP.Client.Create(context.Background(), fl); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkShareFailover: three replicas share 9 repositories; one is
// killed with SIGKILL ten times in a row (replaced after each kill). The
// figure is, per kill, the time from the kill to the first push by the new
// holder of each of the dead replica's repositories (a File is created in
// each right after the kill): p50 and max of the slowest repository per
// kill, and of the first. Lease 6s (SHARE_BENCH_LEASE_SECONDS), so a
// failover takes 4s to 10s (a lease, less one renewal or plus two) and a
// reconcile, a commit window and a push.
func BenchmarkShareFailover(b *testing.B) {
	kills := e2e.BenchN("SHARE_BENCH_KILLS", 10)
	d := time.Duration(e2e.BenchN("SHARE_BENCH_LEASE_SECONDS", 6)) * time.Second
	kubeconfig := e2e.KubeconfigFile(b)
	e2e.BuildProvider(b)
	nss, keys := benchRepos(b, 9)
	lns := sharing.Namespace(b)
	live := []*e2e.Replica{}
	for i := range 3 {
		live = append(live, sharing.StartMember(b, kubeconfig, lns, fmt.Sprintf("r-%d", i), d))
	}
	sharing.Settled(b, live, 3)
	var slowest, first []time.Duration
	b.ResetTimer()
	for k := range kills {
		names := make([]string, len(live))
		for i, r := range live {
			names[i] = r.Name
		}
		// The victim goes round the replicas, skipping one that holds
		// none of the repositories (9 hashed over 3 leave one empty now
		// and then), so every kill is a failover that is timed.
		var victim *e2e.Replica
		var theirs []string
		for i := range live {
			r := live[(k+i)%len(live)]
			for _, ns := range nss {
				if share.Holder(keys[ns], names) == r.Name {
					theirs = append(theirs, ns)
				}
			}
			if len(theirs) > 0 {
				victim = r
				break
			}
		}
		if victim == nil {
			b.Fatalf("kill %d: no replica holds a repository", k)
		}
		// From the signal, not from the reaping Kill waits for.
		killed := time.Now()
		victim.Kill()
		for _, ns := range theirs {
			benchFile(b, ns, fmt.Sprintf("k-%02d", k))
		}
		var per []time.Duration
		testenv.Eventually(b, 2*time.Minute, func() error {
			per = per[:0]
			pushes := e2e.HTTPGit.Pushes()
			for _, ns := range theirs {
				var at time.Time
				for _, p := range pushes {
					if p.Repo == ns+".git" && p.Start.After(killed) && p.UserAgent != victim.UserAgent() && (at.IsZero() || p.Start.Before(at)) {
						at = p.Start
					}
				}
				if at.IsZero() {
					return fmt.Errorf("%s not pushed by a new holder yet", ns)
				}
				per = append(per, at.Sub(killed))
			}
			return nil
		})
		slices.Sort(per)
		first, slowest = append(first, per[0]), append(slowest, per[len(per)-1])
		// A replacement, as the Deployment would start one.
		rest := slices.DeleteFunc(slices.Clone(live), func(r *e2e.Replica) bool { return r == victim })
		rest = append(rest, sharing.StartMember(b, kubeconfig, lns, fmt.Sprintf("r-%d", 3+k), d))
		live = rest
		sharing.Settled(b, live, 3)
	}
	b.StopTimer()
	if len(slowest) == 0 {
		b.Fatal("no kill found a repository to fail over")
	}
	slices.Sort(slowest)
	slices.Sort(first)
	b.ReportMetric(slowest[len(slowest)/2].Seconds(), "failover-p50-s")
	b.ReportMetric(slowest[len(slowest)-1].Seconds(), "failover-max-s")
	// The others count the victim gone at their first renewal a whole
	// lease after they saw its last one, which they read up to a renewal
	// after it landed, and it renewed up to a renewal before the kill:
	// between lease-renewal and lease+2*renewal after the kill.
	b.Logf("FIGURE share-failover lease=%s kills=%d all-repos-resumed p50=%.1fs max=%.1fs; first-repo p50=%.1fs max=%.1fs (expected: the others count it gone %s to %s after the kill, then a reconcile, a commit window and a push)",
		d, len(slowest), slowest[len(slowest)/2].Seconds(), slowest[len(slowest)-1].Seconds(),
		first[len(first)/2].Seconds(), first[len(first)-1].Seconds(), d-d/3, d+2*(d/3))
}

// BenchmarkShareBalance: three replicas, 300 repositories with one File
// each (SHARE_BENCH_REPOS): the repositories each holds and the File
// reconciles each made, max/min.
func BenchmarkShareBalance(b *testing.B) {
	n := e2e.BenchN("SHARE_BENCH_REPOS", 300)
	kubeconfig := e2e.KubeconfigFile(b)
	e2e.BuildProvider(b)
	nss, _ := benchRepos(b, n)
	lns := sharing.Namespace(b)
	rs := sharing.StartShared(b, kubeconfig, lns, 3)
	b.ResetTimer()
	start := time.Now()
	for _, ns := range nss {
		benchFile(b, ns, "balance")
	}
	sharing.ReadyIn(b, nss, 10*time.Minute)
	converge := time.Since(start)
	b.StopTimer()
	var held, recs []float64
	testenv.Eventually(b, time.Minute, func() error {
		held, recs = held[:0], recs[:0]
		sum := 0.0
		for _, r := range rs {
			h, err := r.Metric("provider_git_share_repositories_held")
			if err != nil {
				return err
			}
			c, err := r.Metric("controller_runtime_reconcile_total", `controller="managed/file"`)
			if err != nil {
				return err
			}
			held, recs, sum = append(held, h), append(recs, c), sum+h
		}
		if int(sum) < n {
			return fmt.Errorf("the replicas hold %v of %d repositories", sum, n)
		}
		return nil
	})
	ratio := func(v []float64) float64 { return slices.Max(v) / max(slices.Min(v), 1) }
	b.ReportMetric(ratio(held), "repos-max/min")
	b.ReportMetric(ratio(recs), "reconciles-max/min")
	b.Logf("FIGURE share-balance repos=%d held=%v repos-max/min=%.2f file-reconciles=%v reconciles-max/min=%.2f converge=%.1fs (baseline: one replica holds all, ratio ∞)",
		n, held, ratio(held), recs, ratio(recs), converge.Seconds())
}

// BenchmarkShareMembershipAPI: the API requests each of three replicas
// makes for its membership at rest, over one minute of the real clock with
// the default lease (15s), so the figure is the production one, not one
// scaled from a shortened renewal. Each replica reaches the API server
// through a CountingAPIProxy of its own: the count is what arrived at the
// proxy (every Lease read, write, list and watch), not what the replica says
// it sent; its own provider_git_share_api_requests_total is reported beside
// it, and so is every API request it sent in that minute.
func BenchmarkShareMembershipAPI(b *testing.B) {
	e2e.BuildProvider(b)
	lns := sharing.Namespace(b)
	rs := make([]*e2e.Replica, 3)
	ps := make([]*e2e.CountingAPIProxy, len(rs))
	for i := range rs {
		ps[i] = e2e.StartCountingAPIProxy(b)
		rs[i] = sharing.StartMember(b, ps[i].Kubeconfig, lns, fmt.Sprintf("api-%d", i), 15*time.Second)
	}
	sharing.Settled(b, rs, 3)
	type sample struct {
		at   time.Time
		seen []e2e.APICounts
		own  []float64
	}
	take := func() sample {
		s := sample{at: time.Now()}
		for i, r := range rs {
			s.seen = append(s.seen, ps[i].Counts())
			s.own = append(s.own, r.MustMetric(b, "provider_git_share_api_requests_total"))
		}
		return s
	}
	b.ResetTimer()
	before := take()
	// The measured interval itself: a minute at rest (nothing is created,
	// nothing changes), read off the real clock.
	<-time.After(time.Minute)
	after := take()
	b.StopTimer()
	perMin := func(d float64) float64 { return d / after.at.Sub(before.at).Minutes() }
	leases, own, all := make([]float64, len(rs)), make([]float64, len(rs)), make([]float64, len(rs))
	for i := range rs {
		leases[i] = perMin(float64(after.seen[i].Leases - before.seen[i].Leases))
		all[i] = perMin(float64(after.seen[i].All - before.seen[i].All))
		own[i] = perMin(after.own[i] - before.own[i])
	}
	b.ReportMetric(slices.Max(leases), "lease-requests/min/replica")
	b.ReportMetric(slices.Max(all), "api-requests/min/replica")
	b.Logf("FIGURE share-membership-api lease=15s window=%.1fs lease-requests-per-minute-per-replica(proxy)=%.1f self-counted=%.1f all-api-requests-per-minute=%.1f (expected 24: a renewal and a list every 5s)",
		after.at.Sub(before.at).Seconds(), leases, own, all)
}
