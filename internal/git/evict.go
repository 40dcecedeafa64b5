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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Idle eviction keeps the cache bounded: every configuration, and every
// credential rotation (the identity includes the credentials), opens a clone,
// and a clone holds its objects on disk and its caches in memory. A clone no
// operation has used for the idle timeout, with no fetch in flight and no
// write queued, is closed and its directory removed; the next resource that
// needs it opens (and fetches) it again. So a rotated credential's clone goes
// once nothing uses the old identity: resources reconnect with the new
// Secret, and the old clone turns idle.

const (
	errEvicted = "the clone was closed after going unused; it is opened again on the next use"

	// evictedPrefix names a clone directory on its way out: renamed under
	// the cache lock, removed outside it (a large clone takes a while), and
	// found again by the next sweep if the process died in between.
	evictedPrefix = ".evicted-"
	// minSweepInterval bounds how often the background sweep runs.
	minSweepInterval = time.Second
)

// begin marks an operation in flight, so the clone is not evicted under it.
// It fails, transiently, on a clone already evicted: whoever still holds it
// gets a fresh one from the cache on their next reconcile.
func (r *Repository) begin() error {
	r.lmu.Lock()
	defer r.lmu.Unlock()
	if r.closed {
		return newError(KindTransient, errEvicted)
	}
	r.users++
	r.lastUsed = r.cache.opts.Clock.Now()
	return nil
}

// hold marks a further user (a shared fetch, a branch writer's goroutine)
// started by an operation that has begun, so it cannot fail.
func (r *Repository) hold() {
	r.lmu.Lock()
	defer r.lmu.Unlock()
	r.users++
}

// end undoes begin or hold.
func (r *Repository) end() {
	r.lmu.Lock()
	defer r.lmu.Unlock()
	r.users--
	r.lastUsed = r.cache.opts.Clock.Now()
}

// touch records a use by the cache handing the clone out, unless it was
// evicted (then the cache opens a new one). Called with Cache.mu held.
func (r *Repository) touch() bool {
	r.lmu.Lock()
	defer r.lmu.Unlock()
	if r.closed {
		return false
	}
	r.lastUsed = r.cache.opts.Clock.Now()
	return true
}

// evictIfIdle closes the clone to new operations if none is in flight and
// none began within idle of now. Called with Cache.mu held.
func (r *Repository) evictIfIdle(now time.Time, idle time.Duration) bool {
	r.lmu.Lock()
	defer r.lmu.Unlock()
	if r.closed || r.users > 0 || now.Sub(r.lastUsed) < idle {
		return false
	}
	r.closed = true
	return true
}

// Sweep evicts the clones idle for the idle timeout, and removes clone
// directories an earlier process left that nothing opened since; it returns
// how many clones it removed. It runs in the background every quarter of the
// idle timeout.
func (c *Cache) Sweep() int {
	idle := c.opts.IdleTimeout
	if idle <= 0 {
		return 0
	}
	now := c.opts.Clock.Now()
	var gone []string
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return 0
	}
	for id, r := range c.repos {
		if !r.evictIfIdle(now, idle) {
			continue
		}
		delete(c.repos, id)
		r.closeStorage()
		c.releaseAppTokens(r.conn.app)
		if d, err := c.tombstone(r.dir); err == nil {
			gone = append(gone, d)
		}
	}
	c.opts.Metrics.openClones(len(c.repos))
	if now.Sub(c.started) >= idle {
		for _, d := range c.staleLocked() {
			if !slices.Contains(gone, d) {
				gone = append(gone, d)
			}
		}
	}
	c.mu.Unlock()
	n := 0
	for _, d := range gone {
		if os.RemoveAll(d) == nil {
			n++
		}
	}
	return n
}

func (c *Cache) sweepEvery(d time.Duration) {
	t := time.NewTicker(max(d, minSweepInterval))
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
			c.Sweep()
		}
	}
}

// closeStorage releases the clone's storage, and gives its share of the
// memory budget back; nothing uses it any more.
func (r *Repository) closeStorage() {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.st.Close() // the directory goes next; nothing to flush
	r.trees.share.release()
}

// tombstone renames a clone directory out of the way, so a clone of the
// same identity opened right after starts afresh.
func (c *Cache) tombstone(dir string) (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	to := filepath.Join(c.dir, evictedPrefix+filepath.Base(dir)+"-"+hex.EncodeToString(b))
	if err := os.Rename(dir, to); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	return to, nil
}

// staleLocked returns the directories to remove that no clone of this
// process owns: clones of identities nothing opened since the cache
// started, and tombstones a crash left behind. Call it with Cache.mu held.
func (c *Cache) staleLocked() []string {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return nil
	}
	var stale []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case !e.IsDir():
		case strings.HasPrefix(name, evictedPrefix):
			stale = append(stale, filepath.Join(c.dir, name))
		case isIdentity(name) && c.repos[name] == nil:
			if d, err := c.tombstone(filepath.Join(c.dir, name)); err == nil {
				stale = append(stale, d)
			}
		}
	}
	return stale
}

// isIdentity reports whether name is a clone directory's: Remote.identity's
// 32 hex digits.
func isIdentity(name string) bool {
	if len(name) != 32 {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil
}
