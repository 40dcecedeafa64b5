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

// Blobs of a partial clone (partial.go), fetched when a read meets one
// absent. One upload-pack request carries many `want <blob>` lines: the
// blob the read wants, and the absent blobs, at the same commit, of every
// path a resource read before and of the folder a Mirror listed around it,
// so the reads that follow a moved head cost one request, not one each.
// While one batch is in flight, the reads that miss another blob collect
// in the next, which starts when it ends.
//
// A server answers with a pack; the indexer names every object by the hash
// of its content, so a blob can only be what was asked for. The pack must
// hold the blobs asked for and nothing else, and may bring at most
// maxBlobBatchBytes: a server cannot fill the clone with what no one asked
// for. A blob it did not send fails the reads that wanted it.
//
// Locking: blobFetches.mu guards the tracked paths and the batches in
// flight and collecting. It is never held across the network, nor taken
// under Repository.mu or the other way round; starting a batch under it
// takes only Repository.lmu (a leaf), as starting a fetch does under rmu.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
)

const (
	errFetchBlobs     = "cannot fetch blobs of a partial clone"
	errBlobNotSent    = "the server did not send the blob asked for"
	errBlobUnasked    = "the server sent an object it was not asked for"
	errBlobBatchBytes = "the server sent more than a batch of blobs may bring"
	errBlobWait       = "gave up waiting for a blob fetch"
)

const (
	// maxBlobWants bounds the wants of one request (some 50 bytes each on
	// the wire): a Mirror folder of 10,000 files is one request.
	maxBlobWants = 10_000
	// maxBlobBatchBytes bounds the pack one batch may bring: git's
	// core.bigFileThreshold (packObjectBudget), the largest object the
	// indexer holds whole.
	maxBlobBatchBytes = packObjectBudget
	// maxTrackedReads bounds the paths (and, apart, the folders)
	// remembered as read: one per resource, a few MiB at most.
	maxTrackedReads = 100_000
	// blobFetchAttempts: a blob fetched can go again before it is read
	// only when a compaction dropped it, its commit unreachable from any
	// ref by then (a force-push meanwhile).
	blobFetchAttempts = 2
)

// blobCall is one request for blobs, shared by every read that waits on
// one of them.
type blobCall struct {
	wants map[plumbing.Hash]bool
	done  chan struct{}
	err   error // set before done is closed
}

// blobFetches batches a clone's blob fetches and remembers what is read.
type blobFetches struct {
	mu       sync.Mutex
	inflight *blobCall
	next     *blobCall
	paths    map[string]bool // files reads asked for
	folders  map[string]bool // folders ListFiles listed
	// failed are the blobs of batches that failed, asked for again only
	// by a read of their own: one blob the server cannot send within a
	// batch's bytes (a file over 512 MiB) must not fail every later read
	// it would ride along with.
	failed map[plumbing.Hash]bool
	// maxBytes bounds one batch's pack; 0: maxBlobBatchBytes.
	maxBytes int64
}

// ended records the outcome of a batch of wants.
func (b *blobFetches) ended(wants []plumbing.Hash, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, h := range wants {
		switch {
		case err == nil:
			delete(b.failed, h)
		case len(b.failed) < maxTrackedReads:
			if b.failed == nil {
				b.failed = map[plumbing.Hash]bool{}
			}
			b.failed[h] = true
		}
	}
}

// failedSet is a copy of the blobs of failed batches.
func (b *blobFetches) failedSet() map[plumbing.Hash]bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[plumbing.Hash]bool, len(b.failed))
	for h := range b.failed {
		out[h] = true
	}
	return out
}

// batchBytes is the most one batch's pack may hold.
func (b *blobFetches) batchBytes() int64 {
	if b.maxBytes > 0 {
		return b.maxBytes
	}
	return maxBlobBatchBytes
}

// note adds p to the set *m, unless it holds maxTrackedReads already.
func note(m *map[string]bool, p string) {
	if *m == nil {
		*m = map[string]bool{}
	}
	if len(*m) < maxTrackedReads {
		(*m)[p] = true
	}
}

