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
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Writes that do not hold workers, and drift found from Git: the
// invariants of the asynchronous path.

// refuseStatus fails every status write to a namespace, as a provider that
// dies right after its push would never make it.
type refuseStatus struct {
	next http.RoundTripper
	ns   string
}

func (r *refuseStatus) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && strings.HasSuffix(req.URL.Path, "/status") && strings.Contains(req.URL.Path, "/namespaces/"+r.ns+"/") {
		return nil, errors.New("the provider died before its status write")
	}
	return r.next.RoundTrip(req)
}

// TestAsyncWriteLandsOnceAcrossRestart: a File and a CommitRequest whose
// pushes land but whose status is never written (the provider dies between
// the two) are recognised by a restarted provider on the same cache: each
// change is carried by exactly one commit.
func TestAsyncWriteLandsOnceAcrossRestart(t *testing.T) {
	f := e2e.NewFixture(t)
	dir := t.TempDir()
	p := e2e.StartProvider(t, dir, e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper {
		return &refuseStatus{next: rt, ns: f.Namespace}
	}))
	fl := e2e.NewFile(f, "config", "apps/config.yaml", "a: 1\n")
	cr := e2e.NewCommitRequest(f, "release", e2e.ReleaseMessage, e2e.ReleaseFiles()...)
	e2e.Create(t, fl)
	e2e.Create(t, cr)
	testenv.Eventually(t, time.Minute, func() error {
		got := f.Files(t, "main")
		if got["apps/config.yaml"] != "a: 1\n" || got["apps/cm.yaml"] != e2e.ReleaseTree["apps/cm.yaml"] {
			return fmt.Errorf("the branch does not hold both changes yet: %v", got)
		}
		return nil
	})
	p.Stop()
	for _, o := range []client.Object{fl, cr} {
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(o), o); err != nil {
			t.Fatal(err)
		}
	}
	if c := fl.Status.GetCondition(xpv2.TypeReady); c.Status == corev1.ConditionTrue {
		t.Fatalf("the File's status was written although every status write failed: %+v", c)
	}

	e2e.StartProvider(t, dir)
	e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	e2e.WaitFor(t, time.Minute, cr, e2e.ReadyAndCurrent(t, cr))
	e2e.WritesLanded(t)
	for _, o := range []client.Object{fl, cr} {
		if got := f.CommitsOf(t, "main", string(o.GetUID())); len(got) != 1 {
			t.Errorf("%T %s is carried by %d commits, want exactly 1: %v", o, o.GetName(), len(got), got)
		}
	}
}

// TestDriftFromGitWakesOnlyTouchedFiles: a File edited in Git by someone
// else is put back, found by the repository's poll (no File polls on a
// timer), and a poll interval costs no reconcile of the Files nothing
// touched.
func TestDriftFromGitWakesOnlyTouchedFiles(t *testing.T) {
	const n = 30
	metrics, reg := e2e.WithNewGitMetrics(t)
	e2e.StartProvider(t, "", metrics)
	f := e2e.NewFixture(t)
	files := make([]client.Object, n)
	for i := range n {
		fl := e2e.NewFile(f, fmt.Sprintf("f-%02d", i), fmt.Sprintf("apps/f-%02d.yaml", i), fmt.Sprintf("i: %d\n", i))
		e2e.Create(t, fl)
		files[i] = fl
	}
	for _, o := range files {
		fl := o.(*v1alpha1.File) //nolint:forcetypeassert // built above
		e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	}
	e2e.WritesLanded(t)
	waitPolls := func(k float64) {
		t.Helper()
		p0 := e2e.CounterSum(t, reg, "provider_git_polls_total")
		testenv.Eventually(t, time.Minute, func() error {
			if got := e2e.CounterSum(t, reg, "provider_git_polls_total") - p0; got < k {
				return fmt.Errorf("%.0f of %.0f polls of the repository", got, k)
			}
			return nil
		})
	}
	waitPolls(1)
	counts := func() []int {
		c := make([]int, n)
		for i, o := range files {
			c[i] = e2e.ReconcilesOf(o)
		}
		return c
	}

	// A poll interval with nothing moved: no File is reconciled.
	before := counts()
	waitPolls(2)
	if diff := cmp.Diff(before, counts()); diff != "" {
		t.Errorf("Files were reconciled while nothing moved in Git: -before, +after:\n%s", diff)
	}

	// Someone else edits one File's path (and a path no File owns).
	before = counts()
	if _, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "hand edit", Files: map[string]string{
		"apps/f-07.yaml": "edited by hand\n", "notes.txt": "unmanaged\n",
	}}); err != nil {
		t.Fatal(err)
	}
	edited, polled := time.Now(), e2e.CounterSum(t, reg, "provider_git_polls_total")
	testenv.Eventually(t, 2*time.Minute, func() error {
		if got := f.Files(t, "main")["apps/f-07.yaml"]; got != "i: 7\n" {
			return fmt.Errorf("apps/f-07.yaml holds %q", got)
		}
		return nil
	})
	putBack, polls := time.Since(edited), e2e.CounterSum(t, reg, "provider_git_polls_total")-polled
	// How soon is a figure (make bench: BenchmarkForgeEventsPushPutBack's
	// polling baseline), not an assertion on wall time or on a count of
	// polls, which a loaded machine stretches: what this test proves is
	// that a poll, not a timer per File, woke the edited File alone.
	e2e.WritesLanded(t)
	waitPolls(1)
	after := counts()
	for i := range n {
		switch {
		case i == 7 && after[i] == before[i]:
			t.Errorf("the edited File was never reconciled")
		case i != 7 && after[i] != before[i]:
			t.Errorf("File f-%02d, untouched, was reconciled %d times after the edit", i, after[i]-before[i])
		}
	}
	t.Logf("edit put back after %s, %.0f polls (poll interval %s, commit window %s)", putBack.Round(100*time.Millisecond), polls, e2e.Poll, e2e.Window)
}

