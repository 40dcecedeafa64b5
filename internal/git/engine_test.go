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
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

const (
	testUser  = "bot"
	testToken = "t0ken"
	// window is short so tests are quick but still batch goroutines that
	// submit together.
	testWindow = 200 * time.Millisecond
)

// server is one Git server the engine tests run against.
type server struct {
	name   string
	root   string
	repo   *testenv.BareRepo
	remote Remote
	http   *testenv.HTTPServer // nil for SSH
	ssh    *testenv.SSHServer  // nil for HTTP
}

func seed() map[string][]testenv.CommitSpec {
	return map[string][]testenv.CommitSpec{
		"main": {
			{Message: "seed", Files: map[string]string{"README.md": "hello\n", "apps/a.yaml": "a: 1\n", "apps/b.yaml": "b: 1\n"}},
			{Message: "second", Files: map[string]string{"apps/c.yaml": "c: 1\n"}},
		},
	}
}

func httpServer(t testing.TB) *server {
	t.Helper()
	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "repo.git", seed())
	s := testenv.NewHTTPServer(t, root, testUser, testToken)
	return &server{name: "HTTP", root: root, repo: repo, http: s,
		remote: Remote{URL: s.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}}}
}

func sshServer(t testing.TB) *server {
	t.Helper()
	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "repo.git", seed())
	s := testenv.StartSSHServer(t, root)
	return &server{name: "SSH", root: root, repo: repo, ssh: s,
		remote: Remote{URL: s.RepoURL(repo.Name), Auth: &SSHAuth{PrivateKey: s.ClientKeyPEM, KnownHosts: s.KnownHosts}}}
}

func servers(t *testing.T) []*server { return []*server{httpServer(t), sshServer(t)} }

func newRepo(t testing.TB, remote Remote, opts ...Option) (*Repository, *Cache) {
	t.Helper()
	return newRepoIn(t, t.TempDir(), remote, opts...)
}

// newRepoIn is newRepo with its cache in dir: a second cache in the same
// dir opens the same clone, as a restarted provider does.
func newRepoIn(t testing.TB, dir string, remote Remote, opts ...Option) (*Repository, *Cache) {
	t.Helper()
	c, err := NewCache(dir, append([]Option{WithCommitWindow(testWindow)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	r, err := c.Repository(remote)
	if err != nil {
		t.Fatal(err)
	}
	return r, c
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

func hashObject(t testing.TB, content string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx(t), "git", "hash-object", "--stdin")
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// submitInOrder submits changes to branch, each from its own goroutine as
// resources do, but waits until each is queued before submitting the next,
// so the writer's queue (and so the batch) order is the slice order. It
// returns their results once all are done.
//
// On a cache whose clock is fake (newWindowRepo), the commit window closes
// only when submitInOrder steps the clock past it, once every change is
// queued (and again whenever the writer waits on it once more): the batch is
// exactly the slice, however loaded the machine, and a window of seconds
// costs none.
func submitInOrder(t *testing.T, r *Repository, branch string, changes []Change) []Result {
	t.Helper()
	results := make([]Result, len(changes))
	var wg sync.WaitGroup
	w := r.writerFor(branch)
	for i, c := range changes {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = r.Submit(ctx(t), branch, c) }()
		waitQueued(t, w, i+1)
	}
	if clk, ok := r.cache.opts.Clock.(*testingclock.FakeClock); ok {
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		for {
			select {
			case <-done:
				return results
			default:
			}
			// Only a writer's window waits on the cache's clock.
			if clk.HasWaiters() {
				w.mu.Lock()
				d := w.windowLocked()
				w.mu.Unlock()
				clk.Step(d)
			}
			time.Sleep(time.Millisecond) // polling interval of a wait on a condition
		}
	}
	wg.Wait()
	return results
}

// newWindowRepo is newRepo with a commit window of d on a fake clock, for
// submitInOrder to close: what one batch collects is then decided by the
// test, not by how fast the machine queues the changes.
func newWindowRepo(t *testing.T, remote Remote, d time.Duration, opts ...Option) *Repository {
	t.Helper()
	r, _ := newRepo(t, remote, append([]Option{WithCommitWindow(d), WithClock(newFakeClock())}, opts...)...)
	return r
}

// waitQueued waits until exactly n operations wait in w's queue. It fails
// the test when that does not happen within seconds, typically because the
// commit window closed and the writer took the queue first.
func waitQueued(t *testing.T, w *writer, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		w.mu.Lock()
		queued := len(w.pending)
		w.mu.Unlock()
		if queued == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d operations queued, want %d: did the commit window close first?", queued, n)
		}
		time.Sleep(time.Millisecond) // polling interval
	}
}

func TestReadsAfterRefresh(t *testing.T) {
	t.Parallel()
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			r, _ := newRepo(t, s.remote)
			if _, err := r.Head("main"); KindOf(err) != KindBranchNotFound {
				t.Errorf("Head before any Refresh: error kind %v, want BranchNotFound", KindOf(err))
			}
			if err := r.Refresh(ctx(t), time.Minute, "main"); err != nil {
				t.Fatalf("Refresh: %v", err)
			}
			head, err := r.Head("main")
			if err != nil {
				t.Fatal(err)
			}
			if want := s.repo.Head(t, "main"); head != want {
				t.Errorf("Head(main) = %s, server holds %s", head, want)
			}
			for p, content := range s.repo.Files(t, "main") {
				got, err := r.ReadFile(ctx(t), head, p)
				if err != nil {
					t.Fatalf("ReadFile(%s): %v", p, err)
				}
				want := Blob{Content: []byte(content), SHA: hashObject(t, content)}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("ReadFile(%s): -want, +got:\n%s", p, diff)
				}
			}
			if _, err := r.ReadFile(ctx(t), head, "apps/missing.yaml"); !errors.Is(err, ErrNotExist) {
				t.Errorf("ReadFile(missing) error = %v, want ErrNotExist", err)
			}
			if _, err := r.ReadFile(ctx(t), head, "apps"); !errors.Is(err, ErrNotExist) {
				t.Errorf("ReadFile(directory) error = %v, want ErrNotExist", err)
			}
			// A path through a file does not exist either; it must not read as
			// a failed (transient) object lookup, retried forever.
			if _, err := r.ReadFile(ctx(t), head, "README.md/x"); !errors.Is(err, ErrNotExist) {
				t.Errorf("ReadFile(path through a file) error = %v, want ErrNotExist", err)
			}
		})
	}
}

