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

// Locking. Seven mutexes, each guarding only its own fields:
//
//   - Cache.mu: the cache's repositories and whether it is closed.
//   - Repository.lmu: whether the clone is in use or evicted (evict.go).
//   - Repository.mu: the clone's storage st (go-git's filesystem storage is
//     not safe for concurrent use), and pushedAt, announced, ownMoves,
//     ownMoved, polling, receiving and empty, which change with it. Reads, building a batch,
//     storing a pack, moving a local ref and compacting happen under it.
//   - Repository.rmu: fetch coalescing: the branches in use, the fetch in
//     flight and the newest completed one (fetch.go).
//   - Repository.wmu: the branch writers and the results of enqueued
//     changes not yet taken (async.go).
//   - writer.mu: one branch writer's queue and whether its goroutine runs.
//   - blobFetches.mu: a partial clone's batches of blobs and the paths
//     read (blobfetch.go).
//   - memoryBudget.mu: the caches of all clones (memory.go).
//
// The rule: none is held across network I/O (a fetch downloads, and a push
// uploads, with no lock held, and takes Repository.mu only to store what it
// got), and none is held while another is taken, so there is no lock order
// to get wrong and a slow server never blocks a read. The one exception is
// eviction, which takes Repository.lmu (a leaf) and then Repository.mu (of a
// clone nothing uses any more) under Cache.mu; and memoryBudget.mu, a leaf
// taken under Repository.mu by go-git's reads of the clone's cache.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

const (
	errInitRepo  = "cannot initialise local clone"
	errTransport = "cannot create Git transport"
	errResolve   = "cannot resolve commit"
	errReadTree  = "cannot read tree"
	errReadBlob  = "cannot read blob"
	errBadSHA    = "not a commit SHA"
	errNoBranch  = "branch does not exist on the remote (or was never refreshed)"
	errWalk      = "cannot walk history"
)

// Repository is the local clone of one remote identity, shared by every
// resource that uses it. Reads never touch the network, but for a partial
// clone's blob not fetched yet (blobfetch.go); Refresh and the branch
// writers do. Safe for concurrent use.
type Repository struct {
	cache *Cache
	conn  *connection
	tr    transport.Transport
	dir   string
	id    string
	// key is RepositoryKey of the URL: what a Fence is asked about.
	key string
	// signer signs every commit this clone makes; nil: unsigned.
	signer Signer
	// api, when set, creates the writers' commits through the forge's API
	// instead of pushing them (viaapi.go).
	api CommitAPI

	// mu guards st, trees, pushedAt, announced, ownMoves, ownMoved,
	// polling, receiving and empty (see Locking above).
	mu sync.Mutex
	st *filesystem.Storage
	// trees are decoded trees read again by ReadFile (trees.go).
	trees treeCache
	// pushedAt is when we last moved a branch by pushing; a fetch that
	// started earlier must not move the local ref back.
	pushedAt map[string]time.Time
	// announced is, per branch, the head Poll last reported (watch.go).
	announced map[string]plumbing.Hash
	// ownMoves numbers our own moves of branches (announceOwnLocked), and
	// ownMoved is, per branch, the number of the last: a Poll compares
	// no branch we moved after it began (watch.go).
	ownMoves uint64
	ownMoved map[string]uint64
	// polling counts the Polls running, by the ownMoves each began at: a
	// number no running Poll began before is no longer needed (pollEnded).
	polling map[uint64]int
	// receiving counts fetches between choosing their haves and setting
	// their refs: a thin pack they receive has deltas against what the
	// haves reach, and a pack they stored is reachable only once the refs
	// are set, so compaction, which drops what no ref reaches, waits for
	// it to drop to zero.
	receiving int
	// empty is set when the last fetch found no branch at all on the
	// remote: a freshly created repository, whose first write has no
	// parent to build on.
	empty bool

	// rmu guards fetch coalescing (fetch.go).
	rmu         sync.Mutex
	used        map[string]bool // branches resources named; the only ones fetched
	inflight    *fetchCall
	lastFetch   time.Time // start of the newest successful fetch
	lastFetched map[string]bool

	// amu guards the reference advertisement being asked for and the
	// latest one answered (advertised.go).
	amu    sync.Mutex
	asking *advert
	latest *advert

	// wmu guards writers, one per branch, and the results of enqueued
	// changes not yet taken (async.go).
	wmu     sync.Mutex
	writers map[string]*writer
	results map[string]Result

	// lmu guards users, lastUsed and closed: whether the clone may be
	// evicted (evict.go). It is a leaf: taken under Cache.mu, never the
	// other way round, and nothing is taken under it.
	lmu      sync.Mutex
	users    int       // operations, fetches and branch writers in flight
	lastUsed time.Time // by the cache's clock
	closed   bool      // evicted: no new operation starts

	// multiACK: the server requires multi_ack, which fetches then declare,
	// with thin-pack (multiack.go). Set from the host, or from the server's
	// first refusal.
	multiACK atomic.Bool

	// window overrides the cache's commit window for changes that name
	// none; negative means the cache's.
	window atomic.Int64

	// hist is how deep the clone's history reaches (shallow.go).
	hist history
	// partial: the clone is fetched without blobs, which reads fetch in
	// batches (partial.go, blobfetch.go); blobs has its own lock.
	partial atomic.Bool
	blobs   blobFetches
}

