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

package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestExternalWriterRace(t *testing.T) {
	t.Parallel()
	externalWriterRace(t, httpServer(t))
}

// TestExternalWriterRaceAzure is the same race through a server that
// answers as Azure DevOps does, where every fetch declares multi_ack:
// nothing is lost, nothing forced.
func TestExternalWriterRaceAzure(t *testing.T) {
	t.Parallel()
	s, _ := azureServer(t)
	externalWriterRace(t, s)
}

// externalWriterRace races engine writers against an external writer
// pushing to s directly, then checks that every change of both landed,
// each branch update a fast-forward.
//
// The race is placed, not left to the scheduler: a push gate holds each
// engine push after it built its commit on the head it read, and the
// external writer lands its commits exactly there, two held pushes in every
// three, so the engine loses two races in a row, rebases and wins the third.
// Left to the clock (an external writer pushing over the file system every
// 20-60 ms), the engine's fetch-rebase-push round outlasted the external
// cadence on a loaded machine and lost every race until its attempts ran
// out ("gave up after 30 attempts"): a contest of speeds, not the property.
// With the race placed, the production bound (DefaultMaxPushAttempts)
// holds however loaded the machine is, and each lost race is exactly one
// retry.
func externalWriterRace(t *testing.T, s *server) {
	m := NewMetrics()
	reg := prometheus.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	gate := testenv.NewPushGate(t, s.repo)
	r, _ := newRepo(t, s.remote, WithCommitWindow(20*time.Millisecond), WithMetrics(m), func(o *Options) {
		o.MaxPushAttempts, o.RetryBackoff = DefaultMaxPushAttempts, time.Millisecond
	})
	start := s.repo.Head(t, "main")

	// The engine writers submit until the external writer has landed all
	// its commits (and at least minEach each): there is always a push for
	// the gate to hold while the external writer still has commits to land.
	const wantExternal = 8
	var landed atomic.Int32
	const writers, minEach = 8, 6
	var wg sync.WaitGroup
	var mu sync.Mutex
	var heads, engine []string
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < minEach || landed.Load() < wantExternal; i++ {
				p := fmt.Sprintf("eng/w%d-%d", w, i)
				res := r.Submit(ctx(t), "main", Change{Puts: map[string]File{p: {Content: []byte(p)}}, Message: p,
					Resource: Resource{Kind: "File", Namespace: "ns", Name: p, UID: p}})
				if res.Err != nil {
					t.Errorf("Submit(%s): %v", p, res.Err)
					continue
				}
				mu.Lock()
				heads = append(heads, res.Commit)
				engine = append(engine, p)
				mu.Unlock()
			}
		}()
	}

	ext, err := s.repo.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	var external []string // files the external writer landed
	for n := 1; len(external) < wantExternal; n++ {
		gate.Held(t, n, 2*time.Minute)
		if n%3 != 0 {
			p := fmt.Sprintf("ext/e%03d", len(external))
			if _, err := ext.Commit("main", testenv.CommitSpec{Message: "external " + p, Files: map[string]string{p: p}}); err != nil {
				gate.Open(t)
				t.Fatalf("external writer, at held push %d: %v", n, err)
			}
			external = append(external, p)
			landed.Add(1)
		}
		gate.Release(t, n)
	}
	gate.Open(t)
	wg.Wait()

	final := s.repo.Head(t, "main")
	files := s.repo.Files(t, "main")
	for _, p := range engine {
		if files[p] != p {
			t.Errorf("engine change %s lost", p)
		}
	}
	for _, p := range external {
		if files[p] != p {
			t.Errorf("external change %s lost", p)
		}
	}
	for _, h := range heads {
		if !s.repo.IsAncestor(t, h, final) {
			t.Errorf("engine commit %s is not an ancestor of the final head", h[:7])
		}
	}
	// Every update of the branch was a fast-forward: nobody force-pushed.
	for _, u := range s.repo.Reflog(t, "main") {
		if u.Old != strings.Repeat("0", 40) && !s.repo.IsAncestor(t, u.Old, u.New) {
			t.Errorf("branch moved %s -> %s without fast-forward", u.Old[:7], u.New[:7])
		}
	}
	for _, e := range s.repo.Log(t, "main") {
		if len(e.Parents) > 1 {
			t.Errorf("merge commit %s: history is not linear", e.SHA[:7])
		}
		if e.SHA == start {
			break
		}
	}
	retries := 0.0
	if mfs, err := reg.Gather(); err == nil {
		for _, mf := range mfs {
			if mf.GetName() == "provider_git_push_retries_total" {
				retries = mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
	}
	// Each commit the external writer landed under a held push cost that
	// push one lost race, and nothing else made the engine push again.
	if retries != wantExternal {
		t.Errorf("engine push retries = %v, want %d: one per race the external writer won", retries, wantExternal)
	}
	t.Logf("engine changes: %d; external commits: %d; engine push retries: %v", len(engine), len(external), retries)
}

// TestPushRetriesBackOff: changes, branch creation and branch deletion share
// one retry loop, so each waits a jittered, growing backoff before it pushes
// again after losing a race. The race is a ref lock held on the server
// (git's receive-pack answers "failed to lock", as when another push is
// updating the branch); the injected sleep records each wait instead of
// sleeping, and releases the lock at the second wait.
func TestPushRetriesBackOff(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	s.repo.CreateBranch(t, "doomed", "main")
	main := s.repo.Head(t, "main")
	const base = 40 * time.Millisecond
	var mu sync.Mutex
	var waits []time.Duration
	var unlock func()
	r, _ := newRepo(t, s.remote, WithCommitWindow(time.Millisecond), func(o *Options) {
		o.MaxPushAttempts, o.RetryBackoff = 5, base
		o.sleep = func(_ context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			waits = append(waits, d)
			if len(waits) == 2 {
				unlock()
			}
			return nil
		}
	})
	type want struct {
		Waits int
		// Bounded: wait n (from 1) is at most base·2^(n-1).
		Bounded bool
		Head    string
	}
	cases := map[string]struct {
		reason string
		branch string
		do     func() Result
		want   want
	}{
		"Change": {
			reason: "A batch of changes backs off between pushes.",
			branch: "main",
			do: func() Result {
				return r.Submit(ctx(t), "main", Change{Puts: map[string]File{"retry.txt": {Content: []byte("r")}}})
			},
			want: want{Waits: 2, Bounded: true},
		},
		"CreateBranch": {
			reason: "Branch creation backs off like changes do (it used to retry at once).",
			branch: "created",
			do:     func() Result { return r.CreateBranch(ctx(t), "created", main) },
			want:   want{Waits: 2, Bounded: true, Head: main},
		},
		"DeleteBranch": {
			reason: "Branch deletion backs off like changes do.",
			branch: "doomed",
			do:     func() Result { return r.DeleteBranch(ctx(t), "doomed") },
			want:   want{Waits: 2, Bounded: true, Head: ""},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			lock := filepath.Join(s.repo.Dir, "refs", "heads", tc.branch+".lock")
			if err := os.WriteFile(lock, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Remove(lock) })
			mu.Lock()
			waits, unlock = nil, func() { _ = os.Remove(lock) }
			mu.Unlock()

			res := tc.do()
			if res.Err != nil {
				t.Fatalf("%s\n%v", tc.reason, res.Err)
			}
			mu.Lock()
			got := want{Waits: len(waits), Bounded: true}
			for i, d := range waits {
				got.Bounded = got.Bounded && d >= 0 && d <= base<<i
			}
			mu.Unlock()
			got.Head = s.repo.Head(t, tc.branch)
			if name == "Change" {
				got.Head = "" // a new commit; only its arrival is checked
				if s.repo.Files(t, "main")["retry.txt"] != "r" {
					t.Errorf("%s\nthe change did not land", tc.reason)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nwaits %v: -want, +got:\n%s", tc.reason, waits, diff)
			}
		})
	}
}
