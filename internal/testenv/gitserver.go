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

package testenv

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gitTimeout bounds every git CLI call a helper makes, so a wedged server
// fails the test instead of hanging it until the package timeout.
const gitTimeout = 2 * time.Minute

// Identity used by helper commits (the "external writer").
const (
	ExternalName  = "External Writer"
	ExternalEmail = "external@example.com"
)

// gitEnv isolates the git CLI from the machine's and user's configuration so
// tests behave the same on a laptop and in CI.
func gitEnv() []string {
	return append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME="+ExternalName,
		"GIT_AUTHOR_EMAIL="+ExternalEmail,
		"GIT_COMMITTER_NAME="+ExternalName,
		"GIT_COMMITTER_EMAIL="+ExternalEmail,
	)
}

// Git runs the git CLI in dir with an isolated configuration and returns its
// standard output. extraEnv is appended to the environment.
func Git(dir string, extraEnv []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

func mustGit(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, err := Git(dir, nil, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// BareRepo is a bare repository on disk that the test servers serve and
// tests inspect with the git CLI (never with the code under test).
type BareRepo struct {
	// Dir is the absolute path of the bare repository (ends in .git).
	Dir string
	// Name is Dir relative to the server root, e.g. "repo.git".
	Name string
}

// CommitSpec describes one commit made by a helper.
type CommitSpec struct {
	Message string
	// Files maps a slash-separated path to its new content.
	Files map[string]string
	// Deletes lists paths to remove.
	Deletes []string
}

// NewBareRepo creates root/name (name should end in .git) as a bare
// repository. Each entry of branches becomes a branch holding the given
// commits in order; the first commit of every branch is a root commit unless
// the branch name is of the form "new=from", which starts the branch at the
// head of branch "from" (created earlier in sorted order). With no branches the
// repository is empty.
func NewBareRepo(tb testing.TB, root, name string, branches map[string][]CommitSpec) *BareRepo {
	tb.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	mustGit(tb, dir, "init", "--bare", "--initial-branch=main", "--quiet")
	// A reflog on the bare repository lets tests prove that no update was a
	// force push.
	mustGit(tb, dir, "config", "core.logAllRefUpdates", "always")
	r := &BareRepo{Dir: dir, Name: name}

	names := make([]string, 0, len(branches))
	for b := range branches {
		names = append(names, b)
	}
	sort.Strings(names)
	for _, n := range names {
		branch, from, _ := strings.Cut(n, "=")
		if from != "" {
			r.CreateBranch(tb, branch, from)
		}
		for _, c := range branches[n] {
			if _, err := r.Commit(branch, c); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return r
}

// CreateBranch points a new branch at the head of ref without a commit.
func (r *BareRepo) CreateBranch(tb testing.TB, branch, ref string) {
	tb.Helper()
	mustGit(tb, r.Dir, "update-ref", "refs/heads/"+branch, r.Head(tb, ref), "")
}

// SetHook installs an executable hook (e.g. "pre-receive") with the given
// shell script body, to simulate server-side rejections.
func (r *BareRepo) SetHook(tb testing.TB, hook, script string) {
	tb.Helper()
	p := filepath.Join(r.Dir, "hooks", hook)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil { //nolint:gosec // hooks must be executable
		tb.Fatal(err)
	}
}

// Commit makes one commit on branch (creating it as a root commit when it
// does not exist) straight into the bare repository, as a writer that is not
// the code under test would. It uses a throw-away work tree and returns the
// new head. It returns an error (rather than failing the test) so it can be
// called from goroutines; a push rejected by a race is such an error.
func (r *BareRepo) Commit(branch string, c CommitSpec) (string, error) {
	w, err := r.NewWriter()
	if err != nil {
		return "", err
	}
	defer w.Close()
	return w.Commit(branch, c)
}

// Writer is an external writer with its own clone of a bare repository. It
// pushes over the file system, so it is not counted by the HTTP server.
type Writer struct {
	repo *BareRepo
	dir  string
}

// NewWriter clones the repository into a temporary work tree.
func (r *BareRepo) NewWriter() (*Writer, error) {
	dir, err := os.MkdirTemp("", "gitwriter-")
	if err != nil {
		return nil, err
	}
	if _, err := Git(dir, nil, "init", "--quiet", "--initial-branch=main"); err != nil {
		return nil, err
	}
	if _, err := Git(dir, nil, "remote", "add", "origin", r.Dir); err != nil {
		return nil, err
	}
	return &Writer{repo: r, dir: dir}, nil
}

// Close removes the writer's work tree.
func (w *Writer) Close() { _ = os.RemoveAll(w.dir) }

// Commit fetches branch, applies c on top of its head (or as a root commit
// when the branch does not exist), commits and pushes without force. It
// returns the pushed head, or an error when the push was rejected.
func (w *Writer) Commit(branch string, c CommitSpec) (string, error) {
	exists := true
	if _, err := Git(w.dir, nil, "fetch", "--quiet", "origin", "+refs/heads/"+branch+":refs/remotes/origin/"+branch); err != nil {
		if !strings.Contains(err.Error(), "couldn't find remote ref") {
			return "", err
		}
		exists = false
	}
	if exists {
		if _, err := Git(w.dir, nil, "checkout", "--quiet", "-B", branch, "refs/remotes/origin/"+branch); err != nil {
			return "", err
		}
	} else {
		if _, err := Git(w.dir, nil, "checkout", "--quiet", "--orphan", branch); err != nil {
			return "", err
		}
		_, _ = Git(w.dir, nil, "rm", "-rfq", "--ignore-unmatch", ".")
	}
	for p, content := range c.Files {
		full := filepath.Join(w.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil { //nolint:gosec // test fixture
			return "", err
		}
	}
	for _, p := range c.Deletes {
		if _, err := Git(w.dir, nil, "rm", "-q", "--ignore-unmatch", p); err != nil {
			return "", err
		}
	}
	if _, err := Git(w.dir, nil, "add", "-A"); err != nil {
		return "", err
	}
	msg := c.Message
	if msg == "" {
		msg = "external commit"
	}
	if _, err := Git(w.dir, nil, "commit", "--quiet", "--allow-empty", "-m", msg); err != nil {
		return "", err
	}
	if _, err := Git(w.dir, nil, "push", "--quiet", "origin", "HEAD:refs/heads/"+branch); err != nil {
		return "", err
	}
	out, err := Git(w.dir, nil, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

// Head returns the commit SHA ref (a branch name or any revision) resolves to
// in the bare repository, or "" when it does not exist.
func (r *BareRepo) Head(tb testing.TB, ref string) string {
	tb.Helper()
	out, err := Git(r.Dir, nil, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Files returns every file ref holds, path to content.
func (r *BareRepo) Files(tb testing.TB, ref string) map[string]string {
	tb.Helper()
	ls := mustGit(tb, r.Dir, "ls-tree", "-r", "-z", ref)
	files := map[string]string{}
	var paths, blobs []string
	for _, rec := range strings.Split(ls, "\x00") {
		if rec == "" {
			continue
		}
		meta, path, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta) // mode type sha
		if len(f) != 3 || f[1] != "blob" {
			continue
		}
		paths = append(paths, path)
		blobs = append(blobs, f[2])
	}
	if len(blobs) == 0 {
		return files
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = r.Dir
	cmd.Env = gitEnv()
	cmd.Stdin = strings.NewReader(strings.Join(blobs, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git cat-file --batch: %v", err)
	}
	br := bufio.NewReader(bytes.NewReader(out))
	for _, p := range paths {
		var sha, typ string
		var size int
		if _, err := fmt.Fscanf(br, "%s %s %d\n", &sha, &typ, &size); err != nil {
			tb.Fatalf("cannot parse cat-file output: %v", err)
		}
		buf := make([]byte, size+1) // content plus trailing newline
		if _, err := io.ReadFull(br, buf); err != nil {
			tb.Fatalf("cannot read cat-file output: %v", err)
		}
		files[p] = string(buf[:size])
	}
	return files
}

// LogEntry is one commit as git log shows it.
type LogEntry struct {
	SHA     string
	Parents []string
	Message string
	// Trailers maps a trailer key to its values in order.
	Trailers map[string][]string
}

// Log returns the history of ref, newest first.
func (r *BareRepo) Log(tb testing.TB, ref string) []LogEntry {
	tb.Helper()
	out := mustGit(tb, r.Dir, "log", "--format=%H%x00%P%x00%B%x00%(trailers:only,unfold)%x1e", ref)
	var log []LogEntry
	for _, rec := range strings.Split(out, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x00", 4)
		if len(f) != 4 {
			tb.Fatalf("cannot parse git log record %q", rec)
		}
		e := LogEntry{SHA: f[0], Parents: strings.Fields(f[1]), Message: strings.TrimRight(f[2], "\n"), Trailers: map[string][]string{}}
		for _, l := range strings.Split(f[3], "\n") {
			if k, v, ok := strings.Cut(l, ": "); ok {
				e.Trailers[k] = append(e.Trailers[k], v)
			}
		}
		log = append(log, e)
	}
	return log
}

// IsAncestor reports whether commit a is an ancestor of (or equal to) b.
func (r *BareRepo) IsAncestor(tb testing.TB, a, b string) bool {
	tb.Helper()
	_, err := Git(r.Dir, nil, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// RefUpdate is one entry of a branch's reflog in the bare repository.
type RefUpdate struct{ Old, New string }

// Reflog returns every update of branch in the order they happened, so a test
// can prove each one was a fast-forward.
func (r *BareRepo) Reflog(tb testing.TB, branch string) []RefUpdate {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, "logs", "refs", "heads", filepath.FromSlash(branch)))
	if err != nil {
		tb.Fatalf("cannot read reflog of %s: %v", branch, err)
	}
	var ups []RefUpdate
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			ups = append(ups, RefUpdate{Old: f[0], New: f[1]})
		}
	}
	return ups
}

// GitCounts counts the requests a Git HTTP server answered, per service.
// A fetch or clone (and the first half of a push) starts with one
// advertisement GET; a fetch with something to download adds an upload-pack
// POST, a push one receive-pack POST.
type GitCounts struct {
	UploadPackAdverts  int64
	UploadPackPosts    int64
	ReceivePackAdverts int64
	ReceivePackPosts   int64
	Unauthorized       int64
}

// HTTPServer is a smart-HTTP Git server (git http-backend behind net/http/cgi)
// on 127.0.0.1 serving every repository under Root, with basic auth.
type HTTPServer struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:34567.
	URL string
	// Root is the directory whose bare repositories are served.
	Root string

	srv     *httptest.Server
	backend string

	mu       sync.Mutex
	user     string
	password string
	refuse   bool
	failWith int

	uploadAdverts, uploadPosts, receiveAdverts, receivePosts, unauthorized atomic.Int64
}

// NewHTTPServer serves root on a free loopback port. Requests must carry
// basic auth with username and password (a token works the same way).
func NewHTTPServer(tb testing.TB, root, username, password string) *HTTPServer {
	tb.Helper()
	s, err := StartHTTPServer(root, username, password)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// StartHTTPServer is NewHTTPServer for callers outside a test (the local
// default, cmd/local); the caller must Close it.
func StartHTTPServer(root, username, password string) (*HTTPServer, error) {
	execPath, err := Git("", nil, "--exec-path")
	if err != nil {
		return nil, fmt.Errorf("git is required for the Git server: %w", err)
	}
	s := &HTTPServer{
		Root:     root,
		backend:  filepath.Join(strings.TrimSpace(execPath), "git-http-backend"),
		user:     username,
		password: password,
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s, nil
}

// RepoURL returns the clone URL of the repository at name below Root.
func (s *HTTPServer) RepoURL(name string) string { return s.URL + "/" + name }

// SetCredentials changes the credentials the server accepts from now on.
func (s *HTTPServer) SetCredentials(username, password string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user, s.password = username, password
}

// RefuseAll makes the server answer every request with 401 while refuse is
// true, as a forge does after a token was revoked.
func (s *HTTPServer) RefuseAll(refuse bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = refuse
}

// FailWith makes the server answer every authorised request with the given
// HTTP status (e.g. 503) until called with 0, to simulate an outage.
func (s *HTTPServer) FailWith(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failWith = status
}

// Counts returns the requests answered so far.
func (s *HTTPServer) Counts() GitCounts {
	return GitCounts{
		UploadPackAdverts:  s.uploadAdverts.Load(),
		UploadPackPosts:    s.uploadPosts.Load(),
		ReceivePackAdverts: s.receiveAdverts.Load(),
		ReceivePackPosts:   s.receivePosts.Load(),
		Unauthorized:       s.unauthorized.Load(),
	}
}

// ResetCounts sets every counter back to zero.
func (s *HTTPServer) ResetCounts() {
	for _, c := range []*atomic.Int64{&s.uploadAdverts, &s.uploadPosts, &s.receiveAdverts, &s.receivePosts, &s.unauthorized} {
		c.Store(0)
	}
}

// Close stops the server. It is safe to call more than once.
func (s *HTTPServer) Close() { s.srv.Close() }

func (s *HTTPServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	user, password, refuse, failWith := s.user, s.password, s.refuse, s.failWith
	s.mu.Unlock()

	u, p, ok := r.BasicAuth()
	if refuse || !ok || u != user || p != password {
		s.unauthorized.Add(1)
		w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if failWith != 0 {
		http.Error(w, http.StatusText(failWith), failWith)
		return
	}
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/info/refs"):
		switch r.URL.Query().Get("service") {
		case "git-upload-pack":
			s.uploadAdverts.Add(1)
		case "git-receive-pack":
			s.receiveAdverts.Add(1)
		}
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
		s.uploadPosts.Add(1)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack"):
		s.receivePosts.Add(1)
	}
	// net/http/cgi answers chunked request bodies with 400, and the git CLI
	// sends pushes above http.postBuffer (1 MiB) chunked: buffer them.
	if len(r.TransferEncoding) > 0 {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		r.TransferEncoding = nil
	}
	h := &cgi.Handler{
		Path: s.backend,
		// http-backend's complaints ("Not a git repository") are what tests
		// provoke on purpose; the HTTP status carries them.
		Stderr: io.Discard,
		Env: []string{
			"GIT_PROJECT_ROOT=" + s.Root,
			"GIT_HTTP_EXPORT_ALL=1",
			// REMOTE_USER enables receive-pack in http-backend.
			"REMOTE_USER=" + u,
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=/dev/null",
		},
	}
	h.ServeHTTP(w, r)
}

// AuthURL returns url with username and password embedded, for the git CLI.
func AuthURL(url, username, password string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return url
	}
	return scheme + "://" + username + ":" + password + "@" + rest
}
