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
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// The scaled clock of BenchmarkForgeEventsAPIRequests: --poll=2s stands for
// the default --poll=1m and --events-relaxed-poll=20s for the default 10m,
// both thirty times faster, so a window of a minute stands for half an hour.
const (
	scaledPoll    = 2 * time.Second
	scaledRelaxed = 20 * time.Second
	scaledWindow  = time.Minute
	// scaledEvery is how often each repository has an event while events
	// arrive: a quarter of the relaxed poll, so the polls stay relaxed.
	scaledEvery = scaledRelaxed / 4
)

// BenchmarkForgeEventsAPIRequests: N repositories on the real Gitea, one
// open PullRequest each, in steady state; the forge API requests the
// provider makes over a window, counted at a proxy in front of Gitea's API
// for those repositories, per repository and per hour at the default
// flags. With events, a signed push to a branch nobody manages arrives for
// each repository every 5 s (of the scaled clock: 2.5 minutes), so its
// polls stay relaxed; against polling alone. BENCH_REQUEST_REPOS changes N.
func BenchmarkForgeEventsAPIRequests(b *testing.B) {
	repos := e2e.BenchN("BENCH_REQUEST_REPOS", 10)
	scale := float64(e2e.DefaultPoll) / float64(scaledPoll)
	perHour := func(n int) float64 {
		return float64(n) / float64(repos) * float64(time.Hour) / (float64(scaledWindow) * scale)
	}
	g := testenv.StartGitea(b)
	api, apiURL := countGiteaAPI(b, g.URL)
	for range b.N {
		bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: scaledPoll, RelaxedPoll: scaledRelaxed, Forges: giteaOpeners(), Events: true})
		withEvents, events := steadyRequests(b, g, api, apiURL, repos, bp.EventsURL)
		bp.Stop()

		e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: scaledPoll, Forges: giteaOpeners()})
		polled, _ := steadyRequests(b, g, api, apiURL, repos, "")

		fmt.Printf("\nForge API requests per repository per hour in steady state, %d repositories on the real Gitea with an open PullRequest each\n"+
			"(measured over %s at --poll=%s, --events-relaxed-poll=%s, scaled %.0fx to --poll=%s, --events-relaxed-poll=10m)\n"+
			"| | requests per repository per hour | requests in the window |\n|----|----|----|\n"+
			"| baseline: polling alone, --poll=%s | %.1f | %d |\n"+
			"| events arriving (a push every %s per repository, %d in all) | %.1f | %d |\n",
			repos, scaledWindow, scaledPoll, scaledRelaxed, scale, e2e.DefaultPoll,
			e2e.DefaultPoll, perHour(polled), polled,
			time.Duration(float64(scaledEvery)*scale), events, perHour(withEvents), withEvents)
		b.ReportMetric(perHour(withEvents), "req/repo/h-events")
		b.ReportMetric(perHour(polled), "req/repo/h-poll")
	}
}

// steadyRequests makes repos repositories with an open PullRequest each,
// waits for them to be Ready (and, with eventsURL, for every configuration
// to say its polls relaxed), then counts the API requests for those
// repositories over scaledWindow. It returns them and the events posted.
func steadyRequests(b *testing.B, g *testenv.Gitea, api *giteaAPICounter, apiURL string, repos int, eventsURL string) (int, int) {
	b.Helper()
	nss, names, clones := make([]string, repos), make([]string, repos), make([]string, repos)
	var objs []client.Object
	for i := range repos {
		ns, repo := benchGitea(b, g, apiURL)
		nss[i], names[i], clones[i] = ns, repo.Name, repo.CloneURL
		g.CommitFile(b, repo.Name, "request/steady", "main", "apps/steady.yaml", "a: 1\n")
		objs = append(objs, e2e.NewPullRequest(ns, "steady", "request/steady", func(p *v1alpha1.PullRequestParameters) { p.Labels = nil }))
	}
	benchCreate(b, objs...)
	for _, ns := range nss {
		readyIn(b, ns, &v1alpha1.PullRequestList{}, 1, time.Now(), 5*time.Minute)
	}
	sent := func() int { return 0 }
	if eventsURL != "" {
		paths := make([]string, repos)
		for i, ns := range nss {
			paths[i] = e2e.SetWebhook(b, ns, "gitea", hookSecret, nil, e2e.EventsPublished).Status.Events.Path
		}
		var stop func()
		stop, sent = pushEvery(b, eventsURL, paths, clones, scaledEvery)
		defer stop()
		for _, ns := range nss {
			waitUntil(b, time.Minute, relaxedPolls(ns))
		}
	}
	count := func() int {
		n := 0
		for k, v := range api.counts() {
			for _, name := range names {
				if strings.Contains(k, "/repos/"+testenv.GiteaAdmin+"/"+name+"/") || strings.HasSuffix(k, "/repos/"+testenv.GiteaAdmin+"/"+name) {
					n += v
				}
			}
		}
		return n
	}
	sent0, before := sent(), count()
	time.Sleep(scaledWindow) // the measurement window, not a synchronisation
	return count() - before, sent() - sent0
}

// relaxedPolls is a check: ns's configuration says its polls relaxed.
func relaxedPolls(ns string) func() error {
	return func() error {
		pc := &v1alpha1.ProviderConfig{}
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "git"}, pc); err != nil {
			return err
		}
		if ev := pc.Status.Events; ev == nil || ev.PollInterval == nil || ev.PollInterval.Duration != scaledRelaxed {
			return fmt.Errorf("%s: status.events says no relaxed poll: %+v", ns, ev)
		}
		return nil
	}
}

// pushEvery posts a signed push to a branch nobody manages to each of
// paths every interval, as Gitea delivers one, until stop; sent counts
// those answered 202. A refusal fails b.
func pushEvery(b *testing.B, eventsURL string, paths, clones []string, interval time.Duration) (stop func(), sent func() int) {
	b.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	n, failed := 0, ""
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for k := 0; ; k++ {
				status, err := postPush(eventsURL+paths[i], clones[i], fmt.Sprintf("steady-%d-%d", i, k))
				mu.Lock()
				if err == nil && status == http.StatusAccepted {
					n++
				} else if failed == "" {
					failed = fmt.Sprintf("a signed push was answered %d (%v)", status, err)
				}
				mu.Unlock()
				select {
				case <-done:
					return
				case <-tick.C:
				}
			}
		}()
	}
	var once sync.Once
	stop = func() {
		once.Do(func() { close(done); wg.Wait() })
		if failed != "" {
			b.Error(failed)
		}
	}
	sent = func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
	return stop, sent
}

// postPush posts a push to refs/heads/noise of the repository cloneURL
// names, signed with hookSecret as Gitea signs it, and returns the answer's
// status.
func postPush(url, cloneURL, delivery string) (int, error) {
	after := sha256.Sum256([]byte(delivery))
	body := fmt.Sprintf(`{"ref":"refs/heads/noise","after":"%x","repository":{"clone_url":%q}}`, after[:20], cloneURL)
	m := hmac.New(sha256.New, []byte(hookSecret))
	m.Write([]byte(body))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-Gitea-Event", "push")
	req.Header.Set("X-Gitea-Delivery", delivery)
	req.Header.Set("X-Gitea-Signature", hex.EncodeToString(m.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}
