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

// Package github is a fake GitHub for tests: an httptest server that
// answers the REST and GraphQL calls the provider's GitHub client makes
// (pull requests, and the repository webhooks of hooks.go) with the
// payloads and headers GitHub documents (field names as in the
// REST reference, ETag and 304 on If-None-Match, Link pagination, 422
// validation bodies, primary and secondary rate limits, GraphQL's data and
// errors shape). GitHub cannot run on loopback, so this fake is what the
// client's and the PullRequest controller's tests speak to. Only tests may
// import it (it links testing and httptest, which TestLinksNoTestBed keeps
// out of the binaries).
//
// The API is served under /api/v3/ and GraphQL at /api/graphql, as on
// GitHub Enterprise, so clients take the Enterprise path. In a test:
//
//	s := github.NewServer(t)
//	s.AddBranch("acme", "gitops", "main", github.SHA("main"))
//	// a configuration with spec.forge {type: GitHub, apiURL: s.URL()} and
//	// the API token github.Token; then, as people would:
//	s.Merge(1); s.EditTitle(1, "theirs"); s.Close(1)
//	// and what it cost: s.Requests(), s.Count(...).
//
// Pull request numbers are unique across the server's repositories (GitHub
// numbers per repository; a client cannot tell), so Merge, Close and the
// other person's actions take a number alone.
//
// Locking: Server.mu guards every field below it; handlers hold it for the
// whole of one request, which serialises requests as a consistent store.
package github

import (
	"bytes"
	"crypto/sha1" //nolint:gosec // commit IDs are SHA-1, as Git's.
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/utils/clock"
)

// Token is the API token the server accepts unless SetToken changes it.
const Token = "ghs_faketoken"

// Documented messages and documentation URLs.
const (
	msgBadCredentials = "Bad credentials"
	msgNotFound       = "Not Found"
	msgForbidden      = "Resource not accessible by integration"
	msgValidation     = "Validation Failed"
	msgPrimaryLimit   = "API rate limit exceeded for installation ID 1."
	// MsgSecondaryLimit is GitHub's body for a secondary rate limit.
	MsgSecondaryLimit = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. " +
		"If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000."
	msgNotMergeable = "Pull Request is not mergeable"
	msgHeadModified = "Head branch was modified. Review and try the merge again."

	docRoot      = "https://docs.github.com/rest"
	docPrimary   = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits"
	docSecondary = "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	docCreatePR  = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"
	docMergePR   = "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request"
	docDeleteRef = "https://docs.github.com/rest/git/refs#delete-a-reference"

	// primaryLimit is GitHub's hourly limit for an installation token.
	primaryLimit = 5000
)

// Request is one request the server answered.
type Request struct {
	Method string
	// Path is below /api/v3 (e.g. /repos/o/r/pulls), or /api/graphql.
	Path  string
	Query string
	// Conditional is true when it carried If-None-Match.
	Conditional bool
	Status      int
	// Mutation names the GraphQL mutation, if any.
	Mutation string
}

// An Option configures a Server.
type Option func(*Server)

// WithClock sets the clock of timestamps, rate-limit windows and reset
// times; the real clock by default.
func WithClock(c clock.PassiveClock) Option { return func(s *Server) { s.clock = c } }

// Server is a fake GitHub.
type Server struct {
	srv   *httptest.Server
	clock clock.PassiveClock

	mu       sync.Mutex
	token    string
	readOnly bool
	repos    map[string]*repo
	pulls    map[int64]*pull
	next     int64
	statuses map[string][]status   // owner/repo@sha
	checks   map[string][]checkRun // owner/repo@sha
	log      []Request
	// verified holds, per commit the Git data API created, whether GitHub
	// would show it Verified (gitdata.go).
	verified map[string]bool
	// beforeRef runs once at the next ref update (BeforeRefUpdate).
	beforeRef func()
	// hooksMade counts hook IDs given; hookAccess, when not 0, is the
	// status every hooks request answers (SetHookAccess).
	hooksMade  int64
	hookAccess int
	// primary: remaining requests until reset; counted from the first
	// SetPrimaryLimit, unlimited before.
	primarySet bool
	remaining  int
	reset      time.Time
	// secondary: up to secondaryN writes per window; refused until
	// secondaryUntil once exceeded.
	secondaryN     int
	secondaryUsed  int
	retryAfter     time.Duration
	secondaryUntil time.Time
}

