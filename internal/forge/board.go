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

package forge

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

const errList = "cannot list the open pull requests"

// idleListings is how many poll intervals a repository's listing outlives
// its last use: a repository no PullRequest names any more is forgotten.
const idleListings = 10

// A Board shares one list of a repository's open pull requests among every
// PullRequest of that repository: a poll of 100 PullRequests on one
// repository costs one list request (answered 304 on a forge with ETags),
// not 100.
type Board struct {
	clock clock.PassiveClock

	mu       sync.Mutex
	listings map[string]*Listing
	swept    time.Time
}

// NewBoard returns a Board reading time from c.
func NewBoard(c clock.PassiveClock) *Board {
	return &Board{clock: c, listings: map[string]*Listing{}}
}

// For returns the listing of the repository key names (its URL and the
// forge credentials that reach it), listing through c; clone is the id of
// the Git clone its PullRequests read, by which forge events reach it
// (Invalidate). The client of the first caller is kept until the listing
// is forgotten: clients of one key reach the same repository with the same
// credentials.
func (b *Board) For(key, clone string, c Client, maxAge time.Duration) *Listing {
	now := b.clock.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Sub(b.swept) >= time.Minute {
		b.swept = now
		for k, l := range b.listings {
			if k != key && l.idleSince(now) > idleListings*l.maxAgeSeen() {
				delete(b.listings, k)
			}
		}
	}
	l, ok := b.listings[key]
	if !ok {
		l = &Listing{clock: b.clock, client: c, lock: make(chan struct{}, 1), clone: clone}
		b.listings[key] = l
	}
	l.touch(now, maxAge)
	return l
}

// Forget drops the listing of key (its credentials rotated): the client it
// lists through is not used again.
func (b *Board) Forget(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.listings, key)
}

// Invalidate makes every listing read through the clone id list again at
// its next use: a forge event reached that clone's configuration and said
// one of its pull requests changed. It returns how many it invalidated.
func (b *Board) Invalidate(clone string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, l := range b.listings {
		if clone != "" && l.clone == clone {
			l.invalidateByEvent()
			n++
		}
	}
	return n
}

// Len is how many repositories the Board lists.
func (b *Board) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.listings)
}

// A Listing is one repository's open pull requests as last listed.
type Listing struct {
	clock  clock.PassiveClock
	client Client
	// clone is the id of the clone its PullRequests read, for
	// Board.Invalidate.
	clone string
	// lock serializes lists, so concurrent callers coalesce into one
	// request; a channel so that waiting honours the caller's context.
	lock chan struct{}

	mu       sync.Mutex
	listed   time.Time
	valid    bool
	prs      []PullRequest
	lastUsed time.Time
	maxAge   time.Duration
	// While a list is in flight, what callers recorded or invalidated meanwhile:
	// the forge's answer may predate it, so it is applied again on top.
	inflight bool
	during   []PullRequest
	dirty    bool
	// byEvent: a forge event invalidated the list; it is listed again no
	// sooner than EventRelist after the last list.
	byEvent bool
}

// EventRelist is the least time between two lists a burst of forge events
// asks for: a hundred events in a second cost one list more, not a hundred.
const EventRelist = time.Second

func (l *Listing) touch(now time.Time, maxAge time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lastUsed = now
	l.maxAge = max(l.maxAge, maxAge)
}

func (l *Listing) idleSince(now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return now.Sub(l.lastUsed)
}

func (l *Listing) maxAgeSeen() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(l.maxAge, time.Minute)
}

// fresh returns the list when it was taken less than maxAge ago.
func (l *Listing) fresh(maxAge time.Duration) ([]PullRequest, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.valid || l.clock.Since(l.listed) >= maxAge {
		return nil, false
	}
	return l.prs, true
}

