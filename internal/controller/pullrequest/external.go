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
	"strconv"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

const (
	errRefresh = "cannot fetch the head branch"
	errHead    = "cannot read the head branch"
	errGet     = "cannot get the pull request"
	errList    = "cannot find the pull request among the open ones"
	errCreate  = "cannot open the pull request"
	errUpdate  = "cannot update the pull request"
	errClose   = "cannot close the pull request"
	errMerge   = "cannot merge the pull request"
	// errOtherBaseFmt: the forge has one open for the head, into another base.
	errOtherBaseFmt = "cannot open the pull request from %q into %q: the forge has one open from that head into another base"
	// errForkBlocksFmt: the forge counts a fork's pull request as the one
	// open for these branches; the provider never adopts a fork's.
	errForkBlocksFmt = "cannot open the pull request from %q into %q: the forge has a fork's open for them, which the provider never adopts: %s"
)

// listing is what a PullRequest needs of its repository's shared list of
// open pull requests (forge.Listing).
type listing interface {
	Find(ctx context.Context, maxAge time.Duration, head, base string) (forge.PullRequest, bool, error)
	Forks(ctx context.Context, maxAge time.Duration, head, base string) ([]forge.PullRequest, error)
	Number(ctx context.Context, maxAge time.Duration, n int64) (forge.PullRequest, bool, error)
	Record(pr forge.PullRequest)
	Invalidate()
}

// pacer is what a PullRequest needs of the forge account's pace.
type pacer interface {
	TakeN(key string, r forge.Rate, n int) (bool, time.Time)
	Held(key string) (time.Time, bool)
	Hold(key string, r forge.Rate, t time.Time)
}

type external struct {
	acc *account
	// key names the forge account and repository, for the pacer.
	key string
	typ forge.Type
	// creds names the Secret and key of the Git credentials; apiCreds
	// those of the forge's API token (the same when the Secret has no
	// API token key).
	creds, apiCreds string
	repo            repository
	listing         listing
	pacer           pacer
	clock           clock.PassiveClock
	kube            client.Reader
	maxAge          time.Duration
	// watch wakes mg when its branches move; nil: its poll alone does.
	watch follower
	// rates is the pace of creates per forge type; nil: forge.RateOf.
	rates func(forge.Type) forge.Rate
	// claims holds PullRequests of one head and base apart; nil: none.
	claims claims

	// note is Ready's message when converged.
	note string
	// observed is the pull request Observe found, for Update.
	observed forge.PullRequest
}

// Observe finds the pull request: by number from the shared list (one
// request per repository per poll however many PullRequests), by a Get
// when the list does not hold it (merged, closed) or its checks are needed
// (readiness Merged, merge Auto); with no number yet, the open one for the
// same head and base is adopted, so a restart or a lost status write never
// opens a second one. Merged and closed are final and cost no request.
// It reads (read), then follows the branches of what it read (track), then
// says what that means (classify): each once.
func (e *external) Observe(ctx context.Context, mg *v1alpha1.PullRequest) (xpmanaged.ExternalObservation, error) {
	want, err := e.desired(ctx, mg)
	if err != nil && !meta.WasDeleted(mg) {
		return xpmanaged.ExternalObservation{}, err
	}
	if e.claims != nil {
		if letGo, err := e.claims.Check(ctx, claim.PullRequest(), mg); err != nil || letGo {
			// Held by a PullRequest created first: Conflict, nothing
			// adopted nor opened. Being deleted while the other keeps it:
			// the pull request stays open.
			e.unfollow(mg)
			return xpmanaged.ExternalObservation{ResourceExists: false}, err
		}
	}
	pr, found, err := e.read(ctx, mg)
	e.track(mg, pr.State)
	return e.classify(ctx, mg, want, pr, found, err)
}

// read returns mg's pull request: from status when it is merged or closed
// there (final: nothing is asked of the forge), else from the forge, once
// the account may ask.
func (e *external) read(ctx context.Context, mg *v1alpha1.PullRequest) (forge.PullRequest, bool, error) {
	a := mg.Status.AtProvider
	if s := forge.State(a.State); s == forge.StateMerged || s == forge.StateClosed {
		return forge.PullRequest{Number: a.Number, State: s, MergeCommit: a.MergeCommit}, true, nil
	}
	if err := e.held(); err != nil {
		return forge.PullRequest{}, false, err
	}
	return e.find(ctx, mg)
}

