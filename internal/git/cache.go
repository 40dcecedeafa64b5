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

// Package git is provider-git's Git engine: one shared local clone per remote
// identity, reads from it (the network only for a partial clone's blob not
// fetched yet), coalesced fetches, and a batched, race-proof writer per
// branch that never force-pushes.
package git

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing/cache"
	"k8s.io/utils/clock"
)

const (
	errCacheDir    = "cannot create cache directory"
	errIdentityKey = "cannot read or create the cache identity key"
	errClosed      = "git cache is closed"
	errMemory      = "the clones' memory budget must be positive"
)

// Defaults. A clone idle for ten minutes is one no resource polls (the
// default poll is a minute) and no write or fetch uses. The commit window
// matches the ProviderConfig default (1s); the
// batch cap keeps one push well under a second on the measured 2-core box
// (1,000 files: 1.2–1.8 s with the CLI); timeouts are generous for hosted
// forges, where a fetch of a large repository can take tens of seconds.
const (
	DefaultIdleTimeout     = 10 * time.Minute
	DefaultCommitWindow    = time.Second
	DefaultMaxBatch        = 1000
	DefaultFetchTimeout    = 2 * time.Minute
	DefaultPushTimeout     = 2 * time.Minute
	DefaultMaxPushAttempts = 8
	DefaultRetryBackoff    = 50 * time.Millisecond
)

// Signature names an author or committer.
type Signature struct {
	Name  string
	Email string
}

// Options configure a Cache.
type Options struct {
	// CommitWindow is how long a writer collects changes before it commits
	// them together.
	CommitWindow time.Duration
	// MaxBatch caps the number of changes in one push.
	MaxBatch int
	// FetchTimeout and PushTimeout bound one fetch and one push.
	FetchTimeout time.Duration
	PushTimeout  time.Duration
	// MaxPushAttempts is how many times a batch is pushed before a contended
	// branch is reported; RetryBackoff is the base of the jittered
	// exponential backoff between attempts.
	MaxPushAttempts int
	RetryBackoff    time.Duration
	// Committer of every commit, and author of commits that merge changes
	// of several authors.
	Committer Signature
	// Metrics records the engine's metrics; nil records none.
	Metrics *Metrics
	// IdleTimeout is how long a clone no operation, fetch or queued write
	// uses stays open; then it is closed and its directory removed. 0 keeps
	// every clone.
	IdleTimeout time.Duration
	// CloneMemory is the budget, in bytes, of the object and tree caches
	// of all clones together (memory.go).
	CloneMemory int64
	// Proxy chooses the proxy of an HTTP(S) request, as http.Transport's
	// Proxy does; nil: ProxyFromEnvironment.
	Proxy func(*http.Request) (*url.URL, error)

	// Clock is what commit windows and idle eviction go by; nil: the real
	// clock. Tests step a fake one to make timing exact.
	Clock clock.Clock

	// Fence, when set, is asked before every push (fence.go).
	Fence Fence
	// UserAgent, when set, is every HTTP(S) request's User-Agent.
	UserAgent string
	// CommitAPI opens the forge API of a Remote that commits through one
	// (viaapi.go); nil refuses such a Remote.
	CommitAPI CommitAPIOpener
	// HistoryDepth is how many commits down each branch a fetch brings
	// (shallow.go); <= 0: the whole history.
	HistoryDepth int

	// sleep waits between push attempts; tests replace it to observe the
	// backoff without waiting for it.
	sleep func(ctx context.Context, d time.Duration) error
}

// Option changes Options.
type Option func(*Options)

// WithCommitWindow sets how long a writer collects changes before it
// commits them together.
func WithCommitWindow(d time.Duration) Option { return func(o *Options) { o.CommitWindow = d } }

// WithClock sets the clock commit windows and idle eviction go by.
func WithClock(c clock.Clock) Option { return func(o *Options) { o.Clock = c } }

// WithProxy sets how HTTP(S) requests choose their proxy (see Options.Proxy).
func WithProxy(p func(*http.Request) (*url.URL, error)) Option {
	return func(o *Options) { o.Proxy = p }
}

// WithIdleTimeout sets how long an unused clone stays open (0: forever).
func WithIdleTimeout(d time.Duration) Option { return func(o *Options) { o.IdleTimeout = d } }

// WithCloneMemory sets the budget, in bytes, of the object and tree caches
// of all clones together.
func WithCloneMemory(bytes int64) Option { return func(o *Options) { o.CloneMemory = bytes } }

// WithMetrics records metrics on m.
func WithMetrics(m *Metrics) Option { return func(o *Options) { o.Metrics = m } }

