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
	"net/http"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Commits through a forge's API (GitHub's Git data API) instead of a push:
// the forge creates, and signs, the commit, so it shows it as Verified
// without a user account's key. The writer still plans every batch on the
// clone (batch.go) and checks every change on the tree it lands on; only
// the last step differs. The branch moves by a ref update that is never
// forced and that the forge refuses when the branch moved, which the writer
// takes as it takes a push rejected for the same reason (retry.go).

const (
	errNoCommitAPI   = "spec.commit.via API: this provider cannot commit through a forge's API (no API opener configured)"
	errAPINeedsApp   = "spec.commit.via API needs GitHub App credentials: GitHub signs only the commits an App creates through its API"
	errOpenAPI       = "cannot open the forge's commit API"
	errAPIBlob       = "cannot create a blob through the API"
	errAPITree       = "cannot create a tree through the API"
	errAPICommit     = "cannot create a commit through the API"
	errAPIRef        = "cannot move the branch through the API"
	errAPIFetch      = "committed through the API, but cannot fetch the commit into the local clone"
	errAPIBlobFmt    = "the API stored a blob as %s, not %s: its content differs from the batch's"
	errAPITreeFmt    = "the API built tree %s, not %s: it differs from what a push writes for the same batch"
	errAPINoAnswerFm = "the API answered %s without an object ID"
	errAPITipFmt     = "the API's commit %s holds tree %s, not the batch's %s"
	// errAPIElsewhereFmt names the commit the API made but a fetch of the
	// repository's URL did not bring.
	errAPIElsewhereFmt = "the API made commit %s, but the repository's URL does not serve it: do the URL and the forge's API URL name the same repository?"
)

// CommitAPI creates objects and moves a branch through a forge's REST API:
// GitHub's POST /git/blobs, /git/trees, /git/commits and PATCH
// /git/refs/heads/{branch}. The engine owns it; a forge package implements
// it (internal/forge/github) and cmd/provider wires it (WithCommitAPI).
type CommitAPI interface {
	// CreateBlob stores content and returns its blob SHA.
	CreateBlob(ctx context.Context, content []byte) (string, error)
	// CreateTree returns the SHA of the tree base with entries written on
	// it (a path's entry replaced, added, or removed).
	CreateTree(ctx context.Context, base string, entries []APIEntry) (string, error)
	// CreateCommit returns the SHA of a commit the forge creates, and
	// signs, as c describes.
	CreateCommit(ctx context.Context, c APICommit) (string, error)
	// UpdateRef moves branch to sha, never forced. moved reports that the
	// forge refused because sha does not descend from the branch's head
	// (someone else moved it): the caller fetches and plans again.
	UpdateRef(ctx context.Context, branch, sha string) (moved bool, err error)
}

// APIEntry is one path of a tree written through a CommitAPI.
type APIEntry struct {
	// Path is slash-separated, from the repository's root.
	Path       string
	Executable bool
	// Delete removes Path. Else exactly one of Blob (a blob SHA the API
	// holds) and Content (text the API stores as the blob) is set.
	Delete  bool
	Blob    string
	Content *string
}

// APICommit is a commit to create through a CommitAPI.
type APICommit struct {
	Message string
	Tree    string
	Parent  string
	// Author and When are the commit's author as a push would write it.
	// The forge decides whether to send them: GitHub signs an App's commit
	// only when the request names no author or committer (forge/github).
	Author Signature
	When   time.Time
}

// APITarget names the forge API a Remote's commits go through.
type APITarget struct {
	// URL of the forge's REST API (https://api.github.com/,
	// https://HOST/api/v3/).
	URL string
}

// A CommitAPIOpener opens the CommitAPI of the repository at r, authenticated
// by token (its GitHub App's installation token, shared with the clone's
// Git sessions) and reached through hc (the clone's CA bundle and proxy).
type CommitAPIOpener func(r Remote, token func(context.Context) (string, error), hc *http.Client) (CommitAPI, error)

