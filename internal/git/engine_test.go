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
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crossplane-contrib/provider-git/internal/testenv"
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
	c, err := NewCache(t.TempDir(), append([]Option{WithCommitWindow(testWindow)}, opts...)...)
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
	wg.Wait()
	return results
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
				got, err := r.ReadFile(head, p)
				if err != nil {
					t.Fatalf("ReadFile(%s): %v", p, err)
				}
				want := Blob{Content: []byte(content), SHA: hashObject(t, content)}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("ReadFile(%s): -want, +got:\n%s", p, diff)
				}
			}
			if _, err := r.ReadFile(head, "apps/missing.yaml"); !errors.Is(err, ErrNotExist) {
				t.Errorf("ReadFile(missing) error = %v, want ErrNotExist", err)
			}
			if _, err := r.ReadFile(head, "apps"); !errors.Is(err, ErrNotExist) {
				t.Errorf("ReadFile(directory) error = %v, want ErrNotExist", err)
			}
			// A path through a file does not exist either; it must not read as
			// a failed (transient) object lookup, retried forever.
			if _, err := r.ReadFile(head, "README.md/x"); !errors.Is(err, ErrNotExist) {
				t.Errorf("ReadFile(path through a file) error = %v, want ErrNotExist", err)
			}
		})
	}
}

func TestRefreshCoalesces(t *testing.T) {
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

func TestConcurrentChangesLandInFewCommits(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			r, _ := newRepo(t, s.remote)
			before := s.repo.Head(t, "main")
			const n = 200
			results := make([]Result, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] = r.Submit(ctx(t), "main", Change{
						Puts:     map[string]File{fmt.Sprintf("gen/f%03d.yaml", i): {Content: []byte(fmt.Sprintf("i: %d\n", i))}},
						Message:  fmt.Sprintf("set f%03d", i),
						Resource: Resource{Kind: "File", Namespace: "ns", Name: fmt.Sprintf("f%03d", i), UID: fmt.Sprintf("uid-%03d", i)},
					})
				}()
			}
			wg.Wait()
			filesAt := map[string]map[string]string{}
			for i, res := range results {
				if res.Err != nil || res.UpToDate || res.Commit == "" {
					t.Fatalf("change %d: %+v", i, res)
				}
				if filesAt[res.Commit] == nil {
					filesAt[res.Commit] = s.repo.Files(t, res.Commit)
				}
				p := fmt.Sprintf("gen/f%03d.yaml", i)
				if got := filesAt[res.Commit][p]; got != fmt.Sprintf("i: %d\n", i) {
					t.Errorf("commit %s reported for change %d holds %q at %s", res.Commit[:7], i, got, p)
				}
			}
			log := s.repo.Log(t, "main")
			var commits int
			for _, e := range log {
				if e.SHA == before {
					break
				}
				commits++
			}
			if commits < 1 || commits > 3 {
				t.Errorf("200 concurrent changes made %d commits, want 1..3", commits)
			}
			if got := len(log[0].Trailers[TrailerUID]); commits == 1 && got != n {
				t.Errorf("merged commit carries %d UID trailers, want %d", got, n)
			}
			if got := len(s.repo.Files(t, "main")); got != 4+n {
				t.Errorf("server holds %d files, want %d", got, 4+n)
			}
		})
	}
}

