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

package pullrequest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// maxAuthHold bounds the hold of an account whose token the forge refused.
const maxAuthHold = time.Hour

// merge asks the forge to merge once it may, or merges now where the forge
// refused auto-merge for this pull request at this head and it is
// mergeable. Either call is pinned to the head judged (pr.HeadSHA): a head
// that moved since is judged again at the next reconcile, never merged.
func (e *external) merge(ctx context.Context, mg *v1alpha1.PullRequest, pr forge.PullRequest) error {
	m := mg.Spec.ForProvider.Merge
	fm := forge.Merge{Method: forge.MergeMethod(m.Method), DeleteBranch: m.DeleteBranch, HeadSHA: pr.HeadSHA}
	if fm.Method == "" {
		fm.Method = forge.MethodMerge
	}
	if !e.acc.refusedAuto(pr) {
		if err := e.pace(1); err != nil {
			return err
		}
		err := e.acc.client.AutoMerge(ctx, pr.Number, fm)
		switch {
		case err == nil:
			e.acc.asked.Store(pr.Number, pr.HeadSHA)
			e.listing.Invalidate()
			return nil
		case errors.Is(err, forge.ErrHeadMoved):
			e.listing.Invalidate()
			return nil
		case errors.Is(err, forge.ErrNotMergeable):
			// The forge refuses for now (still computing, conflicts):
			// asked again at the next poll.
			return nil
		case !errors.Is(err, forge.ErrUnsupported):
			return e.forgeError(err, errMerge)
		}
		e.acc.refused.Store(pr.Number, pr.HeadSHA)
	}
	if pr.Mergeable == nil || !*pr.Mergeable || pr.Checks == forge.ChecksFailure {
		return nil
	}
	cost := 1
	if fm.DeleteBranch {
		cost++
	}
	if err := e.pace(cost); err != nil {
		return err
	}
	err := e.acc.client.Merge(ctx, pr.Number, fm)
	if errors.Is(err, forge.ErrNotMergeable) {
		return nil
	}
	if err == nil || errors.Is(err, forge.ErrHeadMoved) {
		e.listing.Invalidate()
		return nil
	}
	return e.forgeError(err, errMerge)
}

// refusedAuto: the forge refused auto-merge for pr at its head.
func (a *account) refusedAuto(pr forge.PullRequest) bool {
	sha, ok := a.refused.Load(pr.Number)
	return ok && sha == pr.HeadSHA
}

// forget drops what is remembered of a pull request no longer open, so
// the account's maps do not grow with every pull request ever seen.
func (e *external) forget(pr forge.PullRequest) {
	if pr.State == forge.StateOpen {
		return
	}
	e.acc.asked.Delete(pr.Number)
	e.acc.refused.Delete(pr.Number)
}

// declared: pr is the pull request mg declares (notOurs finds nothing).
func declared(mg *v1alpha1.PullRequest, pr forge.PullRequest) bool { return notOurs(mg, pr) == nil }

// notOurs is a pull request the external name points at whose head or
// base differ from the spec, or whose head is not in the configured
// repository (a fork): Stalled, and never updated, merged nor closed.
func notOurs(mg *v1alpha1.PullRequest, pr forge.PullRequest) error {
	p := mg.Spec.ForProvider
	if pr.Head == p.Head && pr.Base == p.Base && !isFork(pr) {
		return nil
	}
	found := pr.Head
	if isFork(pr) {
		found = fmt.Sprintf("%s (a fork: %q)", pr.Head, pr.HeadRepo)
	}
	return managed.Stalled(ReasonNotOurs, errors.Errorf(msgNotOursFmt, pr.Number, p.Head, p.Base, found, pr.Base))
}

// isFork: the forge does not report the head in the configured
// repository (a fork's, or one it cannot tell): never ours to touch.
func isFork(pr forge.PullRequest) bool { return !pr.HeadInRepo }

// isNotOurs reports notOurs' error.
func isNotOurs(err error) bool {
	r, ok := managed.StalledReason(err)
	return ok && r == ReasonNotOurs
}

// backoff is how long mg waits for a missing branch: headRetry, doubled
// at each wait up to the poll interval.
func (e *external) backoff(mg *v1alpha1.PullRequest) time.Duration {
	key := mg.GetNamespace() + "/" + mg.GetName()
	d := min(headRetry, e.maxAge)
	if v, ok := e.acc.waits.Load(key); ok {
		d = min(2*v.(time.Duration), max(e.maxAge, headRetry))
	}
	e.acc.waits.Store(key, d)
	return d
}

// headExists waits (progressing, backed off) for a head or base branch
// that is not there yet, from the shared clone after a fetch all
// resources of the repository share, so a Branch, its Files and the
// PullRequest converge in any order.
func (e *external) headExists(ctx context.Context, mg *v1alpha1.PullRequest) error {
	p := mg.Spec.ForProvider
	if err := e.repo.Refresh(ctx, e.maxAge, p.Head, p.Base); err != nil && !isBranchMissing(err) {
		return errors.Wrap(spec.GitErrorBy(err, e.creds), errRefresh)
	}
	for _, b := range []struct {
		name   string
		reason xpv2.ConditionReason
		format string
	}{{p.Head, ReasonHeadBranchMissing, msgHeadMissingFmt}, {p.Base, ReasonBaseBranchMissing, msgBaseMissingFmt}} {
		_, err := e.repo.Head(b.name)
		if isBranchMissing(err) {
			return managed.WaitingFor(b.reason, fmt.Sprintf(b.format, b.name), e.backoff(mg))
		}
		if err != nil {
			return errors.Wrap(spec.GitErrorBy(err, e.creds), errHead)
		}
	}
	e.acc.waits.Delete(mg.GetNamespace() + "/" + mg.GetName())
	return nil
}

// holdRefused holds the whole account after the forge refused its token:
// every resource of it waits, from the poll interval doubling up to
// maxAuthHold, rather than each asking again at every poll.
func (e *external) holdRefused() time.Duration {
	d := max(e.maxAge, time.Minute)
	if last := time.Duration(e.acc.authWait.Load()); last > 0 {
		d = min(2*last, maxAuthHold)
	}
	e.acc.authWait.Store(int64(d))
	e.pacer.Hold(e.key, e.rate(), e.clock.Now().Add(d))
	return d
}

// blocked is the forge's refusal of a create for an open pull request the
// provider will not adopt: a fork's of the same branch name (named, so a
// person can close it), or one from the head into another base (GitLab
// allows one open merge request per source branch). A person must choose.
func (e *external) blocked(ctx context.Context, want forge.Spec, refusal error) error {
	forks, err := e.listing.Forks(ctx, e.maxAge, want.Head, want.Base) // just listed by Find
	if err != nil {
		return errors.Wrap(e.forgeError(err, errList), errCreate)
	}
	if len(forks) > 0 {
		names := make([]string, 0, len(forks))
		for _, f := range forks {
			names = append(names, fmt.Sprintf("#%d (%q of %q)", f.Number, f.Head, f.HeadRepo))
		}
		return managed.Stalled(ReasonForgeRefused, errors.Wrapf(refusal, errForkBlocksFmt, want.Head, want.Base, strings.Join(names, ", ")))
	}
	return managed.Stalled(ReasonForgeRefused, errors.Wrapf(refusal, errOtherBaseFmt, want.Head, want.Base))
}
