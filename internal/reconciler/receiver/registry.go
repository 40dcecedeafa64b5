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
// it is signed with the secret. When replicas share the repositories, a
// delivery for a repository another replica holds is forwarded to that
// one, signed with the same secret, and never forwarded again (forward.go).
package receiver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"
)

// PathPrefix starts every hook's path.
const PathPrefix = "/hooks/"

// replaysKept is how many deliveries each hook remembers, to refuse one
// sent again (a replay, or the forge's own redelivery of one already acted
// on).
const replaysKept = 1024

// perHook bounds the deliveries of one hook read at once, so that the
// owner of one path (its status publishes it) cannot hold every slot.
const perHook = 4

// pathLabel separates the derivation of a hook's path from the signatures
// the same secret makes: the path is published, a signature never is.
const pathLabel = "provider-git events path v1\x00"

// A Target is what a configuration's deliveries act on.
type Target struct {
	// Repo is the repository's git.RepositoryKey: a delivery acts only
	// when its payload names it.
	Repo string
	// Clone is the id of the clone the configuration's own credentials
	// open (git.Cache.IdentityOf): a delivery acts on it and nothing
	// else, so a configuration that names another's repository cannot
	// make the provider fetch or list with that one's credentials.
	Clone string
	// Sources are the forges whose deliveries the configuration accepts
	// (events.Source*); none: any.
	Sources []string
}

// hook is one configuration's receiving end.
type hook struct {
	owner  string
	target Target
	secret []byte
	// seen holds digests of the deliveries acted on, by body: the
	// delivery id header is not signed, a body is.
	seen  map[[sha256.Size]byte]bool
	order [][sha256.Size]byte
	// reading counts the deliveries read at once (perHook).
	reading int
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
	m.Write([]byte(pathLabel + owner))
	return PathPrefix + hex.EncodeToString(m.Sum(nil))[:40]
}

// Set receives owner's deliveries for t signed with secret, and returns
// their path. Setting the same again keeps what the hook remembers of
// deliveries.
func (r *Registry) Set(owner string, t Target, secret []byte) string {
	p := PathOf(owner, secret)
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.byOwner[owner]; ok && old != p {
		delete(r.byPath, old)
	}
	h, ok := r.byPath[p]
	if !ok || h.owner != owner {
		h = &hook{owner: owner, seen: map[[sha256.Size]byte]bool{}}
		r.byPath[p] = h
	}
	t.Sources = slices.Clone(t.Sources)
	h.target, h.secret = t, append([]byte(nil), secret...)
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

// enter starts reading a delivery at path: the hook's secret and target,
// ok false when no hook is there, busy when perHook of its deliveries are
// read already. A caller that entered leaves.
func (r *Registry) enter(path string) (secret []byte, t Target, ok, busy bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.byPath[path]
	if !ok {
		return nil, Target{}, false, false
	}
	if h.reading >= perHook {
		return nil, Target{}, true, true
	}
	h.reading++
	return h.secret, h.target, true, false
}

// leave ends a read enter started.
func (r *Registry) leave(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.byPath[path]; ok && h.reading > 0 {
		h.reading--
	}
}

// firstSeen records the delivery of body at the hook at path and reports
// whether it is new.
func (r *Registry) firstSeen(path string, body []byte) bool {
	d := sha256.Sum256(body)
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.byPath[path]
	if !ok {
		return true
	}
	if h.seen[d] {
		return false
	}
	h.seen[d] = true
	h.order = append(h.order, d)
	if len(h.order) > replaysKept {
		delete(h.seen, h.order[0])
		h.order = h.order[1:]
	}
	return true
}

// OwnerAt is the configuration that receives at path, "" when none does.
func (r *Registry) OwnerAt(path string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.byPath[path]; ok {
		return h.owner
	}
	return ""
}

// TargetAt is the target of the hook at path, the zero Target when none
// is there: for tests of what configurations register.
func TargetAt(r *Registry, path string) Target {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.byPath[path]; ok {
		return h.target
	}
	return Target{}
}