// Open returns the repository's open pull requests, listed at most once
// per maxAge however many callers ask. The slice is shared: callers must not
// change it.
func (l *Listing) Open(ctx context.Context, maxAge time.Duration) ([]PullRequest, error) {
	if prs, ok := l.fresh(maxAge); ok {
		return prs, nil
	}
	select {
	case l.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", errList, ctx.Err())
	}
	defer func() { <-l.lock }()
	// Another caller may have listed while this one waited.
	if prs, ok := l.fresh(maxAge); ok {
		return prs, nil
	}
	if err := l.spaced(ctx); err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.inflight, l.during, l.dirty = true, nil, false
	l.mu.Unlock()
	prs, notModified, err := l.client.ListOpen(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	during, dirty := l.during, l.dirty
	l.inflight, l.during, l.dirty = false, nil, false
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errList, err)
	}
	if !notModified || !l.valid {
		l.prs = prs
	}
	for _, pr := range during {
		l.prs = recorded(l.prs, pr)
	}
	// Invalidated while listing: this answer may predate what the caller
	// changed, so it serves this caller and the next Open lists again.
	l.listed, l.valid = l.clock.Now(), !dirty
	return l.prs, nil
}

// Find returns the open pull request from head of this repository into
// base, if any. A fork's pull request of a branch of the same name is
// never found: anyone may open one.
func (l *Listing) Find(ctx context.Context, maxAge time.Duration, head, base string) (PullRequest, bool, error) {
	prs, err := l.Open(ctx, maxAge)
	if err != nil {
		return PullRequest{}, false, err
	}
	for _, pr := range prs {
		if pr.Head == head && pr.Base == base && pr.HeadInRepo {
			return pr, true, nil
		}
	}
	return PullRequest{}, false, nil
}

// Forks returns the open pull requests from a fork's branch named head
// into base: never adopted, named when the forge refuses a create for them.
func (l *Listing) Forks(ctx context.Context, maxAge time.Duration, head, base string) ([]PullRequest, error) {
	prs, err := l.Open(ctx, maxAge)
	if err != nil {
		return nil, err
	}
	var out []PullRequest
	for _, pr := range prs {
		if pr.Head == head && pr.Base == base && !pr.HeadInRepo {
			out = append(out, pr)
		}
	}
	return out, nil
}

// Number returns the open pull request numbered n, if the last list holds
// it (listing when the list is older than maxAge).
func (l *Listing) Number(ctx context.Context, maxAge time.Duration, n int64) (PullRequest, bool, error) {
	prs, err := l.Open(ctx, maxAge)
	if err != nil {
		return PullRequest{}, false, err
	}
	for _, pr := range prs {
		if pr.Number == n {
			return pr, true, nil
		}
	}
	return PullRequest{}, false, nil
}

// Record puts pr, just created or changed by the caller, into the list in
// place of its old entry (or drops it once it is no longer open), so the
// next poll does not see a stale list before the forge's next answer; a
// list in flight, whose answer may predate pr, gets it too.
func (l *Listing) Record(pr PullRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inflight {
		l.during = append(l.during, pr)
	}
	if l.valid {
		l.prs = recorded(l.prs, pr)
	}
}

// recorded returns prs with pr in place of its old entry, or without it
// once it is no longer open. prs is shared with callers: a new slice.
func recorded(prs []PullRequest, pr PullRequest) []PullRequest {
	out := make([]PullRequest, 0, len(prs)+1)
	for _, p := range prs {
		if p.Number != pr.Number {
			out = append(out, p)
		}
	}
	if pr.State == StateOpen {
		out = append(out, pr)
	}
	return out
}

// invalidateByEvent makes the next Open list again, no sooner than
// EventRelist after the last list.
func (l *Listing) invalidateByEvent() {
	l.mu.Lock()
	l.byEvent = true
	l.mu.Unlock()
	l.Invalidate()
}

// spaced waits, when an event invalidated the list, out what is left of
// EventRelist since the last list. It is real time, as a forge's rate is:
// the list is the forge request being spaced.
func (l *Listing) spaced(ctx context.Context) error {
	l.mu.Lock()
	wait := time.Duration(0)
	if l.byEvent && !l.listed.IsZero() {
		wait = EventRelist - l.clock.Since(l.listed)
	}
	l.mu.Unlock()
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", errList, ctx.Err())
		}
	}
	l.mu.Lock()
	l.byEvent = false
	l.mu.Unlock()
	return nil
}

// Invalidate makes the next Open list again.
func (l *Listing) Invalidate() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.valid = false
	if l.inflight {
		l.dirty = true
	}
}
