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
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"sync"
	"testing"
	"time"
)

// FaultMode is how a FaultProxy treats the requests it receives.
type FaultMode int

// Modes of a FaultProxy. Each is a fault real Git hosts produce.
const (
	// FaultNone forwards every request unchanged.
	FaultNone FaultMode = iota
	// FaultReset resets every connection (TCP RST) before answering: the
	// host is down or its load balancer drops us. Each reset counts as one
	// request.
	FaultReset
	// FaultStatus answers every request with Fault.Status (500, 503)
	// without forwarding it.
	FaultStatus
	// FaultSlow forwards every request after Fault.Delay.
	FaultSlow
	// FaultDropMidPack forwards every request, then cuts the connection
	// part way through the response body of each POST: a fetch loses its
	// pack mid-transfer, and a push the server applied loses its report.
	FaultDropMidPack
)

// String names the mode in figures and failures.
func (m FaultMode) String() string {
	switch m {
	case FaultNone:
		return "none"
	case FaultReset:
		return "reset"
	case FaultStatus:
		return "status"
	case FaultSlow:
		return "slow"
	case FaultDropMidPack:
		return "drop-mid-pack"
	}
	return fmt.Sprintf("mode-%d", int(m))
}

// Fault is what a FaultProxy does to the requests it receives.
type Fault struct {
	Mode FaultMode
	// Status answers FaultStatus requests.
	Status int
	// Delay holds each FaultSlow request before it is forwarded.
	Delay time.Duration
	// DropAfter is how many bytes of a FaultDropMidPack response reach the
	// client at most; never more than half the body, so every POST is cut.
	DropAfter int
}

// FaultProxy is a reverse proxy in front of a smart-HTTP Git server that
// injects faults on request and counts the requests each mode received.
type FaultProxy struct {
	// URL is the proxy's base URL; repositories are at URL/<name>.
	URL string

	target *url.URL
	srv    *http.Server
	fwd    *httputil.ReverseProxy
	// client fetches whole responses for FaultDropMidPack.
	client *http.Client

	// mu guards fault and counts: tests change the fault while requests
	// are served.
	mu     sync.Mutex
	fault  Fault
	counts map[FaultMode]int64
	// cuts counts the responses cut mid-body, by the request path's last
	// element: git-upload-pack (a fetch's pack), git-receive-pack (a
	// push's report).
	cuts map[string]int64
}

// NewFaultProxy serves a proxy to target (e.g. an HTTPServer's URL) on a free
// loopback port until the test ends. It starts in FaultNone.
func NewFaultProxy(tb testing.TB, target string) *FaultProxy {
	tb.Helper()
	u, err := url.Parse(target)
	if err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &FaultProxy{
		URL:    "http://" + l.Addr().String(),
		target: u,
		client: &http.Client{Timeout: time.Minute},
		counts: map[FaultMode]int64{},
		cuts:   map[string]int64{},
	}
	p.fwd = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) },
		// A client that gave up mid-request is what a fault makes happen.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: readHeaderTimeout}
	go func() { _ = p.srv.Serve(&resetListener{Listener: l, p: p}) }()
	tb.Cleanup(func() {
		_ = p.srv.Close()
		p.client.CloseIdleConnections()
	})
	return p
}

// readHeaderTimeout bounds a request's headers, which a local client sends
// at once.
const readHeaderTimeout = 10 * time.Second

// RepoURL returns the clone URL of the repository name behind the proxy.
func (p *FaultProxy) RepoURL(name string) string { return p.URL + "/" + name }

// Set switches the proxy to f for every request from now on.
func (p *FaultProxy) Set(f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = f
}

// Requests returns how many requests (for FaultReset: connections) the
// proxy received while in mode m.
func (p *FaultProxy) Requests(m FaultMode) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[m]
}

// Cuts returns how many responses to requests whose path ends in service
// ("git-upload-pack", "git-receive-pack") FaultDropMidPack cut.
func (p *FaultProxy) Cuts(service string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cuts[service]
}

// take counts one request in the current mode and returns the fault.
func (p *FaultProxy) take() Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[p.fault.Mode]++
	return p.fault
}

// resetListener resets new connections while the proxy is in FaultReset,
// so the client sees its connection reset before any response.
type resetListener struct {
	net.Listener
	p *FaultProxy
}

func (l *resetListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.p.mu.Lock()
		reset := l.p.fault.Mode == FaultReset
		if reset {
			l.p.counts[FaultReset]++
		}
		l.p.mu.Unlock()
		if !reset {
			return c, nil
		}
		resetConn(c)
	}
}

// resetConn closes c with a TCP RST rather than an orderly FIN.
func resetConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

func (p *FaultProxy) serve(w http.ResponseWriter, r *http.Request) {
	f := p.take()
	switch f.Mode {
	case FaultReset:
		// A kept-alive connection accepted before the outage.
		if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
			resetConn(c)
		}
	case FaultStatus:
		http.Error(w, http.StatusText(f.Status), f.Status)
	case FaultSlow:
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
			p.fwd.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	case FaultDropMidPack:
		if r.Method != http.MethodPost {
			p.fwd.ServeHTTP(w, r)
			return
		}
		p.dropMidBody(w, r, f.DropAfter)
	default:
		p.fwd.ServeHTTP(w, r)
	}
}

// dropMidBody forwards r, reads the whole response (so a push is applied
// on the server), then sends the client its headers and only part of its
// body before cutting the connection.
func (p *FaultProxy) dropMidBody(w http.ResponseWriter, r *http.Request, after int) {
	u := *p.target
	u.Path, u.RawQuery = r.URL.Path, r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	out.ContentLength = r.ContentLength
	resp, err := p.client.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	c, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer resetConn(c)
	cut := min(after, len(body)/2)
	var head bytes.Buffer
	fmt.Fprintf(&head, "HTTP/1.1 %s\r\n", resp.Status)
	resp.Header.Del("Transfer-Encoding")
	resp.Header.Set("Content-Length", fmt.Sprint(len(body)))
	if err := resp.Header.Write(&head); err != nil {
		return
	}
	head.WriteString("\r\n")
	head.Write(body[:cut])
	if _, err := buf.Write(head.Bytes()); err != nil {
		return
	}
	if buf.Flush() == nil {
		p.mu.Lock()
		p.cuts[path.Base(r.URL.Path)]++
		p.mu.Unlock()
	}
}
