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

// The payloads of Bitbucket Data Center's REST 1.0 API that the
// DataCenter client reads and writes, under their documented names
// (RestPullRequest, RestPullRequestRef, RestPullRequestParticipant,
// RestPullRequestMergeability, RestPullRequestMergeRequest,
// RestBuildStats, RestBranchDeleteRequest, RestWebhook, and the paged
// envelope).

// dcPage is a paged answer: values, isLastPage and, before the last page,
// nextPageStart.
type dcPage[T any] struct {
	Values        []T   `json:"values"`
	IsLastPage    bool  `json:"isLastPage"`
	NextPageStart int64 `json:"nextPageStart"`
}

type dcPull struct {
	ID          int64  `json:"id"`
	Version     int64  `json:"version"`
	Title       string `json:"title"`
	Description string `json:"description"`
	State       string `json:"state"`
	// Draft is absent on a server before draft pull requests.
	Draft     *bool    `json:"draft"`
	FromRef   dcRef    `json:"fromRef"`
	ToRef     dcRef    `json:"toRef"`
	Reviewers []dcUser `json:"reviewers"`
	Links     struct {
		Self []struct {
			Href string `json:"href"`
		} `json:"self"`
	} `json:"links"`
	Properties struct {
		MergeCommit *struct {
			ID string `json:"id"`
		} `json:"mergeCommit"`
	} `json:"properties"`
}

type dcRef struct {
	ID           string  `json:"id"`
	DisplayID    string  `json:"displayId,omitempty"`
	LatestCommit string  `json:"latestCommit,omitempty"`
	Repository   *dcRepo `json:"repository,omitempty"`
}

type dcRepo struct {
	ID      int64  `json:"id,omitempty"`
	Slug    string `json:"slug"`
	Project struct {
		Key string `json:"key"`
	} `json:"project"`
}

// dcUser is a participant: the user and, for a reviewer, their standing.
type dcUser struct {
	User struct {
		Name string `json:"name"`
	} `json:"user"`
	Approved bool   `json:"approved,omitempty"`
	Status   string `json:"status,omitempty"`
}

// dcNewPull is a create's or an update's body.
type dcNewPull struct {
	Version     *int64   `json:"version,omitempty"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	FromRef     *dcRef   `json:"fromRef,omitempty"`
	ToRef       *dcRef   `json:"toRef,omitempty"`
	Reviewers   []dcUser `json:"reviewers"`
	// Draft is sent only where it matters, so a server before drafts
	// sees nothing new.
	Draft *bool `json:"draft,omitempty"`
}

type dcMergeability struct {
	CanMerge   *bool  `json:"canMerge"`
	Conflicted bool   `json:"conflicted"`
	Outcome    string `json:"outcome"`
	Vetoes     []any  `json:"vetoes"`
}

type dcMerge struct {
	Version    int64  `json:"version"`
	Message    string `json:"message,omitempty"`
	StrategyID string `json:"strategyId,omitempty"`
	AutoMerge  bool   `json:"autoMerge,omitempty"`
}

type dcBuildStats struct {
	Successful int `json:"successful"`
	Failed     int `json:"failed"`
	InProgress int `json:"inProgress"`
	Cancelled  int `json:"cancelled"`
	Unknown    int `json:"unknown"`
}

type dcBranchDelete struct {
	Name     string `json:"name"`
	EndPoint string `json:"endPoint"`
	DryRun   bool   `json:"dryRun"`
}

type dcHook struct {
	ID            int64             `json:"id,omitempty"`
	Name          string            `json:"name"`
	URL           string            `json:"url"`
	Active        bool              `json:"active"`
	Events        []string          `json:"events"`
	Configuration map[string]string `json:"configuration,omitempty"`
}
