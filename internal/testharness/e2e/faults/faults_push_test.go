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
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// pusher is someone else pushing to the branch the provider writes: its own
// clone, the git CLI, a commit every 100ms, a rebase whenever it lost a race.
type pusher struct {
	id     int
	dir    string
	landed []string // commits it pushed, as they landed
	errs   []error
	// lastRefused is the last push the server refused: what a pusher that
	// landed nothing has to say.
	lastRefused error
	// nLanded counts landed and ended is set when run returns, for
	// raceFirstPush, which reads them while the pusher runs; each change
	// is announced on progress.
	nLanded  atomic.Int32
	ended    atomic.Bool
	progress chan<- struct{}
}

func newPusher(t *testing.T, f *e2e.Fixture, id int, progress chan<- struct{}) *pusher {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	url := testenv.AuthURL(e2e.HTTPGit.RepoURL(filepath.Base(f.Repo.Dir)), e2e.GitUser, e2e.GitToken)
	if _, err := testenv.Git("", nil, "clone", "-q", url, dir); err != nil {
		t.Fatal(err)
	}
	return &pusher{id: id, dir: dir, progress: progress}
}

// announce tells raceFirstPush the pusher landed a commit or ended; it never
// blocks, and one pending announcement stands for any number.
func (p *pusher) announce() {
	select {
	case p.progress <- struct{}{}:
	default:
	}
}

// perPusher bounds what one pusher commits: enough to span the burst (a
// commit every 100ms at best, 40 take 4s; the Files arrive in 2s), and a
// bound, so the race ends. Unbounded, the pushers (each racing the others
// as well) could outpace the provider's fetch-rebase-push rounds for as
// long as a loaded machine kept them faster, and the test would measure
// who is faster; bounded, every change the provider holds lands once the
// pushers are done, whatever the load, and the checks below (nothing lost,
// nothing forced, each resource in one commit) are what is left to fail.
const perPusher = 40

// run commits and pushes, perPusher commits at most, until stop is closed;
// each commit adds a file of its own, so any commit lost on the way shows
// as a missing file.
func (p *pusher) run(stop <-chan struct{}) {
	defer func() { p.ended.Store(true); p.announce() }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for k := 0; k < perPusher; k++ {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if err := p.commitAndPush(k, stop); err != nil {
			p.errs = append(p.errs, err)
			return
		}
	}
}

// commitAndPush commits file k and pushes it until it lands or stop is
// closed; a commit still unpushed at stop never reached the server, so it is
// nobody's loss.
func (p *pusher) commitAndPush(k int, stop <-chan struct{}) error {
	name := fmt.Sprintf("ext/p%d/%04d.txt", p.id, k)
	if err := os.MkdirAll(filepath.Join(p.dir, filepath.Dir(name)), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(p.dir, name), []byte(name+"\n"), 0o644); err != nil {
		return err
	}
	if _, err := testenv.Git(p.dir, nil, "add", name); err != nil {
		return err
	}
	if _, err := testenv.Git(p.dir, nil, "commit", "-q", "-m", "external "+name); err != nil {
		return err
	}
	// A lost race is rebased and pushed again after a short random pause,
	// as a person or a CI job would; never forced. No bound on the attempts:
	// on a loaded machine a pusher whose pull-rebase-push round trip
	// outlasts another's 100ms cadence can lose every race while the other
	// pushes each tick (50 of 50 once; in a 10 s run two of three pushers
	// landed nothing), which is the pushers' contest, not the provider's:
	// the test asks only that the pushers together raced the provider.
	for {
		_, err := testenv.Git(p.dir, nil, "push", "-q", "origin", "HEAD:main")
		if err == nil {
			sha, err := testenv.Git(p.dir, nil, "rev-parse", "HEAD")
			if err != nil {
				return err
			}
			p.landed = append(p.landed, strings.TrimSpace(sha))
			p.nLanded.Add(1)
			p.announce()
			return nil
		}
		p.lastRefused = err
		select {
		case <-stop:
			return nil
		case <-time.After(rand.N(50 * time.Millisecond)): // a pusher's pause before it retries, not a wait on a condition
		}
		if _, err := testenv.Git(p.dir, nil, "pull", "-q", "--rebase", "origin", "main"); err != nil {
			return err
		}
	}
}

