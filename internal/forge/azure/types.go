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

// The payloads of the calls made here, under their documented names (Git
// REST API 7.1: GitPullRequest, IdentityRefWithVote, WebApiTagDefinition,
// GitPullRequestCompletionOptions; Policy: PolicyEvaluationRecord). Only
// the fields read or written are modelled.

// pullRequest is a GitPullRequest.
type pullRequest struct {
	PullRequestID         int64                `json:"pullRequestId"`
	Status                string               `json:"status"`
	Title                 string               `json:"title"`
	Description           string               `json:"description"`
	IsDraft               bool                 `json:"isDraft"`
	SourceRefName         string               `json:"sourceRefName"`
	TargetRefName         string               `json:"targetRefName"`
	MergeStatus           string               `json:"mergeStatus"`
	Repository            *repository          `json:"repository"`
	ForkSource            *forkRef             `json:"forkSource"`
	LastMergeSourceCommit *commitRef           `json:"lastMergeSourceCommit"`
	LastMergeCommit       *commitRef           `json:"lastMergeCommit"`
	Reviewers             []reviewer           `json:"reviewers"`
	Labels                []label              `json:"labels"`
	AutoCompleteSetBy     *identityRef         `json:"autoCompleteSetBy"`
	CompletionOptions     *completionOptions   `json:"completionOptions"`
	Links                 map[string]hrefValue `json:"_links"`
}

// repository is a GitRepository as a pull request names it.
type repository struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	WebURL  string      `json:"webUrl"`
	Project *projectRef `json:"project"`
}

// projectRef is a TeamProjectReference.
type projectRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// forkRef is a GitForkRef: set on a pull request whose source branch
// lives in a fork.
type forkRef struct {
	Name       string      `json:"name"`
	Repository *repository `json:"repository"`
}

type commitRef struct {
	CommitID string `json:"commitId"`
}

// identityRef names an identity by its id.
type identityRef struct {
	ID string `json:"id"`
}

// reviewer is an IdentityRefWithVote: vote 10 approved, 5 approved with
// suggestions, 0 no vote, -5 waiting for the author, -10 rejected.
type reviewer struct {
	ID          string `json:"id"`
	UniqueName  string `json:"uniqueName,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
	IsContainer bool   `json:"isContainer,omitempty"`
	Vote        int    `json:"vote"`
	IsRequired  bool   `json:"isRequired"`
	HasDeclined bool   `json:"hasDeclined,omitempty"`
}

// label is a WebApiTagDefinition; an inactive one is no longer on the
// pull request.
type label struct {
	ID     string `json:"id,omitempty"`
	Name   string `json:"name"`
	Active *bool  `json:"active,omitempty"`
}

// completionOptions is a GitPullRequestCompletionOptions.
type completionOptions struct {
	MergeStrategy       string `json:"mergeStrategy,omitempty"`
	DeleteSourceBranch  bool   `json:"deleteSourceBranch"`
	MergeCommitMessage  string `json:"mergeCommitMessage,omitempty"`
	TransitionWorkItems bool   `json:"transitionWorkItems"`
}

type hrefValue struct {
	Href string `json:"href"`
}

// list is the envelope of every list: {"count": n, "value": [...]}.
type list[T any] struct {
	Count int `json:"count"`
	Value []T `json:"value"`
}

// createBody is what Create sends.
type createBody struct {
	SourceRefName string        `json:"sourceRefName"`
	TargetRefName string        `json:"targetRefName"`
	Title         string        `json:"title"`
	Description   string        `json:"description"`
	IsDraft       bool          `json:"isDraft"`
	Reviewers     []reviewerRef `json:"reviewers,omitempty"`
	Labels        []label       `json:"labels,omitempty"`
}

// reviewerRef is a reviewer as a create or an add names it.
type reviewerRef struct {
	ID         string `json:"id"`
	IsRequired bool   `json:"isRequired"`
	Vote       *int   `json:"vote,omitempty"`
}

// updateBody is a PATCH of a pull request: only the fields set are sent.
type updateBody struct {
	Title                 *string            `json:"title,omitempty"`
	Description           *string            `json:"description,omitempty"`
	IsDraft               *bool              `json:"isDraft,omitempty"`
	Status                string             `json:"status,omitempty"`
	LastMergeSourceCommit *commitRef         `json:"lastMergeSourceCommit,omitempty"`
	AutoCompleteSetBy     *identityRef       `json:"autoCompleteSetBy,omitempty"`
	CompletionOptions     *completionOptions `json:"completionOptions,omitempty"`
}

// evaluation is a PolicyEvaluationRecord: status queued, running,
// approved, rejected, notApplicable or broken.
type evaluation struct {
	Status        string `json:"status"`
	Configuration struct {
		IsEnabled  bool `json:"isEnabled"`
		IsBlocking bool `json:"isBlocking"`
		Type       struct {
			ID          string `json:"id"`
			DisplayName string `json:"displayName"`
		} `json:"type"`
	} `json:"configuration"`
}

// connectionData is what _apis/connectionData says of the caller.
type connectionData struct {
	AuthenticatedUser identityRef `json:"authenticatedUser"`
}

// identity is an Identity as the identities search answers it.
type identity struct {
	ID                  string `json:"id"`
	ProviderDisplayName string `json:"providerDisplayName"`
	Properties          map[string]struct {
		Value string `json:"$value"`
	} `json:"properties"`
}

// apiError is the body of a refusal: {"message": "TF401179: …",
// "typeKey": "GitPullRequestExistsException", …}.
type apiError struct {
	Message string `json:"message"`
	TypeKey string `json:"typeKey"`
}

// subscription is a service hooks Subscription (Service Hooks REST API
// 7.1); Azure answers a secret input (basicAuthPassword) masked.
type subscription struct {
	ID               string            `json:"id,omitempty"`
	PublisherID      string            `json:"publisherId"`
	EventType        string            `json:"eventType"`
	ResourceVersion  string            `json:"resourceVersion"`
	ConsumerID       string            `json:"consumerId"`
	ConsumerActionID string            `json:"consumerActionId"`
	PublisherInputs  map[string]string `json:"publisherInputs"`
	ConsumerInputs   map[string]string `json:"consumerInputs"`
	Status           string            `json:"status,omitempty"`
	CreatedBy        *identityRef      `json:"createdBy,omitempty"`
}

// subscriptionsQuery is a service hooks subscriptions query (POST
// _apis/hooks/subscriptionsquery): the subscriptions of one publisher,
// consumer and action whose publisher inputs pass every condition of
// one of the filters, answered in results.
type subscriptionsQuery struct {
	PublisherID           string         `json:"publisherId"`
	ConsumerID            string         `json:"consumerId"`
	ConsumerActionID      string         `json:"consumerActionId"`
	PublisherInputFilters []inputFilter  `json:"publisherInputFilters,omitempty"`
	Results               []subscription `json:"results,omitempty"`
}

// inputFilter holds when all its conditions do.
type inputFilter struct {
	Conditions []inputCondition `json:"conditions"`
}

// inputCondition compares one input: operator equals or notEquals.
type inputCondition struct {
	InputID    string `json:"inputId"`
	Operator   string `json:"operator"`
	InputValue string `json:"inputValue"`
}
