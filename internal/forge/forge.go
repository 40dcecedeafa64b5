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

// Package forge opens, reads, keeps and merges pull requests on the forges
// teams host their repositories on (GitHub and GitHub Enterprise, GitLab,
// Gitea and Forgejo, Bitbucket Cloud and Data Center). One Client speaks to one repository; each forge has
// its own package that implements it. It imports no Kubernetes types: the
// PullRequest controller turns what it reports into conditions.
//
// Azure DevOps fits the same Client: open pull requests to list, a create
// that takes head, base, title and body, reviewers, a merge with a strategy
// and an auto-complete.
package forge

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Type names a forge's API.
type Type string

// Forges with a Client.
const (
	GitHub  Type = "GitHub"
	GitLab  Type = "GitLab"
	Gitea   Type = "Gitea"
	Forgejo Type = "Forgejo"
	// BitbucketCloud is bitbucket.org (REST 2.0); BitbucketDataCenter a
	// self-hosted Bitbucket Data Center or Server (REST 1.0). The names
	// are events.SourceBitbucketCloud and SourceBitbucketDataCenter.
	BitbucketCloud      Type = "BitbucketCloud"
	BitbucketDataCenter Type = "BitbucketDataCenter"
	// AzureDevOps is Azure Repos: Azure DevOps Services (dev.azure.com,
	// *.visualstudio.com) and Azure DevOps Server.
	AzureDevOps Type = "AzureDevOps"
)

// State is where a pull request is in its life.
type State string

// States. Merged and Closed are final for the provider: it never reopens.
const (
	StateOpen   State = "Open"
	StateMerged State = "Merged"
	StateClosed State = "Closed"
)

// MergeMethod is how a merge lands on the base branch.
type MergeMethod string

// Merge methods every forge here offers.
const (
	MethodMerge  MergeMethod = "merge"
	MethodSquash MergeMethod = "squash"
	MethodRebase MergeMethod = "rebase"
)

// Checks is the combined status of a pull request's head commit.
type Checks string

// Combined check states; "" when the forge reports none.
const (
	ChecksPending Checks = "pending"
	ChecksSuccess Checks = "success"
	ChecksFailure Checks = "failure"
)

// Spec is a pull request as declared: what the provider opens and keeps.
type Spec struct {
	Head  string
	Base  string
	Title string
	Body  string
	Draft bool
	// Labels, Reviewers and Assignees are sets: order does not matter.
	// Reviewers and Assignees are forge user names.
	Labels    []string
	Reviewers []string
	Assignees []string
	// OptionalReviewers are requested without being required, on a forge
	// that tells the two apart (OptionalReviewersOf); on the others they
	// are Reviewers.
	OptionalReviewers []string
}

// OptionalReviewersOf reports whether the forge of type t tells an
// optional reviewer from a required one (Azure DevOps' isRequired). The
// others request every reviewer alike, and their own rules say whose
// approval a merge needs.
func OptionalReviewersOf(t Type) bool { return t == AzureDevOps }

// For is s as a forge of type t takes it: where t has no optional
// reviewers, they are requested as Reviewers.
func (s Spec) For(t Type) Spec {
	if OptionalReviewersOf(t) || len(s.OptionalReviewers) == 0 {
		return s
	}
	s.Reviewers = append(slices.Clone(s.Reviewers), s.OptionalReviewers...)
	s.OptionalReviewers = nil
	return s
}

// PullRequest is a pull request (a merge request on GitLab) as the forge
// reports it.
type PullRequest struct {
	Number int64
	URL    string
	State  State
	Head   string
	Base   string
	// HeadRepo is the repository the head branch lives in ("owner/name" as
	// the forge spells it), "" when the forge no longer knows it (a
	// deleted fork).
	HeadRepo string
	// HeadInRepo is true only when the forge reports the head branch in
	// the pull request's own repository. The zero value is a fork: a
	// client that cannot tell makes the provider leave the pull request
	// alone rather than adopt a stranger's.
	HeadInRepo bool
	// HeadSHA is the head branch's commit the forge last saw.
	HeadSHA string
	// MergeCommit is set once merged.
	MergeCommit string
	Title       string
	Body        string
	Draft       bool
	Labels      []string
	Reviewers   []string
	Assignees   []string
	// Mergeable is nil while the forge has not computed it.
	Mergeable *bool
	Checks    Checks
	// ReviewDecision is the forge's own word (e.g. GitHub's APPROVED,
	// CHANGES_REQUESTED, REVIEW_REQUIRED), "" where it tells none.
	ReviewDecision string
	// AutoMerge is true once the forge itself will merge when it may.
	AutoMerge bool
}

