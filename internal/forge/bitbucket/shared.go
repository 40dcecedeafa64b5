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

package bitbucket

import (
	"slices"
	"strings"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	msgNoLabels = "Bitbucket has no labels or assignees on pull requests: remove spec.forProvider.labels and assignees"
	// Review decisions, in GitHub's words as forge.PullRequest reports them.
	decisionApproved  = "APPROVED"
	decisionChanges   = "CHANGES_REQUESTED"
	decisionRequired  = "REVIEW_REQUIRED"
	errUnsupportedFmt = "cannot %s"
)

// unkeepable says why s cannot be kept on Bitbucket, "" when it can.
func unkeepable(s forge.Spec) string {
	if len(s.Labels) > 0 || len(s.Assignees) > 0 {
		return msgNoLabels
	}
	return ""
}

// vote is one reviewer's standing: approved, changes asked, or neither.
type vote int

const (
	voteNone vote = iota
	voteApproved
	voteChanges
)

// decision is GitHub's reviewDecision from Bitbucket's reviewers: any who
// asks for changes (Cloud's changes_requested, Data Center's NEEDS_WORK)
// gives CHANGES_REQUESTED, else any approval APPROVED, else
// REVIEW_REQUIRED while reviewers are named, else "". Bitbucket keeps one
// standing per reviewer, so there is no history to fold.
func decision(votes []vote, reviewers int) string {
	switch {
	case slices.Contains(votes, voteChanges):
		return decisionChanges
	case slices.Contains(votes, voteApproved):
		return decisionApproved
	case reviewers > 0:
		return decisionRequired
	}
	return ""
}

// fold is failure over pending over success over none.
func fold(cs ...forge.Checks) forge.Checks {
	switch {
	case slices.Contains(cs, forge.ChecksFailure):
		return forge.ChecksFailure
	case slices.Contains(cs, forge.ChecksPending):
		return forge.ChecksPending
	case slices.Contains(cs, forge.ChecksSuccess):
		return forge.ChecksSuccess
	}
	return ""
}

// set sorts and deduplicates, dropping ""; nil when empty, so equal sets
// compare equal.
func set(in []string) []string {
	out := slices.DeleteFunc(slices.Clone(in), func(s string) bool { return s == "" })
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sameHead reports whether have is the judged head want: equal, or, where
// the forge answered an abbreviated hash, its prefix (at least 7).
func sameHead(want, have string) bool {
	want, have = strings.ToLower(want), strings.ToLower(have)
	switch {
	case want == "" || have == "":
		return false
	case len(want) == len(have):
		return want == have
	case len(have) < len(want):
		return len(have) >= 7 && strings.HasPrefix(want, have)
	}
	return len(want) >= 7 && strings.HasPrefix(have, want)
}

func ptr[T any](v T) *T { return &v }
