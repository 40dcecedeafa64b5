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

package async_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestScaleFilesOnOneBranch creates 150 Files (SCALE_FILES) on one branch
// at once (BenchmarkBurstOf1000Files measures a thousand). They
// must converge with one push, cost about one fetch per poll interval
// between them, and, once converged, be neither reconciled nor write any
// status while nothing moves in Git. The commit window runs on a fake clock
// the test steps once every File's change is queued: how long a loaded
// machine takes to queue them no longer decides how many windows, so how
// many pushes, the burst spans.
func TestScaleFilesOnOneBranch(t *testing.T) {
	n := e2e.BenchN("SCALE_FILES", 150)
	clk := testingclock.NewFakeClock(time.Now())
	counter := &e2e.StatusCounter{}
	metrics, reg := e2e.WithNewGitMetrics(t)
	e2e.StartProvider(t, "", metrics, e2e.WithGitClock(clk), e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper {
		counter.Next = rt
		return counter
	}))
	f := e2e.NewFixture(t)
	ctx := context.Background()
	// A commit window of 4s, as a platform team expecting bursts would set
	// it: what one push collects is what arrives within it.
	e2e.SetWindow(t, f, 4*time.Second)

	start := time.Now()
	pushes0, fetches0 := e2e.CounterSum(t, reg, "provider_git_pushes_total"), e2e.CounterSum(t, reg, "provider_git_fetches_total")
	adverts0 := e2e.HTTPGit.Counts().UploadPackAdverts
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			file := &v1alpha1.File{
				ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: fmt.Sprintf("f-%03d", i)},
				Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{
					Branch: "main", Path: fmt.Sprintf("apps/app-%03d/config.yaml", i), Content: ptr.To(fmt.Sprintf("index: %d\n", i)),
				}},
			}
			file.Spec.ProviderConfigReference = e2e.PCRef()
			errs <- e2e.CP.Client.Create(ctx, file)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// Every File hands its change to the branch writer, which waits for
	// the window to close on the clock that stands still.
	testenv.Eventually(t, 3*time.Minute, func() error {
		if got := e2e.Running.Cache.Pending(); got != int64(n) || !clk.HasWaiters() {
			return fmt.Errorf("%d of %d changes queued", got, n)
		}
		return nil
	})
	if got := e2e.CounterSum(t, reg, "provider_git_pushes_total") - pushes0; got != 0 {
		t.Errorf("%.0f pushes before the commit window closed, want 0", got)
	}
	clk.Step(4 * time.Second)

	// Converged: every File Ready and Synced.
	files := make([]client.Object, n)
	testenv.Eventually(t, 3*time.Minute, func() error {
		l := &v1alpha1.FileList{}
		if err := e2e.CP.Client.List(ctx, l, client.InNamespace(f.Namespace)); err != nil {
			return err
		}
		ready := 0
		for i := range l.Items {
			if e2e.ReadyAndCurrent(t, &l.Items[i])() == nil {
				ready++
			}
			if i < n {
				files[i] = &l.Items[i]
			}
		}
		if ready != n {
			return fmt.Errorf("%d of %d Files converged", ready, n)
		}
		return nil
	})
	converge := time.Since(start)
	pushes := e2e.CounterSum(t, reg, "provider_git_pushes_total") - pushes0
	fetchesConverging := e2e.CounterSum(t, reg, "provider_git_fetches_total") - fetches0
	// Every fetch and every ProviderConfig check (ls-remote) starts with one
	// advertisement; the rest of them are checks.
	checks := float64(e2e.HTTPGit.Counts().UploadPackAdverts-adverts0) - fetchesConverging

	if got := len(f.Files(t, "main")); got != n {
		t.Errorf("the branch holds %d files, want %d", got, n)
	}

	// Steady state: nothing changes in Git. A converged File is not polled
	// on its own; the watcher checks the repository once per poll interval
	// and reconciles no File while nothing moved. Measured over several of
	// its polls, after the one that follows the last push, and after the
	// ProviderConfig counted its users (150 Files converge in 2 s, within
	// the count's debounce).
	e2e.WritesLanded(t)
	e2e.UsersCounted(t, f.Namespace, n)
	polls0 := e2e.CounterSum(t, reg, "provider_git_polls_total")
	testenv.Eventually(t, time.Minute, func() error {
		if e2e.CounterSum(t, reg, "provider_git_polls_total") < polls0+1 {
			return fmt.Errorf("waiting for a poll of the repository")
		}
		return nil
	})
	const polls = 5
	writes0, fetches1, steady := counter.Writes(), e2e.CounterSum(t, reg, "provider_git_fetches_total"), time.Now()
	reconciles0, polls1 := 0, e2e.CounterSum(t, reg, "provider_git_polls_total")
	for _, o := range files {
		reconciles0 += e2e.ReconcilesOf(o)
	}
	testenv.Eventually(t, time.Duration(polls+2)*e2e.Poll*2, func() error {
		if got := e2e.CounterSum(t, reg, "provider_git_polls_total") - polls1; got < polls {
			return fmt.Errorf("%.0f of %d polls of the repository", got, polls)
		}
		return nil
	})
	steadyWrites := counter.Writes() - writes0
	intervals := float64(time.Since(steady)) / float64(e2e.Poll)
	fetchesPerPoll := (e2e.CounterSum(t, reg, "provider_git_fetches_total") - fetches1) / intervals
	steadyReconciles := -reconciles0
	for _, o := range files {
		steadyReconciles += e2e.ReconcilesOf(o)
	}

	t.Logf("\n%d Files on one branch (commit window %s, poll %s, %d workers)\n"+
		"| measure                                   | value |\n"+
		"|-------------------------------------------|-------|\n"+
		"| time to converge (all Ready, kstatus Current) | %s |\n"+
		"| pushes to converge                        | %.0f |\n"+
		"| fetches while converging                  | %.0f |\n"+
		"| ProviderConfig checks while converging    | %.0f |\n"+
		"| fetches per poll interval, steady state   | %.1f |\n"+
		"| File reconciles over %d polls of the repository (%.1f poll intervals), steady state | %d |\n"+
		"| status writes over the same polls, steady state | %d |",
		n, 4*time.Second, e2e.Poll, e2e.Workers, converge.Round(100*time.Millisecond), pushes, fetchesConverging, checks, fetchesPerPoll, polls, intervals, steadyReconciles, steadyWrites)

	// A push carries what arrived within its window: the whole burst,
	// queued before the window closed.
	if pushes != 1 {
		t.Errorf("%.0f pushes for %d Files queued within one commit window, want 1", pushes, n)
	}
	if fetchesPerPoll > 2 {
		t.Errorf("%.1f fetches per poll interval in steady state, want about one", fetchesPerPoll)
	}
	if steadyReconciles != 0 {
		t.Errorf("%d File reconciles in steady state, want none: nothing moved in Git", steadyReconciles)
	}
	if steadyWrites != 0 {
		t.Errorf("%d status writes in steady state, want none: %v", steadyWrites, counter.Since(writes0))
	}
}
