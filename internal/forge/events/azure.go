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
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// azurePublisher is the publisher of Azure DevOps's code events; the
// release and pipeline publishers send nothing a configuration acts on.
const azurePublisher = "tfs"

// azureKinds are the kinds of the Azure DevOps event types of interest;
// any other type is KindOther. Azure has no ping: its "Test" button sends
// a sample of the event chosen, of a repository no configuration names.
var azureKinds = map[string]Kind{
	"git.push":                                  KindPush,
	"git.pullrequest.created":                   KindPullRequest,
	"git.pullrequest.updated":                   KindPullRequest,
	"git.pullrequest.merged":                    KindPullRequest,
	"ms.vss-code.git-pullrequest-comment-event": KindPullRequest,
}

// Markers of an Azure DevOps service hook body: every event's top level
// names these two keys. Finding them is a byte search, not a parse, so a
// request nobody authenticated costs no more than reading it.
var (
	azureEventType   = []byte(`"eventType"`)
	azurePublisherID = []byte(`"publisherId"`)
)

// looksAzure reports whether body may be an Azure DevOps service hook
// delivery, the one forge that sends no header of its own.
func looksAzure(body []byte) bool {
	return bytes.Contains(body, azureEventType) && bytes.Contains(body, azurePublisherID)
}

// verifyBasic checks the password of an Authorization: Basic header
// against secret, whatever the user name: Azure DevOps cannot sign, and
// its Web Hooks consumer sends the subscription's basic credentials.
func verifyBasic(auth string, secret []byte) error {
	if len(secret) == 0 || auth == "" {
		return ErrUnsigned
	}
	scheme, enc, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return ErrBadSignature
	}
	dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return ErrBadSignature
	}
	_, password, ok := strings.Cut(string(dec), ":")
	if !ok {
		return ErrBadSignature
	}
	return verifyToken(password, secret)
}

// azureRepository is a repository as Azure DevOps's code events name it.
type azureRepository struct {
	RemoteURL string `json:"remoteUrl"`
	SSHURL    string `json:"sshUrl"`
}

// azurePullRequest is a pull request as its events' resource holds it.
// Its repository is the target's: the source, maybe a fork, is under
// forkSource and never read.
type azurePullRequest struct {
	Repository    azureRepository `json:"repository"`
	SourceRefName string          `json:"sourceRefName"`
	TargetRefName string          `json:"targetRefName"`
}

// azureResource is what the resource of a push or pull request event
// says that an event needs; a comment event holds its pull request in
// pullRequest.
type azureResource struct {
	azurePullRequest
	RefUpdates []struct {
		Name string `json:"name"`
	} `json:"refUpdates"`
	PullRequest *azurePullRequest `json:"pullRequest"`
}

// azureEnvelope is the top level every service hook event shares. The
// resource is read only for the event types of interest: other events'
// resources have shapes of their own.
type azureEnvelope struct {
	ID          string          `json:"id"`
	EventType   string          `json:"eventType"`
	PublisherID string          `json:"publisherId"`
	Resource    json.RawMessage `json:"resource"`
}

// parseAzure verifies the basic credentials of an Azure DevOps service
// hook delivery, then reads it.
func parseAzure(h http.Header, body, secret []byte) (Event, error) {
	if err := verifyBasic(h.Get("Authorization"), secret); err != nil {
		return Event{}, err
	}
	var env azureEnvelope
	if err := json.Unmarshal(trimmed(body), &env); err != nil || env.EventType == "" {
		return Event{}, ErrMalformed
	}
	e := Event{Source: SourceAzureDevOps, Delivery: env.ID, Kind: KindOther}
	if env.PublisherID == azurePublisher {
		if k, ok := azureKinds[env.EventType]; ok {
			e.Kind = k
		}
	}
	if e.Kind == KindOther {
		return e, nil
	}
	var r azureResource
	if err := json.Unmarshal(env.Resource, &r); err != nil {
		return Event{}, ErrMalformed
	}
	if e.Kind == KindPush {
		e.Repositories = distinct(r.Repository.RemoteURL, r.Repository.SSHURL)
		refs := make([]string, 0, len(r.RefUpdates))
		for _, u := range r.RefUpdates {
			refs = append(refs, branchOf(u.Name))
		}
		e.Branches = distinct(refs...)
		return e, nil
	}
	pr := r.azurePullRequest
	if r.PullRequest != nil {
		pr = *r.PullRequest
	}
	e.Repositories = distinct(pr.Repository.RemoteURL, pr.Repository.SSHURL)
	e.Branches = distinct(branchOf(pr.SourceRefName), branchOf(pr.TargetRefName))
	return e, nil
}
