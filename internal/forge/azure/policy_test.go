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
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func eval(typ, status string, blocking bool) evaluation {
	var e evaluation
	e.Status = status
	e.Configuration.IsEnabled, e.Configuration.IsBlocking = true, blocking
	e.Configuration.Type.ID = typ
	return e
}

const typeBuild = "0609b952-1397-4640-95ec-e00a01b2c241"

func TestChecksAndDecision(t *testing.T) {
	type want struct {
		checks   forge.Checks
		decision string
	}
	cases := map[string]struct {
		reason    string
		evals     []evaluation
		reviewers []reviewer
		want      want
	}{
		"Nothing": {
			reason: "no policy and no reviewer: nothing to report",
		},
		"BuildPassed": {
			reason: "an approved build validation is success",
			evals:  []evaluation{eval(typeBuild, evalApproved, true)},
			want:   want{checks: forge.ChecksSuccess},
		},
		"BuildFailed": {
			reason: "a rejected or broken blocking policy is failure, whatever else passed",
			evals:  []evaluation{eval(typeBuild, evalApproved, true), eval(typeBuild, evalBroken, true)},
			want:   want{checks: forge.ChecksFailure},
		},
		"BuildQueued": {
			reason: "a queued build is pending",
			evals:  []evaluation{eval(typeBuild, evalApproved, true), eval(typeBuild, evalQueued, true)},
			want:   want{checks: forge.ChecksPending},
		},
		"OptionalIgnored": {
			reason: "a policy that does not block, or does not apply, is not counted",
			evals:  []evaluation{eval(typeBuild, evalRejected, false), eval(typeBuild, evalNotApplicable, true)},
		},
		"ReviewPolicyPending": {
			reason: "a minimum-reviewers policy not met requires review; it is no check",
			evals:  []evaluation{eval(typeMinimumReviewers, evalRejected, true)},
			want:   want{decision: "REVIEW_REQUIRED"},
		},
		"ReviewPolicyMet": {
			reason: "reviewer policies approved: APPROVED",
			evals:  []evaluation{eval(typeRequiredReviewers, evalApproved, true)},
			want:   want{decision: "APPROVED"},
		},
		"Rejected": {
			reason:    "a reviewer who rejected, or waits for the author, requests changes",
			evals:     []evaluation{eval(typeMinimumReviewers, evalApproved, true)},
			reviewers: []reviewer{{ID: "a", Vote: voteApproved}, {ID: "b", Vote: voteWaiting}},
			want:      want{decision: "CHANGES_REQUESTED"},
		},
		"RequiredWaiting": {
			reason:    "a required reviewer who has not approved holds the completion, policy or none",
			evals:     []evaluation{eval(typeMinimumReviewers, evalApproved, true)},
			reviewers: []reviewer{{ID: "a", Vote: voteApproved}, {ID: "b", IsRequired: true}},
			want:      want{decision: "REVIEW_REQUIRED"},
		},
		"ApprovedWithoutPolicy": {
			reason:    "without reviewer policies, an approval is APPROVED",
			reviewers: []reviewer{{ID: "a", Vote: voteApprovedWithSg}, {ID: "b"}},
			want:      want{decision: "APPROVED"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := want{checks: checks(tc.evals), decision: decision(tc.evals, tc.reviewers)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nchecks, decision: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