// NewServer starts a fake GitHub and stops it when tb ends.
func NewServer(tb testing.TB, o ...Option) *Server {
	tb.Helper()
	s := &Server{
		clock:      clock.RealClock{},
		token:      Token,
		repos:      map[string]*repo{},
		pulls:      map[int64]*pull{},
		statuses:   map[string][]status{},
		checks:     map[string][]checkRun{},
		secondaryN: -1,
	}
	for _, fn := range o {
		fn(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.srv.Close)
	return s
}

// URL is the REST API's base, with a trailing slash, as forge.Config's
// APIURL takes it.
func (s *Server) URL() string { return s.srv.URL + "/api/v3/" }

// GraphQLURL is the GraphQL endpoint.
func (s *Server) GraphQLURL() string { return s.srv.URL + "/api/graphql" }

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// SetToken changes the token the server accepts.
func (s *Server) SetToken(t string) { s.mu.Lock(); s.token = t; s.mu.Unlock() }

// SetReadOnly makes every write answer 403, as for a token without write
// permission.
func (s *Server) SetReadOnly(ro bool) { s.mu.Lock(); s.readOnly = ro; s.mu.Unlock() }

// SetPrimaryLimit leaves remaining requests until reset; then every request
// answers 403 with X-RateLimit-Remaining: 0 until reset. 304 answers cost
// nothing, as GitHub documents.
func (s *Server) SetPrimaryLimit(remaining int, reset time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.primarySet, s.remaining, s.reset = true, remaining, reset
}

// SetSecondaryLimit allows n content-creating requests (REST writes and
// GraphQL mutations); the next one answers 403 with Retry-After retryAfter
// and every write is refused until then, after which n are allowed again.
// A negative n removes the limit.
func (s *Server) SetSecondaryLimit(n int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secondaryN, s.secondaryUsed, s.retryAfter, s.secondaryUntil = n, 0, retryAfter, time.Time{}
}

// Requests returns the requests answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// ResetRequests forgets the requests answered so far.
func (s *Server) ResetRequests() { s.mu.Lock(); s.log = nil; s.mu.Unlock() }

// SHA returns a deterministic commit ID for seed, for tests' branches.
func SHA(seed string) string {
	h := sha1.Sum([]byte(seed)) //nolint:gosec // a commit ID, not a secret.
	return hex.EncodeToString(h[:])
}

// serve authenticates, applies the rate limits, routes, and adds the
// headers GitHub adds: ETag on a GET (304 when If-None-Match matches) and
// the X-RateLimit-* set.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := Request{Method: r.Method, Path: strings.TrimPrefix(r.URL.Path, "/api/v3"), Query: r.URL.RawQuery,
		Conditional: r.Header.Get("If-None-Match") != ""}
	b := &buffered{header: http.Header{}, status: http.StatusOK}
	s.handle(b, r, &rec)
	if r.Method == http.MethodGet && b.status == http.StatusOK {
		sum := sha256.Sum256(b.body.Bytes())
		etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
		b.header.Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			// A 304 carries no body and, as RFC 9110 allows, no Link
			// or Content-Type: the client keeps what it had.
			b.status = http.StatusNotModified
			b.body.Reset()
			b.header.Del("Link")
			b.header.Del("Content-Type")
		}
	}
	if s.primarySet && b.status != http.StatusNotModified && s.remaining > 0 {
		s.remaining--
	}
	s.rateHeaders(b.header)
	rec.Status = b.status
	s.log = append(s.log, rec)
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}

