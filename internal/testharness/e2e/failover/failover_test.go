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
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e/sharing"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestShareKill: one of three replicas is killed with SIGKILL in the middle
// of a burst. Its repositories resume on the others within a lease, two
// renewals and a poll; nothing is lost or committed twice; at no time do
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
	// How soon is BenchmarkShareFailover's figure, not this test's: a
	// bound on wall time fails on a loaded machine (48 s was seen at a
	// load of 30, against lease+2 renewals+poll of 12 s). A failover that
	// waited for the informer's resync (--sync, an hour) or a restart is
	// caught by AllReady's deadline above, far below either.
	if len(failovers) > 0 {
		t.Logf("FIGURE share-kill repos=%d victim-repos=%d files=%d failover-p50=%.1fs failover-max=%.1fs lease+2renewals+poll=%s lost=%d duplicated=%d",
			nRepos, len(theirs), nRepos*nFiles, failovers[len(failovers)/2].Seconds(), failovers[len(failovers)-1].Seconds(),
			sharing.Lease+2*sharing.Renew+sharing.Poll, lost, dup)
	}
	sharing.Settled(t, survivors, 2)
}

// TestSharePause: a replica paused (SIGSTOP) in the middle of a push, past
// its Lease, and resumed (SIGCONT). The Git server holds its push of a File
// at the advertisement and answers it while the replica is paused, with the
// branch as the replica left it, so on resuming it has a push ready whose
// compare-and-swap would still succeed: only the fence stops it. It
// withholds that push and sends no pack while its Lease is not current; the
// replica that took the repository over pushes the File, which lands in
// exactly one commit; the others wrote its other repositories meanwhile, and
// nothing is lost or committed twice.
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
	gated := theirs[0]
	withheldBefore := victim.MustMetric(t, "provider_git_pushes_withheld_total")

	// The victim's push of q-000 is held at its advertisement; it is
	// paused while its writer waits for the answer.
	gate := e2e.HTTPGit.HoldAdvertisements(gated.Repo.Name)
	t.Cleanup(gate.Open)
	queued := sharing.Files(t, []*e2e.Fixture{gated}, 1, "q")
	mine := sharing.AwaitHeld(t, gate, func(ua string) bool { return ua == victim.UserAgent() })
	victim.Pause(t)
	paused := time.Now()
	// Answered now, while it cannot read it: the branch as it left it.
	mine.Release()
	sharing.AwaitServed(t, mine)

	// The others count it gone and write its repositories: the File it
	// could not push, and what is created meanwhile.
	sharing.Settled(t, others, 2)
	var rest []*e2e.Fixture
	for _, f := range fx {
		if f != gated {
			rest = append(rest, f)
		}
	}
	meanwhile := sharing.Files(t, rest, 5, "m")
	sharing.AllReady(t, rest, 5*time.Minute)
	theirsHeld := sharing.AwaitHeld(t, gate, func(ua string) bool { return sharing.ReplicaOf(others, ua) != nil })
	theirsHeld.Release()
	sharing.AllReady(t, []*e2e.Fixture{gated}, time.Minute)

	// Resumed, it reads the stale advertisement: a push that would land
	// but for the fence.
	victim.Resume(t)
	resumed := time.Now()
	testenv.Eventually(t, time.Minute, func() error {
		if w := victim.MustMetric(t, "provider_git_pushes_withheld_total"); w <= withheldBefore {
			return fmt.Errorf("%s withheld %v pushes, %v before the pause: the push it resumed with is not withheld yet", victim, w, withheldBefore)
		}
		return nil
	})
	gate.Open()
	sharing.Settled(t, rs, 3)
	lost, dup := sharing.ExactlyOnce(t, sharing.Merge(first, queued, meanwhile))

	all := sharing.OfRepos(fx, e2e.HTTPGit.Pushes())
	sharing.NoOverlaps(t, all)
	// Resumed, it renews at once and then settles for two renewals: no
	// push of its may start before that; and it never sends the pack it
	// held when it was paused (q-000 is in Git by then: nothing of the
	// gated repository is left for it to push at all).
	quiet := resumed.Add(2 * sharing.Renew)
	pushedGated := 0
	for _, p := range all {
		mineP := p.UserAgent == victim.UserAgent() && p.Start.After(paused)
		switch {
		case mineP && p.Repo == gated.Repo.Name:
			t.Errorf("%s pushed to %s at %s, after it was paused holding that push", victim, p.Repo, p.Start.Format(time.StampMilli))
		case mineP && p.Start.Before(quiet):
			t.Errorf("%s pushed to %s at %s, between its pause and its settling after resuming", victim, p.Repo, p.Start.Format(time.StampMilli))
		case p.Repo == gated.Repo.Name && p.Start.After(paused):
			pushedGated++
		}
	}
	if pushedGated != 1 {
		t.Errorf("the others pushed %s %d times after the pause, want 1 (q-000)", gated.Repo.Name, pushedGated)
	}
	withheld := victim.MustMetric(t, "provider_git_pushes_withheld_total") - withheldBefore
	t.Logf("FIGURE share-pause repos=%d victim-repos=%d withheld=%v gated-pushes-by-others=%d lost=%d duplicated=%d", nRepos, len(theirs), withheld, pushedGated, lost, dup)
}
