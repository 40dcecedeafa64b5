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

package fakes_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/azure"
	"github.com/crossplane-contrib/provider-git/internal/forge/bitbucket"
	"github.com/crossplane-contrib/provider-git/internal/forge/github"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitlab"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	fakeazure "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/azure"
	fakebb "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/bitbucket"
	fakegithub "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
	fakegitlab "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/gitlab"
)

// benchForge is one forge's fake as the benchmark drives it, and the
// limits the forge publishes.
type benchForge struct {
	typ  forge.Type
	open forge.Opener
	// repo is the local repository's path, which names the fake's.
	repo string
	// start serves the fake and returns its API URL, the token, and how
	// to point one of its branches at a commit.
	start func(b *testing.B) (api, token string, branch func(name, sha string))
	// labels: the forge has labels (Bitbucket has none).
	labels bool
	// writesPerMinute is the published limit of content-creating requests
	// a minute (0: none published); requestsPerHour of all requests an
	// hour (0: none); limit says them in words.
	writesPerMinute, requestsPerHour float64
	limit                            string
}

func benchForges() []benchForge {
	return []benchForge{
		{typ: forge.GitHub, open: github.New, repo: "e2e/bench.git", labels: true, writesPerMinute: 80, requestsPerHour: 5000,
			limit: "80 content-creating a minute (500 an hour), 5,000 requests an hour",
			start: func(b *testing.B) (string, string, func(string, string)) {
				gh := fakegithub.NewServer(b)
				return gh.URL(), fakegithub.Token, func(n, sha string) { gh.AddBranch("e2e", "bench", n, sha) }
			}},
		{typ: forge.GitLab, open: gitlab.New, repo: fakegitlab.Project + ".git", labels: true, writesPerMinute: 2000,
			limit: "GitLab.com: 2,000 API requests a minute per user; self-managed: none by default",
			start: func(b *testing.B) (string, string, func(string, string)) {
				gl := fakegitlab.NewServer(b)
				return gl.APIURL(), fakegitlab.Token, gl.SetBranch
			}},
		{typ: forge.AzureDevOps, open: azure.New, repo: fakeazure.Project + "/" + fakeazure.Repo + ".git", labels: true,
			limit: "200 throughput units in any 5 minutes per identity (no request count); Retry-After",
			start: func(b *testing.B) (string, string, func(string, string)) {
				az := fakeazure.NewServer(b)
				return az.APIURL(), fakeazure.PAT, az.SetBranch
			}},
		{typ: forge.BitbucketCloud, open: bitbucket.NewCloud, repo: fakebb.Workspace + "/" + fakebb.RepoSlug + ".git", requestsPerHour: 1000,
			limit: "1,000 API requests an hour per API token",
			start: func(b *testing.B) (string, string, func(string, string)) {
				bb := fakebb.NewCloud(b)
				return bb.URL(), fakebb.Token, bb.SetBranch
			}},
		{typ: forge.BitbucketDataCenter, open: bitbucket.NewDataCenter, repo: fakebb.Project + "/" + fakebb.RepoSlug + ".git", writesPerMinute: 360,
			limit: "none by default; when an admin turns it on, a bucket of 60 refilled 5 a second (360 in a first minute)",
			start: func(b *testing.B) (string, string, func(string, string)) {
				bb := fakebb.NewDC(b)
				return bb.URL(), fakebb.Token, bb.SetBranch
			}},
	}
}

