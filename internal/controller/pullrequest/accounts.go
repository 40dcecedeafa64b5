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

package pullrequest

import (
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// The Connector keeps one forge client per account (API URL, repository
// and credentials: the key), so its shared listing, pace and what it learnt
// (no auto-merge, auto-merge asked) outlive reconciles. The key names the
// credentials, so a rotated token is a new key and a new client from the
// next reconcile on; the old client is dropped then, unless another
// configuration still connects with it. A client no PullRequest connected
// through for idleAccounts poll intervals is dropped too: a configuration
// deleted, or every PullRequest of a repository gone.

// idleAccounts is how many poll intervals (at least a minute each) an
// account outlives its last use, as forge.Board keeps a listing.
const idleAccounts = 10

// configOf names the configuration mg connects through: a namespaced
// ProviderConfig is mg's namespace's.
func configOf(mg *v1alpha1.PullRequest) string {
	ref := mg.GetProviderConfigReference()
	if ref == nil {
		return ""
	}
	ns := ""
	if ref.Kind != v1alpha1.ClusterProviderConfigKind {
		ns = mg.GetNamespace()
	}
	return ref.Kind + "/" + ns + "/" + ref.Name
}

// account returns the client of key, opened once, which the configuration
// cfgID connects with now.
func (c *Connector) account(cfgID string, cfg forge.Config, key string) (*account, error) {
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweepLocked(now)
	if old, ok := c.keyOf[cfgID]; ok && old != key {
		// The configuration's credentials (or repository) changed.
		delete(c.keyOf, cfgID)
		if !c.usedLocked(old) {
			c.dropLocked(old)
		}
	}
	if a, ok := c.clients[key]; ok {
		c.keyOf[cfgID] = key
		a.lastUsed = now
		return a, nil
	}
	open, ok := c.forges[cfg.Type]
	if !ok {
		return nil, managed.Stalled(config.ReasonForgeUnknown, errors.Errorf(errNoOpenerFmt, cfg.Type))
	}
	cl, err := open(cfg)
	if err != nil {
		return nil, managed.Stalled(config.ReasonForgeUnknown, errors.Wrap(err, errOpen))
	}
	a := &account{client: cl, lastUsed: now}
	c.clients[key] = a
	c.keyOf[cfgID] = key
	return a, nil
}

// usedLocked reports whether a configuration connects with key.
func (c *Connector) usedLocked(key string) bool {
	for _, k := range c.keyOf {
		if k == key {
			return true
		}
	}
	return false
}

// dropLocked forgets the client of key and the listing it served.
func (c *Connector) dropLocked(key string) {
	delete(c.clients, key)
	c.board.Forget(key)
}

// sweepLocked drops, at most once a minute, the accounts unused for
// idleAccounts poll intervals, and the configurations' note of them.
func (c *Connector) sweepLocked(now time.Time) {
	if now.Sub(c.swept) < time.Minute {
		return
	}
	c.swept = now
	idle := idleAccounts * max(c.maxAge, time.Minute)
	for key, a := range c.clients {
		if now.Sub(a.lastUsed) <= idle {
			continue
		}
		c.dropLocked(key)
		for cfgID, k := range c.keyOf {
			if k == key {
				delete(c.keyOf, cfgID)
			}
		}
	}
}

// Accounts is how many forge clients the Connector keeps.
func (c *Connector) Accounts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.clients)
}
