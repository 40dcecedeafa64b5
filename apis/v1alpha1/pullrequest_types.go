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

package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MergeStrategy says who merges a pull request.
// +kubebuilder:validation:Enum=Manual;Auto
type MergeStrategy string

// Merge strategies.
const (
	// MergeManual leaves the merge to a person.
	MergeManual MergeStrategy = "Manual"
	// MergeAuto asks the forge to merge once checks and reviews allow, or
	// merges itself where the forge has no auto-merge.
	MergeAuto MergeStrategy = "Auto"
)

// MergeMethod is how a merge lands on the base branch.
// +kubebuilder:validation:Enum=merge;squash;rebase
type MergeMethod string

// Merge methods.
const (
	MergeMethodMerge  MergeMethod = "merge"
	MergeMethodSquash MergeMethod = "squash"
	MergeMethodRebase MergeMethod = "rebase"
)

// PullRequestReadiness says when a PullRequest is Ready.
// +kubebuilder:validation:Enum=Open;Merged
type PullRequestReadiness string

// Readiness choices.
const (
	// ReadinessOpen: Ready once the pull request is open as declared (or
	// merged).
	ReadinessOpen PullRequestReadiness = "Open"
	// ReadinessMerged: Ready only once merged, so a Composition can wait on
	// the merge.
	ReadinessMerged PullRequestReadiness = "Merged"
)

// PullRequestMerge says whether and how the provider merges.
type PullRequestMerge struct {
	// Strategy is Manual (a person merges; the default) or Auto (the forge
	// merges once checks and reviews allow; where the forge has no
	// auto-merge, the provider merges once the forge says the pull request
	// is mergeable and no check failed).
	// +optional
	// +kubebuilder:default=Manual
	Strategy MergeStrategy `json:"strategy,omitempty"`

	// Method of an Auto merge: merge (a merge commit; the default), squash
	// or rebase.
	// +optional
	// +kubebuilder:default=merge
	Method MergeMethod `json:"method,omitempty"`

	// DeleteBranch removes the head branch once an Auto merge landed.
	// +optional
	DeleteBranch bool `json:"deleteBranch,omitempty"`
}

// PullRequestParameters are the desired state of a PullRequest.
// +kubebuilder:validation:XValidation:rule="self.head != self.base",message="head and base must be different branches"
// +kubebuilder:validation:XValidation:rule="!has(self.reviewers) || !has(self.optionalReviewers) || self.optionalReviewers.all(r, !(r in self.reviewers))",message="a reviewer is either required (reviewers) or optional (optionalReviewers), not both"
type PullRequestParameters struct {
	// Head is the branch whose commits the pull request proposes. It may not
	// exist yet: the PullRequest waits for it (a Branch created alongside
	// may still be creating it).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self != 'HEAD' && !self.startsWith('refs/') && self.matches('^[A-Za-z0-9._/+-]+$') && !self.startsWith('/') && !self.matches('(^|/)[.-]') && !self.contains('..') && !self.contains('//') && !self.endsWith('/') && !self.endsWith('.') && !self.endsWith('.lock') && !self.contains('.lock/')",message="head must be a valid Git branch name: letters, digits and . _ / + -, no '..' or '//', no component starting with '.' or '-', not ending in '/', '.' or '.lock', not HEAD, not starting with refs/"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="head is immutable; create a new PullRequest instead"
	Head string `json:"head"`

	// Base is the branch the pull request merges into.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self != 'HEAD' && !self.startsWith('refs/') && self.matches('^[A-Za-z0-9._/+-]+$') && !self.startsWith('/') && !self.matches('(^|/)[.-]') && !self.contains('..') && !self.contains('//') && !self.endsWith('/') && !self.endsWith('.') && !self.endsWith('.lock') && !self.contains('.lock/')",message="base must be a valid Git branch name: letters, digits and . _ / + -, no '..' or '//', no component starting with '.' or '-', not ending in '/', '.' or '.lock', not HEAD, not starting with refs/"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="base is immutable; create a new PullRequest instead"
	Base string `json:"base"`

	// Title of the pull request. A person's edit of it is put back.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\x00-\\x1f\\x7f]')",message="title must not contain control characters"
	Title string `json:"title"`

	// Body is a Go template for the pull request's description. It may use
	// .Head, .Base, .Title, .Name and .Namespace, and .Files: the Files of
	// the same configuration on the head branch, sorted by path, each with
	// .Path and .Name (the only list a template may range over). Empty: no
	// description. A person's edit of it is put back.
	// +optional
	// +kubebuilder:validation:MaxLength=16384
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\x00-\\x08\\x0b-\\x1f\\x7f]')",message="body must not contain control characters other than newline and tab"
	Body string `json:"body,omitempty"`

	// Draft opens the pull request as a draft (where the forge has drafts:
	// GitLab marks it by a "Draft:" title prefix, which the provider does
	// not count as a person's edit).
	// +optional
	Draft bool `json:"draft,omitempty"`

	// Labels the pull request carries. Labels a person adds are removed.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	// +listType=set
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=50
	Labels []string `json:"labels,omitempty"`

	// Reviewers are forge user names whose review is requested (on
	// Bitbucket Cloud, Atlassian account IDs or {UUID}s: Cloud takes no user
	// names).
	// +optional
	// +kubebuilder:validation:MaxItems=100
	// +listType=set
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	Reviewers []string `json:"reviewers,omitempty"`

	// OptionalReviewers are forge user names whose review is requested
	// without being required, where the forge tells the two apart (Azure
	// DevOps: isRequired false); a name is in reviewers or here, not both.
	// A forge whose reviewers are all requested alike (GitHub, GitLab,
	// Gitea, Forgejo, Bitbucket) requests them as reviewers: its own rules
	// (code owners, approval rules, branch protection) say whose approval
	// a merge needs.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	// +listType=set
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	OptionalReviewers []string `json:"optionalReviewers,omitempty"`

	// Assignees are forge user names the pull request is assigned to.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	// +listType=set
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	Assignees []string `json:"assignees,omitempty"`

	// Merge says whether the provider merges: Manual (the default) or Auto.
	// +optional
	// +kubebuilder:default={}
	Merge PullRequestMerge `json:"merge,omitempty"`

	// Readiness is Open (Ready once the pull request is open as declared;
	// the default) or Merged (Ready only once it is merged).
	// +optional
	// +kubebuilder:default=Open
	Readiness PullRequestReadiness `json:"readiness,omitempty"`
}