// BenchmarkPullRequestsCreatedAtOnceOnFakes applies 100 PullRequests at
// once, each of its own head branch, on one repository of each forge's
// fake, through the provider wired as cmd/provider wires it (10 workers,
// 10 reconciles a second), and reports per forge the requests made by kind,
// the time until all are Ready, and the peak rate of content-creating
// requests against the forge's published limit.
//
// The pace is the forge's own (forge.RateOf) run BENCH_PACE_SCALE times
// faster (default 6: a forge minute is ten seconds), or Bitbucket Cloud's
// 100 creates would take 18 minutes: the pace is a token bucket, so a
// window of 60/scale seconds holds what a minute holds at the forge's
// pace, and the peak is counted in such windows. At 6 the pace, not the
// provider's 10 reconciles a second, bounds every forge but GitLab (whose
// pace is 300 a minute); at 60 the reconciles would, and the peak would say
// nothing of the pace. The time until all are Ready is measured at the
// faster pace; beside it, the least time the forge's own pace takes (the
// requests past the burst at its rate).
// BENCH_PULL_REQUESTS changes the count; -bench selects forges by name.
func BenchmarkPullRequestsCreatedAtOnceOnFakes(b *testing.B) {
	n := e2e.BenchN("BENCH_PULL_REQUESTS", 100)
	scale := float64(e2e.BenchN("BENCH_PACE_SCALE", 6))
	for _, bf := range benchForges() {
		b.Run(string(bf.typ), func(b *testing.B) {
			for range b.N {
				benchForgeBurst(b, bf, n, scale)
			}
		})
	}
}

func benchForgeBurst(b *testing.B, bf benchForge, n int, scale float64) {
	api, token, branch := bf.start(b)
	rec := &forgeRecorder{}
	pace := func(t forge.Type) forge.Rate {
		r := forge.RateOf(t)
		// PerHour stays the forge's, over an hour of wall time: stricter
		// than the faster pace, and out of reach of 100 PullRequests.
		return forge.Rate{PerMinute: r.PerMinute * scale, Burst: r.Burst, PerHour: r.PerHour}
	}
	bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: e2e.DefaultPoll,
		Forges: map[forge.Type]forge.Opener{bf.typ: rec.wrap(bf.open)}, ForgeRates: pace})
	heads := e2e.Heads(n)
	f := forgeFixture(b, bf.repo, bf.typ, api, token, heads...)
	at, err := f.Repo.Heads()
	if err != nil {
		b.Fatal(err)
	}
	for _, h := range append([]string{"main"}, heads...) {
		branch(h, at[h])
	}
	objs := make([]client.Object, n)
	for i, h := range heads {
		objs[i] = e2e.NewPullRequest(f.Namespace, fmt.Sprintf("pr-%03d", i), h, func(p *v1alpha1.PullRequestParameters) {
			p.Body = ""
			if !bf.labels {
				p.Labels = nil
			}
		})
	}
	start := time.Now()
	e2e.CreateAtOnce(b, objs...)
	ready := allReady(b, f.Namespace, n, start, 10*time.Minute)
	bp.Stop()

	hits := rec.hits()
	kinds := map[string]int{}
	var writes []time.Time
	for _, h := range hits {
		kinds[h.kind]++
		if h.method != http.MethodGet {
			writes = append(writes, h.at)
		}
	}
	window := time.Duration(float64(time.Minute) / scale)
	peak := peakIn(writes, window)
	r := forge.RateOf(bf.typ)
	cost := 1
	if bf.typ == forge.GitHub && bf.labels {
		cost = 2 // the create and the labels' PATCH (github.Client.CreateCost)
	}
	floor := time.Duration(max(0, float64(n*cost)-r.Burst) / r.PerMinute * float64(time.Minute))
	fmt.Printf("\n%d PullRequests applied at once on the fake %s (pace x%.0f: a forge minute is %s)\n"+
		"| measure | value | published limit |\n|----|----|----|\n"+
		"| requests by kind | %s | |\n"+
		"| requests, all | %d (%.2f per PullRequest) | %s |\n"+
		"| peak content-creating requests in any forge minute | %d | %s |\n"+
		"| time until all Ready at pace x%.0f | %s | |\n"+
		"| least time at the forge's own pace (%.0f a minute after a burst of %.0f, %d request(s) a create) | %s | |\n",
		n, bf.typ, scale, window, showKinds(kinds), len(hits), float64(len(hits))/float64(n), bf.limit,
		peak, perMinute(bf.writesPerMinute), scale, ready.Round(time.Millisecond),
		r.PerMinute, r.Burst, cost, floor.Round(time.Second))
	b.ReportMetric(ready.Seconds(), "s-all-ready")
	b.ReportMetric(float64(len(hits))/float64(n), "forge-req/pr")
	b.ReportMetric(float64(peak), "peak-writes/forge-min")
	if kinds["create"] != n {
		b.Errorf("%d creates for %d PullRequests: want exactly one each", kinds["create"], n)
	}
	if bf.writesPerMinute > 0 && float64(peak) > bf.writesPerMinute {
		b.Errorf("%d content-creating requests in one forge minute, over %s's %.0f", peak, bf.typ, bf.writesPerMinute)
	}
	if bf.requestsPerHour > 0 && float64(len(hits)) > bf.requestsPerHour {
		b.Errorf("%d requests for %d PullRequests, over %s's %.0f an hour", len(hits), n, bf.typ, bf.requestsPerHour)
	}
}

