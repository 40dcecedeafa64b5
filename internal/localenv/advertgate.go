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
	"net/http"
	"slices"
	"strings"
	"sync"
)

// An AdvertGate holds every push to one repository at its first request (the
// receive-pack advertisement, before the client has sent anything) until
// the test lets it through: a test that needs a process to be in the middle
// of a push at a moment it chooses (paused, killed) holds the push here and
// is told when it arrived, instead of guessing with a sleep. It holds a
// push before the client has decided anything (a replica's fence is asked
// after the advertisement); testenv's PushGate, a pre-receive hook, holds
// one after the pack was sent.
type AdvertGate struct {
	repo string

	mu      sync.Mutex
	held    []*HeldAdvert
	arrived chan struct{}
	closed  bool
}

// HeldAdvert is one push an AdvertGate holds.
type HeldAdvert struct {
	// UserAgent is who sent it.
	UserAgent string
	release   chan struct{}
	once      sync.Once
	served    chan struct{}
}

// Release lets the push go on. It is safe to call more than once.
func (h *HeldAdvert) Release() { h.once.Do(func() { close(h.release) }) }

// Served is closed once the server has answered the held request: the
// advertisement it answered is of the refs as they were at the Release, and
// it is in the client's hands (or the client was gone) whether or not the
// client reads it yet.
func (h *HeldAdvert) Served() <-chan struct{} { return h.served }

// HoldAdvertisements installs a gate on the pushes to repo (its path below Root,
// e.g. "a.git"). Open removes it and lets everything it holds go.
func (s *HTTPServer) HoldAdvertisements(repo string) *AdvertGate {
	g := &AdvertGate{repo: repo, arrived: make(chan struct{})}
	s.mu.Lock()
	s.gates = append(s.gates, g)
	s.mu.Unlock()
	return g
}

// Held returns the pushes held so far, in the order they arrived, and a
// channel closed when the next one arrives.
func (g *AdvertGate) Held() ([]*HeldAdvert, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.held), g.arrived
}

// Open lets every push it holds go and holds no more.
func (g *AdvertGate) Open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for _, h := range g.held {
		h.Release()
	}
}

// hold blocks a push advertisement r until it is released, the gate opened
// or the client gone, and returns the push it held (nil: none, the gate is
// open); the request then goes on as ever, and the server closes Served
// once it has answered.
func (g *AdvertGate) hold(r *http.Request) *HeldAdvert {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	h := &HeldAdvert{UserAgent: r.Header.Get("User-Agent"), release: make(chan struct{}), served: make(chan struct{})}
	g.held = append(g.held, h)
	close(g.arrived)
	g.arrived = make(chan struct{})
	g.mu.Unlock()
	select {
	case <-h.release:
	case <-r.Context().Done():
	}
	return h
}

// gateOf is the gate that holds r, or nil.
func (s *HTTPServer) gateOf(r *http.Request) *AdvertGate {
	if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/info/refs") || r.URL.Query().Get("service") != "git-receive-pack" {
		return nil
	}
	repo := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/info/refs")
	s.mu.Lock()
	defer s.mu.Unlock()
	// The last installed first: an opened gate lets everything through.
	for _, g := range slices.Backward(s.gates) {
		if g.repo == repo {
			return g
		}
	}
	return nil
}