// noteRead remembers p as a path resources read.
func (b *blobFetches) noteRead(p string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	note(&b.paths, strings.Trim(p, "/"))
}

// noteFolder remembers p as a folder a resource lists (a Mirror's).
func (b *blobFetches) noteFolder(p string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	note(&b.folders, p)
}

// pending returns the batch, in flight or collecting, that wants h.
func (b *blobFetches) pending(h plumbing.Hash) *blobCall {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range []*blobCall{b.inflight, b.next} {
		if c != nil && c.wants[h] {
			return c
		}
	}
	return nil
}

// tracked returns the paths read and the folders listed that hold p.
func (b *blobFetches) tracked(p string) (paths, folders []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	paths = make([]string, 0, len(b.paths))
	for q := range b.paths {
		paths = append(paths, q)
	}
	for f := range b.folders {
		if f == "" || strings.HasPrefix(p, f+"/") {
			folders = append(folders, f)
		}
	}
	return paths, folders
}

// fetchBlob fetches h, the blob at p of commit, with the blobs around it,
// and returns once the batch that carries it ended, or ctx or the cache
// did first (a transient error): the batch runs on the cache's context,
// for every read that shares it, and goes on without this one.
func (r *Repository) fetchBlob(ctx context.Context, commit, p string, h plumbing.Hash) error {
	if err := ctx.Err(); err != nil {
		return &Error{Kind: KindTransient, Err: fmt.Errorf("%s: %w", errBlobWait, err)}
	}
	c := r.blobs.pending(h)
	if c == nil {
		c = r.enqueueBlobs(r.missingAround(commit, p, h)) //nolint:contextcheck // shared: the batch runs on the cache's context, not on the caller's
	}
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return &Error{Kind: KindTransient, Err: fmt.Errorf("%s: %w", errBlobWait, ctx.Err())}
	case <-r.cache.ctx.Done():
		return &Error{Kind: KindTransient, Err: fmt.Errorf("%s: %w", errBlobWait, r.cache.ctx.Err())}
	}
}

// missingAround returns want and, at commit, the absent blobs of the paths
// read before and of the listed folders that hold p, at most maxBlobWants.
func (r *Repository) missingAround(commit, p string, want plumbing.Hash) []plumbing.Hash {
	paths, folders := r.blobs.tracked(strings.Trim(p, "/"))
	failed := r.blobs.failedSet()
	r.mu.Lock()
	defer r.mu.Unlock()
	batch := []plumbing.Hash{want}
	in := map[plumbing.Hash]bool{want: true}
	add := func(h plumbing.Hash) bool {
		if len(batch) >= maxBlobWants {
			return false
		}
		if !in[h] && !failed[h] && !r.hasLocked(h) {
			in[h] = true
			batch = append(batch, h)
		}
		return true
	}
	t, err := r.treeAt(commit)
	if err != nil {
		return batch
	}
	for _, q := range paths {
		if e, err := r.findFileLocked(t, q); err == nil && !add(e.Hash) {
			return batch
		}
	}
	for _, f := range folders {
		sub := t
		if f != "" {
			if sub, err = r.subtreeLocked(t, f); err != nil || sub == nil {
				continue
			}
		}
		if !r.addFilesLocked(sub, add) {
			return batch
		}
	}
	return batch
}

// addFilesLocked calls add with the blob of every file under t until it
// returns false, and reports whether it never did.
func (r *Repository) addFilesLocked(t *object.Tree, add func(plumbing.Hash) bool) bool {
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	for {
		_, e, err := w.Next()
		if err != nil {
			// io.EOF, or a tree that cannot be read: what was added is fetched.
			return true
		}
		if e.Mode.IsFile() && !add(e.Hash) {
			return false
		}
	}
}

// enqueueBlobs adds wants to the batch collecting (wants[0], the blob a
// read waits on, always), starts it when none is in flight, and returns it.
func (r *Repository) enqueueBlobs(wants []plumbing.Hash) *blobCall {
	b := &r.blobs
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next == nil {
		b.next = &blobCall{wants: map[plumbing.Hash]bool{}, done: make(chan struct{})}
	}
	c := b.next
	for i, h := range wants {
		if i == 0 || len(c.wants) < maxBlobWants {
			c.wants[h] = true
		}
	}
	if b.inflight == nil {
		r.startBlobsLocked()
	}
	return c
}