// TestFaultExternalPushersRace: three other pushers commit to main every
// 100ms while 60 Files and 3 CommitRequests land on it. No one's commit is
// lost, nothing is forced (every update of the branch, as its reflog
// records it, and every head sampled meanwhile is an ancestor of the final
// head), and every resource converges with its change in exactly one commit.
// The race is made, not hoped for (raceFirstPush): on a busy machine the
// pushers once landed only 2 commits while the resources converged.
func TestFaultExternalPushersRace(t *testing.T) {
	const (
		nFiles   = 60
		nCRs     = 3
		nPushers = 3
	)
	e2e.StartProvider(t, "")
	f := e2e.NewFixture(t)
	seeded := f.Repo.Head(t, "main")
	progress := make(chan struct{}, 1)
	pushers := make([]*pusher, nPushers)
	for i := range pushers {
		pushers[i] = newPusher(t, f, i, progress)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	startPushers := func() {
		for _, p := range pushers {
			wg.Add(1)
			go func() { defer wg.Done(); p.run(stop) }()
		}
	}
	gate := e2e.HTTPGit.HoldAdvertisements(f.Repo.Name)
	t.Cleanup(gate.Open)
	wg.Add(1)
	go func() { defer wg.Done(); raceFirstPush(gate, pushers, progress, startPushers, stop) }()
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			close(stop)
			wg.Wait()
		}
	}
	t.Cleanup(halt)

	start := time.Now()
	files := make([]*v1alpha1.File, nFiles)
	for i := range files {
		files[i] = e2e.NewFile(f, fmt.Sprintf("f-%02d", i), fmt.Sprintf("apps/f-%02d.yaml", i), fmt.Sprintf("i: %d\n", i))
		e2e.Create(t, files[i])
		if i%10 == 9 {
			// Bursts a commit window apart, so the provider pushes many
			// times into the others' stream.
			<-time.After(e2e.Window)
		}
	}
	crs := make([]*v1alpha1.CommitRequest, nCRs)
	for i := range crs {
		crs[i] = e2e.NewCommitRequest(f, fmt.Sprintf("cr-%d", i), fmt.Sprintf("Release %d", i),
			v1alpha1.CommitFile{Path: fmt.Sprintf("releases/%d.txt", i), Content: ptr.To(fmt.Sprintf("%d\n", i))})
		e2e.Create(t, crs[i])
	}
	// With the race made, convergence took 50-59 s idle and 89 s beside a
	// CPU burner, and over 2 minutes inside make test: the wait is a bound
	// on a hung provider, not a speed target (make bench holds those).
	for _, fl := range files {
		e2e.WaitFor(t, 5*time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	}
	for _, cr := range crs {
		e2e.WaitFor(t, 5*time.Minute, cr, e2e.ReadyAndCurrent(t, cr))
	}
	converge := time.Since(start)
	halt()
	e2e.WritesLanded(t)

	final := f.Repo.Head(t, "main")
	tree := f.Files(t, "main")
	landed := 0
	for _, p := range pushers {
		for _, e := range p.errs {
			t.Errorf("pusher %d: %v", p.id, e)
		}
		for _, c := range p.landed {
			landed++
			if !f.Repo.IsAncestor(t, c, final) {
				t.Errorf("pusher %d's commit %s is not in the final history: lost", p.id, c)
			}
		}
	}
	for k, v := range tree {
		if strings.HasPrefix(k, "ext/") && v != k+"\n" {
			t.Errorf("%s holds %q", k, v)
		}
	}
	lost, dup := 0, 0
	for _, p := range pushers {
		for k := range p.landed {
			name := fmt.Sprintf("ext/p%d/%04d.txt", p.id, k)
			if _, ok := tree[name]; !ok {
				lost++
				t.Errorf("%s, pushed by pusher %d, is missing from the final tree", name, p.id)
			}
		}
	}
	counts := f.CommitCounts(t, "main")
	var objs []client.Object
	for _, fl := range files {
		objs = append(objs, fl)
	}
	for _, cr := range crs {
		objs = append(objs, cr)
	}
	for _, o := range objs {
		switch got := counts[string(o.GetUID())]; {
		case got == 0:
			lost++
			t.Errorf("%s is carried by no commit", o.GetName())
		case got > 1:
			dup++
			t.Errorf("%s is carried by %d commits, want 1", o.GetName(), got)
		}
	}
	for _, fl := range files {
		if got := tree[fl.Spec.ForProvider.Path]; got != *fl.Spec.ForProvider.Content {
			lost++
			t.Errorf("%s holds %q, want %q", fl.Spec.ForProvider.Path, got, *fl.Spec.ForProvider.Content)
		}
	}
	// Never forced: each update of the branch was a fast-forward, and
	// every head anyone saw is in the final history.
	forced := 0
	reflog := f.Repo.Reflog(t, "main")
	// git removes a branch's reflog with the branch: a reflog that does not
	// start at the seed, or that creates the branch twice, hides a deletion.
	if len(reflog) == 0 || !isZero(reflog[0].Old) || reflog[0].New != seeded {
		forced++
		t.Errorf("main's reflog does not start with its creation at the seed %s: deleted and made again?", seeded)
	}
	for i, u := range reflog {
		if isZero(u.Old) && i > 0 {
			forced++
			t.Errorf("main was created again at %s", u.New)
		}
		if !isZero(u.Old) && !f.Repo.IsAncestor(t, u.Old, u.New) {
			forced++
			t.Errorf("main moved from %s to %s without a fast-forward", u.Old, u.New)
		}
	}
	// Every head the server ever had, from its reflog: each update, where
	// an observer reading the branch every few milliseconds (a git process
	// each, thousands in a run) saw a sample of them.
	heads := map[string]bool{}
	for _, u := range reflog {
		heads[u.New] = true
	}
	for h := range heads {
		if !f.Repo.IsAncestor(t, h, final) {
			forced++
			t.Errorf("head %s, seen on the server, is not an ancestor of the final head", h)
		}
	}
	observed := len(heads)
	e2e.Figure(t, "external-pushers", int64(len(reflog)), converge, lost, dup,
		fmt.Sprintf(" external-commits=%d heads-observed=%d forced=%d", landed, observed, forced))
	if landed < nPushers {
		for _, p := range pushers {
			t.Logf("pusher %d landed %d; the server's last refusal: %v", p.id, len(p.landed), p.lastRefused)
		}
		t.Errorf("the pushers landed %d commits while the resources converged: no race took place", landed)
	}
}