// track follows mg's branches while its pull request may still change
// (open, or not opened yet): a merged or closed one, or a resource being
// deleted, is followed no more.
func (e *external) track(mg *v1alpha1.PullRequest, s forge.State) {
	if s == forge.StateMerged || s == forge.StateClosed || meta.WasDeleted(mg) {
		e.unfollow(mg)
		return
	}
	e.follow(mg)
}

// classify says what the pull request read (or the error reading it)
// means for mg, and acts on it: the observation, Ready's note, or the
// outcome that holds mg back.
func (e *external) classify(ctx context.Context, mg *v1alpha1.PullRequest, want forge.Spec, pr forge.PullRequest, found bool, err error) (xpmanaged.ExternalObservation, error) {
	gone := xpmanaged.ExternalObservation{ResourceExists: false}
	deleted := meta.WasDeleted(mg)
	switch {
	case isNotOurs(err) && deleted:
		// Not this resource's: never closed, the finalizer goes.
		return gone, nil
	case err != nil:
		return xpmanaged.ExternalObservation{}, err
	case !found && deleted:
		return gone, nil
	case !found:
		return gone, e.headExists(ctx, mg)
	case pr.State == forge.StateMerged:
		e.note = fmt.Sprintf(msgMergedFmt, pr.Number, pr.MergeCommit)
		return xpmanaged.ExternalObservation{ResourceExists: !deleted, ResourceUpToDate: true}, nil
	case pr.State == forge.StateClosed && deleted:
		return gone, nil
	case pr.State == forge.StateClosed:
		return xpmanaged.ExternalObservation{}, managed.Stalled(ReasonClosed, errors.Errorf(msgClosedFmt, pr.Number))
	case deleted:
		return xpmanaged.ExternalObservation{ResourceExists: true}, nil
	}
	obs := xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}
	if d := drift(want, pr); d != "" {
		obs.ResourceUpToDate, obs.Diff = false, d
		return obs, nil
	}
	if e.wantsMerge(mg, pr) {
		obs.ResourceUpToDate, obs.Diff = false, "merge Auto is not requested of the forge yet"
		return obs, nil
	}
	return obs, e.openOutcome(mg, pr)
}

// find returns the pull request mg names, or adopts the open one for its
// branches, and records it in status.
func (e *external) find(ctx context.Context, mg *v1alpha1.PullRequest) (forge.PullRequest, bool, error) {
	p := mg.Spec.ForProvider
	n := numberOf(mg)
	var pr forge.PullRequest
	var ok bool
	var err error
	if n == 0 {
		if pr, ok, err = e.listing.Find(ctx, e.maxAge, p.Head, p.Base); err != nil || !ok || isFork(pr) {
			// A fork's pull request is never adopted, whatever the
			// listing lets through.
			return forge.PullRequest{}, false, e.forgeError(err, errList)
		}
		n = pr.Number
		meta.SetExternalName(mg, strconv.FormatInt(n, 10))
	} else if pr, ok, err = e.listing.Number(ctx, e.maxAge, n); err != nil {
		return pr, false, e.forgeError(err, errList)
	}
	detailed := !ok || e.needsDetail(mg)
	head, moved := "", false
	if !detailed && !meta.WasDeleted(mg) {
		head, moved = e.headMoved(ctx, mg, pr)
		detailed = moved
	}
	if detailed {
		// Not open by the list (merged, closed, or the list is older than
		// the pull request or its branches), or its checks are needed to
		// merge or report.
		pr, err = e.acc.client.Get(ctx, n)
		if errors.Is(err, forge.ErrNotFound) {
			// Deleted on the forge (GitLab lets an owner do so): open
			// another, unless the resource is going.
			mg.Status.AtProvider = v1alpha1.PullRequestObservation{}
			meta.SetExternalName(mg, "")
			return pr, false, nil
		}
		if err != nil {
			return pr, false, e.forgeError(err, errGet)
		}
		if moved {
			// The list's other readers see the moved head too.
			e.listing.Record(pr)
		}
	}
	if err := notOurs(mg, pr); err != nil {
		return pr, false, err
	}
	e.forget(pr)
	e.acc.authWait.Store(0)
	e.confirmed(n, head)
	observe(mg, e.typ, pr, detailed)
	e.observed = pr
	return pr, true, nil
}

