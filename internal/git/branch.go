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
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
)

const errUnknownFrom = "cannot resolve the ref to create the branch from"

// createBranch creates the branch at from unless it exists; a race with
// another creator ends with the branch existing, which is all we wanted. An
// empty from is the remote's default branch or, in a repository with no
// branch at all, a first commit with no parent and no files, by author.
func (w *writer) createBranch(ctx context.Context, from string, author Signature) Result {
	r := w.repo
	if from == "" {
		d, err := r.DefaultBranch(ctx)
		if errors.Is(err, ErrEmptyRepository) {
			res, ferr := w.createFirst(ctx, author)
			if !errors.Is(ferr, errNoLongerEmpty) {
				return Result{Commit: res.Commit, UpToDate: res.UpToDate, Err: ferr}
			}
			// Someone else's first commit landed meanwhile: start from the
			// default branch it made.
			d, err = r.DefaultBranch(ctx)
		}
		if err != nil {
			return Result{Err: fmt.Errorf("%s: %w", errUnknownFrom, err)}
		}
		from = d
	}
	target, err := w.startPoint(ctx, from)
	if err != nil {
		return Result{Err: err}
	}
	var res Result
	err = w.pushWithRetry(ctx, func(int) (*refUpdate, error) {
		if err := r.fetchNow(ctx, w.branch); err != nil {
			return nil, err
		}
		cur, err := r.head(w.branch)
		if err == nil {
			res = Result{Commit: cur.String(), UpToDate: true}
			return nil, nil
		}
		if KindOf(err) != KindBranchNotFound {
			return nil, err
		}
		res = Result{Commit: target.String()}
		return &refUpdate{oldHead: plumbing.ZeroHash, newHead: target, pack: emptyPack()}, nil
	})
	if err != nil {
		return Result{Err: err}
	}
	return res
}

// errNoLongerEmpty reports that a branch appeared in a repository that was
// empty when a first commit was planned.
var errNoLongerEmpty = errors.New("the repository is no longer empty")

// firstCommitMessage is the message of the commit that starts an empty
// repository's history for a Branch.
const firstCommitMessage = "Initial commit"

// createFirst creates the branch as the repository's first commit: an empty
// tree and no parent. It lands only while the remote has no branch at all;
// once one appears it returns errNoLongerEmpty.
func (w *writer) createFirst(ctx context.Context, author Signature) (Result, error) {
	r := w.repo
	var res Result
	err := w.pushWithRetry(ctx, func(int) (*refUpdate, error) {
		if err := r.fetchNow(ctx, w.branch); err != nil {
			return nil, err
		}
		cur, err := r.head(w.branch)
		if err == nil {
			res = Result{Commit: cur.String(), UpToDate: true}
			return nil, nil
		}
		if KindOf(err) != KindBranchNotFound {
			return nil, err
		}
		if !r.Empty() {
			return nil, errNoLongerEmpty
		}
		h, pack, err := w.firstCommit(author)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errBuild, err)
		}
		res = Result{Commit: h.String()}
		return &refUpdate{newHead: h, pack: pack, root: true}, nil
	})
	return res, err
}

// firstCommit builds a commit of the empty tree with no parent, by author
// under the rule every commit follows (writer.identities), and returns it
// with the pack that carries it.
func (w *writer) firstCommit(author Signature) (plumbing.Hash, []byte, error) {
	w.repo.mu.Lock()
	defer w.repo.mu.Unlock()
	st := newOverlay(w.repo.st)
	th, err := storeObject(st, &object.Tree{})
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	author, committer := w.identities(author, Signature{})
	now := time.Now()
	c := &object.Commit{
		Author:    object.Signature{Name: author.Name, Email: author.Email, When: now},
		Committer: object.Signature{Name: committer.Name, Email: committer.Email, When: now},
		Message:   firstCommitMessage + "\n", TreeHash: th,
	}
	if err := signCommit(w.repo.signer, c); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	h, err := storeObject(st, c)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	var buf bytes.Buffer
	if _, err := packfile.NewEncoder(&buf, st, false).Encode([]plumbing.Hash{th, h}, 0); err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("%s: %w", errEncodePack, err)
	}
	return h, buf.Bytes(), nil
}

// startPoint resolves from, a full commit SHA or a branch name, to a commit.
// A from that is no branch but looks like a commit SHA of the wrong length
// (abbreviated, say) is the asking resource's mistake, not a missing branch.
func (w *writer) startPoint(ctx context.Context, from string) (plumbing.Hash, error) {
	if plumbing.IsHash(from) {
		return plumbing.NewHash(from), nil
	}
	r := w.repo
	if err := r.Refresh(ctx, 0, w.branch, from); err != nil {
		return plumbing.ZeroHash, err
	}
	h, err := r.head(from)
	if KindOf(err) == KindBranchNotFound && looksLikeSHA(from) {
		_, err = parseSHA(from)
	}
	if err != nil {
		return h, fmt.Errorf("%s: %w", errUnknownFrom, err)
	}
	return h, nil
}

// minAbbrevSHA is the shortest commit SHA git prints (core.abbrev's minimum
// is 4, its usual default 7); shorter hex strings read as names.
const minAbbrevSHA = 7

// looksLikeSHA reports whether s is made of hex digits only and is at least
// as long as an abbreviated commit SHA.
func looksLikeSHA(s string) bool {
	if len(s) < minAbbrevSHA {
		return false
	}
	for _, c := range s {
		switch {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// deleteBranch deletes the branch wherever it points now; it never deletes
// a head it has not seen (the push carries the old value).
func (w *writer) deleteBranch(ctx context.Context) Result {
	r := w.repo
	res := Result{}
	err := w.pushWithRetry(ctx, func(int) (*refUpdate, error) {
		if err := r.fetchNow(ctx, w.branch); err != nil {
			return nil, err
		}
		cur, err := r.head(w.branch)
		if KindOf(err) == KindBranchNotFound {
			res = Result{UpToDate: true}
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return &refUpdate{oldHead: cur, newHead: plumbing.ZeroHash}, nil
	})
	if err != nil {
		return Result{Err: err}
	}
	return res
}
