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

package gitea_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "code.gitea.io/sdk/gitea"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitea"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Benchmarks of the PullRequest kind on the real Gitea, with the provider
// wired as cmd/provider wires it (default rate and poll interval). Each
// prints a table next to its baseline, measured in the same run.

// benchGitea is a namespace whose ProviderConfig "git" reaches a new
// repository of g, its API through apiURL.
func benchGitea(b *testing.B, g *testenv.Gitea, apiURL string) (string, testenv.GiteaRepo) {
	b.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-pr-"}}
	if err := e2e.CP.Client.Create(ctx, ns); err != nil {
		b.Fatal(err)
	}
	repo := g.CreateRepo(b, ns.Name)
	if apiURL == "" {
		apiURL = repo.APIURL
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea"},
		StringData: map[string]string{"username": testenv.GiteaAdmin, "password": g.Token}}
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git"},
		Spec: v1alpha1.ProviderConfigSpec{URL: repo.CloneURL,
			Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: secret.Name}},
			Forge:       &v1alpha1.ForgeConfig{Type: v1alpha1.ForgeType(forge.Gitea), APIURL: apiURL}}}
	benchCreate(b, secret, pc)
	return ns.Name, repo
}

// benchCreate creates objs from 16 goroutines, as a burst of kubectl
// applies would.
func benchCreate(b *testing.B, objs ...client.Object) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(objs))
	work := make(chan client.Object)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				if err := e2e.CP.Client.Create(context.Background(), o); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, o := range objs {
		work <- o
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// headBranch is the Branch and File that make head branch i of ns.
func headBranch(ns, prefix string, i int) (*v1alpha1.Branch, *v1alpha1.File) {
	name := fmt.Sprintf("%s-%03d", prefix, i)
	br := &v1alpha1.Branch{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.BranchSpec{ForProvider: v1alpha1.BranchParameters{Branch: "request/" + name, From: "main"}}}
	br.Spec.ProviderConfigReference = e2e.PCRef()
	fl := &v1alpha1.File{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{Branch: "request/" + name,
			Path: "apps/" + name + ".yaml", Content: ptr.To("name: " + name + "\n")}}}
	fl.Spec.ProviderConfigReference = e2e.PCRef()
	return br, fl
}

func benchPullRequest(ns, name, head string) *v1alpha1.PullRequest {
	pr := &v1alpha1.PullRequest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.PullRequestSpec{ForProvider: v1alpha1.PullRequestParameters{Head: head, Base: "main", Title: "Add " + name,
			Body: "Files:\n{{range .Files}}- {{.Path}}\n{{end}}"}}}
	pr.Spec.ProviderConfigReference = e2e.PCRef()
	return pr
}

// readyIn waits until want objects of list's kind in ns are Ready, checking
// every 100ms, and returns how long that took from start.
func readyIn(b *testing.B, ns string, list client.ObjectList, want int, start time.Time, timeout time.Duration) time.Duration {
	b.Helper()
	for {
		if err := e2e.CP.Client.List(context.Background(), list, client.InNamespace(ns)); err != nil {
			b.Fatal(err)
		}
		ready := 0
		for _, c := range readyConditions(list) {
			if c.Status == corev1.ConditionTrue {
				ready++
			}
		}
		if ready >= want {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			b.Fatalf("%d of %d %T Ready after %s", ready, want, list, timeout)
		}
		time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
	}
}

func readyConditions(list client.ObjectList) []xpv2.Condition {
	var out []xpv2.Condition
	switch l := list.(type) {
	case *v1alpha1.FileList:
		for i := range l.Items {
			out = append(out, l.Items[i].GetCondition(xpv2.TypeReady))
		}
	case *v1alpha1.PullRequestList:
		for i := range l.Items {
			out = append(out, l.Items[i].GetCondition(xpv2.TypeReady))
		}
	}
	return out
}

// sumOf adds the counts whose key matches.
func sumOf(counts map[string]int, match func(string) bool) int {
	n := 0
	for k, v := range counts {
		if match(k) {
			n += v
		}
	}
	return n
}

func giteaOpeners() map[forge.Type]forge.Opener {
	return map[forge.Type]forge.Opener{forge.Gitea: gitea.New}
}

func isCreate(k string) bool { return strings.HasPrefix(k, "POST ") && strings.HasSuffix(k, "/pulls") }

