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
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// relaxed is the relaxed poll of the steady-state test: five of e2e.Poll.
const relaxed = 5 * e2e.Poll

// TestForgeEventsSteadyState: while push events to a branch nobody manages
// arrive (the first from the real Gitea, then the same delivery signed
// and posted by the test), the configuration says its polls relaxed, and
// over two relaxed intervals a PullRequest polled every e2e.Poll costs no
// status write and no forge request but the relaxed safety list, where
// polling alone lists once per poll.
func TestForgeEventsSteadyState(t *testing.T) {
	g := sharedGitea(t)
	api, apiURL := countGiteaAPI(t, g.URL)
	counter := &e2e.StatusCounter{}
	p := e2e.StartProvider(t, "", giteaForges(), e2e.WithEvents(), e2e.WithRelaxedPoll(relaxed),
		e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper {
			counter.Next = rt
			return counter
		}))
	f := newGiteaFixture(t, g, forge.Gitea, apiURL)
	path := receiveEvents(t, f)
	g.AddHook(t, f.repo.Name, p.EventsURL+path, hookSecret)
	f.g.CommitFile(t, f.repo.Name, "request/steady", "main", "apps/steady.yaml", "a: 1\n")
	pr := f.pullRequest("steady", "request/steady", func(p *v1alpha1.PullRequestParameters) { p.Labels = nil })
	e2e.CreateAll(t, pr)
	e2e.WaitFor(t, time.Minute, pr, e2e.ReadyAndCurrent(t, pr))

	// The first event is a real push through Gitea to a branch no resource
	// follows; the ones that keep the polls relaxed are the same push
	// event, signed with the hook's secret and posted as Gitea posts it,
	// from now to the end, so that no gap between events (a slow wait of
	// the test's own, a loaded Gitea) lets the relaxed interval lapse.
	f.g.CommitFile(t, f.repo.Name, "noise", "main", "noise/0.txt", "n\n")
	n := keepPushing(t, p.EventsURL+path, f.repo.CloneURL)
	pc := &v1alpha1.ProviderConfig{}
	pc.SetNamespace(f.ns)
	pc.SetName("git")
	e2e.WaitFor(t, time.Minute, pc, func() error {
		if pc.Status.Events == nil || pc.Status.Events.PollInterval == nil || pc.Status.Events.PollInterval.Duration != relaxed {
			return fmt.Errorf("status.events says no relaxed poll: %+v", pc.Status.Events)
		}
		return nil
	})
	e2e.ReconciledAgain(t, 1, false, pr)

	req0, writes0, polls0, start := api.counts(), counter.Writes(), e2e.ReconcilesOf(pr), time.Now()
	// Two relaxed intervals of polls.
	testenv.Eventually(t, 5*time.Minute, func() error {
		if got := e2e.ReconcilesOf(pr) - polls0; got < 2*int(relaxed/e2e.Poll) {
			return fmt.Errorf("%d polls of the PullRequest, want %d", got, 2*int(relaxed/e2e.Poll))
		}
		return nil
	})
	elapsed := time.Since(start)
	lists := api.counts()["GET /api/v1/repos/forge-admin/"+f.repo.Name+"/pulls"] - req0["GET /api/v1/repos/forge-admin/"+f.repo.Name+"/pulls"]
	total := 0
	for k, v := range api.counts() {
		total += v - req0[k]
	}
	safety := int(elapsed/relaxed) + 1
	t.Logf("steady state with events: %s (%d polls, %d push events), %d forge requests (%d lists), %d status writes",
		elapsed.Round(time.Millisecond), e2e.ReconcilesOf(pr)-polls0, n.Load(), total, lists, counter.Writes()-writes0)
	if total > safety || lists > safety {
		t.Errorf("%d forge requests (%d lists) in %s: want at most the safety list, %d (one per relaxed %s)", total, lists, elapsed, safety, relaxed)
	}
	if w := counter.Writes() - writes0; w != 0 {
		t.Errorf("%d status writes in steady state with events, want 0: %v", w, counter.Since(writes0))
	}
}

// keepPushing posts a signed push delivery to url every tenth of a second,
// each answered 202, until the test ends; it counts the deliveries.
func keepPushing(t *testing.T, url, cloneURL string) *atomic.Int64 {
	n := &atomic.Int64{}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			status, err := postPush(url, cloneURL, fmt.Sprintf("noise-%d", n.Add(1)))
			switch {
			case err != nil:
				t.Error(err)
				return
			case status != http.StatusAccepted:
				t.Errorf("a signed push delivery was answered %d, want 202", status)
				return
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return n
}