// WithCommitAPI lets Remotes that name an API (Remote.API) commit through
// the CommitAPI open returns; without it such a Remote is refused.
func WithCommitAPI(open CommitAPIOpener) Option { return func(o *Options) { o.CommitAPI = open } }

// openAPI opens the repository's CommitAPI when its Remote names one.
func openAPI(c *Cache, r Remote, conn *connection) (CommitAPI, error) {
	if r.API == nil {
		return nil, nil
	}
	if c.opts.CommitAPI == nil {
		return nil, newError(KindInvalid, errNoCommitAPI)
	}
	if conn.app == nil {
		return nil, newError(KindInvalid, errAPINeedsApp)
	}
	t, err := httpTransport(r.CABundle, c.opts.Proxy)
	if err != nil {
		return nil, &Error{Kind: KindInvalid, Err: fmt.Errorf("%s: %w", errOpenAPI, err)}
	}
	hc := &http.Client{}
	if t != nil {
		hc.Transport = withUserAgent(t, c.opts.UserAgent)
	}
	api, err := c.opts.CommitAPI(r, conn.app.token, hc)
	if err != nil {
		return nil, &Error{Kind: KindInvalid, Err: fmt.Errorf("%s: %w", errOpenAPI, err)}
	}
	return api, nil
}

// sendViaAPI lands u through the repository's CommitAPI: each planned
// commit's blobs, tree and commit, then one ref update from u.oldHead. A
// tree the API builds otherwise than the clone did lands nothing: the
// batch is pushed instead (errAPITreeDiffers). On success u.newHead is the
// forge's last commit and u.landed maps each planned commit to the forge's,
// and the clone has fetched them.
func (r *Repository) sendViaAPI(ctx context.Context, branch string, u *refUpdate) (err error) {
	start := time.Now()
	defer func() { r.cache.opts.Metrics.apiCommitted(r.conn.host, start, err) }()
	parent := u.oldHead.String()
	landed := make(map[plumbing.Hash]plumbing.Hash, len(u.api.commits))
	made := map[plumbing.Hash]bool{}
	for _, c := range u.api.commits {
		entries, err := r.apiEntries(ctx, c, made)
		if err != nil {
			return err
		}
		tree, err := r.api.CreateTree(ctx, c.parentTree.String(), entries)
		if err != nil {
			return apiError(err, errAPITree)
		}
		if tree != c.tree.String() {
			return &errAPIDiffers{err: fmt.Errorf(errAPITreeFmt, tree, c.tree)}
		}
		sha, err := r.api.CreateCommit(ctx, APICommit{Message: c.message, Tree: tree, Parent: parent, Author: c.author, When: c.when})
		if err != nil {
			return apiError(err, errAPICommit)
		}
		h, err := apiHash(sha, "the commit")
		if err != nil {
			return err
		}
		landed[c.local], parent = h, sha
	}
	if err := r.stillAt(ctx, branch, u.oldHead); err != nil {
		return err
	}
	if err := r.fenced(); err != nil {
		return err
	}
	moved, err := r.api.UpdateRef(ctx, branch, parent)
	if moved {
		r.cache.opts.Metrics.rejected(r.conn.host)
		return &errMoved{}
	}
	if err != nil {
		return apiError(err, errAPIRef)
	}
	u.newHead, u.landed, u.pack = landed[u.newHead], landed, nil
	// The commits are the forge's, not the clone's: fetch them, so the
	// next batch builds on them and readers find them.
	if err := r.fetchNow(ctx, branch); err != nil {
		return fmt.Errorf("%s: %w", errAPIFetch, err)
	}
	tip := u.api.commits[len(u.api.commits)-1].tree
	r.mu.Lock()
	fetched := r.hasLocked(u.newHead)
	var tree plumbing.Hash
	if c, err := object.GetCommit(r.st, u.newHead); err == nil {
		tree = c.TreeHash
	}
	r.mu.Unlock()
	if fetched && tree != tip {
		// The API answered a commit of another tree than it was asked for:
		// the branch does not hold the batch.
		return &Error{Kind: KindTransient, Err: fmt.Errorf(errAPITipFmt, u.newHead, tree, tip)}
	}
	if !fetched {
		// The API wrote to another repository than the URL fetches from
		// (an API URL of another GitHub), or someone forced the branch
		// back meanwhile: either way the change is not where it is read.
		return &Error{Kind: KindTransient, Err: fmt.Errorf(errAPIElsewhereFmt, u.newHead)}
	}
	return nil
}

