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
	"io"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/go-git/go-billy/v5/osfs"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

const (
	errInitRepo   = "cannot initialise local clone"
	errTransport  = "cannot create Git transport"
	errResolve    = "cannot resolve commit"
	errReadTree   = "cannot read tree"
	errReadBlob   = "cannot read blob"
	errNotDir     = "path is not a directory"
	errBadSHA     = "not a commit SHA"
	errNoBranch   = "branch does not exist on the remote (or was never refreshed)"
	errWalk       = "cannot walk history"
	errAncestor   = "cannot compute ancestry"
	errRefreshCtx = "gave up waiting for a fetch"
)

// Repository is the local clone of one remote identity, shared by every
// resource that uses it. Reads never touch the network; Refresh and the
// branch writers do. Safe for concurrent use.
type Repository struct {
	cache *Cache
	conn  *connection
	tr    transport.Transport
	dir   string

	// mu serialises every use of st: go-git's filesystem storage lazily
	// fills unguarded maps and is not safe for concurrent use. Network I/O
	// happens outside it.
	mu sync.Mutex
	st *filesystem.Storage
	// pushedAt is when we last moved a branch by pushing; a fetch that
	// started earlier must not move the local ref back.
	pushedAt map[string]time.Time
	// unreferenced counts fetched packs stored but not yet reachable from
	// a ref; compaction waits for it to drop to zero.
	unreferenced int

	rmu         sync.Mutex
	used        map[string]bool // branches resources named; the only ones fetched
	inflight    *fetchCall
	lastFetch   time.Time // start of the newest successful fetch
	lastFetched map[string]bool

	wmu     sync.Mutex
	writers map[string]*writer

	// window overrides the cache's commit window for this repository;
	// negative means the cache's. Its configuration (a ProviderConfig) owns it.
	window atomic.Int64
}

// SetCommitWindow sets how long this repository's branch writers collect
// changes before they commit and push them together (0: only what arrives
// together). It applies from the next window that opens.
func (r *Repository) SetCommitWindow(d time.Duration) { r.window.Store(max(int64(d), 0)) }

func (r *Repository) commitWindow() time.Duration {
	if d := r.window.Load(); d >= 0 {
		return time.Duration(d)
	}
	return r.cache.opts.CommitWindow
}

type fetchCall struct {
	started  time.Time
	branches map[string]bool
	done     chan struct{}
	err      error
}

// objectCacheSize bounds each clone's decoded-object cache. go-git's default
// is 96 MiB per repository, which a provider serving a few dozen repositories
// (or whose credentials rotate, each rotation opening a clone) cannot afford;
// the objects reconciles read again are trees and small blobs.
const objectCacheSize = 16 * cache.MiByte

func openRepository(c *Cache, r Remote, dir string) (*Repository, error) {
	conn, err := connect(r, c.dir)
	if err != nil {
		return nil, err
	}
	tr, err := client.NewClient(conn.ep)
	if err != nil {
		return nil, &Error{Kind: KindInvalid, Err: errors.Wrap(err, errTransport)}
	}
	// ExclusiveAccess: this process is the only user of dir, so go-git may
	// cache packfile indexes instead of re-reading them.
	st := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(objectCacheSize), filesystem.Options{})
	if _, err := gogit.Init(st, nil); err != nil && !errors.Is(err, gogit.ErrRepositoryAlreadyExists) {
		return nil, errors.Wrap(err, errInitRepo)
	}
	repo := &Repository{
		cache: c, conn: conn, tr: tr, dir: dir, st: st,
		used: map[string]bool{}, writers: map[string]*writer{}, pushedAt: map[string]time.Time{},
	}
	repo.window.Store(-1)
	return repo, nil
}

// Host is the remote's host name, as used in metric labels.
func (r *Repository) Host() string { return r.conn.host }

func branchRef(branch string) plumbing.ReferenceName { return plumbing.NewBranchReferenceName(branch) }

// Head returns the commit SHA of branch as of the last Refresh or push. It
// does not touch the network; a branch never refreshed is KindBranchNotFound.
func (r *Repository) Head(branch string) (string, error) {
	r.track(branch)
	h, err := r.head(branch)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

func (r *Repository) head(branch string) (plumbing.Hash, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.headLocked(branch)
}

func (r *Repository) headLocked(branch string) (plumbing.Hash, error) {
	ref, err := r.st.Reference(branchRef(branch))
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, &Error{Kind: KindBranchNotFound, Err: errors.Errorf("%s: %s", errNoBranch, branch)}
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return ref.Hash(), nil
}

func (r *Repository) track(branches ...string) {
	r.rmu.Lock()
	defer r.rmu.Unlock()
	for _, b := range branches {
		r.used[b] = true
	}
}

// Blob is a file as a commit holds it.
type Blob struct {
	Content    []byte
	Executable bool
	// SHA is the blob's object id, equal to `git hash-object` of Content.
	SHA string
}

// Entry is one entry of a directory listing.
type Entry struct {
	Name  string
	Path  string
	IsDir bool
	// Executable is set for files with mode 100755.
	Executable bool
	SHA        string
}

func parseSHA(sha string) (plumbing.Hash, error) {
	if !plumbing.IsHash(sha) {
		return plumbing.ZeroHash, &Error{Kind: KindInvalid, Err: errors.Errorf("%s: %q", errBadSHA, sha)}
	}
	return plumbing.NewHash(sha), nil
}

func (r *Repository) treeAt(commit string) (*object.Tree, error) {
	h, err := parseSHA(commit)
	if err != nil {
		return nil, err
	}
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		return nil, errors.Wrapf(err, "%s %s", errResolve, commit)
	}
	t, err := c.Tree()
	return t, errors.Wrap(err, errReadTree)
}