// startBlobsLocked starts the batch collecting. Call it with blobs.mu held.
// Like a shared fetch it runs on the cache's context, not on that of the
// read that happened to start it, and holds the clone until it is done.
func (r *Repository) startBlobsLocked() {
	b := &r.blobs
	c := b.next
	b.inflight, b.next = c, nil
	r.hold()
	r.cache.work.start(func() {
		ctx, cancel := context.WithTimeout(r.cache.ctx, r.cache.opts.FetchTimeout)
		defer cancel()
		wants := make([]plumbing.Hash, 0, len(c.wants))
		for h := range c.wants {
			wants = append(wants, h)
		}
		if c.err = ctx.Err(); c.err != nil {
			c.err = &Error{Kind: KindTransient, Err: errors.New(errCacheClosing)}
		} else {
			c.err = r.downloadBlobs(ctx, wants)
			b.ended(wants, c.err)
		}
		b.mu.Lock()
		b.inflight = nil
		if b.next != nil {
			r.startBlobsLocked()
		}
		b.mu.Unlock()
		r.end()
		close(c.done)
	})
}

// downloadBlobs asks the server for wants, with no haves (a blob has
// nothing to negotiate) and no filter (wanted objects are sent whatever
// the filter; none is needed), and stores the pack once it is checked.
func (r *Repository) downloadBlobs(ctx context.Context, wants []plumbing.Hash) (err error) {
	defer func() { r.cache.opts.Metrics.blobFetched(r.conn.host, len(wants), err) }()
	auth, err := r.conn.authMethod(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", errFetchBlobs, err)
	}
	sess, err := r.tr.NewUploadPackSession(r.conn.endpoint(), auth)
	if err != nil {
		return fmt.Errorf("%s: %w", errFetchBlobs, classify(err))
	}
	defer sess.Close() //nolint:errcheck // the outcome is decided by then
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", errFetchBlobs, classify(err))
	}
	req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
	if ar.Capabilities.Supports(capability.NoProgress) {
		_ = req.Capabilities.Set(capability.NoProgress)
	}
	if r.multiACK.Load() {
		// A server that requires it (multiack.go); a partial clone is
		// never made of one, but a server may begin to require it.
		_ = req.Capabilities.Set(capability.MultiACK)
	}
	req.Wants = wants
	resp, err := sess.UploadPack(ctx, req)
	if err != nil {
		return fmt.Errorf("%s: %w", errFetchBlobs, classify(err))
	}
	defer resp.Close() //nolint:errcheck // read fully below
	return r.storeBlobPack(ctx, resp, req.Capabilities, wants)
}

// storeBlobPack indexes the pack of a blob batch, refuses one that brings
// more than maxBlobBatchBytes or any object not in wants, and stores it.
func (r *Repository) storeBlobPack(ctx context.Context, resp io.Reader, caps *capability.List, wants []plumbing.Hash) error {
	limit := r.blobs.batchBytes()
	p, done, err := r.receive(ctx, resp, caps, "blobs-*.pack", func(rd io.Reader) io.Reader {
		return &capped{r: rd, left: limit, max: limit}
	}, errFetchBlobs)
	if err != nil {
		return err
	}
	defer done()
	asked := make(map[plumbing.Hash]bool, len(wants))
	for _, h := range wants {
		asked[h] = true
	}
	// A thin pack's bases, appended from the clone, come last.
	for _, e := range p.entries[:len(p.entries)-p.thin] {
		if !asked[e.hash] || e.typ != plumbing.BlobObject {
			return fmt.Errorf("%s: %s %s", errBlobUnasked, e.typ, e.hash)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	added, err := p.install(r.dir)
	if err != nil {
		return fmt.Errorf("%s: %w", errStorePack, err)
	}
	if added {
		r.reindexLocked()
	}
	return nil
}

// capped reads at most left bytes, then fails.
type capped struct {
	r         io.Reader
	left, max int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("%s: %d bytes", errBlobBatchBytes, c.max)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
