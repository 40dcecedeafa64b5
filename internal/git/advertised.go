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
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

const (
	errListRefs        = "cannot list the remote's references"
	errNoDefaultBranch = "the remote has no default branch"
)

// Check asks the remote for its references, as git ls-remote does: it proves
// the URL, the credentials and the host key without downloading anything. An
// empty repository (no branch yet) passes and is reported as such: it is
// where a freshly created repository starts, not a fault.
func (r *Repository) Check(ctx context.Context) (empty bool, err error) {
	ar, err := r.advertised(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return !hasBranch(ar.References), nil
}

// hasBranch reports whether an advertisement lists any branch; one that
// lists only tags (or nothing) leaves nothing to build on.
func hasBranch(refs map[string]plumbing.Hash) bool {
	for name := range refs {
		if strings.HasPrefix(name, "refs/heads/") {
			return true
		}
	}
	return false
}

// DefaultBranch returns the branch the remote's HEAD points at.
func (r *Repository) DefaultBranch(ctx context.Context) (string, error) {
	ar, err := r.advertised(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) || (err == nil && !hasBranch(ar.References)) {
		return "", &Error{Kind: KindBranchNotFound, Err: fmt.Errorf("%s: %w", errNoDefaultBranch, ErrEmptyRepository)}
	}
	if err != nil {
		return "", err
	}
	for _, v := range ar.Capabilities.Get(capability.SymRef) {
		if target, ok := strings.CutPrefix(v, "HEAD:"); ok {
			return strings.TrimPrefix(target, "refs/heads/"), nil
		}
	}
	// A server that does not advertise symrefs: the branch HEAD's commit is
	// on, in name order so that the answer is stable.
	if ar.Head != nil {
		names := make([]string, 0, len(ar.References))
		for name, h := range ar.References {
			if h == *ar.Head && strings.HasPrefix(name, "refs/heads/") {
				names = append(names, strings.TrimPrefix(name, "refs/heads/"))
			}
		}
		sort.Strings(names)
		if len(names) > 0 {
			return names[0], nil
		}
	}
	return "", newError(KindBranchNotFound, errNoDefaultBranch)
}

// An advert is one reference advertisement asked of the remote: what a
// configuration's check needs of it, once answered.
type advert struct {
	at   time.Time     // when it was asked for, by the cache's clock
	done chan struct{} // closed once empty and err are set
	// empty: the remote has no branch; err: nil or what failed.
	empty bool
	err   error
}

// CheckWithin is Check answered from the repository's latest reference
// advertisement when that was asked for less than maxAge ago (the drift
// poll's, say), or from the one under way: one remote check per repository
// per poll interval serves both the drift poll and the configuration's own
// check. A failed advertisement is never reused: the next check asks.
func (r *Repository) CheckWithin(ctx context.Context, maxAge time.Duration) (empty bool, err error) {
	r.amu.Lock()
	latest, asking := r.latest, r.asking
	r.amu.Unlock()
	if latest != nil && r.cache.opts.Clock.Since(latest.at) < maxAge {
		return latest.empty, nil
	}
	if asking != nil {
		select {
		case <-asking.done:
			if asking.err == nil {
				return asking.empty, nil
			}
		case <-ctx.Done():
			return false, fmt.Errorf("%s: %w", errListRefs, ctx.Err())
		}
	}
	return r.Check(ctx)
}

// advertised asks the remote for its references and remembers the answer
// for CheckWithin.
func (r *Repository) advertised(ctx context.Context) (*packp.AdvRefs, error) {
	a := &advert{at: r.cache.opts.Clock.Now(), done: make(chan struct{})}
	r.amu.Lock()
	r.asking = a
	r.amu.Unlock()
	ar, err := r.advertise(ctx)
	switch {
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		a.empty = true
	case err != nil:
		a.err = err
	default:
		a.empty = !hasBranch(ar.References)
	}
	close(a.done)
	r.amu.Lock()
	if r.asking == a {
		r.asking = nil
	}
	switch {
	case a.err != nil:
		r.latest = nil
	case r.latest == nil || a.at.After(r.latest.at):
		r.latest = a
	}
	r.amu.Unlock()
	return ar, err
}

func (r *Repository) advertise(ctx context.Context) (*packp.AdvRefs, error) {
	if err := r.begin(); err != nil {
		return nil, err
	}
	defer r.end()
	ctx, cancel := context.WithTimeout(ctx, r.cache.opts.FetchTimeout)
	defer cancel()
	auth, err := r.conn.authMethod(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errListRefs, err)
	}
	sess, err := r.tr.NewUploadPackSession(r.conn.endpoint(), auth)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errListRefs, classify(err))
	}
	defer sess.Close() //nolint:errcheck // the outcome is decided by then; a failed Close loses nothing
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil, err
	}
	if err != nil {
		return ar, fmt.Errorf("%s: %w", errListRefs, classify(err))
	}
	return ar, nil
}