// ReadFile returns the file at p in commit, or an error wrapping
// ErrNotExist. It does not touch the network.
func (r *Repository) ReadFile(commit, p string) (Blob, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, err := r.treeAt(commit)
	if err != nil {
		return Blob{}, err
	}
	e, err := t.FindEntry(strings.Trim(p, "/"))
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) || (err == nil && !e.Mode.IsFile()) {
		return Blob{}, errors.Wrap(ErrNotExist, p)
	}
	if err != nil {
		return Blob{}, errors.Wrap(err, errReadTree)
	}
	b, err := object.GetBlob(r.st, e.Hash)
	if err != nil {
		return Blob{}, errors.Wrap(err, errReadBlob)
	}
	rd, err := b.Reader()
	if err != nil {
		return Blob{}, errors.Wrap(err, errReadBlob)
	}
	defer rd.Close() //nolint:errcheck // read-only
	content := make([]byte, b.Size)
	if _, err := io.ReadFull(rd, content); err != nil {
		return Blob{}, errors.Wrap(err, errReadBlob)
	}
	return Blob{Content: content, Executable: e.Mode == filemode.Executable, SHA: e.Hash.String()}, nil
}

// ListDir lists the directory dir ("" for the root) in commit, sorted by
// name. A missing directory is an error wrapping ErrNotExist.
func (r *Repository) ListDir(commit, dir string) ([]Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, err := r.treeAt(commit)
	if err != nil {
		return nil, err
	}
	dir = strings.Trim(dir, "/")
	if dir != "" {
		sub, err := t.Tree(dir)
		if errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
			return nil, errors.Wrap(ErrNotExist, dir)
		}
		if err != nil {
			return nil, errors.Wrap(err, errNotDir)
		}
		t = sub
	}
	out := make([]Entry, 0, len(t.Entries))
	for _, e := range t.Entries {
		out = append(out, Entry{
			Name: e.Name, Path: path.Join(dir, e.Name), IsDir: e.Mode == filemode.Dir,
			Executable: e.Mode == filemode.Executable, SHA: e.Hash.String(),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// IsAncestor reports whether commit a is an ancestor of, or equal to,
// commit b. It does not touch the network.
func (r *Repository) IsAncestor(a, b string) (bool, error) {
	ha, err := parseSHA(a)
	if err != nil {
		return false, err
	}
	hb, err := parseSHA(b)
	if err != nil {
		return false, err
	}
	if ha == hb {
		return true, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ca, err := object.GetCommit(r.st, ha)
	if err != nil {
		return false, errors.Wrapf(err, "%s %s", errResolve, a)
	}
	cb, err := object.GetCommit(r.st, hb)
	if err != nil {
		return false, errors.Wrapf(err, "%s %s", errResolve, b)
	}
	ok, err := ca.IsAncestor(cb)
	return ok, errors.Wrap(err, errAncestor)
}

// Refresh fetches the branches in use (those named here or read or written
// before) unless a fetch that started at most maxAge ago covered them.
// Concurrent callers share one in-flight fetch, so N resources polling one
// repository cost about one fetch per poll, not N.
func (r *Repository) Refresh(ctx context.Context, maxAge time.Duration, branches ...string) error {
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
			c = r.startFetchLocked(now)
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

func (r *Repository) startFetchLocked(now time.Time) *fetchCall {
	c := &fetchCall{started: now, branches: make(map[string]bool, len(r.used)), done: make(chan struct{})}
	for b := range r.used {
		c.branches[b] = true
	}
	r.inflight = c
	// The fetch is shared, so it must not die with the caller that happened
	// to start it: it runs on the cache's context with its own timeout.
	go func() {
		ctx, cancel := context.WithTimeout(r.cache.ctx, r.cache.opts.FetchTimeout)
		defer cancel()
		branches := make([]string, 0, len(c.branches))
		for b := range c.branches {
			branches = append(branches, b)
		}
		c.err = r.fetch(ctx, branches)
		r.rmu.Lock()
		r.inflight = nil
		if c.err == nil {
			r.lastFetch, r.lastFetched = c.started, c.branches
		}
		r.rmu.Unlock()
		close(c.done)
	}()
	return c
}

func wait(ctx context.Context, c *fetchCall) error {
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return &Error{Kind: KindTransient, Err: errors.Wrap(ctx.Err(), errRefreshCtx)}
	}
}

func covers(have map[string]bool, want []string) bool {
	for _, b := range want {
		if !have[b] {
			return false
		}
	}
	return true
}

// Commit is a commit found in history.
type Commit struct {
	SHA     string
	Message string
	Time    time.Time
}

// FindCommitByUID returns the newest commit on branch, within maxWalk
// commits of its head, whose trailers name the resource uid. A restarted
// provider uses it to recognise a change it pushed but never recorded.
func (r *Repository) FindCommitByUID(branch, uid string, maxWalk int) (Commit, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.headLocked(branch)
	if err != nil {
		return Commit{}, false, err
	}
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		return Commit{}, false, errors.Wrap(err, errWalk)
	}
	// History we write is linear; first-parent order is newest first.
	for i := 0; i < maxWalk && c != nil; i++ {
		for _, v := range trailerValues(c.Message, TrailerUID) {
			if v == uid {
				return Commit{SHA: c.Hash.String(), Message: c.Message, Time: c.Committer.When}, true, nil
			}
		}
		if c.NumParents() == 0 {
			break
		}
		if c, err = c.Parent(0); err != nil {
			return Commit{}, false, errors.Wrap(err, errWalk)
		}
	}
	return Commit{}, false, nil
}