// needsDetail: waiting for a merge (readiness Merged, or merge Auto) reads
// checks, mergeable and the review decision, which only a Get reports.
func (e *external) needsDetail(mg *v1alpha1.PullRequest) bool {
	p := mg.Spec.ForProvider
	return p.Readiness == v1alpha1.ReadinessMerged || p.Merge.Strategy == v1alpha1.MergeAuto
}

// wantsMerge: merge Auto asks the forge to merge (once), or, where the
// forge has no auto-merge, merges itself once the pull request is mergeable
// and no check failed.
func (e *external) wantsMerge(mg *v1alpha1.PullRequest, pr forge.PullRequest) bool {
	if mg.Spec.ForProvider.Merge.Strategy != v1alpha1.MergeAuto || pr.AutoMerge {
		return false
	}
	if !e.acc.refusedAuto(pr) {
		sha, ok := e.acc.asked.Load(pr.Number)
		return !ok || sha != pr.HeadSHA
	}
	return pr.Mergeable != nil && *pr.Mergeable && pr.Checks != forge.ChecksFailure
}

// openOutcome is an open pull request as declared: Ready with readiness
// Open; with readiness Merged, waiting for the merge (progressing, polled).
func (e *external) openOutcome(mg *v1alpha1.PullRequest, pr forge.PullRequest) error {
	more := ""
	if mg.Spec.ForProvider.Merge.Strategy == v1alpha1.MergeAuto {
		more = msgAutoFmt
		if e.acc.refusedAuto(pr) {
			more = msgProviderMergesFmt
		}
	}
	if pr.Checks == forge.ChecksFailure {
		more += msgChecksFailedFmt
	}
	if mg.Spec.ForProvider.Readiness == v1alpha1.ReadinessMerged {
		return managed.WaitingFor(ReasonAwaitingMerge, fmt.Sprintf(msgAwaitingFmt, pr.Number, pr.URL, more), e.maxAge)
	}
	e.note = fmt.Sprintf(msgOpenFmt, pr.Number, pr.URL) + more
	return nil
}

// desired is what mg asks of this forge: optional reviewers are
// reviewers where it has no optional ones (forge.Spec.For).
func (e *external) desired(ctx context.Context, mg *v1alpha1.PullRequest) (forge.Spec, error) {
	s, err := desired(ctx, e.kube, mg)
	return s.For(e.typ), err
}

// coster is a forge client whose create makes more than one
// content-creating request (GitHub's labels and review requests follow the
// create), which the pace spends all at once.
type coster interface {
	CreateCost(s forge.Spec) int
}

// createCost is how many content-creating requests opening s costs on c:
// one where c does not say.
func createCost(c forge.Client, s forge.Spec) int {
	if cc, ok := c.(coster); ok {
		return cc.CreateCost(s)
	}
	return 1
}

// rate is the pace of creates on this forge.
func (e *external) rate() forge.Rate {
	if e.rates != nil {
		return e.rates(e.typ)
	}
	return forge.RateOf(e.typ)
}

// pace spends n content-creating requests of the forge account, or says
// until when they wait: GitHub's secondary limit counts every POST, PATCH,
// PUT and DELETE, so edits, merges and closes are paced as creates are.
func (e *external) pace(n int) error {
	if ok, at := e.pacer.TakeN(e.key, e.rate(), n); !ok {
		return managed.WaitingFor(ReasonRateLimited, fmt.Sprintf(msgPacedFmt, at.UTC().Format(time.RFC3339)), at.Sub(e.clock.Now()))
	}
	return nil
}

// held waits for a hold the forge asked of the account.
func (e *external) held() error {
	if t, ok := e.pacer.Held(e.key); ok {
		if e.acc.authWait.Load() > 0 {
			return managed.WaitingFor(ReasonRateLimited, fmt.Sprintf(msgAuthHeldFmt, e.apiCreds, t.UTC().Format(time.RFC3339)), t.Sub(e.clock.Now()))
		}
		return managed.WaitingFor(ReasonRateLimited, fmt.Sprintf(msgPacedFmt, t.UTC().Format(time.RFC3339)), t.Sub(e.clock.Now()))
	}
	return nil
}

