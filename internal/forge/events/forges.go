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

// hubPayload is what GitHub's, Gitea's and Forgejo's push and pull_request
// payloads say that an event needs.
type hubPayload struct {
	Ref        string `json:"ref"`
	Repository struct {
		CloneURL string `json:"clone_url"`
		SSHURL   string `json:"ssh_url"`
		HTMLURL  string `json:"html_url"`
	} `json:"repository"`
	PullRequest *struct {
		Head struct {
			Ref string `json:"ref"`
		} `json:"head"`
		Base struct {
			Ref string `json:"ref"`
		} `json:"base"`
	} `json:"pull_request"`
}

// parseHub reads a GitHub-shaped payload of event.
func parseHub(source, event, delivery string, body []byte) (Event, error) {
	e := Event{Source: source, Delivery: delivery}
	switch event {
	case "ping":
		e.Kind = KindPing
		return e, nil
	case "push":
		e.Kind = KindPush
	case "pull_request", "pull_request_review", "pull_request_sync", "pull_request_review_approved",
		"pull_request_review_rejected", "pull_request_label", "pull_request_assign", "pull_request_milestone",
		"check_suite", "check_run", "status", "pull_request_review_comment":
		e.Kind = KindPullRequest
	default:
		e.Kind = KindOther
		return e, nil
	}
	var p hubPayload
	if err := json.Unmarshal(trimmed(body), &p); err != nil {
		return Event{}, ErrMalformed
	}
	e.Repositories = nonEmpty(p.Repository.CloneURL, p.Repository.SSHURL, p.Repository.HTMLURL)
	switch {
	case e.Kind == KindPush:
		e.Branches = nonEmpty(branchOf(p.Ref))
	case p.PullRequest != nil:
		e.Branches = nonEmpty(p.PullRequest.Head.Ref, p.PullRequest.Base.Ref)
	}
	return e, nil
}

// parseGitHub verifies X-Hub-Signature-256 and reads the payload.
func parseGitHub(h http.Header, body, secret []byte) (Event, error) {
	if err := verifyHMAC(h.Get("X-Hub-Signature-256"), "sha256=", body, secret); err != nil {
		return Event{}, err
	}
	return parseHub(SourceGitHub, h.Get("X-GitHub-Event"), h.Get("X-GitHub-Delivery"), body)
}

// parseGitea verifies Gitea's or Forgejo's signature (or the GitHub
// header they send too) and reads the payload.
func parseGitea(h http.Header, body, secret []byte) (Event, error) {
	source, event, delivery := SourceGitea, h.Get("X-Gitea-Event"), h.Get("X-Gitea-Delivery")
	sig := h.Get("X-Gitea-Signature")
	if h.Get("X-Forgejo-Event") != "" {
		source, event = SourceForgejo, h.Get("X-Forgejo-Event")
		if d := h.Get("X-Forgejo-Delivery"); d != "" {
			delivery = d
		}
		if s := h.Get("X-Forgejo-Signature"); s != "" {
			sig = s
		}
	}
	var err error
	if sig != "" {
		err = verifyHMAC(sig, "", body, secret)
	} else {
		err = verifyHMAC(h.Get("X-Hub-Signature-256"), "sha256=", body, secret)
	}
	if err != nil {
		return Event{}, err
	}
	return parseHub(source, event, delivery, body)
}

// gitlabPayload is what GitLab's push and merge request payloads (project
// and system hooks alike) say that an event needs.
type gitlabPayload struct {
	ObjectKind string `json:"object_kind"`
	Ref        string `json:"ref"`
	Project    struct {
		GitHTTPURL string `json:"git_http_url"`
		GitSSHURL  string `json:"git_ssh_url"`
		WebURL     string `json:"web_url"`
	} `json:"project"`
	ObjectAttributes *struct {
		SourceBranch string `json:"source_branch"`
		TargetBranch string `json:"target_branch"`
	} `json:"object_attributes"`
}

// parseGitLab verifies X-Gitlab-Token and reads the payload, by its
// object_kind (a system hook says "System Hook" for every kind).
func parseGitLab(h http.Header, body, secret []byte) (Event, error) {
	if err := verifyToken(h.Get("X-Gitlab-Token"), secret); err != nil {
		return Event{}, err
	}
	e := Event{Source: SourceGitLab, Delivery: h.Get("X-Gitlab-Event-UUID")}
	var p gitlabPayload
	if err := json.Unmarshal(trimmed(body), &p); err != nil {
		return Event{}, ErrMalformed
	}
	e.Repositories = nonEmpty(p.Project.GitHTTPURL, p.Project.GitSSHURL, p.Project.WebURL)
	switch p.ObjectKind {
	case "push":
		e.Kind, e.Branches = KindPush, nonEmpty(branchOf(p.Ref))
	case "merge_request":
		e.Kind = KindPullRequest
		if a := p.ObjectAttributes; a != nil {
			e.Branches = nonEmpty(a.SourceBranch, a.TargetBranch)
		}
	default:
		return Event{Source: SourceGitLab, Kind: KindOther, Delivery: e.Delivery}, nil
	}
	return e, nil
}