// Cache holds one Repository per remote identity under a directory. It is
// safe for concurrent use; share one per process.
type Cache struct {
	dir  string
	key  []byte
	opts Options

	// ctx outlives every caller: shared fetches and branch writers run on
	// it, and Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	// started is when this process opened the cache: a clone directory left
	// by an earlier process that nothing opened for an idle timeout since
	// is stale (its credentials rotated, its configuration went away).
	started time.Time

	// memory is the budget every clone's caches draw from.
	memory *memoryBudget

	mu     sync.Mutex
	repos  map[string]*Repository
	closed bool
	// apps holds one token source per GitHub App installation and CA
	// bundle (githubapp.go): an installation token serves every repository
	// the installation reaches, so clones of several repositories, or a
	// clone reopened after its URL changed, share one token instead of each
	// minting its own. A source lives as long as a clone uses it.
	appsMu sync.Mutex
	apps   map[string]*appTokens

	// pending counts enqueued changes whose done is still to come.
	pending atomic.Int64

	// hmu guards onMove, the functions told of every head move (heads.go).
	// A leaf: nothing is taken under it.
	hmu    sync.Mutex
	onMove []func(HeadMove)

	// work counts the goroutines the cache started (workers.go).
	work workers
}

// NewCache opens (creating if needed) a cache under dir.
func NewCache(dir string, opts ...Option) (*Cache, error) {
	o := Options{
		CommitWindow:    DefaultCommitWindow,
		MaxBatch:        DefaultMaxBatch,
		FetchTimeout:    DefaultFetchTimeout,
		PushTimeout:     DefaultPushTimeout,
		MaxPushAttempts: DefaultMaxPushAttempts,
		RetryBackoff:    DefaultRetryBackoff,
		Committer:       Signature{Name: "provider-git", Email: "provider-git@crossplane.io"},
		IdleTimeout:     DefaultIdleTimeout,
		HistoryDepth:    DefaultHistoryDepth,
		CloneMemory:     DefaultCloneMemory,
		sleep:           sleep,
		Clock:           clock.RealClock{},
	}
	for _, fn := range opts {
		fn(&o)
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.CloneMemory <= 0 {
		return nil, fmt.Errorf("%s, not %d", errMemory, o.CloneMemory)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%s: %w", errCacheDir, err)
	}
	key, err := identityKey(filepath.Join(dir, ".identity-key"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errIdentityKey, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Cache{dir: dir, key: key, opts: o, ctx: ctx, cancel: cancel, started: o.Clock.Now(), repos: map[string]*Repository{},
		memory: newMemoryBudget(cache.FileSize(o.CloneMemory), o.Metrics)}
	c.work.init()
	if o.IdleTimeout > 0 {
		c.work.start(func() { c.sweepEvery(o.IdleTimeout / 4) })
	}
	return c, nil
}

// identityKey returns the cache's HMAC key, creating it on first use. It
// survives restarts so a restarted provider finds its clones again.
func identityKey(path string) ([]byte, error) {
	if b, err := os.ReadFile(path); err == nil && len(b) == 32 { //nolint:gosec // path is the key file under the cache's own directory
		return b, nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return b, os.WriteFile(path, b, 0o600)
}

// IdentityOf is the id of the clone r opens (Repository.ID), without
// opening it.
func (c *Cache) IdentityOf(r Remote) string { return r.identity(c.key) }

// Repository returns the cache entry for r, opening or creating its local
// clone. It does not touch the network.
func (c *Cache) Repository(r Remote) (*Repository, error) {
	id := r.identity(c.key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New(errClosed)
	}
	if repo, ok := c.repos[id]; ok && repo.touch() {
		return repo, nil
	}
	repo, err := openRepository(c, r, filepath.Join(c.dir, id))
	if err != nil {
		return nil, err
	}
	repo.lastUsed = c.opts.Clock.Now()
	c.repos[id] = repo
	c.opts.Metrics.openClones(len(c.repos))
	return repo, nil
}

// Memory is what the clones of the cache hold in memory now.
type Memory struct {
	// CacheBytes is what their object and tree caches hold together, and
	// IndexBytes what their pack indexes are charged: together at most
	// CacheBudget, unless the indexes alone take more.
	CacheBytes, IndexBytes, CacheBudget int64
	// Clones is how many are open.
	Clones int
}

// Memory returns what the clones hold in memory now.
func (c *Cache) Memory() Memory {
	c.mu.Lock()
	n := len(c.repos)
	c.mu.Unlock()
	caches, indexes := c.memory.inUse()
	return Memory{CacheBytes: caches, IndexBytes: indexes, CacheBudget: c.memory.max, Clones: n}
}

// closeWait bounds how long Close waits for the goroutines it cancelled: a
// transport that does not honour the cancellation must not hold a
// provider's shutdown past Kubernetes' default grace period (30s).
const closeWait = 20 * time.Second

// Close cancels in-flight fetches and pushes (callers waiting on them get
// an error) and returns once the goroutines that ran them ended, so nothing
// writes under the cache's directory after it, or after closeWait by the
// cache's clock. The directory stays for the next process.
func (c *Cache) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	ended := make(chan struct{})
	go func() {
		c.work.wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-c.opts.Clock.After(closeWait):
	}
}
