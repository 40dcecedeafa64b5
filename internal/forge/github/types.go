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

package github

// The payloads the client reads and writes, with only the fields it uses,
// under the names GitHub's REST reference (API version 2022-11-28) gives
// them. A field GitHub answers null decodes to its zero value (or nil).

// pull is a pull request as "Get a pull request" and "List pull requests"
// return it (a list leaves out merged, mergeable and mergeable_state).
type pull struct {
	Number             int64      `json:"number"`
	NodeID             string     `json:"node_id"`
	HTMLURL            string     `json:"html_url"`
	State              string     `json:"state"`
	Title              string     `json:"title"`
	Body               string     `json:"body"`
	Draft              bool       `json:"draft"`
	Merged             bool       `json:"merged"`
	MergedAt           *string    `json:"merged_at"`
	MergeCommitSHA     string     `json:"merge_commit_sha"`
	Mergeable          *bool      `json:"mergeable"`
	MergeableState     string     `json:"mergeable_state"`
	Head               branchRef  `json:"head"`
	Base               branchRef  `json:"base"`
	Labels             []label    `json:"labels"`
	Assignees          []user     `json:"assignees"`
	RequestedReviewers []user     `json:"requested_reviewers"`
	RequestedTeams     []team     `json:"requested_teams"`
	AutoMerge          *autoMerge `json:"auto_merge"`
}

// branchRef is a pull request's head or base.
type branchRef struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
	// Repo is where the branch lives: null once a fork is deleted.
	Repo *repoRef `json:"repo"`
}

// repoRef is the repository of a head or base: its id tells a fork (the
// head's differs from the base's), its full_name names it.
type repoRef struct {
	ID       int64  `json:"id"`
	FullName string `json:"full_name"`
}

type label struct {
	Name string `json:"name"`
}

type user struct {
	Login string `json:"login"`
}

type team struct {
	Slug string `json:"slug"`
}

// autoMerge is a pull request's auto_merge, null while off; only whether it
// is set is read.
type autoMerge struct{}

// combinedStatus is "Get the combined status for a specific reference".
type combinedStatus struct {
	State      string `json:"state"`
	TotalCount int    `json:"total_count"`
}

// checkRuns is "List check runs for a Git reference".
type checkRuns struct {
	CheckRuns []checkRun `json:"check_runs"`
}

type checkRun struct {
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
}

// pullReview is one of "List reviews for a pull request".
type pullReview struct {
	User  user   `json:"user"`
	State string `json:"state"`
}

// newPull is the body of "Create a pull request".
type newPull struct {
	Title string `json:"title"`
	Head  string `json:"head"`
	Base  string `json:"base"`
	Body  string `json:"body"`
	Draft bool   `json:"draft"`
}

// pullUpdate is the body of "Update a pull request"; nil is left as is.
type pullUpdate struct {
	Title *string `json:"title,omitempty"`
	Body  *string `json:"body,omitempty"`
	State *string `json:"state,omitempty"`
}

// issueUpdate is the body of "Update an issue" (a pull request is an
// issue): labels are replaced, assignees set; nil is left as is, [] clears.
type issueUpdate struct {
	Labels    *[]string `json:"labels,omitempty"`
	Assignees *[]string `json:"assignees,omitempty"`
}

// reviewersRequest is the body of "Request reviewers for a pull request".
type reviewersRequest struct {
	Reviewers     []string `json:"reviewers,omitempty"`
	TeamReviewers []string `json:"team_reviewers,omitempty"`
}

// reviewersRemoval is the body of "Remove requested reviewers from a pull
// request", where reviewers is required ([] when only teams go).
type reviewersRemoval struct {
	Reviewers     []string `json:"reviewers"`
	TeamReviewers []string `json:"team_reviewers,omitempty"`
}

// mergeRequest is the body of "Merge a pull request".
type mergeRequest struct {
	CommitMessage string `json:"commit_message,omitempty"`
	MergeMethod   string `json:"merge_method,omitempty"`
	// SHA makes GitHub refuse the merge (409) when the head moved.
	SHA string `json:"sha,omitempty"`
}

// gqlRequest is a GraphQL query with its variables; every mutation here
// takes one, $input.
type gqlRequest struct {
	Query     string       `json:"query"`
	Variables gqlVariables `json:"variables"`
}

type gqlVariables struct {
	Input gqlInput `json:"input"`
}

// gqlInput is the input of enablePullRequestAutoMerge,
// convertPullRequestToDraft and markPullRequestReadyForReview.
type gqlInput struct {
	PullRequestID string `json:"pullRequestId"`
	MergeMethod   string `json:"mergeMethod,omitempty"`
	CommitBody    string `json:"commitBody,omitempty"`
	// ExpectedHeadOid makes GitHub refuse the auto-merge when the head
	// moved since it was judged.
	ExpectedHeadOid string `json:"expectedHeadOid,omitempty"`
}

// gqlResponse is what the client reads of GraphQL's answer: its errors
// (GitHub answers them with HTTP 200).
type gqlResponse struct {
	Errors []gqlErr `json:"errors"`
}
