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
	"fmt"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// Reasons of a PullRequest. Each state has its kstatus meaning:
//
//	state                                        Ready   Reconciling  Stalled  kstatus
//	open as declared (readiness Open)            True    False        False    Current
//	merged                                       True    False        False    Current
//	open, readiness Merged: waiting for a merge  False   True         False    InProgress
//	head or base branch not there yet            False   True         False    InProgress
//	numbered pull request not this one's         False   False        True     Failed
//	rate limited or paced by the forge           False   True         False    InProgress
//	closed by a person without merging           False   False        True     Failed
//	forge unknown, no token, refused token       False   False        True     Failed
//
// Waiting for a person's review is InProgress, not Current: the declared
// end (merged) is not reached, and kubectl wait --for=condition=Ready and a
// Composition's readiness must keep waiting. It is not Failed either:
// nothing is wrong and nothing in the provider must change.
const (
	// ReasonAwaitingMerge: open as declared, with readiness Merged; the
	// forge (merge Auto) or a person is still to merge it.
	ReasonAwaitingMerge xpv2.ConditionReason = "AwaitingMerge"
	// ReasonHeadBranchMissing: the head (or base) branch does not exist
	// yet; a Branch created alongside may still be creating it.
	ReasonHeadBranchMissing xpv2.ConditionReason = "HeadBranchMissing"
	// ReasonBaseBranchMissing: the base branch does not exist (yet).
	ReasonBaseBranchMissing xpv2.ConditionReason = "BaseBranchMissing"
	// ReasonNotOurs: the pull request the external name points at has
	// another head or base than the spec, or its head is in a fork: it is
	// never updated, merged nor closed by this resource.
	ReasonNotOurs xpv2.ConditionReason = "NotOurs"
	// ReasonRateLimited: the forge asked to wait (Retry-After,
	// X-RateLimit-Reset), or creates are paced below its secondary limit.
	ReasonRateLimited xpv2.ConditionReason = "RateLimited"
	// ReasonClosed: a person closed the pull request without merging it.
	// The provider never reopens it: delete the PullRequest (and create a
	// new one) to propose the change again.
	ReasonClosed xpv2.ConditionReason = "Closed"
	// ReasonForgeRefused: the forge's API refused what the credentials may
	// do (403), or the request as invalid (422: an unknown label, reviewer
	// or assignee), with its own words.
	ReasonForgeRefused xpv2.ConditionReason = "ForgeRefused"
)

const (
	msgHeadMissingFmt    = "head branch %q does not exist yet (a Branch resource may still be creating it)"
	msgBaseMissingFmt    = "base branch %q does not exist (a Branch resource may still be creating it)"
	msgForgeNoBranchFmt  = "the forge says the head %q or base %q branch does not exist: %s"
	msgNotOursFmt        = "pull request #%d is not this resource's: declared head %q into base %q, found head %s into base %q; it is left untouched"
	msgProviderMergesFmt = "; the forge refused auto-merge at this head, so it is merged by the provider once mergeable"
	msgAuthHeldFmt       = "the forge refused the API token from %s; this forge account is held until %s"
	msgRateLimitedFmt    = "the forge asked to wait until %s: %s"
	msgPacedFmt          = "writing to pull requests on this forge account (creates, edits, merges, closes) is paced below its limits; next at %s"
	msgClosedFmt         = "pull request #%d was closed without being merged; it is never reopened: delete this PullRequest to propose the change again"
	msgAwaitingFmt       = "pull request #%d is open at %s; waiting for it to be merged%s"
	msgOpenFmt           = "pull request #%d is open at %s"
	msgMergedFmt         = "pull request #%d was merged as %s"
	msgAutoFmt           = "; auto-merge requested of the forge: the forge merges it once checks and reviews allow"
	msgChecksFailedFmt   = "; its checks failed"
	errHeldFmt           = "every resource of this forge account waits %s"
	errRefusedTokenFmt   = "the forge refused the API token from %s"
)

// headRetry is how soon a PullRequest whose head branch is missing looks
// again: a Branch created alongside usually pushes within seconds.
const headRetry = 5 * time.Second

// forgeError classifies an error of the forge's client: a rate limit holds
// the account and waits for its time, never stalls; a refusal a person
// must fix is Stalled with the forge's words; anything else is transient.
func (e *external) forgeError(err error, what string) error {
	var rl *forge.RateLimitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &rl):
		e.pacer.Hold(e.key, e.rate(), rl.At)
		return managed.WaitingFor(ReasonRateLimited, fmt.Sprintf(msgRateLimitedFmt, rl.At.UTC().Format(time.RFC3339), rl.Msg), rl.At.Sub(e.clock.Now()))
	case errors.Is(err, forge.ErrUnauthorized):
		d := e.holdRefused()
		if e.apiCreds != "" {
			err = errors.Wrapf(err, errRefusedTokenFmt, e.apiCreds)
		}
		err = errors.Wrapf(err, errHeldFmt, d)
		return managed.Stalled(spec.ReasonAuthenticationFailed, errors.Wrap(err, what))
	case errors.Is(err, forge.ErrNoCredentials):
		return managed.Stalled(config.ReasonForgeTokenMissing, errors.Wrap(err, what))
	case errors.Is(err, forge.ErrForbidden), errors.Is(err, forge.ErrInvalidInput):
		return managed.Stalled(ReasonForgeRefused, errors.Wrap(err, what))
	}
	return errors.Wrap(err, what)
}
