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

// Package receiver serves forge webhook deliveries: one path per
// configuration, derived from its webhook secret, verified by package
// events, and turned into an early poll of the repository (a push) or a
// fresh list of its pull requests and a wake of its PullRequests (a pull
// request event). A forged event can do nothing but that, and only once
// it is signed with the secret.
package receiver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// PathPrefix starts every hook's path.
const PathPrefix = "/hooks/"

// replaysKept is how many delivery ids each hook remembers, to refuse a
// delivery sent again (a replay, or the forge's own redelivery of one
// already acted on).
const replaysKept = 1024

// hook is one configuration's receiving end.
type hook struct {
	owner  string
	repo   string
	secret []byte
	seen   map[string]bool
	order  []string
}

// A Registry maps hook paths to the configurations that receive there.
type Registry struct {
	mu      sync.Mutex
	byPath  map[string]*hook
	byOwner map[string]string
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry {
	return &Registry{byPath: map[string]*hook{}, byOwner: map[string]string{}}
}

// PathOf is the path owner's deliveries go to: an HMAC of its name under
// its webhook secret, so nobody can derive it from names alone, and it
// changes when the secret does.
func PathOf(owner string, secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(owner))
	return PathPrefix + hex.EncodeToString(m.Sum(nil))[:40]
}

// Set receives owner's deliveries for the repository repo (its
// git.RepositoryKey) signed with secret, and returns their path. Setting
// the same again keeps what the hook remembers of deliveries.
func (r *Registry) Set(owner, repo string, secret []byte) string {
	p := PathOf(owner, secret)
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.byOwner[owner]; ok && old != p {
		delete(r.byPath, old)
	}
	h, ok := r.byPath[p]
	if !ok || h.owner != owner {
		h = &hook{owner: owner, seen: map[string]bool{}}
		r.byPath[p] = h
	}
	h.repo, h.secret = repo, append([]byte(nil), secret...)
	r.byOwner[owner] = p
	return p
}

// Remove stops receiving owner's deliveries.
func (r *Registry) Remove(owner string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.byOwner[owner]; ok {
		delete(r.byPath, p)
		delete(r.byOwner, owner)
	}
}

// lookup returns the secret and repository of the hook at path.
func (r *Registry) lookup(path string) (secret []byte, repo string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.byPath[path]
	if !ok {
		return nil, "", false
	}
	return h.secret, h.repo, true
}

// firstSeen records delivery at the hook at path and reports whether it
// is new. A delivery without an id cannot be told apart: always new.
func (r *Registry) firstSeen(path, delivery string) bool {
	if delivery == "" {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.byPath[path]
	if !ok {
		return true
	}
	if h.seen[delivery] {
		return false
	}
	h.seen[delivery] = true
	h.order = append(h.order, delivery)
	if len(h.order) > replaysKept {
		delete(h.seen, h.order[0])
		h.order = h.order[1:]
	}
	return true
}
