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
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// httpsServer serves the engine tests' seed over TLS with a private CA.
func httpsServer(t *testing.T) (*server, []byte) {
	t.Helper()
	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "repo.git", seed())
	s, ca := testenv.NewHTTPSServer(t, root, testUser, testToken)
	return &server{name: "HTTPS", root: root, repo: repo, http: s,
		remote: Remote{URL: s.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}}}, ca
}

func TestCABundle(t *testing.T) {
	t.Parallel()
	s, ca := httpsServer(t)
	_, otherCA := httpsServer(t)
	cases := map[string]struct {
		reason string
		ca     []byte
		want   Kind
		ok     bool
	}{
		"SystemRootsOnly": {reason: "A server behind a private CA is refused without its CA.", want: KindCertificate},
		"OtherCA":         {reason: "A bundle of another CA does not vouch for the server.", ca: otherCA, want: KindCertificate},
		"TheCA":           {reason: "The server's CA in the bundle makes it trusted.", ca: ca, ok: true},
		"NotPEM":          {reason: "A bundle without a certificate is a configuration error.", ca: []byte("not a certificate"), want: KindInvalid},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			remote := s.remote
			remote.CABundle = tc.ca
			c, err := NewCache(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			r, err := c.Repository(remote)
			if err == nil {
				_, err = r.Check(ctx(t))
			}
			if tc.ok {
				if err != nil {
					t.Fatalf("%s\nCheck: %v", tc.reason, err)
				}
				res := r.Submit(ctx(t), "main", putChange("tls/a", "a"))
				if res.Err != nil {
					t.Fatalf("%s\nSubmit over TLS: %v", tc.reason, res.Err)
				}
				if got := s.repo.Files(t, "main")["tls/a"]; got != "a" {
					t.Errorf("%s\nthe push did not land: %q", tc.reason, got)
				}
				return
			}
			if diff := cmp.Diff(tc.want.String(), KindOf(err).String()); diff != "" {
				t.Errorf("%s\nkind: -want, +got:\n%s\nerror: %v", tc.reason, diff, err)
			}
		})
	}
}

func TestBearerToken(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	cases := map[string]struct {
		reason string
		token  string
		want   Kind
	}{
		"Right": {reason: "The token is sent as Authorization: Bearer.", token: testToken, want: KindTransient},
		"Wrong": {reason: "A refused token is an authentication failure.", token: "nope", want: KindAuth},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := newRepo(t, Remote{URL: s.remote.URL, Auth: &BearerAuth{Token: tc.token}})
			_, err := r.Check(ctx(t))
			if tc.want == KindTransient {
				if err != nil {
					t.Fatalf("%s\nCheck: %v", tc.reason, err)
				}
				if res := r.Submit(ctx(t), "main", putChange("bearer/a", "a")); res.Err != nil {
					t.Fatalf("%s\nSubmit: %v", tc.reason, res.Err)
				}
				return
			}
			if diff := cmp.Diff(tc.want.String(), KindOf(err).String()); diff != "" {
				t.Errorf("%s\nkind: -want, +got:\n%s\nerror: %v", tc.reason, diff, err)
			}
		})
	}
}

// connectProxy is an HTTP CONNECT proxy on loopback that records the
// targets it tunnelled to.
type connectProxy struct {
	URL     *url.URL
	mu      sync.Mutex
	targets []string
}

func startConnectProxy(t *testing.T) *connectProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &connectProxy{URL: &url.URL{Scheme: "http", Host: l.Addr().String()}}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *connectProxy) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil || req.Method != http.MethodConnect {
		_, _ = io.WriteString(c, "HTTP/1.1 405 Method Not Allowed\r\n\r\n")
		return
	}
	p.mu.Lock()
	p.targets = append(p.targets, req.Host)
	p.mu.Unlock()
	up, err := net.Dial("tcp", req.Host)
	if err != nil {
		_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
		return
	}
	defer up.Close()
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, br); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

func (p *connectProxy) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...)
}

// TestProxy: fetches and pushes to an HTTPS remote go through the proxy the
// cache is given, as a CONNECT tunnel. Go never proxies loopback addresses
// chosen from the environment, so the proxy choice is injected here and
// the environment's reading is tested on its own below.
func TestProxy(t *testing.T) {
	t.Parallel()
	s, ca := httpsServer(t)
	p := startConnectProxy(t)
	remote := s.remote
	remote.CABundle = ca
	r, _ := newRepo(t, remote, WithProxy(http.ProxyURL(p.URL)))
	if _, err := r.Check(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if res := r.Submit(ctx(t), "main", putChange("proxy/a", "a")); res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := s.repo.Files(t, "main")["proxy/a"]; got != "a" {
		t.Fatalf("the push through the proxy did not land: %q", got)
	}
	host := s.http.URL[len("https://"):]
	seen := p.seen()
	if len(seen) == 0 {
		t.Fatal("the proxy saw no CONNECT")
	}
	for _, h := range seen {
		if h != host {
			t.Errorf("the proxy tunnelled to %s, want only %s", h, host)
		}
	}
}

func TestProxyFromEnvironment(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		env    map[string]string
		url    string
		want   string
	}{
		"HTTPS":           {reason: "HTTPS_PROXY proxies https URLs.", env: map[string]string{"HTTPS_PROXY": "http://proxy:3128"}, url: "https://git.example.org/r.git", want: "http://proxy:3128"},
		"LowerCase":       {reason: "https_proxy counts too.", env: map[string]string{"https_proxy": "http://proxy:3128"}, url: "https://git.example.org/r.git", want: "http://proxy:3128"},
		"UpperCaseWins":   {reason: "The upper-case form is read first.", env: map[string]string{"HTTPS_PROXY": "http://a:1", "https_proxy": "http://b:2"}, url: "https://git.example.org/r.git", want: "http://a:1"},
		"HTTPOnlyForHTTP": {reason: "HTTP_PROXY does not proxy https URLs.", env: map[string]string{"HTTP_PROXY": "http://proxy:3128"}, url: "https://git.example.org/r.git"},
		"HTTP":            {reason: "HTTP_PROXY proxies http URLs.", env: map[string]string{"HTTP_PROXY": "http://proxy:3128"}, url: "http://git.example.org/r.git", want: "http://proxy:3128"},
		"NoProxy":         {reason: "NO_PROXY exempts a host.", env: map[string]string{"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": "git.example.org"}, url: "https://git.example.org/r.git"},
		"NoProxyDomain":   {reason: "NO_PROXY exempts a domain's hosts.", env: map[string]string{"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": ".example.org"}, url: "https://git.example.org/r.git"},
		"NoProxyOther":    {reason: "NO_PROXY of another host leaves this one proxied.", env: map[string]string{"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": "other.org"}, url: "https://git.example.org/r.git", want: "http://proxy:3128"},
		"Loopback":        {reason: "Loopback is never proxied.", env: map[string]string{"HTTPS_PROXY": "http://proxy:3128"}, url: "https://127.0.0.1:8443/r.git"},
		"None":            {reason: "No variables, no proxy.", url: "https://git.example.org/r.git"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := ProxyFromEnvironment(func(k string) string { return tc.env[k] })
			req, err := http.NewRequestWithContext(ctx(t), http.MethodGet, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			u, err := f(req)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if u != nil {
				got = u.String()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nproxy: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
