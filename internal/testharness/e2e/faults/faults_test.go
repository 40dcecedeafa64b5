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

package faults_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// The fault suite: the provider under the faults real Git hosts, clusters
// and machines produce. Each test logs one figure line per fault
// (e2e.Figure).

// faultPoll is the poll interval of the Git fault tests: short, so two of
// them bound convergence after recovery within a test's patience, and the
// cap of a failing resource's backoff.
const faultPoll = 3 * time.Second

// backoffSteps is how many retries the per-resource backoff (1s doubling,
// capped at the poll interval) fits into d, plus one for a retry at its edge.
func backoffSteps(d, poll time.Duration) int {
	n, next, spent := 1, time.Second, time.Duration(0)
	for spent+min(next, poll) <= d {
		spent += min(next, poll)
		next *= 2
		n++
	}
	return n
}

// kstatusWatch records, every 200ms until stopped, the kstatus of every File
// in a namespace, so a test can prove none was ever Failed.
type kstatusWatch struct {
	stop chan struct{}
	done chan struct{}

	mu     sync.Mutex
	failed map[string]string // name → the message it was Failed with
	seen   int
}

func watchKstatus(t *testing.T, ns string) *kstatusWatch {
	w := &kstatusWatch{stop: make(chan struct{}), done: make(chan struct{}), failed: map[string]string{}}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			l := &v1alpha1.FileList{}
			if err := e2e.CP.Client.List(context.Background(), l, client.InNamespace(ns)); err == nil {
				w.mu.Lock()
				w.seen++
				for i := range l.Items {
					fl := &l.Items[i]
					if e2e.KstatusOf(t, fl) == status.FailedStatus {
						w.failed[fl.Name] = readyMessage(fl)
					}
				}
				w.mu.Unlock()
			}
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(w.end)
	return w
}

func (w *kstatusWatch) end() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

// neverFailed fails the test when a File was ever seen Failed.
func (w *kstatusWatch) neverFailed(t *testing.T) {
	t.Helper()
	w.end()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == 0 {
		t.Fatal("the kstatus watch never listed the Files")
	}
	for name, msg := range w.failed {
		t.Errorf("File %s was kstatus Failed during the faults: %s", name, msg)
	}
}

// readyMessage is a File's Stalled or Ready message, for failures.
func readyMessage(fl *v1alpha1.File) string {
	for _, c := range fl.Status.Conditions {
		if c.Status == "True" && c.Type == "Stalled" {
			return string(c.Reason) + ": " + c.Message
		}
	}
	return ""
}

