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

package session

import (
	"sync"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// Unheard remembers, per object, a Ready transition sent in a status write
// whose reply never came (a reset connection, a timeout): the API server
// may have stored it. The reconcile that stored it could not announce it,
// and the next one reads it back as already persisted, so without this
// memory the transition would get no Event at all. Share one per
// controller (WithUnheard); it is safe for concurrent use.
//
// mu guards m; it is never held across a call to the API server.
type Unheard struct {
	mu sync.Mutex
	m  map[types.UID]unheard
}

type unheard struct {
	// resourceVersion is of the object the write was computed from: until
	// a reconcile reads a newer one, whether the write was stored is
	// unknown.
	resourceVersion string
	ready           xpv2.Condition
}

// NewUnheard returns an empty Unheard.
func NewUnheard() *Unheard { return &Unheard{m: map[types.UID]unheard{}} }

// WithUnheard keeps the Ready transitions of writes whose outcome is
// unknown in u, and announces them once a later reconcile reads them back.
func WithUnheard(u *Unheard) Option {
	return func(s *Session) { s.unheard = u }
}

// ambiguous reports whether a failed write may still have been stored: the
// API server never answered it (a transport error) or answered that it
// timed out.
func ambiguous(err error) bool {
	var st kerrors.APIStatus
	if !errors.As(err, &st) {
		return true
	}
	return kerrors.IsTimeout(err) || kerrors.IsServerTimeout(err)
}

// remember records that the Ready transition to ready was sent in a write
// computed from resourceVersion whose outcome is unknown.
func (u *Unheard) remember(uid types.UID, resourceVersion string, ready xpv2.Condition) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.m[uid] = unheard{resourceVersion: resourceVersion, ready: ready}
}

// forget drops what is remembered of uid: a later write's own outcome is
// known and announces itself.
func (u *Unheard) forget(uid types.UID) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.m, uid)
}

// settle looks at an object as a reconcile read it. When it is newer than
// the one an unheard write was computed from, the outcome is known: settle
// forgets the write and returns its Ready when that is what the object
// holds (the write was stored, and is to be announced now). Any newer
// object tells: the write carried the optimistic lock, so it was either the
// first write after the one it was computed from, or refused. An older one,
// as a lagging cache serves it, tells nothing.
func (u *Unheard) settle(uid types.UID, resourceVersion string, conds []xpv2.Condition) (xpv2.Condition, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	w, ok := u.m[uid]
	if !ok || !newer(resourceVersion, w.resourceVersion) {
		return xpv2.Condition{}, false
	}
	delete(u.m, uid)
	now := Find(conds, xpv2.TypeReady)
	if now == nil || now.Status != w.ready.Status || now.Reason != w.ready.Reason {
		return xpv2.Condition{}, false
	}
	return *now, true
}

// newer reports whether resource version a is later than b. Versions the
// API server does not give as comparable integers are never newer: the
// write stays unheard until a write of the session's own settles it.
func newer(a, b string) bool {
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c > 0
}
