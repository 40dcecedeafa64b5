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

package events

import (
	"encoding/json"
	"net/http"
)

// bitbucketCloudHost is the only host of Bitbucket Cloud: its payloads
// name a repository by workspace/slug and a web link, never a clone URL.
const bitbucketCloudHost = "https://bitbucket.org/"

// cloudKinds are the kinds of the Bitbucket Cloud event keys of interest;
// any other key is KindOther. A build status names the branch it was
// reported for, and a PullRequest waiting for checks follows it.
var cloudKinds = map[string]Kind{
	"repo:push":                           KindPush,
	"pullrequest:created":                 KindPullRequest,
	"pullrequest:updated":                 KindPullRequest,
	"pullrequest:fulfilled":               KindPullRequest,
	"pullrequest:rejected":                KindPullRequest,
	"pullrequest:approved":                KindPullRequest,
	"pullrequest:unapproved":              KindPullRequest,
	"pullrequest:changes_request_created": KindPullRequest,
	"pullrequest:changes_request_removed": KindPullRequest,
	"pullrequest:comment_created":         KindPullRequest,
	"repo:commit_status_created":          KindPullRequest,
	"repo:commit_status_updated":          KindPullRequest,
}

// dcKinds are the kinds of the Bitbucket Data Center event keys of
// interest; any other key is KindOther. "Test connection" sends the ping.
var dcKinds = map[string]Kind{
	"diagnostics:ping":       KindPing,
	"repo:refs_changed":      KindPush,
	"pr:opened":              KindPullRequest,
	"pr:from_ref_updated":    KindPullRequest,
	"pr:to_ref_updated":      KindPullRequest,
	"pr:modified":            KindPullRequest,
	"pr:merged":              KindPullRequest,
	"pr:declined":            KindPullRequest,
	"pr:deleted":             KindPullRequest,
	"pr:reviewer:approved":   KindPullRequest,
	"pr:reviewer:unapproved": KindPullRequest,
	"pr:reviewer:needs_work": KindPullRequest,
	"pr:comment:added":       KindPullRequest,
}

// parseBitbucket verifies X-Hub-Signature, which both Bitbucket products
// compute alike, and reads the payload of the product the headers name:
// Cloud sends X-Hook-UUID and X-Request-UUID, Data Center X-Request-Id.
func parseBitbucket(h http.Header, body, secret []byte) (Event, error) {
	if err := verifyHMAC(h.Get("X-Hub-Signature"), "sha256=", body, secret); err != nil {
		return Event{}, err
	}
	key := h.Get("X-Event-Key")
	if h.Get("X-Hook-UUID") != "" || h.Get("X-Request-UUID") != "" {
		return parseBitbucketCloud(key, h.Get("X-Request-UUID"), body)
	}
	return parseBitbucketDC(key, h.Get("X-Request-Id"), body)
}

// cloudRef is a branch or tag in a Bitbucket Cloud push change.
type cloudRef struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// cloudBranch is a pull request's source or destination.
type cloudBranch struct {
	Branch struct {
		Name string `json:"name"`
	} `json:"branch"`
}

// cloudPayload is what Bitbucket Cloud's push, pull request and commit
// status payloads say that an event needs. The top-level repository is
// the one the event happened in, for a pull request its destination: the
// source's repository, maybe a fork of anyone's, is never read.
type cloudPayload struct {
	Repository struct {
		FullName string `json:"full_name"`
		Links    struct {
			HTML struct {
				Href string `json:"href"`
			} `json:"html"`
		} `json:"links"`
	} `json:"repository"`
	Push *struct {
		Changes []struct {
			Old *cloudRef `json:"old"`
			New *cloudRef `json:"new"`
		} `json:"changes"`
	} `json:"push"`
	PullRequest *struct {
		Source      cloudBranch `json:"source"`
		Destination cloudBranch `json:"destination"`
	} `json:"pullrequest"`
	CommitStatus *struct {
		Refname string `json:"refname"`
	} `json:"commit_status"`
}