// Create opens the pull request, paced per forge account. One already open
// for the branches (opened by a person, or by a create whose answer was
// lost) is adopted.
func (e *external) Create(ctx context.Context, mg *v1alpha1.PullRequest) (xpmanaged.ExternalCreation, error) {
	want, err := e.desired(ctx, mg)
	if err != nil {
		return xpmanaged.ExternalCreation{}, err
	}
	if err := e.pace(createCost(e.acc.client, want)); err != nil {
		return xpmanaged.ExternalCreation{}, err
	}
	pr, err := e.acc.client.Create(ctx, want)
	switch {
	case errors.Is(err, forge.ErrExists):
		e.listing.Invalidate()
		found, ok, lerr := e.listing.Find(ctx, 0, want.Head, want.Base)
		if lerr != nil {
			return xpmanaged.ExternalCreation{}, errors.Wrap(e.forgeError(lerr, errList), errCreate)
		}
		if !ok {
			return xpmanaged.ExternalCreation{}, e.blocked(ctx, want, err)
		}
		pr = found
	case errors.Is(err, forge.ErrNoSuchBranch):
		return xpmanaged.ExternalCreation{}, managed.WaitingFor(ReasonHeadBranchMissing,
			fmt.Sprintf(msgForgeNoBranchFmt, want.Head, want.Base, err.Error()), e.backoff(mg))
	case err != nil:
		// The forge may have opened it all the same (an answer lost to a
		// timeout): the next reconcile lists again rather than trust the
		// listing this create was decided on, and adopts what it finds.
		e.listing.Invalidate()
		return xpmanaged.ExternalCreation{}, e.forgeError(err, errCreate)
	default:
		e.listing.Record(pr)
	}
	meta.SetExternalName(mg, strconv.FormatInt(pr.Number, 10))
	observe(mg, e.typ, pr, false)
	return xpmanaged.ExternalCreation{}, nil
}

// Update puts back what a person changed, and asks for the merge Auto
// declares.
func (e *external) Update(ctx context.Context, mg *v1alpha1.PullRequest) (xpmanaged.ExternalUpdate, error) {
	want, err := e.desired(ctx, mg)
	if err != nil {
		return xpmanaged.ExternalUpdate{}, err
	}
	n, pr := numberOf(mg), e.observed
	if drift(want, pr) != "" {
		if err := e.pace(updateCost(want, pr)); err != nil {
			return xpmanaged.ExternalUpdate{}, err
		}
		if pr, err = e.acc.client.Update(ctx, n, want); err != nil {
			return xpmanaged.ExternalUpdate{}, e.forgeError(err, errUpdate)
		}
		e.listing.Record(pr)
	}
	if e.wantsMerge(mg, pr) {
		if err := e.merge(ctx, mg, pr); err != nil {
			return xpmanaged.ExternalUpdate{}, err
		}
	}
	observe(mg, e.typ, pr, false)
	return xpmanaged.ExternalUpdate{}, nil
}

// Delete closes an open pull request. The managed reconciler calls it only
// when managementPolicies include Delete; Observe reports a merged or
// closed one as gone, so neither is touched.
func (e *external) Delete(ctx context.Context, mg *v1alpha1.PullRequest) (xpmanaged.ExternalDelete, error) {
	n := numberOf(mg)
	if n == 0 {
		return xpmanaged.ExternalDelete{}, nil
	}
	// Re-checked, whatever Observe saw: a pull request the external name
	// points at but this resource did not declare is never closed.
	pr, err := e.acc.client.Get(ctx, n)
	if errors.Is(err, forge.ErrNotFound) {
		return xpmanaged.ExternalDelete{}, nil
	}
	if err != nil {
		return xpmanaged.ExternalDelete{}, e.forgeError(err, errGet)
	}
	if !declared(mg, pr) || pr.State != forge.StateOpen {
		return xpmanaged.ExternalDelete{}, nil
	}
	if err := e.pace(1); err != nil {
		return xpmanaged.ExternalDelete{}, err
	}
	if err := e.acc.client.Close(ctx, n); err != nil {
		return xpmanaged.ExternalDelete{}, e.forgeError(err, errClose)
	}
	mg.Status.AtProvider.State = string(forge.StateClosed)
	e.listing.Invalidate()
	return xpmanaged.ExternalDelete{}, nil
}

// Note is Ready's message when converged.
func (e *external) Note() string { return e.note }

// Disconnect keeps the client: it is shared across reconciles.
func (e *external) Disconnect(_ context.Context) error { return nil }