// stillAt returns errMoved unless the remote branch is at head. GitHub's
// ref update checks only that the new commit descends from the branch, not
// that the branch is where the batch was planned (a push's old value): a
// branch someone set back meanwhile would take the commits they dropped
// back. So the remote is asked first, as a push asks it, and the window
// left is one request.
func (r *Repository) stillAt(ctx context.Context, branch string, head plumbing.Hash) error {
	ar, err := r.advertise(ctx)
	if err != nil {
		return err
	}
	refs, err := ar.AllReferences()
	if err != nil {
		return fmt.Errorf("%s: %w", errAdvertised, err)
	}
	if ref, ok := refs[branchRef(branch)]; !ok || ref.Hash() != head {
		r.cache.opts.Metrics.rejected(r.conn.host)
		return &errMoved{}
	}
	return nil
}

// apiEntries returns c's entries as the API takes them, creating the blobs
// that cannot go inline (made: those created already in this batch).
func (r *Repository) apiEntries(ctx context.Context, c *apiCommit, made map[plumbing.Hash]bool) ([]APIEntry, error) {
	out := make([]APIEntry, 0, len(c.entries))
	for _, e := range c.entries {
		ae := APIEntry{Path: e.path, Executable: e.executable, Delete: e.del}
		switch {
		case e.del:
		case e.inline:
			s := string(e.content)
			ae.Content = &s
		default:
			if !made[e.blob] {
				sha, err := r.api.CreateBlob(ctx, e.content)
				if err != nil {
					return nil, apiError(err, errAPIBlob)
				}
				if sha != e.blob.String() {
					return nil, &errAPIDiffers{err: fmt.Errorf(errAPIBlobFmt, sha, e.blob)}
				}
				made[e.blob] = true
			}
			ae.Blob = e.blob.String()
		}
		out = append(out, ae)
	}
	return out, nil
}

// errAPIDiffers reports an object the API built otherwise than the clone:
// nothing was committed; the batch goes by push instead.
type errAPIDiffers struct{ err error }

func (e *errAPIDiffers) Error() string { return e.err.Error() }

// apiError wraps err with what was attempted; an error that does not say
// its kind is transient (a forge adapter maps refusals to their kinds).
func apiError(err error, what string) error {
	var ge *Error
	if errors.As(err, &ge) {
		return &Error{Kind: ge.Kind, Err: fmt.Errorf("%s: %w", what, err)}
	}
	return &Error{Kind: KindTransient, Err: fmt.Errorf("%s: %w", what, err)}
}

// apiHash parses an object ID the API answered.
func apiHash(sha, what string) (plumbing.Hash, error) {
	if !plumbing.IsHash(sha) {
		return plumbing.ZeroHash, &Error{Kind: KindTransient, Err: fmt.Errorf(errAPINoAnswerFm, what)}
	}
	return plumbing.NewHash(sha), nil
}

// send lands u: through the API when the repository commits there and
// the batch suits it (u.api), else by push. A batch the API built
// otherwise than the clone is pushed instead, and counted.
func (r *Repository) send(ctx context.Context, branch string, u *refUpdate) error {
	if u.api == nil {
		return r.push(ctx, branch, u)
	}
	err := r.sendViaAPI(ctx, branch, u)
	var differs *errAPIDiffers
	if errors.As(err, &differs) {
		r.cache.opts.Metrics.apiFellBack(r.conn.host, fallbackDiffers)
		u.api = nil
		return r.push(ctx, branch, u)
	}
	return err
}