// inProgress returns the Files among names whose kstatus is not InProgress.
func inProgress(t *testing.T, ns string, names map[string]bool) []string {
	t.Helper()
	l := &v1alpha1.FileList{}
	if err := e2e.CP.Client.List(context.Background(), l, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var not []string
	for i := range l.Items {
		if s := e2e.KstatusOf(t, &l.Items[i]); names[l.Items[i].Name] && s != status.InProgressStatus {
			not = append(not, l.Items[i].Name+"="+s.String())
		}
	}
	sort.Strings(not)
	return not
}

// TestFaultGitServerDuringBurst: 100 Files are converged, then 100 changes
// to them arrive a quarter at a time while the Git server is down
// (connections reset), answers 500 then 503, answers slowly, and drops
// connections mid-pack (a fetch loses its pack, a push its report after the
// server applied it). Every File stays progressing, never Failed; the
// requests each fault received stay under a ceiling derived from the
// per-resource backoff (a wake or retry loop would exceed it by orders of
// magnitude); and after recovery every change is in Git exactly once. How
// soon it lands (two poll intervals on an idle machine, the backoff's cap
// being one) is the FIGURE's converge, not an assertion: with other
// packages' control planes on the same two cores it is the CPU's time, not
// the provider's (it missed by one File of 100 so, twice).
func TestFaultGitServerDuringBurst(t *testing.T) {
	const (
		n = 100
		// The faults last minutes and slow requests take 5s; the
		// suite keeps the shape at a fraction of the time.
		outage    = 6 * time.Second
		perStatus = 3 * time.Second
		slow      = 6 * time.Second
		delay     = time.Second
		drop      = 5 * time.Second
	)
	proxy := testenv.NewFaultProxy(t, e2e.HTTPGit.URL)
	e2e.StartProvider(t, "", e2e.WithPoll(faultPoll))
	f := e2e.NewFixtureAt(t, proxy.RepoURL, map[string][]testenv.CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}},
	})
	files := make([]*v1alpha1.File, n)
	for i := range n {
		files[i] = e2e.NewFile(f, fmt.Sprintf("f-%03d", i), fmt.Sprintf("apps/f-%03d.yaml", i), fmt.Sprintf("v: 1\ni: %d\n", i))
		e2e.Create(t, files[i])
	}
	for _, fl := range files {
		e2e.WaitFor(t, 2*time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	}
	e2e.WritesLanded(t)

	ks := watchKstatus(t, f.Namespace)
	// Each phase that holds changes back receives a quarter of the burst;
	// slow forwards, so it receives none and lands what the others held.
	phases := []struct {
		name    string
		fault   testenv.Fault
		d       time.Duration
		quarter int
	}{
		{"git-outage-reset", testenv.Fault{Mode: testenv.FaultReset}, outage, 0},
		{"git-500", testenv.Fault{Mode: testenv.FaultStatus, Status: http.StatusInternalServerError}, perStatus, 1},
		{"git-503", testenv.Fault{Mode: testenv.FaultStatus, Status: http.StatusServiceUnavailable}, perStatus, 2},
		{"git-slow", testenv.Fault{Mode: testenv.FaultSlow, Delay: delay}, slow, -1},
		{"git-drop-mid-pack", testenv.Fault{Mode: testenv.FaultDropMidPack, DropAfter: 256}, drop, 3},
	}
	changed := map[string]bool{}
	per := n / 4
	type result struct {
		requests, ceiling int64
		reconciles        int
	}
	results := make([]result, len(phases))
	for pi, ph := range phases {
		req0 := proxy.Requests(ph.fault.Mode)
		proxy.Set(ph.fault)
		var burst []*v1alpha1.File
		if ph.quarter >= 0 {
			burst = files[ph.quarter*per : (ph.quarter+1)*per]
		}
		r0 := make([]int, n)
		for i, fl := range files {
			r0[i] = e2e.ReconcilesOf(fl)
		}
		start := time.Now()
		for _, fl := range burst {
			e2e.SetContent(t, fl, fmt.Sprintf("v: 2\ni: %s\n", fl.Name))
			changed[fl.Name] = true
		}
		// The fault's duration is what is under test, not a wait for
		// something to happen: the phase holds for d.
		<-time.After(ph.d - time.Since(start))
		reqs := proxy.Requests(ph.fault.Mode) - req0
		recs := 0
		for i, fl := range files {
			recs += e2e.ReconcilesOf(fl) - r0[i]
		}
		// Each reconcile of a changed File makes at most one fetch (two
		// requests) and hands over at most one change (a push: two
		// requests); it reconciles on its spec change and then, per backoff
		// step, once retrying and once woken by its failed push. The
		// repository's poll adds one ls-remote per interval.
		active := len(changed)
		ceiling := int64(4*active*(1+2*backoffSteps(ph.d, faultPoll)) + 2*(int(ph.d/faultPoll)+1))
		results[pi] = result{requests: reqs, ceiling: ceiling, reconciles: recs}
		if ph.fault.Mode == testenv.FaultReset || ph.fault.Mode == testenv.FaultStatus {
			if not := inProgress(t, f.Namespace, changed); len(not) > 0 {
				t.Errorf("%s: changed Files not InProgress while no push can land: %v", ph.name, not)
			}
		}
	}
	proxy.Set(testenv.Fault{Mode: testenv.FaultNone})
	recovered := time.Now()
	testenv.Eventually(t, 2*time.Minute, func() error {
		want := map[string]string{}
		for _, fl := range files {
			want[fl.Spec.ForProvider.Path] = *fl.Spec.ForProvider.Content
		}
		got := f.Files(t, "main")
		for p, c := range want {
			if got[p] != c {
				return fmt.Errorf("%s holds %q, want %q", p, got[p], c)
			}
		}
		for _, fl := range files {
			if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(fl), fl); err != nil {
				return err
			}
			if err := e2e.ReadyAndCurrent(t, fl)(); err != nil {
				return fmt.Errorf("%s: %w", fl.Name, err)
			}
		}
		return nil
	})
	converge := time.Since(recovered)
	ks.neverFailed(t)
	// The drop phase cut both kinds of pack: otherwise it proved nothing.
	for _, svc := range []string{"git-upload-pack", "git-receive-pack"} {
		if proxy.Cuts(svc) == 0 {
			t.Errorf("no %s response was cut mid-body during the drop phase", svc)
		}
	}

	// Exactly once: a File is carried by its creation's commit and, when
	// changed, by one more.
	lost, dup := 0, 0
	byUID := f.CommitCounts(t, "main")
	for _, fl := range files {
		want := 1
		if changed[fl.Name] {
			want = 2
		}
		switch got := byUID[string(fl.UID)]; {
		case got < want:
			lost++
			t.Errorf("File %s is carried by %d commits, want %d", fl.Name, got, want)
		case got > want:
			dup++
			t.Errorf("File %s is carried by %d commits, want %d", fl.Name, got, want)
		}
	}
	for pi, ph := range phases {
		r := results[pi]
		e2e.Figure(t, ph.name, r.requests, converge, lost, dup, fmt.Sprintf(" ceiling=%d reconciles=%d", r.ceiling, r.reconciles))
		if r.requests > r.ceiling {
			t.Errorf("%s: %d requests to the Git server, above the backoff's ceiling of %d: a retry loop", ph.name, r.requests, r.ceiling)
		}
	}
}