func perMinute(v float64) string {
	if v == 0 {
		return "none published"
	}
	return fmt.Sprintf("%.0f", v)
}

// allReady waits until want PullRequests of ns are Ready, looking every
// 100ms, and returns how long that took from start.
func allReady(b *testing.B, ns string, want int, start time.Time, timeout time.Duration) time.Duration {
	b.Helper()
	for {
		l := &v1alpha1.PullRequestList{}
		if err := e2e.CP.Client.List(context.Background(), l, client.InNamespace(ns)); err != nil {
			b.Fatal(err)
		}
		ready := 0
		for i := range l.Items {
			if l.Items[i].GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue {
				ready++
			}
		}
		if ready >= want {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			b.Fatalf("%d of %d PullRequests Ready after %s", ready, want, timeout)
		}
		time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
	}
}

// peakIn is the most times in any window of length w.
func peakIn(ts []time.Time, w time.Duration) int {
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	peak, lo := 0, 0
	for hi := range ts {
		for ts[hi].Sub(ts[lo]) >= w {
			lo++
		}
		peak = max(peak, hi-lo+1)
	}
	return peak
}

func showKinds(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// forgeRecorder records every request the forge clients it opens send,
// under the hardened client's origin check: what reached the forge.
type forgeRecorder struct {
	mu  sync.Mutex
	log []forgeHit
}

type forgeHit struct {
	at     time.Time
	method string
	kind   string
}

func (r *forgeRecorder) wrap(open forge.Opener) forge.Opener {
	return func(c forge.Config) (forge.Client, error) {
		hc := &http.Client{}
		if c.HTTPClient != nil {
			*hc = *c.HTTPClient
		}
		next := hc.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		hc.Transport = roundTripper(func(req *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(req)
			r.mu.Lock()
			r.log = append(r.log, forgeHit{at: time.Now(), method: req.Method, kind: kindOf(req.Method, req.URL.Path)})
			r.mu.Unlock()
			return resp, err
		})
		c.HTTPClient = hc
		return open(c)
	}
}

func (r *forgeRecorder) hits() []forgeHit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// kindOf names a forge request: list and create are a GET and a POST of
// the repository's pull requests (GitHub's pulls, GitLab's merge_requests,
// Azure's and Bitbucket Cloud's pullrequests, Data Center's
// pull-requests); merge a request to a pull request's merge; read any
// other GET; update any other write (labels, reviewers, edits).
func kindOf(method, path string) string {
	p := strings.TrimSuffix(path, "/")
	collection := false
	for _, s := range []string{"/pulls", "/merge_requests", "/pullrequests", "/pull-requests"} {
		collection = collection || strings.HasSuffix(p, s)
	}
	switch {
	case collection && method == http.MethodGet:
		return "list"
	case collection && method == http.MethodPost:
		return "create"
	case method == http.MethodGet:
		return "read"
	case strings.HasSuffix(p, "/merge"):
		return "merge"
	}
	return "update"
}