// BenchmarkPullRequestsCreatedAtOnce applies 100 PullRequests at once, each
// with its own head branch made by a Branch and a File applied with it, on
// one repository of the real Gitea, and measures the time until all are
// Ready and the forge requests they cost, counted at a proxy in front of
// Gitea's API: exactly 100 creates (one more would be a pull request
// opened twice). Baseline, in the same run: the same 100 Branches and
// Files with no PullRequest, on a repository of their own.
// BENCH_PULL_REQUESTS changes the count.
func BenchmarkPullRequestsCreatedAtOnce(b *testing.B) {
	n := e2e.BenchN("BENCH_PULL_REQUESTS", 100)
	g := testenv.StartGitea(b)
	api, apiURL := countGiteaAPI(b, g.URL)
	for range b.N {
		e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: e2e.DefaultPoll, Forges: giteaOpeners()})

		// Baseline: the head branches alone.
		baseNS, _ := benchGitea(b, g, apiURL)
		var objs []client.Object
		for i := range n {
			br, fl := headBranch(baseNS, "base", i)
			objs = append(objs, br, fl)
		}
		start := time.Now()
		benchCreate(b, objs...)
		baseline := readyIn(b, baseNS, &v1alpha1.FileList{}, n, start, 10*time.Minute)

		ns, repo := benchGitea(b, g, apiURL)
		objs = nil
		for i := range n {
			br, fl := headBranch(ns, "pr", i)
			objs = append(objs, br, fl, benchPullRequest(ns, br.Name, br.Spec.ForProvider.Branch))
		}
		before := api.counts()
		start = time.Now()
		benchCreate(b, objs...)
		files := readyIn(b, ns, &v1alpha1.FileList{}, n, start, 10*time.Minute)
		prs := readyIn(b, ns, &v1alpha1.PullRequestList{}, n, start, 10*time.Minute)
		after := api.counts()
		diff := map[string]int{}
		for k, v := range after {
			if d := v - before[k]; d > 0 {
				diff[k] = d
			}
		}
		creates, total := sumOf(diff, isCreate), sumOf(diff, func(string) bool { return true })
		onGitea := giteaPulls(b, g, repo.Name)

		fmt.Printf("\n%d PullRequests applied at once with their Branch and File, on one repository of the real Gitea\n"+
			"| measure | baseline: Branches and Files alone | with PullRequests |\n|----|----|----|\n"+
			"| time until all Files Ready | %s | %s |\n"+
			"| time until all PullRequests Ready | - | %s |\n"+
			"| create requests (POST .../pulls) | - | %d (goal: exactly %d) |\n"+
			"| pull requests on Gitea | - | %d |\n"+
			"| forge API requests, all | - | %d (%.2f per PullRequest) |\n"+
			"forge requests by kind: %v\n",
			n, baseline.Round(time.Millisecond), files.Round(time.Millisecond), prs.Round(time.Millisecond),
			creates, n, onGitea, total, float64(total)/float64(n), diff)
		b.ReportMetric(prs.Seconds(), "s-all-ready")
		b.ReportMetric(baseline.Seconds(), "s-baseline-files-ready")
		b.ReportMetric(float64(creates), "creates")
		b.ReportMetric(float64(total)/float64(n), "forge-req/pr")
		if creates != n || onGitea != n {
			b.Errorf("%d create requests and %d pull requests on Gitea for %d PullRequests: want exactly %d of each", creates, onGitea, n, n)
		}
	}
}

// giteaPulls is how many pull requests, in any state, repo holds.
func giteaPulls(b *testing.B, g *testenv.Gitea, repo string) int {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	total := 0
	for page := 1; ; page++ {
		prs, _, err := g.Client(ctx, b).ListRepoPullRequests(testenv.GiteaAdmin, repo, sdk.ListPullRequestsOptions{
			ListOptions: sdk.ListOptions{Page: page, PageSize: 50}, State: sdk.StateAll})
		if err != nil {
			b.Fatal(err)
		}
		total += len(prs)
		if len(prs) == 0 {
			return total
		}
	}
}

