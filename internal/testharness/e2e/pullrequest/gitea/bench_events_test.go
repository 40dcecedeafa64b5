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
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Benchmarks of forge events on the real Gitea: how soon a change made on
// the forge is acted on when Gitea delivers its webhook, against polling
// alone at the default --poll of a minute, measured in the same run.

// eventSamples and pollSamples are how many changes each side measures;
// BENCH_EVENT_SAMPLES and BENCH_POLL_SAMPLES change them. Polling alone
// takes half a poll on average per sample, so it takes fewer.
func eventSamples() (int, int) {
	return e2e.BenchN("BENCH_EVENT_SAMPLES", 20), e2e.BenchN("BENCH_POLL_SAMPLES", 3)
}

// BenchmarkForgeEventsPushPutBack: a person pushes over a File the provider
// manages (Gitea's contents API, as the web editor does); measured from
// the push's answer to the File's content being back on Gitea, p50 and
// p99. With events the provider polls every hour, so only Gitea's webhook
// explains a put back; the baseline polls every minute and has no events.
func BenchmarkForgeEventsPushPutBack(b *testing.B) {
	nEvents, nPoll := eventSamples()
	eventsAgainstPolling(b, "A person's push over a managed File on the real Gitea, until the File is back on Gitea", nEvents, nPoll, putBacks)
}

// BenchmarkForgeEventsMergeReady: a PullRequest with readiness Merged is
// opened by the provider and merged by a reviewer on Gitea; measured from
// the merge's answer to the PullRequest's Ready, p50 and p99, with
// Gitea's webhook (polls an hour apart) against polling alone every minute.
func BenchmarkForgeEventsMergeReady(b *testing.B) {
	nEvents, nPoll := eventSamples()
	eventsAgainstPolling(b, "A reviewer's merge on the real Gitea, until the readiness: Merged PullRequest is Ready", min(nEvents, 10), nPoll, mergesReady)
}

// measure makes n changes on repo's forge and returns how long each took
// to be acted on; it fails b after timeout.
type measure func(b *testing.B, g *testenv.Gitea, ns string, repo testenv.GiteaRepo, d *relay, n int, timeout time.Duration) samples

// samples are a measure's durations, each sorted: all from the change's
// answer; when d relays Gitea's deliveries, provider from the first
// delivery that reached the provider after the change, and forge from
// the change's answer to that delivery (Gitea's own queues).
type samples struct {
	all, provider, forge []time.Duration
}

// eventsAgainstPolling measures nEvents changes with Gitea's webhook and
// polls an hour apart, then nPoll with polling alone every minute, each on
// a repository of its own, and prints them side by side.
func eventsAgainstPolling(b *testing.B, title string, nEvents, nPoll int, m measure) {
	g := testenv.StartGitea(b)
	for range b.N {
		bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: time.Hour, Forges: giteaOpeners(), Events: true})
		ns, repo := benchGitea(b, g, "")
		d := startRelay(b, bp.EventsURL)
		benchHook(b, g, ns, repo, d.url)
		ev := m(b, g, ns, repo, d, nEvents, time.Minute)
		withEvents, fromDelivery := ev.all, ev.provider
		bp.Stop()

		e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: e2e.DefaultPoll, Forges: giteaOpeners()})
		ns, repo = benchGitea(b, g, "")
		polled := m(b, g, ns, repo, nil, nPoll, 3*e2e.DefaultPoll).all

		fmt.Printf("\n%s\n| | p50 | p99 | samples |\n|----|----|----|----|\n"+
			"| baseline: polling alone, --poll=%s | %s | %s | %d |\n"+
			"| Gitea's webhook, --poll=1h | %s | %s | %d (goal: p50 <= 2s) |\n",
			title, e2e.DefaultPoll, quantile(polled, 0.5).Round(time.Millisecond), quantile(polled, 0.99).Round(time.Millisecond), nPoll,
			quantile(withEvents, 0.5).Round(time.Millisecond), quantile(withEvents, 0.99).Round(time.Millisecond), nEvents)
		if len(fromDelivery) > 0 {
			fmt.Printf("| of which the provider's: from Gitea's delivery reaching it | %s | %s | %d |\n",
				quantile(fromDelivery, 0.5).Round(time.Millisecond), quantile(fromDelivery, 0.99).Round(time.Millisecond), len(fromDelivery))
			fmt.Printf("| Gitea's: from the push's answer to its delivery reaching the provider | %s | %s | %d |\n",
				quantile(ev.forge, 0.5).Round(time.Millisecond), quantile(ev.forge, 0.99).Round(time.Millisecond), len(ev.forge))
			b.ReportMetric(quantile(fromDelivery, 0.5).Seconds(), "s-p50-from-delivery")
		}
		b.ReportMetric(quantile(withEvents, 0.5).Seconds(), "s-p50-events")
		b.ReportMetric(quantile(withEvents, 0.99).Seconds(), "s-p99-events")
		b.ReportMetric(quantile(polled, 0.5).Seconds(), "s-p50-poll")
	}
}