// TestFailedWriteRetriesWithBackoff: a write whose push fails for a reason
// that may clear (the server answers 503) is retried with the resource's
// own growing backoff, not in a tight wake loop, and lands once the server
// is back; a push the server refuses stalls the File as PushRejected until
// the refusal is lifted.
func TestFailedWriteRetriesWithBackoff(t *testing.T) {
	e2e.StartProvider(t, "")
	f := e2e.NewFixture(t)
	fl := e2e.NewFile(f, "config", "apps/config.yaml", "a: 1\n")
	e2e.Create(t, fl)
	e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	e2e.WritesLanded(t)

	t.Run("Transient", func(t *testing.T) {
		e2e.HTTPGit.FailWith(http.StatusServiceUnavailable)
		t.Cleanup(func() { e2e.HTTPGit.FailWith(0) })
		e2e.SetContent(t, fl, "a: 2\n")
		n0, start := e2e.ReconcilesOf(fl), time.Now()
		// The spec change and the write's wake come at once; each retry
		// after them waits its backoff (1s, 2s, then capped at the 2s poll
		// interval), so five reconciles take at least 1+2s. A wake loop
		// would make them in milliseconds.
		testenv.Eventually(t, time.Minute, func() error {
			if got := e2e.ReconcilesOf(fl) - n0; got < 5 {
				return fmt.Errorf("%d reconciles since the spec change", got)
			}
			return nil
		})
		if d := time.Since(start); d < 3*time.Second {
			t.Errorf("five reconciles of a failing write within %s: retried without backoff", d)
		}
		e2e.HTTPGit.FailWith(0)
		e2e.WaitFor(t, 2*time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
		if got := f.Files(t, "main")["apps/config.yaml"]; got != "a: 2\n" {
			t.Errorf("apps/config.yaml holds %q once the server is back, want a: 2", got)
		}
	})

	t.Run("Terminal", func(t *testing.T) {
		f.Repo.SetHook(t, "pre-receive", "#!/bin/sh\necho refused by policy >&2\nexit 1\n")
		e2e.SetContent(t, fl, "a: 3\n")
		e2e.WaitFor(t, time.Minute, fl, e2e.StalledWith(t, fl, "PushRejected"))
		f.Repo.SetHook(t, "pre-receive", "#!/bin/sh\nexit 0\n")
		// A stalled File is retried at the poll interval.
		e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
		if got := f.Files(t, "main")["apps/config.yaml"]; got != "a: 3\n" {
			t.Errorf("apps/config.yaml holds %q once the hook allows it, want a: 3", got)
		}
	})
}

// TestNewFileAmongManyIsPrompt: a File created while many converged ones
// exist is not queued behind them: none of them is reconciled while it goes
// from created to Ready. (How long that takes is a figure of make bench:
// BenchmarkSteadyStateOf10000Files.)
func TestNewFileAmongManyIsPrompt(t *testing.T) {
	const n = 100
	e2e.StartProvider(t, "")
	f := e2e.NewFixture(t)
	files := make([]*v1alpha1.File, n)
	for i := range n {
		files[i] = e2e.NewFile(f, fmt.Sprintf("f-%03d", i), fmt.Sprintf("apps/f-%03d.yaml", i), fmt.Sprintf("i: %d\n", i))
		e2e.Create(t, files[i])
	}
	for _, fl := range files {
		e2e.WaitFor(t, 2*time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	}
	e2e.WritesLanded(t)
	before := 0
	for _, fl := range files {
		before += e2e.ReconcilesOf(fl)
	}
	start := time.Now()
	fl := e2e.NewFile(f, "late", "apps/late.yaml", "late\n")
	e2e.Create(t, fl)
	e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	t.Logf("a new File among %d converged ones was Ready after %s (commit window %s)", n, time.Since(start).Round(10*time.Millisecond), e2e.Window)
	after := 0
	for _, o := range files {
		after += e2e.ReconcilesOf(o)
	}
	if after != before {
		t.Errorf("%d reconciles of the %d converged Files while a new one became Ready, want none: nothing moved for them", after-before, n)
	}
}