func (s *Server) handle(w *buffered, r *http.Request, rec *Request) {
	if s.installationToken(w, r) {
		return
	}
	if !s.authorized(r) {
		w.json(http.StatusUnauthorized, errBody(msgBadCredentials, docRoot))
		return
	}
	now := s.clock.Now()
	if s.primarySet && s.remaining == 0 && now.Before(s.reset) {
		w.json(http.StatusForbidden, errBody(msgPrimaryLimit, docPrimary))
		return
	}
	write := r.Method != http.MethodGet && r.Method != http.MethodHead
	if write && s.readOnly {
		w.json(http.StatusForbidden, errBody(msgForbidden, docRoot))
		return
	}
	if write && s.secondaryN >= 0 {
		if !s.secondaryUntil.IsZero() && !now.Before(s.secondaryUntil) {
			s.secondaryUntil, s.secondaryUsed = time.Time{}, 0 // the window passed: a new budget
		}
		if s.secondaryUntil.IsZero() && s.secondaryUsed >= s.secondaryN {
			s.secondaryUntil = now.Add(s.retryAfter)
		}
		if !s.secondaryUntil.IsZero() {
			wait := (s.secondaryUntil.Sub(now) + time.Second - 1) / time.Second
			w.header.Set("Retry-After", strconv.FormatInt(int64(wait), 10))
			w.json(http.StatusForbidden, errBody(MsgSecondaryLimit, docSecondary))
			return
		}
		s.secondaryUsed++
	}
	if r.URL.Path == "/api/graphql" && r.Method == http.MethodPost {
		s.graphql(w, r, rec)
		return
	}
	p, ok := strings.CutPrefix(r.URL.Path, "/api/v3/")
	if !ok {
		w.json(http.StatusNotFound, errBody(msgNotFound, docRoot))
		return
	}
	s.rest(w, r, strings.Split(strings.Trim(p, "/"), "/"))
}

func (s *Server) authorized(r *http.Request) bool {
	a := r.Header.Get("Authorization")
	return a == "Bearer "+s.token || a == "token "+s.token
}

func (s *Server) rateHeaders(h http.Header) {
	remaining, reset := primaryLimit, s.clock.Now().Add(time.Hour)
	if s.primarySet {
		remaining, reset = s.remaining, s.reset
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(primaryLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(primaryLimit-remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
}

// buffered holds a response until the ETag is known.
type buffered struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *buffered) json(status int, v any) {
	b.status = status
	b.header.Set("Content-Type", "application/json; charset=utf-8")
	b.body.Reset()
	b.body.Write(mustJSON(v))
}

func (b *buffered) empty(status int) { b.status = status; b.body.Reset() }

func errBody(msg, doc string) map[string]any {
	return map[string]any{"message": msg, "documentation_url": doc}
}

// validation is GitHub's 422 body.
func validation(doc string, errs ...map[string]any) map[string]any {
	return map[string]any{"message": msgValidation, "errors": errs, "documentation_url": doc}
}

func (s *Server) repo(owner, name string) *repo {
	k := owner + "/" + name
	rp, ok := s.repos[k]
	if !ok {
		rp = &repo{owner: owner, name: name, id: int64(len(s.repos) + 1), branches: map[string]string{}, allowAutoMerge: true}
		s.repos[k] = rp
	}
	return rp
}

func (s *Server) now() string { return s.clock.Now().UTC().Format(time.RFC3339) }

func key(owner, repo, sha string) string { return fmt.Sprintf("%s/%s@%s", owner, repo, sha) }

// Count is how many answered requests match, e.g. the unchanged polls:
//
//	s.Count(func(r Request) bool { return r.Status == http.StatusNotModified })
func (s *Server) Count(match func(Request) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if match(r) {
			n++
		}
	}
	return n
}