// SetCommitWindow sets how long this repository's branch writers collect
// changes that name no window of their own (0: only what arrives together).
// It applies from the next window that opens. Configurations sharing the
// clone set Change.Window instead (window.go).
func (r *Repository) SetCommitWindow(d time.Duration) { r.window.Store(max(int64(d), 0)) }

func (r *Repository) commitWindow() time.Duration {
	if d := r.window.Load(); d >= 0 {
		return time.Duration(d)
	}
	return r.cache.opts.CommitWindow
}

func openRepository(c *Cache, r Remote, dir string) (*Repository, error) {
	conn, err := connect(r, c.dir, func(a *AppInstallationAuth) (*appTokens, error) { return c.appTokens(a, r.CABundle) })
	if err != nil {
		return nil, err
	}
	repo, err := newRepository(c, r, dir, conn)
	if err != nil {
		// No clone uses the connection's token source after all.
		c.releaseAppTokens(conn.app)
	}
	return repo, err
}

func newRepository(c *Cache, r Remote, dir string, conn *connection) (*Repository, error) {
	tr, err := newTransport(conn, r, c.opts)
	if err != nil {
		return nil, &Error{Kind: KindInvalid, Err: fmt.Errorf("%s: %w", errTransport, err)}
	}
	// go-git's ExclusiveAccess option is left off: it only caches the
	// listings of the pack and loose-object directories. Reads find objects
	// through the pack indexes, which the storage keeps in memory either
	// way, and the one listing a push or fetch causes (compactLocked's) reads
	// at most maxPacks+1 names. Measured on two busy cores, five interleaved
	// runs each, without and with it: ReadFile median 164 and 188 µs, 1,000
	// batched changes median 1.12 and 1.10 s, both within the noise.
	// The clone's objects are cached within the memory budget every clone
	// of the cache shares (memory.go); go-git's default is 96 MiB for each.
	mem := c.memory.share()
	st := filesystem.NewStorageWithOptions(osfs.New(dir), mem, filesystem.Options{})
	if _, err := gogit.Init(st, nil); err != nil && !errors.Is(err, gogit.ErrRepositoryAlreadyExists) {
		return nil, fmt.Errorf("%s: %w", errInitRepo, err)
	}
	repo := &Repository{
		cache: c, conn: conn, tr: tr, dir: dir, st: st, id: filepath.Base(dir), signer: r.Signer, trees: treeCache{share: mem},
		used: map[string]bool{}, writers: map[string]*writer{}, results: map[string]Result{}, pushedAt: map[string]time.Time{},
		announced: map[string]plumbing.Hash{}, ownMoved: map[string]uint64{}, polling: map[uint64]int{},
	}
	// The URL was parsed by connect already; a key it cannot make is
	// the empty one, which a Fence holds like any other.
	repo.key, _ = RepositoryKey(r.URL)
	if repo.api, err = openAPI(c, r, conn); err != nil {
		mem.release()
		return nil, err
	}
	// The packs a previous process left: go-git reads their indexes at
	// the first read.
	mem.chargeIndex(packIndexCost(dir))
	repo.window.Store(-1)
	repo.multiACK.Store(requiresMultiACK(conn.host))
	repo.partial.Store(isPartial(dir))
	return repo, nil
}

func branchRef(branch string) plumbing.ReferenceName { return plumbing.NewBranchReferenceName(branch) }

// Head returns the commit SHA of branch as of the last Refresh or push. It
// does not touch the network; a branch never refreshed is KindBranchNotFound.
func (r *Repository) Head(branch string) (string, error) {
	if err := r.begin(); err != nil {
		return "", err
	}
	defer r.end()
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
		return plumbing.ZeroHash, &Error{Kind: KindBranchNotFound, Err: fmt.Errorf("%s: %s", errNoBranch, branch)}
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return ref.Hash(), nil
}

// Empty reports whether the remote had no branch at all when it was last
// fetched. A write to any branch of an empty repository creates the first
// commit; in a repository that has branches, a missing branch stays missing
// until a Branch creates it from the start point it names.
func (r *Repository) Empty() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.empty
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

func parseSHA(sha string) (plumbing.Hash, error) {
	if !plumbing.IsHash(sha) {
		return plumbing.ZeroHash, &Error{Kind: KindInvalidChange, Err: fmt.Errorf("%s: %q", errBadSHA, sha)}
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
		return nil, fmt.Errorf("%s %s: %w", errResolve, commit, err)
	}
	return r.trees.get(r.st, c.TreeHash)
}

