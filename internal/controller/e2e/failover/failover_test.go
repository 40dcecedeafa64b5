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

package failover_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/e2e"
	"github.com/crossplane-contrib/provider-git/internal/controller/e2e/sharing"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

// TestShareKill: one of three replicas is killed with SIGKILL in the middle
// of a burst. Its repositories resume on the others within a lease, a
// renewal and a poll; nothing is lost or committed twice; at no time do
// two processes push one repository.
func TestShareKill(t *testing.T) {
	nRepos, nFiles := sharing.Scale(sharing.DefaultRepos, sharing.DefaultFiles)
	kubeconfig := e2e.KubeconfigFile(t)
	ns := sharing.Namespace(t)
	fx := sharing.Repos(t, nRepos)
	rs := sharing.StartShared(t, kubeconfig, ns, 3)
	first := sharing.Files(t, fx, nFiles/2, "a")
	sharing.AllReady(t, fx, 5*time.Minute)
	hs := sharing.Holders(t, fx, sharing.OfRepos(fx, e2e.HTTPGit.Pushes()), time.Time{})
	victim, theirs, survivors := sharing.Busiest(t, rs, hs)

	// The second half arrives interleaved across repositories; the kill
	// comes halfway through it, so every repository has Files created
	// before and after it.
	second := map[*e2e.Fixture][]*v1alpha1.File{}
	var killed time.Time
	n := nFiles - nFiles/2
	for i := range n {
		if i == n/2 {
			victim.Kill()
			killed = time.Now()
		}
		for _, f := range fx {
			fl := e2e.NewFile(f, fmt.Sprintf("b-%03d", i), fmt.Sprintf("apps/b-%03d.yaml", i), fmt.Sprintf("b: %d\n", i))
			e2e.Create(t, fl)
			second[f] = append(second[f], fl)
		}
	}
	sharing.AllReady(t, fx, 5*time.Minute)
	lost, dup := sharing.ExactlyOnce(t, sharing.Merge(first, second))

	all := sharing.OfRepos(fx, e2e.HTTPGit.Pushes())
	sharing.NoOverlaps(t, all)
	var failovers []time.Duration
	for _, f := range theirs {
		var next *testenv.Push
		for _, p := range sharing.PushesTo(f, all) {
			if p.Start.After(killed) && p.UserAgent == victim.UserAgent() {
				t.Errorf("%s pushed to %s after it was killed", victim, f.Repo.Name)
			}
			if p.Start.After(killed) && p.UserAgent != victim.UserAgent() && (next == nil || p.Start.Before(next.Start)) {
				next = &p
			}
		}
		if next == nil {
			t.Errorf("nobody pushed to %s after %s was killed", f.Repo.Name, victim)
			continue
		}
		failovers = append(failovers, next.Start.Sub(killed))
	}
	slices.Sort(failovers)
	bound := sharing.Lease + sharing.Renew + sharing.Poll
	if len(failovers) > 0 {
		// Not a speed target (make bench measures it): a failover that
		// waited for the informer's resync (an hour) or another restart
		// would be far beyond twice the bound.
		if slowest := failovers[len(failovers)-1]; slowest > 2*bound {
			t.Errorf("the slowest repository resumed %s after the kill, more than twice lease+renewal+poll (%s)", slowest, bound)
		}
		t.Logf("FIGURE share-kill repos=%d victim-repos=%d files=%d failover-p50=%.1fs failover-max=%.1fs bound=%s lost=%d duplicated=%d",
			nRepos, len(theirs), nRepos*nFiles, failovers[len(failovers)/2].Seconds(), failovers[len(failovers)-1].Seconds(), bound, lost, dup)
	}
	sharing.Settled(t, survivors, 2)
}

// TestSharePause: a replica paused (SIGSTOP) with changes queued, past its
// Lease, and resumed (SIGCONT): its queued pushes are withheld (the fence),
// it pushes nothing before it has rejoined and settled, the others wrote
// its repositories meanwhile, and nothing is lost or committed twice.
func TestSharePause(t *testing.T) {
	nRepos, nFiles := sharing.Scale(sharing.DefaultRepos, sharing.DefaultFiles)
	nRepos = max(3, nRepos/3)
	kubeconfig := e2e.KubeconfigFile(t)
	ns := sharing.Namespace(t)
	fx := sharing.Repos(t, nRepos)
	rs := sharing.StartShared(t, kubeconfig, ns, 3)
	first := sharing.Files(t, fx, nFiles/2, "a")
	sharing.AllReady(t, fx, 5*time.Minute)
	hs := sharing.Holders(t, fx, sharing.OfRepos(fx, e2e.HTTPGit.Pushes()), time.Time{})
	victim, theirs, others := sharing.Busiest(t, rs, hs)
	// A window on its repositories longer than the step from queueing to
	// the pause, and shorter than the time the others need to count it
	// gone (over two thirds of a lease): what it is given next is still
	// queued in its writers when it is paused, and due to push before it
	// resumes.
	for _, f := range theirs {
		e2e.SetWindow(t, f, 3*time.Second)
	}
	queued := sharing.Files(t, theirs, 5, "q")
	testenv.Eventually(t, time.Minute, func() error {
		for _, fls := range queued {
			for _, fl := range fls {
				got := &v1alpha1.File{}
				if err := e2e.CP.Client.Get(t.Context(), sharing.ClientKey(fl), got); err != nil {
					return err
				}
				if len(got.Status.Conditions) == 0 {
					return fmt.Errorf("%s not reconciled by %s yet", fl.Name, victim)
				}
			}
		}
		return nil
	})
	victim.Pause(t)
	paused := time.Now()
	for _, f := range theirs {
		e2e.SetWindow(t, f, e2e.Window)
	}
	sharing.Settled(t, others, 2)
	meanwhile := sharing.Files(t, fx, 5, "m")
	sharing.AllReady(t, fx, 5*time.Minute)

	victim.Resume(t)
	resumed := time.Now()
	sharing.Settled(t, rs, 3)
	lost, dup := sharing.ExactlyOnce(t, sharing.Merge(first, queued, meanwhile))

	all := sharing.OfRepos(fx, e2e.HTTPGit.Pushes())
	sharing.NoOverlaps(t, all)
	// Resumed, it renews at once and then settles for two renewals: no
	// push of its may start before that.
	quiet := resumed.Add(2 * sharing.Renew)
	for _, p := range all {
		if p.UserAgent == victim.UserAgent() && p.Start.After(paused) && p.Start.Before(quiet) {
			t.Errorf("%s pushed to %s at %s, between its pause and its settling after resuming", victim, p.Repo, p.Start.Format(time.StampMilli))
		}
	}
	withheld := victim.MustMetric(t, "provider_git_pushes_withheld_total")
	if withheld == 0 {
		// Whether the victim still had a push queued when it was paused
		// is a race this test does not control (the integration run of
		// 707114c lost it, 0 withheld with 0 lost and 0 duplicated), so it
		// is reported, not failed; the fence itself is TestFence's. The
		// checks above (nothing lost or doubled, no push between the pause
		// and the settling) hold either way.
		t.Logf("%s withheld no push: its queued changes were pushed before the pause, so this run did not exercise the fence", victim)
	}
	t.Logf("FIGURE share-pause repos=%d victim-repos=%d queued=%d withheld=%v lost=%d duplicated=%d", nRepos, len(theirs), 5*len(theirs), withheld, lost, dup)
}
