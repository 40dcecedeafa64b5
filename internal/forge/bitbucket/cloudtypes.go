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

// The payloads of Bitbucket Cloud's REST 2.0 API that the Cloud client
// reads and writes, under their documented names (schemas pullrequest,
// pullrequest_endpoint, participant, account, commitstatus, branch,
// webhook_subscription, and the paginated_* envelopes).

// cloudPage is a paginated answer: values, and next (an absolute URL) on
// every page but the last.
type cloudPage[T any] struct {
	Values []T    `json:"values"`
	Next   string `json:"next"`
}

type cloudPull struct {
	ID          int64  `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Summary     *struct {
		Raw string `json:"raw"`
	} `json:"summary"`
	State        string             `json:"state"`
	Draft        bool               `json:"draft"`
	Mergeable    *bool              `json:"mergeable"`
	Source       cloudEndpoint      `json:"source"`
	Destination  cloudEndpoint      `json:"destination"`
	MergeCommit  *cloudCommit       `json:"merge_commit"`
	Reviewers    []cloudAccount     `json:"reviewers"`
	Participants []cloudParticipant `json:"participants"`
	Links        struct {
		HTML struct {
			Href string `json:"href"`
		} `json:"html"`
	} `json:"links"`
}

type cloudEndpoint struct {
	Branch struct {
		Name string `json:"name"`
		// MergeStrategies are those the destination branch allows.
		MergeStrategies []string `json:"merge_strategies,omitempty"`
	} `json:"branch"`
	Commit     *cloudCommit `json:"commit,omitempty"`
	Repository *cloudRepo   `json:"repository,omitempty"`
}

type cloudCommit struct {
	Hash string `json:"hash"`
}

type cloudRepo struct {
	FullName string `json:"full_name,omitempty"`
	UUID     string `json:"uuid,omitempty"`
}

// cloudAccount is a user as Cloud names one: {uuid} and account_id (user
// names are gone from the API).
type cloudAccount struct {
	UUID      string `json:"uuid,omitempty"`
	AccountID string `json:"account_id,omitempty"`
}

type cloudParticipant struct {
	User     cloudAccount `json:"user"`
	Role     string       `json:"role"`
	Approved bool         `json:"approved"`
	State    *string      `json:"state"`
}

// cloudNewPull is a create's or an update's body.
type cloudNewPull struct {
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Source      *cloudEndpoint `json:"source,omitempty"`
	Destination *cloudEndpoint `json:"destination,omitempty"`
	Reviewers   []cloudAccount `json:"reviewers"`
	Draft       bool           `json:"draft"`
	// CloseSourceBranch is false on create: Merge sets it per merge.
	CloseSourceBranch *bool `json:"close_source_branch,omitempty"`
}

// cloudMerge is pullrequest_merge_parameters.
type cloudMerge struct {
	Type              string `json:"type"`
	Message           string `json:"message,omitempty"`
	CloseSourceBranch bool   `json:"close_source_branch"`
	MergeStrategy     string `json:"merge_strategy,omitempty"`
}

type cloudStatus struct {
	State string `json:"state"`
}

type cloudBranch struct {
	Name   string      `json:"name"`
	Target cloudCommit `json:"target"`
}

type cloudConflict struct {
	Path string `json:"path"`
}

type cloudHook struct {
	UUID        string   `json:"uuid,omitempty"`
	URL         string   `json:"url"`
	Description string   `json:"description"`
	Active      bool     `json:"active"`
	Events      []string `json:"events"`
	Secret      string   `json:"secret,omitempty"`
}