func TestExternalWriterRace(t *testing.T) {
	s := httpServer(t)
	m := NewMetrics()
	reg := prometheus.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	r, _ := newRepo(t, s.remote, WithCommitWindow(20*time.Millisecond), WithMetrics(m), func(o *Options) {
		o.MaxPushAttempts, o.RetryBackoff = 30, 20*time.Millisecond
	})
	start := s.repo.Head(t, "main")

	// Both sides write until the external writer has landed enough commits
	// to have raced the engine (or a deadline passes, which fails below).
	const wantExternal = 8
	stop := make(chan struct{})
	var external []string // files the external writer landed
	var landed atomic.Int32
	var extDone sync.WaitGroup
	extDone.Add(1)
	go func() {
		defer extDone.Done()
		w, err := s.repo.NewWriter()
		if err != nil {
			t.Error(err)
			return
		}
		defer w.Close()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			p := fmt.Sprintf("ext/e%03d", i)
			_, err := w.Commit("main", testenv.CommitSpec{Message: "external " + p, Files: map[string]string{p: p}})
			if err == nil {
				external = append(external, p)
				landed.Add(1)
			} else if !strings.Contains(err.Error(), "rejected") {
				t.Errorf("external writer: %v", err)
				return
			}
			// A busy bot's pace, not a tight loop: pushing over the file
			// system with no pause, it won every race on a loaded machine
			// (-race, parallel packages) and starved the engine's bounded
			// retries, which proves nothing about losing changes.
			time.Sleep(time.Duration(20+rand.IntN(40)) * time.Millisecond)
		}
	}()

	const writers, minEach = 8, 6
	deadline := time.Now().Add(30 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var heads, engine []string
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < minEach || (landed.Load() < wantExternal && time.Now().Before(deadline)); i++ {
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
				// A resource-like pace, so the slower external writer gets
				// its turns too instead of losing every race.
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	close(stop)
	extDone.Wait()

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
	if len(external) < wantExternal {
		t.Errorf("the external writer landed %d commits, want >= %d: the race was not exercised", len(external), wantExternal)
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
	t.Logf("engine changes: %d; external commits: %d; engine push retries: %v", len(engine), len(external), retries)
}

func TestSatisfiedChangeIsUpToDate(t *testing.T) {
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	head := s.repo.Head(t, "main")
	s.http.ResetCounts()
	got := r.Submit(ctx(t), "main", Change{
		Puts:    map[string]File{"apps/a.yaml": {Content: []byte("a: 1\n")}},
		Deletes: []string{"apps/never-existed.yaml"},
	})
	if diff := cmp.Diff(Result{Commit: head, UpToDate: true}, got); diff != "" {
		t.Errorf("Submit(satisfied): -want, +got:\n%s", diff)
	}
	if c := s.http.Counts(); c.ReceivePackPosts != 0 || s.repo.Head(t, "main") != head {
		t.Errorf("a satisfied change pushed: %+v", c)
	}
	// Changing only the executable bit is a change.
	got = r.Submit(ctx(t), "main", Change{Puts: map[string]File{"apps/a.yaml": {Content: []byte("a: 1\n"), Executable: true}}})
	if got.Err != nil || got.UpToDate {
		t.Fatalf("Submit(mode change) = %+v", got)
	}
	if b, err := r.ReadFile(got.Commit, "apps/a.yaml"); err != nil || !b.Executable {
		t.Errorf("ReadFile after mode change = %+v, %v; want executable", b, err)
	}
}

func TestBatchShapes(t *testing.T) {
	s := httpServer(t)
	r, _ := newRepo(t, s.remote, WithCommitWindow(2*time.Second))
	before := s.repo.Head(t, "main")
	changes := []Change{
		{Puts: map[string]File{"a": {Content: []byte("1")}}, Message: "put a", Resource: Resource{Kind: "File", Namespace: "ns", Name: "a", UID: "ua"}},
		{Deletes: []string{"README.md"}, Message: "drop readme", Resource: Resource{Kind: "File", Namespace: "ns", Name: "readme", UID: "ur"}},
		{Puts: map[string]File{"release/v1": {Content: []byte("v1")}}, Message: "Release v1\n\nBody.", OwnCommit: true,
			Author: Signature{Name: "Alice", Email: "alice@example.com"}, Resource: Resource{Kind: "CommitRequest", Namespace: "ns", Name: "rel", UID: "uc"}},
		{Puts: map[string]File{"../escape": {Content: []byte("x")}}, Resource: Resource{Kind: "File", Namespace: "ns", Name: "bad", UID: "ub"}},
	}
	results := submitInOrder(t, r, "main", changes)
	if KindOf(results[3].Err) != KindInvalidChange {
		t.Errorf("path escaping the repository: error %v, want KindInvalidChange", results[3].Err)
	}
	log := s.repo.Log(t, "main")
	want := []testenv.LogEntry{
		{SHA: results[2].Commit, Message: "Release v1\n\nBody.\n\nProvider-Git-Resource: CommitRequest/ns/rel\nProvider-Git-UID: uc",
			Trailers: map[string][]string{TrailerResource: {"CommitRequest/ns/rel"}, TrailerUID: {"uc"}}},
		{SHA: results[0].Commit, Message: "Apply 2 changes\n\n- File/ns/a: put a\n- File/ns/readme: drop readme\n\nProvider-Git-Resource: File/ns/a\nProvider-Git-UID: ua\nProvider-Git-Resource: File/ns/readme\nProvider-Git-UID: ur",
			Trailers: map[string][]string{TrailerResource: {"File/ns/a", "File/ns/readme"}, TrailerUID: {"ua", "ur"}}},
	}
	if len(log) < 3 || log[2].SHA != before {
		t.Fatalf("want exactly 2 new commits on %s, log: %+v", before[:7], log)
	}
	if diff := cmp.Diff(want, log[:2], cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Parents" }, cmp.Ignore())); diff != "" {
		t.Errorf("commits: -want, +got:\n%s", diff)
	}
	if results[1].Commit != results[0].Commit {
		t.Errorf("plain changes landed in different commits: %s, %s", results[0].Commit, results[1].Commit)
	}
	out, err := testenv.Git(s.repo.Dir, nil, "log", "-1", "--format=%an <%ae>|%cn", results[2].Commit)
	if err != nil || strings.TrimSpace(out) != "Alice <alice@example.com>|provider-git" {
		t.Errorf("own commit author|committer = %q, %v", out, err)
	}
	if s.http.Counts().ReceivePackPosts != 1 {
		t.Errorf("batch used %d pushes, want 1", s.http.Counts().ReceivePackPosts)
	}
}

func TestTypedErrors(t *testing.T) {
	hs := httpServer(t)
	ss := sshServer(t)
	otherHost := []byte("[127.0.0.1]:1 " + strings.SplitN(string(ss.ssh.KnownHosts), " ", 2)[1])
	sshRemote := func(key, known []byte) Remote {
		return Remote{URL: ss.remote.URL, Auth: &SSHAuth{PrivateKey: key, KnownHosts: known}}
	}
	cases := map[string]struct {
		reason string
		remote Remote
		setup  func(t *testing.T)
		branch string
		want   Kind
	}{
		"WrongPassword": {reason: "HTTP basic auth refused.", want: KindAuth,
			remote: Remote{URL: hs.remote.URL, Auth: &BasicAuth{Username: testUser, Password: "wrong"}}},
		"NoCredentials": {reason: "Anonymous access to a private repository.", want: KindAuth,
			remote: Remote{URL: hs.remote.URL}},
		"WrongKey": {reason: "SSH key the server does not know.", want: KindAuth,
			remote: sshRemote(ss.ssh.OtherKeyPEM, ss.ssh.KnownHosts)},
		"UnknownHostKey": {reason: "known_hosts does not list the server.", want: KindHostKey,
			remote: sshRemote(ss.ssh.ClientKeyPEM, otherHost)},
		"MismatchedHostKey": {reason: "known_hosts lists the server with another key.", want: KindHostKey,
			remote: sshRemote(ss.ssh.ClientKeyPEM, ss.ssh.WrongKnownHosts)},
		"NoKnownHosts": {reason: "Without known_hosts we fail closed.", want: KindHostKey,
			remote: sshRemote(ss.ssh.ClientKeyPEM, nil)},
		"MissingRepositoryHTTP": {reason: "No such repository over HTTP.", want: KindRepositoryNotFound,
			remote: Remote{URL: hs.http.RepoURL("missing.git"), Auth: hs.remote.Auth}},
		"MissingRepositorySSH": {reason: "No such repository over SSH.", want: KindRepositoryNotFound,
			remote: Remote{URL: ss.ssh.RepoURL("missing.git"), Auth: ss.remote.Auth}},
		"PasswordInURL": {reason: "A secret in the URL would leak into messages.", want: KindInvalid,
			remote: Remote{URL: testenv.AuthURL(hs.remote.URL, testUser, testToken)}},
		"MissingBranch": {reason: "Writing to a branch that does not exist.", want: KindBranchNotFound,
			remote: hs.remote, branch: "nope"},
		"PushRefused": {reason: "A server hook refuses the push (like a protected branch).", want: KindRejected,
			remote: ss.remote, setup: func(t *testing.T) {
				ss.repo.SetHook(t, "pre-receive", "echo 'protected branch' >&2; exit 1")
				t.Cleanup(func() { ss.repo.SetHook(t, "pre-receive", "exit 0") })
			}},
		"ServerDown": {reason: "A 503 is transient.", want: KindTransient,
			remote: hs.remote, setup: func(t *testing.T) {
				hs.http.FailWith(http.StatusServiceUnavailable)
				t.Cleanup(func() { hs.http.FailWith(0) })
			}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup(t)
			}
			branch := tc.branch
			if branch == "" {
				branch = "main"
			}
			c, err := NewCache(t.TempDir(), WithCommitWindow(time.Millisecond), func(o *Options) {
				o.FetchTimeout, o.PushTimeout = 20*time.Second, 20*time.Second
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r, err := c.Repository(tc.remote)
			if err == nil {
				res := r.Submit(ctx(t), branch, Change{Puts: map[string]File{"typed": {Content: []byte(name)}}})
				err = res.Err
			}
			if got := KindOf(err); got != tc.want {
				t.Errorf("%s\nKindOf(%v) = %v, want %v", tc.reason, err, got, tc.want)
			}
			if IsTerminal(err) != (tc.want != KindTransient) {
				t.Errorf("%s\nIsTerminal(%v) = %v", tc.reason, err, IsTerminal(err))
			}
			for _, secret := range []string{testToken, string(ss.ssh.ClientKeyPEM)} {
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("error message leaks a secret: %v", err)
				}
			}
		})
	}
}

func TestCrashIdempotence(t *testing.T) {
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
			got, found, err := r2.FindCommitByUID("main", "uid-crash", 10)
			if err != nil || !found || got.SHA != res.Commit {
				t.Errorf("FindCommitByUID = %+v, %v, %v; want %s", got, found, err, res.Commit)
			}
			if _, found, _ := r2.FindCommitByUID("main", "uid-crash", 1); found {
				t.Error("FindCommitByUID walked past maxWalk")
			}
			if _, found, _ := r2.FindCommitByUID("main", "uid-other", 100); found {
				t.Error("FindCommitByUID found a UID that was never pushed")
			}
		})
	}
}