// benchHook gives ns's configuration a webhook secret and has Gitea
// deliver repo's events to the provider at eventsURL.
func benchHook(b *testing.B, g *testenv.Gitea, ns string, repo testenv.GiteaRepo, eventsURL string) {
	b.Helper()
	pc := e2e.SetWebhook(b, ns, "gitea", hookSecret, nil, e2e.EventsPublished)
	g.AddHook(b, repo.Name, eventsURL+pc.Status.Events.Path, hookSecret)
}

// personPace is how long after a put-back the next edit comes: two commit
// windows of the default second, so each sample is a person's lone edit.
// Sooner, it would measure a fight over the path (a File put back less
// than a window ago that drifts again takes a whole window; see
// docs/concepts/batching-and-drift.md), and the poll the provider's own
// push's event asks for could push the edit's poll back by up to
// watch.NudgeSpacing.
const personPace = 2 * time.Second

// putBacks measures n pushes over a managed File until each is put back:
// from the push's answer, and from the first of Gitea's deliveries that
// reached the provider after it (d's), which leaves out Gitea's own queue.
func putBacks(b *testing.B, g *testenv.Gitea, ns string, repo testenv.GiteaRepo, d *relay, n int, timeout time.Duration) samples {
	b.Helper()
	const want = "owner: provider\n"
	fl := &v1alpha1.File{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "managed"},
		Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{Branch: "main", Path: "managed.yaml", Content: ptr.To(want)}}}
	fl.Spec.ProviderConfigReference = e2e.PCRef()
	benchCreate(b, fl)
	readyIn(b, ns, &v1alpha1.FileList{}, 1, time.Now(), time.Minute)
	var s samples
	for i := range n {
		if i > 0 {
			time.Sleep(personPace) // a person's pace between edits, not a wait for a condition
		}
		g.OverwriteFile(b, repo.Name, "main", "managed.yaml", fmt.Sprintf("owner: a person, edit %d\n", i))
		start := time.Now()
		waitUntil(b, timeout, func() error {
			if got := g.FileContent(b, repo.Name, "main", "managed.yaml"); got != want {
				return fmt.Errorf("managed.yaml is %q", got)
			}
			return nil
		})
		back := time.Now()
		s.all = append(s.all, back.Sub(start))
		if at, ok := d.firstAfter(start); ok && at.Before(back) {
			s.provider, s.forge = append(s.provider, back.Sub(at)), append(s.forge, at.Sub(start))
		}
	}
	slices.Sort(s.all)
	slices.Sort(s.provider)
	slices.Sort(s.forge)
	return s
}

// mergesReady measures n reviewer merges until each PullRequest is Ready
// (from the merge's answer only).
func mergesReady(b *testing.B, g *testenv.Gitea, ns string, repo testenv.GiteaRepo, _ *relay, n int, timeout time.Duration) samples {
	b.Helper()
	reviewer := g.CreateUser(b, "bench-reviewer-"+ns, repo.Name)
	var out []time.Duration
	for i := range n {
		head := fmt.Sprintf("request/merge-%d", i)
		g.CommitFile(b, repo.Name, head, "main", fmt.Sprintf("apps/merge-%d.yaml", i), "a: 1\n")
		pr := e2e.NewPullRequest(ns, fmt.Sprintf("merge-%d", i), head, func(p *v1alpha1.PullRequestParameters) {
			p.Labels, p.Readiness = nil, v1alpha1.ReadinessMerged
		})
		benchCreate(b, pr)
		waitUntil(b, time.Minute, func() error {
			if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(pr), pr); err != nil {
				return err
			}
			if pr.Status.AtProvider.Number == 0 {
				return fmt.Errorf("not opened yet")
			}
			return nil
		})
		g.MergeAsReviewer(b, &reviewer, repo.Name, pr.Status.AtProvider.Number)
		start := time.Now()
		waitUntil(b, timeout, func() error {
			if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(pr), pr); err != nil {
				return err
			}
			if c := pr.GetCondition(xpv2.TypeReady); c.Status != corev1.ConditionTrue {
				return fmt.Errorf("not Ready: %s", c.Message)
			}
			return nil
		})
		out = append(out, time.Since(start))
	}
	slices.Sort(out)
	return samples{all: out}
}

// waitUntil checks every 20ms until check passes, failing b after timeout.
func waitUntil(b *testing.B, timeout time.Duration, check func() error) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("gave up after %s: %v", timeout, err)
		}
		time.Sleep(20 * time.Millisecond) // polling interval of a wait on a condition
	}
}
