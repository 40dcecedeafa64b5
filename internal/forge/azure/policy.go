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

package azure

import (
	"strings"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// Policy types the mapping tells apart (the ids Azure DevOps gives every
// organization's built-in policy types).
const (
	typeMinimumReviewers  = "fa4e907d-c16b-4a4c-9dfa-4906e5d171dd"
	typeRequiredReviewers = "fd2167ab-b0be-447a-8ec8-39368250530e"
)

// Policy evaluation states.
const (
	evalApproved      = "approved"
	evalRejected      = "rejected"
	evalBroken        = "broken"
	evalQueued        = "queued"
	evalRunning       = "running"
	evalNotApplicable = "notApplicable"
)

// Votes a reviewer casts.
const (
	voteApproved       = 10
	voteApprovedWithSg = 5
	voteWaiting        = -5
	voteRejected       = -10
)

// reviewPolicy reports whether e is a reviewer policy's evaluation.
func reviewPolicy(e evaluation) bool {
	id := strings.ToLower(e.Configuration.Type.ID)
	return id == typeMinimumReviewers || id == typeRequiredReviewers
}

// counts reports whether e is an enabled, blocking policy that applies.
func counts(e evaluation) bool {
	c := e.Configuration
	return c.IsEnabled && c.IsBlocking && e.Status != evalNotApplicable
}

// checks folds the blocking evaluations of every policy but the reviewer
// policies (build validation, status checks, comments, work items):
// failure when one is rejected or broken, else pending when one is queued
// or running, else success when one approved, else "" (none applies).
func checks(evals []evaluation) forge.Checks {
	var got forge.Checks
	for _, e := range evals {
		if !counts(e) || reviewPolicy(e) {
			continue
		}
		switch e.Status {
		case evalRejected, evalBroken:
			return forge.ChecksFailure
		case evalQueued, evalRunning:
			got = forge.ChecksPending
		case evalApproved:
			if got == "" {
				got = forge.ChecksSuccess
			}
		}
	}
	return got
}

// decision is GitHub's reviewDecision from Azure's: CHANGES_REQUESTED
// when a reviewer rejected or waits for the author; else REVIEW_REQUIRED
// while a required reviewer has not approved; else, where reviewer
// policies apply, APPROVED when all approved and REVIEW_REQUIRED when one
// did not; without them, APPROVED when someone approved, else "".
func decision(evals []evaluation, rs []reviewer) string {
	approved, requiredWaiting := false, false
	for _, r := range rs {
		switch {
		case r.Vote == voteRejected, r.Vote == voteWaiting:
			return "CHANGES_REQUESTED"
		case r.Vote == voteApproved, r.Vote == voteApprovedWithSg:
			approved = true
		case r.IsRequired && !r.HasDeclined:
			requiredWaiting = true
		}
	}
	policies, allApproved := false, true
	for _, e := range evals {
		if !counts(e) || !reviewPolicy(e) {
			continue
		}
		policies = true
		allApproved = allApproved && e.Status == evalApproved
	}
	switch {
	case requiredWaiting:
		// Azure completes nothing while a required reviewer has not
		// approved, policy or none.
		return "REVIEW_REQUIRED"
	case policies && allApproved:
		return "APPROVED"
	case policies:
		return "REVIEW_REQUIRED"
	case approved:
		return "APPROVED"
	}
	return ""
}