// PullRequestObservation is the observed state of a PullRequest.
type PullRequestObservation struct {
	// Forge is the forge's type: GitHub, GitLab, Gitea, Forgejo,
	// BitbucketCloud, BitbucketDataCenter or AzureDevOps.
	Forge string `json:"forge,omitempty"`

	// Number of the pull request (the merge request's IID on GitLab).
	Number int64 `json:"number,omitempty"`

	// URL of the pull request's page.
	URL string `json:"url,omitempty"`

	// State is Open, Merged or Closed.
	State string `json:"state,omitempty"`

	// HeadSHA is the head branch's commit the forge last reported.
	HeadSHA string `json:"headSHA,omitempty"`

	// MergeCommit is the commit the merge made on the base branch.
	MergeCommit string `json:"mergeCommit,omitempty"`

	// Mergeable is whether the forge would merge now; unset while it has
	// not computed it.
	Mergeable *bool `json:"mergeable,omitempty"`

	// Checks is the combined status of the head commit's checks: pending,
	// success or failure; empty when the forge reports none.
	Checks string `json:"checks,omitempty"`

	// ReviewDecision is the forge's own word on reviews (GitHub's APPROVED,
	// CHANGES_REQUESTED, REVIEW_REQUIRED), where it tells one.
	ReviewDecision string `json:"reviewDecision,omitempty"`
}

// PullRequestSpec defines the desired state of a PullRequest.
type PullRequestSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              PullRequestParameters `json:"forProvider"`
}

// PullRequestStatus represents the observed state of a PullRequest.
type PullRequestStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 PullRequestObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A PullRequest is a pull request (a merge request on GitLab) from a head
// branch into a base branch on the forge that hosts the repository. An open
// one for the same branches is adopted, never duplicated; a person's edit of
// its title, body, labels, draft, reviewers or assignees is put back; one
// closed by a person is Stalled (never reopened); merged is final. Deleting
// it closes an open pull request unless its management policies leave out
// Delete; a merged one stays.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="REASON",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="CONFIG",type="string",JSONPath=".spec.providerConfigRef.name"
// +kubebuilder:printcolumn:name="HEAD",type="string",JSONPath=".spec.forProvider.head"
// +kubebuilder:printcolumn:name="BASE",type="string",JSONPath=".spec.forProvider.base"
// +kubebuilder:printcolumn:name="STATE",type="string",JSONPath=".status.atProvider.state"
// +kubebuilder:printcolumn:name="NUMBER",type="integer",JSONPath=".status.atProvider.number"
// +kubebuilder:printcolumn:name="URL",type="string",JSONPath=".status.atProvider.url",priority=1
// +kubebuilder:printcolumn:name="MESSAGE",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,git}
type PullRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PullRequestSpec   `json:"spec"`
	Status PullRequestStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PullRequestList contains a list of PullRequest.
type PullRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PullRequest `json:"items"`
}

func init() {
	SchemeBuilder.Register(&PullRequest{}, &PullRequestList{})
}
