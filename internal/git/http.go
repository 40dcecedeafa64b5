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
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"golang.org/x/net/http/httpproxy"
)

const (
	errCABundle    = "the CA bundle holds no PEM certificate"
	errSystemRoots = "cannot read the system's trusted certificates"
	errCAOverHTTP  = "a CA bundle applies to https:// URLs only"
)

// BearerAuth is HTTP(S) bearer token auth (Authorization: Bearer).
type BearerAuth struct {
	Token string
}

func (a *BearerAuth) fingerprint(h func(...string)) { h("bearer", a.Token) }

// newTransport returns the transport for ep. HTTP(S) gets a client of its
// own per clone: its TLS roots are the system's plus the remote's CA bundle,
// and it keeps its connections across fetches and pushes (go-git, given a
// CA bundle on the endpoint, builds a new transport, so new connections,
// for every session). Other protocols use go-git's.
//
// A GitHub App's token requests go through the same client: a GitHub
// Enterprise server behind a private CA or a proxy serves its API there too.
func newTransport(conn *connection, r Remote, opts Options) (transport.Transport, error) {
	ep, proxy := conn.ep, opts.Proxy
	if ep.Protocol != "http" && ep.Protocol != "https" {
		if len(r.CABundle) > 0 {
			return nil, newError(KindInvalid, errCAOverHTTP)
		}
		return client.NewClient(ep)
	}
	if len(r.CABundle) > 0 && ep.Protocol != "https" {
		return nil, newError(KindInvalid, errCAOverHTTP)
	}
	t, err := httpTransport(r.CABundle, proxy)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return client.NewClient(ep)
	}
	hc := &http.Client{Transport: withUserAgent(t, opts.UserAgent)}
	if conn.app != nil {
		conn.app.use(hc, opts.Clock.Now)
	}
	return githttp.NewClient(hc), nil
}

// httpTransport is net/http's default transport with proxy and, when
// caBundle holds certificates, the system's roots plus those; nil when the
// default transport is not an *http.Transport.
func httpTransport(caBundle []byte, proxy func(*http.Request) (*url.URL, error)) (*http.Transport, error) {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return nil, nil
	}
	t = t.Clone()
	if proxy == nil {
		proxy = ProxyFromEnvironment(os.Getenv)
	}
	t.Proxy = proxy
	if len(caBundle) > 0 {
		roots, err := x509.SystemCertPool()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errSystemRoots, err)
		}
		if roots == nil {
			roots = x509.NewCertPool()
		}
		if !roots.AppendCertsFromPEM(caBundle) {
			return nil, newError(KindInvalid, errCABundle)
		}
		t.TLSClientConfig = t.TLSClientConfig.Clone()
		if t.TLSClientConfig == nil {
			t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		t.TLSClientConfig.RootCAs = roots
	}
	return t, nil
}

// NewHTTPClient returns a client for an HTTP API of a repository's server
// (a forge's REST API) that trusts what its clones trust: the system's
// roots plus caBundle, through the environment's proxy.
func NewHTTPClient(caBundle []byte) (*http.Client, error) {
	t, err := httpTransport(caBundle, nil)
	if err != nil || t == nil {
		return &http.Client{}, err
	}
	return &http.Client{Transport: t}, nil
}

// AppToken returns the token source of the repository's GitHub App
// installation, the one its Git sessions use, so a forge's API shares the
// installation token and its refresh; false when its auth is no App.
func (r *Repository) AppToken() (func(ctx context.Context) (string, error), bool) {
	if r.conn == nil || r.conn.app == nil {
		return nil, false
	}
	return r.conn.app.token, true
}

// ProxyFromEnvironment returns the proxy choice HTTPS_PROXY, HTTP_PROXY and
// NO_PROXY (or their lower-case forms) describe, read through getenv once.
// Unlike net/http's, it takes the environment as an argument, so what a
// given environment means can be tested; like it, it never proxies requests
// to localhost or loopback addresses.
func ProxyFromEnvironment(getenv func(string) string) func(*http.Request) (*url.URL, error) {
	either := func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return getenv(strings.ToLower(k))
	}
	cfg := &httpproxy.Config{HTTPProxy: either("HTTP_PROXY"), HTTPSProxy: either("HTTPS_PROXY"), NoProxy: either("NO_PROXY")}
	f := cfg.ProxyFunc()
	return func(req *http.Request) (*url.URL, error) { return f(req.URL) }
}