// BenchmarkPullRequestHeadUpdate: 20 open PullRequests on the real Gitea;
// a File then written to each one's head branch. Measured: from the push
// (the moment the clone cache tells of the head's move) to the
// PullRequest's atProvider.headSHA naming the new commit, p50 and p99,
// with the default poll interval of a minute: the wake, not the poll,
// carries it. Baseline, in the same run: from the File's creation to its
// push (what the commit window and the write path take).
func BenchmarkPullRequestHeadUpdate(b *testing.B) {
	const n = 20
	g := testenv.StartGitea(b)
	for range b.N {
		bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: e2e.DefaultPoll, Forges: giteaOpeners()})
		var mu sync.Mutex
		pushedAt := map[string]time.Time{} // new head → when the push was told
		bp.Cache.OnHeadMove(func(m git.HeadMove) {
			mu.Lock()
			defer mu.Unlock()
			if _, ok := pushedAt[m.New]; !ok && m.New != "" {
				pushedAt[m.New] = time.Now()
			}
		})
		ns, repo := benchGitea(b, g, "")
		var objs []client.Object
		for i := range n {
			head := fmt.Sprintf("request/head-%03d", i)
			g.CommitFile(b, repo.Name, head, "main", fmt.Sprintf("apps/head-%03d.yaml", i), "a: 1\n")
			objs = append(objs, benchPullRequest(ns, fmt.Sprintf("head-%03d", i), head))
		}
		benchCreate(b, objs...)
		readyIn(b, ns, &v1alpha1.PullRequestList{}, n, time.Now(), 5*time.Minute)

		files := make([]client.Object, n)
		for i := range n {
			_, fl := headBranch(ns, "head", i)
			fl.Name = fmt.Sprintf("second-%03d", i)
			fl.Spec.ForProvider.Path = fmt.Sprintf("apps/second-%03d.yaml", i)
			files[i] = fl
		}
		created := time.Now()
		benchCreate(b, files...)
		// Each PullRequest's head commit: the File's, once it is Ready.
		want := map[string]string{} // PullRequest → commit
		seen := map[string]time.Duration{}
		// When each PullRequest was first seen at each head commit: a
		// File's status may name its commit later than the PullRequest
		// shows it.
		firstAt := map[string]time.Time{}
		var writes []time.Duration
		deadline := time.Now().Add(5 * time.Minute)
		for len(seen) < n {
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d PullRequests followed their head within 5 minutes", len(seen), n)
			}
			fl := &v1alpha1.FileList{}
			if err := e2e.CP.Client.List(context.Background(), fl, client.InNamespace(ns)); err != nil {
				b.Fatal(err)
			}
			for i := range fl.Items {
				f := &fl.Items[i]
				if c := f.Status.AtProvider.Commit; c != "" && strings.HasPrefix(f.Name, "second-") {
					pr := "head-" + strings.TrimPrefix(f.Name, "second-")
					if _, ok := want[pr]; !ok {
						want[pr] = c
					}
				}
			}
			pl := &v1alpha1.PullRequestList{}
			if err := e2e.CP.Client.List(context.Background(), pl, client.InNamespace(ns)); err != nil {
				b.Fatal(err)
			}
			now := time.Now()
			for i := range pl.Items {
				p := &pl.Items[i]
				k := p.Name + "@" + p.Status.AtProvider.HeadSHA
				if _, ok := firstAt[k]; !ok {
					firstAt[k] = now
				}
				c, ok := want[p.Name]
				if _, done := seen[p.Name]; done || !ok || p.Status.AtProvider.HeadSHA != c {
					continue
				}
				mu.Lock()
				at, told := pushedAt[c]
				mu.Unlock()
				if !told {
					b.Fatalf("%s follows %s, a commit the clone cache never told of", p.Name, c)
				}
				seen[p.Name] = firstAt[k].Sub(at)
				writes = append(writes, at.Sub(created))
			}
			time.Sleep(20 * time.Millisecond) // polling interval of a wait on a condition
		}
		lat := make([]time.Duration, 0, n)
		for _, d := range seen {
			lat = append(lat, d)
		}
		slices.Sort(lat)
		slices.Sort(writes)
		p50, p99 := quantile(lat, 0.50), quantile(lat, 0.99)
		fmt.Printf("\n%d open PullRequests on the real Gitea, a File written to each head branch (poll interval %s)\n"+
			"| measure | p50 | p99 |\n|----|----|----|\n"+
			"| baseline: File created → its push | %s | %s |\n"+
			"| push → PullRequest's atProvider.headSHA updated | %s | %s |\n"+
			"(the second is measured in steps of 20ms)\n",
			n, e2e.DefaultPoll, quantile(writes, 0.5).Round(time.Millisecond), quantile(writes, 0.99).Round(time.Millisecond),
			p50.Round(time.Millisecond), p99.Round(time.Millisecond))
		b.ReportMetric(float64(p50.Milliseconds()), "p50-ms")
		b.ReportMetric(float64(p99.Milliseconds()), "p99-ms")
	}
}

// quantile of sorted durations (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