func TestRefreshCoalesces(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	s.http.ResetCounts()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- r.Refresh(ctx(t), time.Minute, "main")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := s.http.Counts().UploadPackAdverts; got != 1 {
		t.Errorf("100 concurrent Refresh calls issued %d fetches, want 1", got)
	}
	// A fetch younger than maxAge is reused …
	if err := r.Refresh(ctx(t), time.Minute, "main"); err != nil {
		t.Fatal(err)
	}
	if got := s.http.Counts().UploadPackAdverts; got != 1 {
		t.Errorf("Refresh within maxAge issued a fetch: %d fetches, want 1", got)
	}
	// … an older one is not, and the new fetch sees a new commit.
	want, err := s.repo.Commit("main", testenv.CommitSpec{Files: map[string]string{"x": "y"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	if got := s.http.Counts().UploadPackAdverts; got != 2 {
		t.Errorf("Refresh with maxAge 0: %d fetches, want 2", got)
	}
	if got, _ := r.Head("main"); got != want {
		t.Errorf("Head after Refresh = %s, want %s", got, want)
	}
}

func TestCrashIdempotence(t *testing.T) {
	t.Parallel()
	s := sshServer(t)
	dir := t.TempDir()
	c1, err := NewCache(dir, WithCommitWindow(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	r1, err := c1.Repository(s.remote)
	if err != nil {
		t.Fatal(err)
	}
	res := r1.Submit(ctx(t), "main", Change{Puts: map[string]File{"crash": {Content: []byte("1")}}, Message: "before crash",
		Resource: Resource{Kind: "File", Namespace: "ns", Name: "crash", UID: "uid-crash"}})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	// Someone else commits on top, so the change is not at the head.
	if _, err := s.repo.Commit("main", testenv.CommitSpec{Files: map[string]string{"later": "x"}}); err != nil {
		t.Fatal(err)
	}
	c1.Close() // the provider "crashes" without recording res.Commit

	for name, d := range map[string]string{"SameCacheDir": dir, "EmptyCacheDir": t.TempDir()} {
		t.Run(name, func(t *testing.T) {
			c2, err := NewCache(d)
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			r2, err := c2.Repository(s.remote)
			if err != nil {
				t.Fatal(err)
			}
			if err := r2.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			got, found, err := r2.FindCommitByUID(ctx(t), "main", "uid-crash", 10)
			if err != nil || !found || got.SHA != res.Commit {
				t.Errorf("FindCommitByUID = %+v, %v, %v; want %s", got, found, err, res.Commit)
			}
			if _, found, _ := r2.FindCommitByUID(ctx(t), "main", "uid-crash", 1); found {
				t.Error("FindCommitByUID walked past maxWalk")
			}
			if _, found, _ := r2.FindCommitByUID(ctx(t), "main", "uid-other", 100); found {
				t.Error("FindCommitByUID found a UID that was never pushed")
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	m := NewMetrics()
	reg := prometheus.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	r, _ := newRepo(t, s.remote, WithMetrics(m))
	if res := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"m": {Content: []byte("m")}}}); res.Err != nil {
		t.Fatal(res.Err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, mt := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range mt.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if !processMetrics[mf.GetName()] && (labels["host"] != "127.0.0.1" || len(labels) > 2) {
				t.Errorf("%s has labels %v, want host (and result) only", mf.GetName(), labels)
			}
			switch {
			case mt.GetCounter() != nil:
				got[mf.GetName()+"/"+labels["result"]] += mt.GetCounter().GetValue()
			case mt.GetHistogram() != nil:
				got[mf.GetName()] += float64(mt.GetHistogram().GetSampleCount())
			}
		}
	}
	want := map[string]float64{
		"provider_git_fetches_total/success":  1,
		"provider_git_pushes_total/success":   1,
		"provider_git_commit_batch_size":      1,
		"provider_git_fetch_duration_seconds": 1,
		"provider_git_push_duration_seconds":  1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics: -want, +got:\n%s", diff)
	}
}
