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

// Package forgehttp is the one HTTP client every forge client speaks
// through. A forge's credential is a header on a request to the forge's API;
// this client sends no request, first hop or redirect, anywhere else: a
// redirect to another host or scheme is refused (net/http keeps custom
// headers such as GitLab's PRIVATE-TOKEN on any redirect, and even
// Authorization on a same-host https→http one). It also bounds each call's
// time and each answer's size, and holds the parts of an answer every forge
// reads alike: a rate limit's wait and a refusal's text fit for a status
// message.
package forgehttp

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const (
	errAPIURLFmt    = "the forge's API URL %q must be an absolute http(s) URL"
	errRedirectFmt  = "refusing the forge's redirect to %s: a credential for %s never goes to another host or scheme"
	errTooManyFmt   = "refusing the forge's redirect to %s: more than %d redirects"
	errOffOriginFmt = "refusing a request to %s: this client speaks only to %s"
	errTooLargeFmt  = "the forge's answer is larger than %d bytes"

	// Timeout bounds one call, redirects and reading the body included,
	// where the caller's context sets no shorter deadline. A create makes
	// the forge compute the pull request's diff and mergeability before it
	// answers: a loaded Gitea took over 30 s.
	Timeout = 2 * time.Minute
	// maxRedirects is as many same-origin redirects as one call follows
	// (a renamed repository's API answers one).
	maxRedirects = 5
)

// New returns a client for the forge API at apiURL, on base's transport
// (its CA bundle and proxy; nil is net/http's default). Requests go only to
// apiURL's scheme and host; a redirect elsewhere is an error naming where
// it pointed, without the query. The client's Timeout is base's, or Timeout
// when base sets none.
func New(base *http.Client, apiURL string) (*http.Client, error) {
	u, err := url.Parse(apiURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf(errAPIURLFmt, apiURL)
	}
	hc := &http.Client{}
	if base != nil {
		*hc = *base
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	o := origin(u)
	hc.Transport = &guard{origin: o, next: next}
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if origin(req.URL) != o {
			return fmt.Errorf(errRedirectFmt, Redact(req.URL), o)
		}
		if len(via) > maxRedirects {
			return fmt.Errorf(errTooManyFmt, Redact(req.URL), maxRedirects)
		}
		return nil
	}
	if hc.Timeout == 0 {
		hc.Timeout = Timeout
	}
	return hc, nil
}

// guard refuses any request off the API's origin. CheckRedirect refuses
// such redirects first; guard also covers a caller that builds a URL from
// what the forge answered (a pagination link, an absolute GraphQL URL).
type guard struct {
	origin string
	next   http.RoundTripper
}

func (g *guard) RoundTrip(r *http.Request) (*http.Response, error) {
	if origin(r.URL) != g.origin {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, fmt.Errorf(errOffOriginFmt, Redact(r.URL), g.origin)
	}
	return g.next.RoundTrip(r)
}

// origin is scheme://host:port, the port spelled out, host in lower case.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Redact is u without user information or query, fit for a message.
func Redact(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}

// ReadBody reads at most limit bytes of r; more is an error, so a runaway
// answer stops here rather than in memory.
func ReadBody(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf(errTooLargeFmt, limit)
	}
	return b, nil
}

// LimitBody is rc that reads at most limit bytes: reading past them is an
// error, for a client (such as go-github) that reads an answer itself.
func LimitBody(rc io.ReadCloser, limit int64) io.ReadCloser {
	return &limited{rc: rc, limit: limit, left: limit}
}

// limited is LimitBody's reader: left bytes may still be read of limit.
type limited struct {
	rc          io.ReadCloser
	limit, left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, fmt.Errorf(errTooLargeFmt, l.limit)
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1] // one byte more tells an answer of exactly limit from a larger one
	}
	n, err := l.rc.Read(p)
	if int64(n) > l.left {
		n, l.left = int(l.left), -1
		return n, fmt.Errorf(errTooLargeFmt, l.limit)
	}
	l.left -= int64(n)
	return n, err
}

func (l *limited) Close() error { return l.rc.Close() }