// ReadFile returns the file at p in commit, or an error wrapping
// ErrNotExist. It does not touch the network, but in a partial clone for a
// blob not fetched yet: then it waits for a batch that brings it, each
// batch bounded by the fetch timeout (the one in flight, its own, and once
// more if the blob went meanwhile), and no longer than ctx: when ctx ends
// first it returns a transient error, and the batch goes on for the reads
// that share it. It reads the whole blob, whatever its size: content that
// will be parsed is read with ReadFileMax.
func (r *Repository) ReadFile(ctx context.Context, commit, p string) (Blob, error) {
	return r.readFile(ctx, commit, p, -1)
}

// readFile is ReadFile and ReadFileMax: limit < 0 reads any size. In a
// partial clone a blob not fetched yet is fetched (blobfetch.go).
func (r *Repository) readFile(ctx context.Context, commit, p string, limit int64) (Blob, error) {
	if err := r.begin(); err != nil {
		return Blob{}, err
	}
	defer r.end()
	if r.partial.Load() {
		r.blobs.noteRead(p)
	}
	b, absent, err := r.readFileOnce(commit, p, limit)
	for attempt := 0; !absent.IsZero() && attempt < blobFetchAttempts; attempt++ {
		ferr := r.fetchBlob(ctx, commit, p, absent)
		// Read again whatever the fetch said: the blob may have come in
		// another batch.
		b, absent, err = r.readFileOnce(commit, p, limit)
		if !absent.IsZero() && ferr != nil {
			return Blob{}, ferr
		}
	}
	if !absent.IsZero() {
		return Blob{}, fmt.Errorf("%s: %s of %s (%s)", errBlobNotSent, absent, p, commit)
	}
	return b, err
}

// readFileOnce reads p at commit from the clone; absent is the blob's hash
// when the clone does not hold it.
func (r *Repository) readFileOnce(commit, p string, limit int64) (_ Blob, absent plumbing.Hash, _ error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, err := r.treeAt(commit)
	if err != nil {
		return Blob{}, absent, err
	}
	e, err := r.findFileLocked(t, p)
	if err != nil {
		return Blob{}, absent, err
	}
	b, err := object.GetBlob(r.st, e.Hash)
	if errors.Is(err, plumbing.ErrObjectNotFound) && r.partial.Load() {
		absent = e.Hash
	}
	if err != nil {
		return Blob{}, absent, fmt.Errorf("%s: %w", errReadBlob, err)
	}
	if limit >= 0 && b.Size > limit {
		// Refused on the size the object header states, before a byte of
		// it is allocated.
		return Blob{Executable: e.Mode == filemode.Executable, SHA: e.Hash.String()}, absent, &TooLargeError{Path: p, Size: b.Size, Max: limit}
	}
	rd, err := b.Reader()
	if err != nil {
		return Blob{}, absent, fmt.Errorf("%s: %w", errReadBlob, err)
	}
	defer rd.Close() //nolint:errcheck // read-only: a failed Close loses nothing
	content := make([]byte, b.Size)
	if _, err := io.ReadFull(rd, content); err != nil {
		return Blob{}, absent, fmt.Errorf("%s: %w", errReadBlob, err)
	}
	return Blob{Content: content, Executable: e.Mode == filemode.Executable, SHA: e.Hash.String()}, absent, nil
}

// findFileLocked returns the entry of the file at p in t. A path that is
// missing, names a directory, or runs through a file (a.txt/b where a.txt
// is a file) does not exist: an error wrapping ErrNotExist, never a failed
// object lookup that would read as transient. Whether such a path can be
// written is the writer's to say.
func (r *Repository) findFileLocked(t *object.Tree, p string) (*object.TreeEntry, error) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	dirs, name := parts[:len(parts)-1], parts[len(parts)-1]
	for _, d := range dirs {
		e, err := t.FindEntry(d)
		if errors.Is(err, object.ErrEntryNotFound) || (err == nil && e.Mode != filemode.Dir) {
			return nil, fmt.Errorf("%s: %w", p, ErrNotExist)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errReadTree, err)
		}
		if t, err = r.trees.get(r.st, e.Hash); err != nil {
			return nil, err
		}
	}
	e, err := t.FindEntry(name)
	if errors.Is(err, object.ErrEntryNotFound) || (err == nil && !e.Mode.IsFile()) {
		return nil, fmt.Errorf("%s: %w", p, ErrNotExist)
	}
	if err != nil {
		return e, fmt.Errorf("%s: %w", errReadTree, err)
	}
	return e, nil
}

// Commit is a commit found in history.
type Commit struct {
	SHA     string
	Message string
	Time    time.Time
}
