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

package config

import (
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/internal/git"
)

// checks remembers, per configuration, the remote a successful check proved
// and when. Every new managed resource creates a usage, and every usage
// event reconciles its configuration: without this, a burst of 300 Files
// cost dozens of ls-remotes that could only repeat the last answer.
type checks struct {
	mu sync.Mutex
	m  map[types.NamespacedName]checked
}

type checked struct {
	generation int64
	remote     git.Remote
	at         time.Time
	// empty: the remote had no branch at all, which the Ready message says.
	empty bool
	// failed: a check since this one failed for a reason that may clear
	// by itself, and was not reported (tolerate).
	failed bool
}

// fresh reports whether the configuration was checked, at this generation and
// with these credentials, less than maxAge ago.
func (c *checks) fresh(key types.NamespacedName, generation int64, remote git.Remote, maxAge time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, ok := c.m[key]
	return ok && rec.generation == generation && time.Since(rec.at) < maxAge && reflect.DeepEqual(rec.remote, remote)
}

// empty reports whether the last remembered check found no branch at all.
func (c *checks) empty(key types.NamespacedName) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key].empty
}

// remember records a successful check. It runs after the status saying so
// was persisted (session.AfterPersist), so it never vouches for a verdict
// nobody can see.
func (c *checks) remember(key types.NamespacedName, generation int64, remote git.Remote, at time.Time, empty bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[types.NamespacedName]checked{}
	}
	c.m[key] = checked{generation: generation, remote: remote, at: at, empty: empty}
}

// tolerate reports whether a transient failure of the configuration's
// check is kept from its status: the first one after a good check is (a
// forge's 500 under load, a connection reset), so a configuration does
// not flap Ready at one lost request; the next in a row is reported.
func (c *checks) tolerate(key types.NamespacedName) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, ok := c.m[key]
	if !ok || rec.failed {
		delete(c.m, key)
		return false
	}
	rec.failed = true
	c.m[key] = rec
	return true
}

// forget drops what is known of a configuration: its check failed, or it is gone.
func (c *checks) forget(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}
