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
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e/sharing"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// The scaled clock of TestShareRelaxesOnTheHolder, as the benchmarks of
// forge events scale it (BenchmarkForgeEventsAPIRequests): --poll=2s for
// the default minute, --events-relaxed-poll=20s for the default ten.
const (
	relaxPoll    = 2 * time.Second
	relaxedPoll  = 20 * time.Second
	relaxSecret  = "relax-secret-of-at-least-16-bytes"
	relaxTimeout = 2 * time.Minute
)

// TestShareRelaxesOnTheHolder: two replicas share one configuration's
// repository, polls every 2 s, relaxed to 20 s while forge events arrive.
// The forge's signed deliveries all reach the replica that does not hold
// the repository (the Service chose it), which forwards them: the holder,
// the one whose polls the events replace, relaxes them and says so in the
// configuration's status. When the deliveries stop, the holder's status
// falls back to --poll by itself once a relaxed interval passed, and its
// polls do: a person's edit that no event announces is put back within a
// few polls. Only the status conditions are waited on.
func TestShareRelaxesOnTheHolder(t *testing.T) {
	kubeconfig := e2e.KubeconfigFile(t)
	ns := sharing.Namespace(t)
	f := sharing.Repos(t, 1)[0]
	rs := startEventReplicas(t, kubeconfig, ns, "--poll="+relaxPoll.String(), "--events-relaxed-poll="+relaxedPoll.String())
	path := e2e.SetWebhook(t, f.Namespace, "git-credentials", relaxSecret, nil, e2e.EventsPublished).Status.Events.Path
	const file, managed = "apps/app.yaml", "app: managed\n"
	e2e.Create(t, e2e.NewFile(f, "app", file, managed))
	sharing.ReadyIn(t, []string{f.Namespace}, relaxTimeout)
	holder, other := holderOf(t, f, rs)
	if got := pollIntervalOf(t, f); got != nil {
		t.Fatalf("before any delivery the configuration says its polls relaxed to %s", got.Duration)
	}

	// The forge's deliveries, each new (a push to a branch nobody
	// manages, so none puts anything back), all to the non-holder, until
	// the holder's status says its polls relaxed.
	cloneURL := e2e.HTTPGit.RepoURL(f.Repo.Name)
	sent := 0
	deliver := func() {
		sent++
		body := fmt.Sprintf(`{"ref":"refs/heads/elsewhere","after":"%040d","repository":{"clone_url":%q}}`, sent, cloneURL)
		if code := post(t, other.EventsURL+path, signedPush(relaxSecret, fmt.Sprint("relax-", sent), body), body); code != http.StatusAccepted {
			t.Fatalf("delivery %d to the non-holder was answered %d, want %d", sent, code, http.StatusAccepted)
		}
	}
	var last time.Time
	testenv.Eventually(t, relaxTimeout, func() error {
		if time.Since(last) >= time.Second { // a forge's pace, not one per check
			deliver()
			last = time.Now()
		}
		if got := pollIntervalOf(t, f); got == nil || got.Duration != relaxedPoll {
			return fmt.Errorf("after %d deliveries to the non-holder %s, the holder %s publishes status.events.pollInterval %v, want %s",
				sent, other.Name, holder.Name, got, relaxedPoll)
		}
		return nil
	})
	t.Logf("the holder %s relaxed its polls to %s after %d deliveries forwarded by %s", holder.Name, relaxedPoll, sent, other.Name)
	if fw := other.MustMetric(t, "provider_git_events_total", `result="forwarded"`); fw != float64(sent) {
		t.Errorf("the non-holder forwarded %v of the %d deliveries, want all", fw, sent)
	}
	if acted := other.MustMetric(t, "provider_git_events_total", `result="accepted"`); acted != 0 {
		t.Errorf("the non-holder acted on %v deliveries itself, want none", acted)
	}

	// Relaxed is what the holder does, not only what it says: while a
	// delivery comes every relaxedPoll/4, each starts one poll (a nudge),
	// and the clock's polls come every relaxedPoll instead of every
	// relaxPoll. Over six deliveries (one and a half relaxed intervals)
	// that is 6 nudged polls and at most 3 of the clock's when relaxed,
	// about 15 when not. A slow machine polls less, never more; and where
	// a delivery came more than a relaxed interval after the one before
	// (a loaded machine), the holder rightly polls at --poll in that gap,
	// which the bound allows for: it cannot fail a holder that relaxes.
	polls := func() float64 { return holder.MustMetric(t, "provider_git_polls_total") }
	before, rounds, most := polls(), 6, 3.0
	pace := time.NewTicker(relaxedPoll / 4) // the forge's pace
	for range rounds {
		<-pace.C
		if gap := time.Since(last); gap > relaxedPoll {
			most += float64((gap-relaxedPoll)/relaxPoll) + 1
		}
		deliver()
		last = time.Now()
		most++
	}
	pace.Stop()
	got := polls() - before
	t.Logf("over %d deliveries %s apart the holder polled %v times", rounds, relaxedPoll/4, got)
	if got > most {
		t.Errorf("over %d deliveries %s apart the holder polled %v times, want at most %v: its status says relaxed, its polls are not",
			rounds, relaxedPoll/4, got, most)
	}
	if got := pollIntervalOf(t, f); got == nil || got.Duration != relaxedPoll {
		t.Fatalf("with deliveries arriving, the holder publishes status.events.pollInterval %v, want %s", got, relaxedPoll)
	}

	// The deliveries stop: the holder falls back to --poll by itself.
	stopped := time.Now()
	testenv.Eventually(t, relaxedPoll+relaxTimeout, func() error {
		if got := pollIntervalOf(t, f); got != nil {
			return fmt.Errorf("%s after the last delivery, the holder still publishes status.events.pollInterval %s", time.Since(stopped).Round(time.Second), got.Duration)
		}
		return nil
	})
	t.Logf("the holder published --poll again %s after the last delivery", time.Since(stopped).Round(100*time.Millisecond))

	// And polls at --poll: a person's edit, with no event, is put back
	// within half a relaxed interval (five polls), which polls still
	// relaxed would miss unless one fell in it by chance.
	if _, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "a person's edit", Files: map[string]string{file: "app: edited\n"}}); err != nil {
		t.Fatal(err)
	}
	edited := time.Now()
	testenv.Eventually(t, relaxedPoll/2, func() error {
		if got := f.Files(t, "main")[file]; got != managed {
			return fmt.Errorf("%s holds %q, want the managed content back", file, got)
		}
		return nil
	})
	t.Logf("without events, a person's edit was put back %s later (--poll=%s)", time.Since(edited).Round(100*time.Millisecond), relaxPoll)
}

// pollIntervalOf is the relaxed poll interval f's configuration publishes,
// nil for none.
func pollIntervalOf(t *testing.T, f *e2e.Fixture) *metav1.Duration {
	t.Helper()
	pc := &v1alpha1.ProviderConfig{}
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: f.Namespace, Name: "git"}, pc); err != nil {
		t.Fatal(err)
	}
	if pc.Status.Events == nil {
		return nil
	}
	return pc.Status.Events.PollInterval
}
