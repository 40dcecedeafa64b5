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
	"errors"
	"fmt"
	"time"
)

const errRefreshCtx = "gave up waiting for a fetch"

// fetchCall is one fetch shared by every caller that joins it.
type fetchCall struct {
	started  time.Time
	branches map[string]bool
	done     chan struct{}
	err      error // set before done is closed
}

// Refresh fetches the branches in use (those named here or read or written
// before) unless a fetch that started at most maxAge ago covered them.
// Concurrent callers share one in-flight fetch, so N resources polling one
// repository cost about one fetch per poll, not N.
func (r *Repository) Refresh(ctx context.Context, maxAge time.Duration, branches ...string) error {
	if err := r.begin(); err != nil {
		return err
	}
	defer r.end()
	for {
		r.rmu.Lock()
		for _, b := range branches {
			r.used[b] = true
		}
		now := time.Now()
		if !r.lastFetch.IsZero() && now.Sub(r.lastFetch) <= maxAge && covers(r.lastFetched, branches) {
			r.rmu.Unlock()
			return nil
		}
		c := r.inflight
		if c == nil {
			c = r.startFetchLocked(now) //nolint:contextcheck // shared: the fetch runs on the cache's context, not on the caller's
			r.rmu.Unlock()
			return wait(ctx, c)
		}
		joinable := now.Sub(c.started) <= maxAge && covers(c.branches, branches)
		r.rmu.Unlock()
		if joinable {
			return wait(ctx, c)
		}
		// The fetch in flight is too old or misses a branch: let it finish,
		// then start the next one (which other late callers will share).
		if err := wait(ctx, c); err != nil && ctx.Err() != nil {
			return err
		}
	}
}

// fetchNow fetches the branches in use, sharing only a fetch that starts
// after the call: used after a rejected push, when older data is useless.
func (r *Repository) fetchNow(ctx context.Context, branch string) error {
	return r.Refresh(ctx, 0, branch)
}

// startFetchLocked starts a fetch of every branch in use and records it as
// the one in flight. Call it with r.rmu held; the fetch itself runs without
// it.
func (r *Repository) startFetchLocked(now time.Time) *fetchCall {
	c := &fetchCall{started: now, branches: make(map[string]bool, len(r.used)), done: make(chan struct{})}
	for b := range r.used {
		c.branches[b] = true
	}
	r.inflight = c
	// The fetch is shared, so it must not die with the caller that happened
	// to start it: it runs on the cache's context with its own timeout, and
	// holds the clone until it is done.
	r.hold()
	r.cache.work.start(func() {
		ctx, cancel := context.WithTimeout(r.cache.ctx, r.cache.opts.FetchTimeout)
		defer cancel()
		branches := make([]string, 0, len(c.branches))
		for b := range c.branches {
			branches = append(branches, b)
		}
		if c.err = ctx.Err(); c.err != nil {
			// The cache closed: nothing more is written under it.
			c.err = &Error{Kind: KindTransient, Err: errors.New(errCacheClosing)}
		} else {
			c.err = r.fetch(ctx, branches)
		}
		r.rmu.Lock()
		r.inflight = nil
		if c.err == nil {
			r.lastFetch, r.lastFetched = c.started, c.branches
		}
		r.rmu.Unlock()
		r.end() // before done: whoever waits sees the clone as used until now
		close(c.done)
	})
	return c
}

// wait returns the result of c, or a transient error when ctx ends first
// (the fetch goes on for the others sharing it).
func wait(ctx context.Context, c *fetchCall) error {
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return &Error{Kind: KindTransient, Err: fmt.Errorf("%s: %w", errRefreshCtx, ctx.Err())}
	}
}

// covers reports whether have holds every branch in want.
func covers(have map[string]bool, want []string) bool {
	for _, b := range want {
		if !have[b] {
			return false
		}
	}
	return true
}
