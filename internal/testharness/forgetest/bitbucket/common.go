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

// Package bitbucket holds fakes of Bitbucket Cloud (REST 2.0) and
// Bitbucket Data Center (REST 1.0) for tests: httptest servers answering
// the calls the provider's Bitbucket clients make with the payloads,
// status codes and headers of Atlassian's API references (the OpenAPI
// documents of Cloud 2.0 and Data Center 9.2), over in-memory state.
// Neither product can run here. Only tests import it.
//
// Both serve one repository and any number of forks of it (a stranger's
// pull request), take a bearer token (and Cloud also an app password as
// basic authentication), and can be told to answer the next requests 429
// (Throttle) or to redirect the next request elsewhere (RedirectNext): to
// another host, or to http, which the client must refuse without sending
// its credential. See cloud.go and datacenter.go for what each serves.
//
// Locking: each server's mu guards its state; a handler holds it for the
// whole of one request.
package bitbucket

import (
	"crypto/sha1" //nolint:gosec // fake commit ids, not secrets.
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Credentials the fakes accept.
const (
	// Token is an access token (Cloud) or HTTP access token (Data
	// Center), sent as a bearer token.
	Token = "bbtoken-provider-git-fake"
	// AppUser and AppPassword are a Cloud user and app password, sent as
	// basic authentication.
	AppUser     = "provider-git-bot"
	AppPassword = "ATBBfakeapppassword"
)

// SHA returns a deterministic full commit ID for seed.
func SHA(seed string) string {
	h := sha1.Sum([]byte(seed)) //nolint:gosec // a commit ID, not a secret.
	return hex.EncodeToString(h[:])
}

// Request is one request a fake answered.
type Request struct {
	Method string
	Path   string
	Query  string
	Status int
	// Authorization says how it authenticated: "bearer", "basic" or "".
	Authorization string
}

// recorder is what both fakes share: the log, throttling and redirects.
type recorder struct {
	mu         sync.Mutex
	log        []Request
	throttle   int
	retryAfter string
	redirect   string
	before     *before
}

// before is a person's action run as a request arrives, before it is
// answered: a push or an edit landing between a client's read and its
// write.
type before struct {
	method, suffix string
	fn             func()
}

// BeforeNext runs fn (which may change the fake through its methods) when
// the next request of method whose path ends in suffix arrives, before it
// is answered.
func (r *recorder) BeforeNext(method, suffix string, fn func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.before = &before{method: method, suffix: suffix, fn: fn}
}

// lock takes mu for one request, first running a due BeforeNext action
// without it.
func (r *recorder) lock(req *http.Request) {
	r.mu.Lock()
	if b := r.before; b != nil && req.Method == b.method && strings.HasSuffix(req.URL.Path, b.suffix) {
		r.before = nil
		r.mu.Unlock()
		b.fn()
		r.mu.Lock()
	}
}

// Requests returns the requests answered so far.
func (r *recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

// Count is how many answered requests match.
func (r *recorder) Count(match func(Request) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, q := range r.log {
		if match(q) {
			n++
		}
	}
	return n
}

// Throttle answers the next n requests 429, with Retry-After retryAfter
// when not "".
func (r *recorder) Throttle(n int, retryAfter string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.throttle, r.retryAfter = n, retryAfter
}

// RedirectNext answers the next request 302 to location (its path and
// query appended), as a compromised proxy or a moved server might.
func (r *recorder) RedirectNext(location string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.redirect = location
}

// authKind says how req authenticated, "" when it did not with what the
// fakes accept.
func authKind(req *http.Request, token string, basic bool) string {
	a := req.Header.Get("Authorization")
	if a == "Bearer "+token {
		return "bearer"
	}
	if u, p, ok := req.BasicAuth(); ok && basic && u == AppUser && p == AppPassword {
		return "basic"
	}
	return ""
}

// preflight logs req and answers it when a redirect or a throttle is due
// (true: answered). Called with mu held.
func (r *recorder) preflight(w http.ResponseWriter, req *http.Request, rec *Request, limited func(http.ResponseWriter)) bool {
	switch {
	case r.redirect != "":
		loc := strings.TrimSuffix(r.redirect, "/") + req.URL.RequestURI()
		r.redirect = ""
		// The redirect is the point: a test tells the fake where to send it.
		http.Redirect(w, req, loc, http.StatusFound) //nolint:gosec // G710: the test names the target.
		rec.Status = http.StatusFound
	case r.throttle > 0:
		r.throttle--
		if r.retryAfter != "" {
			w.Header().Set("Retry-After", r.retryAfter)
		}
		limited(w)
		rec.Status = http.StatusTooManyRequests
	default:
		return false
	}
	r.log = append(r.log, *rec)
	return true
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// segments splits an escaped path into unescaped segments.
func segments(escaped string) []string {
	parts := strings.Split(strings.Trim(escaped, "/"), "/")
	for i, p := range parts {
		parts[i] = unescape(p)
	}
	return parts
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// statusWriter remembers the status written, for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}
