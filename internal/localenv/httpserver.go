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

package localenv

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/cgi"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errNoGit  = "git is required for the Git server"
	errListen = "cannot listen on a loopback port"
)

// Bounds of the HTTP server. A request's headers arrive at once from a local
// client; Close waits this long for requests in flight (a git-http-backend
// answering a large fetch on a loaded CI machine) before cutting them off.
const (
	readHeaderTimeout = 10 * time.Second
	shutdownTimeout   = 30 * time.Second
)

// GitCounts counts the authorised requests a Git HTTP server answered. A
// fetch or clone (and the first half of a push) starts with one upload-pack
// advertisement GET; a push ends with one receive-pack POST.
type GitCounts struct {
	UploadPackAdverts int64
	ReceivePackPosts  int64
}

// RepoReads are one repository's reads: ref advertisements (an ls-remote,
// or a fetch's first request) and fetches (upload-pack POSTs).
type RepoReads struct {
	Adverts, Fetches int64
}

// HTTPServer is a smart-HTTP Git server (git http-backend behind net/http/cgi)
// on 127.0.0.1 serving every repository under Root, with basic auth.
type HTTPServer struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:34567.
	URL string
	// Root is the directory whose bare repositories are served.
	Root string

	srv      *http.Server
	backend  string
	user     string
	password string

	// mu guards failWith and gates, which a caller changes while requests
	// are served.
	mu       sync.Mutex
	failWith int
	// gates hold pushes to their repositories (advertgate.go).
	gates []*AdvertGate

	uploadAdverts, receivePosts atomic.Int64
	// reads counts each repository's ref advertisements and fetches,
	// under mu.
	reads map[string]RepoReads

	// pushes logs every authorised receive-pack POST (pushlog.go).
	pushes pushLog
}

// StartHTTPServer serves root on a free loopback port. Requests must carry
// basic auth with username and password (a token works the same way). The
// caller must Close it.
func StartHTTPServer(root, username, password string) (*HTTPServer, error) {
	return startHTTPServer(root, username, password, nil)
}

// startHTTPServer is StartHTTPServer, over TLS when tlsConfig is not nil.
func startHTTPServer(root, username, password string, tlsConfig *tls.Config) (*HTTPServer, error) {
	execPath, err := Git("", nil, "--exec-path")
	if err != nil {
		return nil, errors.Wrap(err, errNoGit)
	}
	// Port 0: the kernel picks a free port and the listener holds it, so no
	// other process can take it between choosing and serving.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Wrap(err, errListen)
	}
	scheme := "http://"
	if tlsConfig != nil {
		l, scheme = tls.NewListener(l, tlsConfig), "https://"
	}
	s := &HTTPServer{
		URL:      scheme + l.Addr().String(),
		Root:     root,
		backend:  filepath.Join(strings.TrimSpace(execPath), "git-http-backend"),
		user:     username,
		password: password,
	}
	// ErrorLog: clients refusing the test CA are what TLS tests provoke.
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: readHeaderTimeout, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = s.srv.Serve(l) }() // returns ErrServerClosed on Close
	return s, nil
}

// RepoURL returns the clone URL of the repository at name below Root.
func (s *HTTPServer) RepoURL(name string) string { return s.URL + "/" + name }

// FailWith makes the server answer every authorised request with the given
// HTTP status (e.g. 503) until called with 0, to simulate an outage.
func (s *HTTPServer) FailWith(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failWith = status
}

// Counts returns the requests answered so far.
func (s *HTTPServer) Counts() GitCounts {
	return GitCounts{UploadPackAdverts: s.uploadAdverts.Load(), ReceivePackPosts: s.receivePosts.Load()}
}

// ResetCounts sets every counter back to zero.
func (s *HTTPServer) ResetCounts() {
	s.uploadAdverts.Store(0)
	s.receivePosts.Store(0)
}

// Close stops the server and waits for the requests in flight, so that no
// git-http-backend still writes into Root after it returns. It is safe to
// call more than once.
func (s *HTTPServer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
}

func (s *HTTPServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	failWith := s.failWith
	s.mu.Unlock()

	u, p, ok := r.BasicAuth()
	if token, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); bearer {
		// A bearer token is the password without a username.
		u, p, ok = s.user, token, true
	}
	if !ok || u != s.user || p != s.password {
		w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if failWith != 0 {
		http.Error(w, http.StatusText(failWith), failWith)
		return
	}
	if g := s.gateOf(r); g != nil {
		if h := g.hold(r); h != nil {
			defer close(h.served)
		}
	}
	s.count(r)
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
		Env: append(noHousekeeping(),
			"GIT_PROJECT_ROOT="+s.Root,
			"GIT_HTTP_EXPORT_ALL=1",
			// REMOTE_USER enables receive-pack in http-backend.
			"REMOTE_USER="+u,
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=/dev/null",
		),
	}
	if isReceivePack(r) {
		start := time.Now()
		rw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(rw, r)
		s.pushes.add(Push{Repo: strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/git-receive-pack"),
			UserAgent: r.Header.Get("User-Agent"), Start: start, End: time.Now(), Status: rw.status()})
		return
	}
	h.ServeHTTP(w, r)
}

// count counts an authorised request in GitCounts.
func (s *HTTPServer) count(r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/info/refs") && r.URL.Query().Get("service") == "git-upload-pack":
		s.uploadAdverts.Add(1)
		s.read(strings.TrimSuffix(r.URL.Path, "/info/refs"), RepoReads{Adverts: 1})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
		s.read(strings.TrimSuffix(r.URL.Path, "/git-upload-pack"), RepoReads{Fetches: 1})
	case isReceivePack(r):
		s.receivePosts.Add(1)
	}
}

// read adds d to the reads of the repository at path.
func (s *HTTPServer) read(path string, d RepoReads) {
	name := strings.TrimPrefix(path, "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reads == nil {
		s.reads = map[string]RepoReads{}
	}
	c := s.reads[name]
	c.Adverts += d.Adverts
	c.Fetches += d.Fetches
	s.reads[name] = c
}

// ReadsOf returns the reads of the repository name (below Root) so far.
func (s *HTTPServer) ReadsOf(name string) RepoReads {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[name]
}