// parseBitbucketCloud reads a verified Bitbucket Cloud payload of key.
func parseBitbucketCloud(key, delivery string, body []byte) (Event, error) {
	e := Event{Source: SourceBitbucketCloud, Delivery: delivery, Kind: cloudKinds[key]}
	if e.Kind == "" {
		e.Kind = KindOther
		return e, nil
	}
	var p cloudPayload
	if err := json.Unmarshal(trimmed(body), &p); err != nil {
		return Event{}, ErrMalformed
	}
	// Cloud payloads carry no clone URL: a configuration names the
	// repository by https://bitbucket.org/<workspace>/<slug>.git (or its
	// SSH form, which has the same repository key).
	var clone string
	if n := p.Repository.FullName; n != "" {
		clone = bitbucketCloudHost + n + ".git"
	}
	e.Repositories = distinct(clone, p.Repository.Links.HTML.Href)
	switch {
	case p.Push != nil:
		refs := make([]string, 0, 2*len(p.Push.Changes))
		for _, c := range p.Push.Changes {
			refs = append(refs, cloudBranchName(c.New), cloudBranchName(c.Old))
		}
		e.Branches = distinct(refs...)
	case p.PullRequest != nil:
		e.Branches = distinct(p.PullRequest.Source.Branch.Name, p.PullRequest.Destination.Branch.Name)
	case p.CommitStatus != nil:
		e.Branches = distinct(p.CommitStatus.Refname)
	}
	return e, nil
}

// cloudBranchName is the name of a change's ref when it is a branch: a
// created branch has no old ref, a deleted one no new.
func cloudBranchName(r *cloudRef) string {
	if r == nil || r.Type != "branch" {
		return ""
	}
	return r.Name
}

// dcRepository is a Bitbucket Data Center repository's links.
type dcRepository struct {
	Links struct {
		Clone []struct {
			Href string `json:"href"`
			Name string `json:"name"`
		} `json:"clone"`
		Self []struct {
			Href string `json:"href"`
		} `json:"self"`
	} `json:"links"`
}

// urls are the clone URLs (http, ssh) and web links of r.
func (r dcRepository) urls() []string {
	out := make([]string, 0, len(r.Links.Clone)+len(r.Links.Self))
	for _, c := range r.Links.Clone {
		out = append(out, c.Href)
	}
	for _, s := range r.Links.Self {
		out = append(out, s.Href)
	}
	return distinct(out...)
}

// dcRef is a ref in a Data Center push change or a pull request's side.
type dcRef struct {
	ID         string       `json:"id"`
	DisplayID  string       `json:"displayId"`
	Type       string       `json:"type"`
	Repository dcRepository `json:"repository"`
}

// branch is r's branch name, "" for a tag. A pull request's refs carry
// no type: they are always branches.
func (r dcRef) branch() string {
	switch {
	case r.Type != "" && r.Type != "BRANCH":
		return ""
	case r.DisplayID != "":
		return r.DisplayID
	}
	return branchOf(r.ID)
}

// dcPayload is what Bitbucket Data Center's push and pull request
// payloads say that an event needs. A pull request's repository is its
// target's (toRef): its source (fromRef) may be a fork and is never read
// for the repository.
type dcPayload struct {
	Repository dcRepository `json:"repository"`
	Changes    []struct {
		Ref   *dcRef `json:"ref"`
		RefID string `json:"refId"`
	} `json:"changes"`
	PullRequest *struct {
		FromRef dcRef `json:"fromRef"`
		ToRef   dcRef `json:"toRef"`
	} `json:"pullRequest"`
}

// parseBitbucketDC reads a verified Bitbucket Data Center payload of key.
func parseBitbucketDC(key, delivery string, body []byte) (Event, error) {
	e := Event{Source: SourceBitbucketDataCenter, Delivery: delivery, Kind: dcKinds[key]}
	switch e.Kind {
	case "":
		e.Kind = KindOther
		return e, nil
	case KindPing:
		return e, nil
	}
	var p dcPayload
	if err := json.Unmarshal(trimmed(body), &p); err != nil {
		return Event{}, ErrMalformed
	}
	if e.Kind == KindPush {
		e.Repositories = p.Repository.urls()
		refs := make([]string, 0, len(p.Changes))
		for _, c := range p.Changes {
			var ref dcRef
			if c.Ref != nil {
				ref = *c.Ref
			}
			if ref.ID == "" {
				ref.ID = c.RefID
			}
			refs = append(refs, ref.branch())
		}
		e.Branches = distinct(refs...)
		return e, nil
	}
	if pr := p.PullRequest; pr != nil {
		e.Repositories = pr.ToRef.Repository.urls()
		e.Branches = distinct(pr.FromRef.branch(), pr.ToRef.branch())
	}
	return e, nil
}