func TestBranchCreateDelete(t *testing.T) {
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	main := s.repo.Head(t, "main")
	cases := []struct {
		name string
		do   func() Result
		want Result
		head string
	}{
		{"CreateFromBranch", func() Result { return r.CreateBranch(ctx(t), "feature", "main") }, Result{Commit: main}, main},
		{"CreateExisting", func() Result { return r.CreateBranch(ctx(t), "feature", "main") }, Result{Commit: main, UpToDate: true}, main},
		{"Delete", func() Result { return r.DeleteBranch(ctx(t), "feature") }, Result{}, ""},
		{"DeleteMissing", func() Result { return r.DeleteBranch(ctx(t), "feature") }, Result{UpToDate: true}, ""},
		{"CreateFromSHA", func() Result { return r.CreateBranch(ctx(t), "feature", main) }, Result{Commit: main}, main},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, tc.do()); diff != "" {
			t.Errorf("%s: -want, +got:\n%s", tc.name, diff)
		}
		if got := s.repo.Head(t, "feature"); got != tc.head {
			t.Errorf("%s: server head of feature = %q, want %q", tc.name, got, tc.head)
		}
	}
	// Changes go to the new branch through the same writer.
	res := r.Submit(ctx(t), "feature", Change{Puts: map[string]File{"f": {Content: []byte("f")}}})
	if res.Err != nil || s.repo.Files(t, "feature")["f"] != "f" || s.repo.Head(t, "main") != main {
		t.Errorf("Submit to feature = %+v", res)
	}
}

func TestMetrics(t *testing.T) {
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
			if labels["host"] != "127.0.0.1" || len(labels) > 2 {
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