// raceFirstPush makes the race by construction. It holds the provider's
// first push at its receive-pack advertisement, that is after the provider
// fetched the branch and built its commit on it, starts the pushers only
// then, and lets the push go once every pusher has landed a commit (or
// ended): the advertisement it then reads names a head the provider did not
// build on, so the provider must fetch and rebase among the pushers' stream,
// and the pushers land at least one commit each. Their own pushes (the git
// CLI's User-Agent) are let through at once. The gate is open when it
// returns: once the push went, or when stop is closed.
func raceFirstPush(gate *testenv.AdvertGate, pushers []*pusher, progress <-chan struct{}, start func(), stop <-chan struct{}) {
	defer gate.Open()
	var provider *testenv.HeldAdvert
	seen := 0
	for {
		held, next := gate.Held()
		for _, h := range held[seen:] {
			switch {
			case strings.HasPrefix(h.UserAgent, "git/"):
				h.Release()
			case provider == nil:
				provider = h
				start()
			}
		}
		seen = len(held)
		if provider != nil && allLandedOrEnded(pushers) {
			provider.Release()
			return
		}
		select {
		case <-next:
		case <-progress:
		case <-stop:
			return
		}
	}
}

func allLandedOrEnded(pushers []*pusher) bool {
	for _, p := range pushers {
		if p.nLanded.Load() == 0 && !p.ended.Load() {
			return false
		}
	}
	return true
}

// TestFaultPushRefusedForOneChange: a pre-receive hook refuses any push
// that touches one path. Twenty Files created at once go out in one batch;
// only the File at that path is Stalled (PushRejected, with the hook's own
// words), and the other nineteen land, each in exactly one commit.
func TestFaultPushRefusedForOneChange(t *testing.T) {
	const (
		n        = 20
		refused  = 7
		hookWord = "protected by policy"
	)
	e2e.StartProvider(t, "")
	f := e2e.NewFixture(t)
	protected := fmt.Sprintf("apps/f-%02d.yaml", refused)
	f.Repo.SetHook(t, "pre-receive", fmt.Sprintf(`#!/bin/sh
while read old new ref; do
  if git diff --name-only "$old" "$new" | grep -qx '%s'; then
    echo "%s is %s" >&2
    exit 1
  fi
done
exit 0
`, protected, protected, hookWord))
	ks := watchKstatus(t, f.Namespace)
	posts0 := e2e.HTTPGit.Counts().ReceivePackPosts
	start := time.Now()
	files := make([]*v1alpha1.File, n)
	for i := range files {
		files[i] = e2e.NewFile(f, fmt.Sprintf("f-%02d", i), fmt.Sprintf("apps/f-%02d.yaml", i), fmt.Sprintf("i: %d\n", i))
		e2e.Create(t, files[i])
	}
	for i, fl := range files {
		if i == refused {
			e2e.WaitFor(t, time.Minute, fl, e2e.StalledWith(t, fl, "PushRejected"))
			continue
		}
		e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	}
	converge := time.Since(start)
	e2e.WritesLanded(t)
	ks.end()
	c := files[refused].GetCondition(xpv2.TypeReady)
	t.Logf("the refused File: %s: %s", c.Reason, c.Message)
	if !strings.Contains(c.Message, hookWord) {
		t.Errorf("the refused File's Ready message does not carry the server's words %q: %q", hookWord, c.Message)
	}
	ks.mu.Lock()
	for name, msg := range ks.failed {
		if name != files[refused].Name {
			t.Errorf("File %s, whose path the hook allows, was Failed: %s", name, msg)
		}
	}
	ks.mu.Unlock()
	counts := f.CommitCounts(t, "main")
	lost, dup := 0, 0
	for i, fl := range files {
		want := 1
		if i == refused {
			want = 0
		}
		got := counts[string(fl.UID)]
		switch {
		case got < want:
			lost++
		case got > want:
			dup++
		}
		if got != want {
			t.Errorf("File %s is carried by %d commits, want %d", fl.Name, got, want)
		}
	}
	if _, ok := f.Files(t, "main")[protected]; ok {
		t.Errorf("%s reached the branch although the hook refuses it", protected)
	}
	e2e.Figure(t, "push-refused-one-path", e2e.HTTPGit.Counts().ReceivePackPosts-posts0, converge, lost, dup, "")
}

func isZero(sha string) bool { return strings.Trim(sha, "0") == "" }