// Merge is how to merge a pull request.
type Merge struct {
	Method MergeMethod
	// DeleteBranch removes the head branch once merged.
	DeleteBranch bool
	// Message is the merge commit's message; "" leaves the forge's.
	Message string
	// HeadSHA is the head commit the provider judged mergeable: the forge
	// refuses the merge (ErrHeadMoved) when the head has moved since, so
	// nothing unjudged is merged.
	HeadSHA string
}

// A Client speaks to one repository's pull requests on one forge. Every
// call takes a context; implementations set no timeout of their own beyond
// the HTTP client's.
type Client interface {
	// Type names the forge.
	Type() Type
	// ListOpen returns every open pull request of the repository. A forge
	// with conditional requests answers an unchanged list from its ETag at
	// no rate-limit cost; notModified then says the previous list stands.
	ListOpen(ctx context.Context) (prs []PullRequest, notModified bool, err error)
	// Get returns one pull request in any state, with its checks and
	// review decision filled in where the forge reports them.
	Get(ctx context.Context, number int64) (PullRequest, error)
	// Create opens a pull request. When one is already open for the same
	// head and base it returns ErrExists (the caller adopts it).
	Create(ctx context.Context, s Spec) (PullRequest, error)
	// Update puts title, body, draft, labels, reviewers and assignees back
	// to s. Head and base are never changed.
	Update(ctx context.Context, number int64, s Spec) (PullRequest, error)
	// Close closes an open pull request without merging it.
	Close(ctx context.Context, number int64) error
	// Merge merges now; ErrNotMergeable when the forge refuses for now
	// (checks, reviews, conflicts).
	Merge(ctx context.Context, number int64, m Merge) error
	// AutoMerge asks the forge to merge once checks and reviews allow.
	// ErrUnsupported where the forge has no such request (the caller then
	// merges itself once the pull request is mergeable).
	AutoMerge(ctx context.Context, number int64, m Merge) error
}

// Sentinel errors, matched with errors.Is.
var (
	ErrExists        = sentinel("a pull request for this head and base is already open")
	ErrNotFound      = sentinel("no such pull request")
	ErrNotMergeable  = sentinel("the forge does not allow the merge yet")
	ErrUnsupported   = sentinel("the forge does not support this")
	ErrUnauthorized  = sentinel("the forge refused the credentials")
	ErrForbidden     = sentinel("the credentials may not do this on the forge")
	ErrInvalidInput  = sentinel("the forge refused the request as invalid")
	ErrNoSuchBranch  = sentinel("the head or base branch does not exist on the forge")
	ErrNoCredentials = sentinel("no API token for the forge")
	ErrHeadMoved     = sentinel("the head branch moved since it was judged")
)

type sentinel string

func (s sentinel) Error() string { return string(s) }

// RateLimitError says the forge asked to wait until At before the next
// request (Retry-After, X-RateLimit-Reset). It is never a reason to stall.
type RateLimitError struct {
	At  time.Time
	Msg string
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("rate limited by the forge until %s: %s", e.At.UTC().Format(time.RFC3339), e.Msg)
}

// APIError is a refusal with the forge's own words, wrapping one of the
// sentinels above when it maps to one.
type APIError struct {
	Status  int
	Message string
	Kind    error
}

func (e *APIError) Error() string {
	if e.Kind != nil {
		return fmt.Sprintf("%s (HTTP %d: %s)", e.Kind, e.Status, e.Message)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
}

// Unwrap returns the sentinel the refusal maps to, if any.
func (e *APIError) Unwrap() error { return e.Kind }
