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

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// The service hooks half of the fake (Service Hooks REST API 7.1), under
// /{Org}/_apis/hooks/subscriptions: GET (publisherId, consumerId,
// consumerActionId, eventType filters; the whole list in one answer, as the
// reference documents no paging), POST, GET/PUT/DELETE {id}; and POST
// /{Org}/_apis/hooks/subscriptionsquery (the same filters in its body, and
// publisherInputFilters: a subscription passes one filter when it passes
// each of its conditions, equals or notEquals, case-insensitive unless
// caseSensitive), answered as the query with its results. A
// subscription is the organization's, whoever created it; its
// basicAuthPassword is answered masked.
//
// A token without the Service Hooks scope (CodeOnlyPAT) is answered 401
// TF400813 (UnauthorizedRequestException) on every hooks call, as Azure
// answers a PAT whose scopes do not cover the call.

// More tokens the fake takes.
const (
	// CodeOnlyPAT authenticates MeID with Code (Read & write) only.
	CodeOnlyPAT = "provider-git-fake-azure-devops-code-only-0123456789abcdef"
	// TheirPAT is a second user's, with Service Hooks (Read & write).
	TheirPAT = "provider-git-fake-azure-devops-their-pat-fedcba9876543210"
	// TheirID is the identity TheirPAT authenticates.
	TheirID = "0f4b7c9e-6d3a-4b1e-9c2f-5a8d7e6b3c21"
)

// masked is how Azure answers a secret consumer input.
const masked = "********"

// Subscription is a service hook subscription of the Web Hooks consumer
// as the fake holds it.
type Subscription struct {
	ID, EventType string
	// ProjectID and RepositoryID are its publisher inputs.
	ProjectID, RepositoryID string
	// URL, User and Password are its consumer inputs url and basic
	// authentication; ResourceDetails resourceDetailsToSend.
	URL, User, Password, ResourceDetails string
	// CreatedBy is the identity whose token created it.
	CreatedBy string
	// Status is enabled unless a test says otherwise.
	Status string
}

// codeEvents are the tfs publisher's code event types the fake takes.
var codeEvents = []string{"git.push", "git.pullrequest.created", "git.pullrequest.updated", "git.pullrequest.merged", "ms.vss-code.git-pullrequest-comment-event"}

func (s *Server) hookRoutes(mux *http.ServeMux) {
	const subs = "/{org}/_apis/hooks/subscriptions"
	mux.HandleFunc("GET "+subs, s.listSubscriptions)
	mux.HandleFunc("POST /{org}/_apis/hooks/subscriptionsquery", s.querySubscriptions)
	mux.HandleFunc("POST "+subs, s.createSubscription)
	mux.HandleFunc("GET "+subs+"/{id}", s.getSubscription)
	mux.HandleFunc("PUT "+subs+"/{id}", s.replaceSubscription)
	mux.HandleFunc("DELETE "+subs+"/{id}", s.deleteSubscription)
	mux.HandleFunc("GET /{org}/{project}/_apis/git/repositories/{repo}", s.getRepository)
}

// AddSubscription adds a subscription as its creator would through the
// web pages; an empty ID or Status is filled in. It returns the ID.
func (s *Server) AddSubscription(sub Subscription) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addSubscription(sub)
}

// Subscriptions returns the subscriptions, oldest first.
func (s *Server) Subscriptions() []Subscription {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.subs)
}

// DropEventType makes the publisher offer no event type ev, as an older
// Azure DevOps Server lacks some: a subscription to it is answered 400.
func (s *Server) DropEventType(ev string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropped = append(s.dropped, ev)
}

// EditSubscription changes subscription id as Azure or a person would
// (Status disabledBySystem after failed deliveries).
func (s *Server) EditSubscription(id string, fn func(*Subscription)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.subs {
		if s.subs[i].ID == id {
			fn(&s.subs[i])
		}
	}
}

// Deliver sends an event of sub's type to sub's URL as Azure's Web Hooks
// consumer does: the event as JSON, sub's basic authentication, no header
// of Azure's own. The event names this fake's repository. It returns the
// answer's status.
func (s *Server) Deliver(ctx context.Context, hc *http.Client, sub Subscription, id string) (int, error) {
	base := s.srv.URL + "/" + Org + "/"
	resource := map[string]any{"repository": repoPayload(base, Project, ProjectID, Repo, RepoID)}
	if sub.EventType == "git.push" {
		resource["refUpdates"] = []any{map[string]any{"name": "refs/heads/main", "oldObjectId": strings.Repeat("0", 40), "newObjectId": strings.Repeat("1", 40)}}
	} else {
		resource["sourceRefName"], resource["targetRefName"] = "refs/heads/feature", "refs/heads/main"
	}
	b, err := json.Marshal(map[string]any{
		"subscriptionId": sub.ID, "notificationId": 1, "id": id, "eventType": sub.EventType, "publisherId": "tfs",
		"resource": resource, "resourceVersion": "1.0", "createdDate": "2026-01-02T03:04:05.000Z",
	})
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.URL, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.SetBasicAuth(sub.User, sub.Password)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close() //nolint:errcheck // a test's answer.
	return resp.StatusCode, nil
}

// addSubscription stores sub. Callers hold mu.
func (s *Server) addSubscription(sub Subscription) string {
	s.nextSub++
	if sub.ID == "" {
		sub.ID = fmt.Sprintf("8dea9aba-3a9a-4ad0-860f-%012d", s.nextSub)
	}
	if sub.Status == "" {
		sub.Status = "enabled"
	}
	s.subs = append(s.subs, sub)
	return sub.ID
}

// subscriptionBody is a Subscription as the API takes and answers it.
type subscriptionBody struct {
	ID               string            `json:"id,omitempty"`
	URL              string            `json:"url,omitempty"`
	PublisherID      string            `json:"publisherId"`
	EventType        string            `json:"eventType"`
	ResourceVersion  string            `json:"resourceVersion"`
	ConsumerID       string            `json:"consumerId"`
	ConsumerActionID string            `json:"consumerActionId"`
	PublisherInputs  map[string]string `json:"publisherInputs"`
	ConsumerInputs   map[string]string `json:"consumerInputs"`
	Status           string            `json:"status,omitempty"`
	CreatedBy        map[string]string `json:"createdBy,omitempty"`
}

// hooksAllowed answers 401 for a token without the Service Hooks scope.
func hooksAllowed(w http.ResponseWriter, r *http.Request) bool {
	if tokenOf(r.Header.Get("Authorization")) == CodeOnlyPAT {
		reply(w, http.StatusUnauthorized, map[string]any{
			"$id": "1", "innerException": nil, "message": "TF400813: The user '" + MeID + "' is not authorized to access this resource.",
			"typeName": "Microsoft.TeamFoundation.Framework.Server.UnauthorizedRequestException, Microsoft.TeamFoundation.Framework.Server",
			"typeKey":  "UnauthorizedRequestException", "errorCode": 0, "eventId": 3000,
		})
		return false
	}
	return scope(w, r)
}

func (s *Server) answer(sub Subscription) subscriptionBody {
	return subscriptionBody{
		ID: sub.ID, URL: s.srv.URL + "/" + Org + "/_apis/hooks/subscriptions/" + sub.ID,
		PublisherID: "tfs", EventType: sub.EventType, ResourceVersion: "1.0", ConsumerID: "webHooks", ConsumerActionID: "httpRequest",
		PublisherInputs: map[string]string{"projectId": sub.ProjectID, "repository": sub.RepositoryID},
		ConsumerInputs: map[string]string{"url": sub.URL, "basicAuthUsername": sub.User, "basicAuthPassword": masked,
			"resourceDetailsToSend": sub.ResourceDetails},
		Status: sub.Status, CreatedBy: map[string]string{"id": sub.CreatedBy},
	}
}

func (s *Server) listSubscriptions(w http.ResponseWriter, r *http.Request) {
	if !hooksAllowed(w, r) {
		return
	}
	q := r.URL.Query()
	if (q.Get("publisherId") != "" && q.Get("publisherId") != "tfs") || (q.Get("consumerId") != "" && q.Get("consumerId") != "webHooks") ||
		(q.Get("consumerActionId") != "" && q.Get("consumerActionId") != "httpRequest") {
		reply(w, http.StatusOK, map[string]any{"count": 0, "value": []any{}})
		return
	}
	s.mu.Lock()
	out := []subscriptionBody{}
	for _, sub := range s.subs {
		if ev := q.Get("eventType"); ev == "" || ev == sub.EventType {
			out = append(out, s.answer(sub))
		}
	}
	s.mu.Unlock()
	reply(w, http.StatusOK, map[string]any{"count": len(out), "value": out})
}

// query is the body of a subscriptions query.
type query struct {
	PublisherID           string `json:"publisherId"`
	ConsumerID            string `json:"consumerId"`
	ConsumerActionID      string `json:"consumerActionId"`
	EventType             string `json:"eventType"`
	PublisherInputFilters []struct {
		Conditions []struct {
			CaseSensitive bool   `json:"caseSensitive"`
			InputID       string `json:"inputId"`
			Operator      string `json:"operator"`
			InputValue    string `json:"inputValue"`
		} `json:"conditions"`
	} `json:"publisherInputFilters"`
	Results []subscriptionBody `json:"results"`
}

// passes reports whether a subscription with publisher inputs in passes
// one of q's publisher input filters, or q has none.
func (q query) passes(in map[string]string) bool {
	if len(q.PublisherInputFilters) == 0 {
		return true
	}
	for _, f := range q.PublisherInputFilters {
		ok := true
		for _, c := range f.Conditions {
			eq := in[c.InputID] == c.InputValue || (!c.CaseSensitive && strings.EqualFold(in[c.InputID], c.InputValue))
			ok = ok && (eq == (c.Operator != "notEquals"))
		}
		if ok {
			return true
		}
	}
	return false
}

func (s *Server) querySubscriptions(w http.ResponseWriter, r *http.Request) {
	if !hooksAllowed(w, r) {
		return
	}
	var q query
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		fail(w, http.StatusBadRequest, "InvalidSubscriptionsQueryException", "the query is not valid JSON")
		return
	}
	s.mu.Lock()
	q.Results = []subscriptionBody{}
	for _, sub := range s.subs {
		b := s.answer(sub)
		if (q.PublisherID == "" || q.PublisherID == b.PublisherID) && (q.ConsumerID == "" || q.ConsumerID == b.ConsumerID) &&
			(q.ConsumerActionID == "" || q.ConsumerActionID == b.ConsumerActionID) && (q.EventType == "" || q.EventType == b.EventType) &&
			q.passes(b.PublisherInputs) {
			q.Results = append(q.Results, b)
		}
	}
	s.mu.Unlock()
	reply(w, http.StatusOK, q)
}

// read decodes and checks a subscription's body; false has answered 400.
func (s *Server) read(w http.ResponseWriter, r *http.Request) (subscriptionBody, bool) {
	var b subscriptionBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		fail(w, http.StatusBadRequest, "InvalidSubscriptionException", "the subscription is not valid JSON")
		return b, false
	}
	s.mu.Lock()
	dropped := slices.Contains(s.dropped, b.EventType)
	s.mu.Unlock()
	var why string
	switch {
	case b.PublisherID != "tfs" || !slices.Contains(codeEvents, b.EventType) || dropped:
		why = "no publisher " + b.PublisherID + " with event type " + b.EventType
	case b.ConsumerID != "webHooks" || b.ConsumerActionID != "httpRequest":
		why = "no consumer action " + b.ConsumerID + "/" + b.ConsumerActionID
	case b.PublisherInputs["projectId"] != ProjectID:
		why = "publisher input projectId must be the project's id"
	case b.PublisherInputs["repository"] != "" && b.PublisherInputs["repository"] != RepoID:
		why = "publisher input repository is no repository of the project"
	case !strings.HasPrefix(b.ConsumerInputs["url"], "http://") && !strings.HasPrefix(b.ConsumerInputs["url"], "https://"):
		why = "consumer input url must be an absolute http(s) URL"
	}
	if why != "" {
		fail(w, http.StatusBadRequest, "SubscriptionInputException", why)
		return b, false
	}
	return b, true
}

func (s *Server) createSubscription(w http.ResponseWriter, r *http.Request) {
	if !hooksAllowed(w, r) {
		return
	}
	b, ok := s.read(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	s.addSubscription(subscriptionOf(b, identityOf(r.Header.Get("Authorization"))))
	sub := s.subs[len(s.subs)-1]
	s.mu.Unlock()
	reply(w, http.StatusOK, s.answer(sub))
}

func (s *Server) getSubscription(w http.ResponseWriter, r *http.Request) {
	if !hooksAllowed(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.subIndex(w, r.PathValue("id")); i >= 0 {
		reply(w, http.StatusOK, s.answer(s.subs[i]))
	}
}

func (s *Server) replaceSubscription(w http.ResponseWriter, r *http.Request) {
	if !hooksAllowed(w, r) {
		return
	}
	b, ok := s.read(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.subIndex(w, r.PathValue("id"))
	if i < 0 {
		return
	}
	sub := subscriptionOf(b, s.subs[i].CreatedBy)
	sub.ID, sub.Status = s.subs[i].ID, "enabled"
	s.subs[i] = sub
	reply(w, http.StatusOK, s.answer(sub))
}

func (s *Server) deleteSubscription(w http.ResponseWriter, r *http.Request) {
	if !hooksAllowed(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.subIndex(w, r.PathValue("id")); i >= 0 {
		s.subs = slices.Delete(s.subs, i, i+1)
		w.WriteHeader(http.StatusNoContent)
	}
}

// subIndex is subscription id's index; -1 has answered 404. Callers hold
// mu.
func (s *Server) subIndex(w http.ResponseWriter, id string) int {
	i := slices.IndexFunc(s.subs, func(sub Subscription) bool { return strings.EqualFold(sub.ID, id) })
	if i < 0 {
		fail(w, http.StatusNotFound, "SubscriptionNotFoundException", "The subscription "+id+" does not exist.")
	}
	return i
}

func subscriptionOf(b subscriptionBody, creator string) Subscription {
	return Subscription{EventType: b.EventType, ProjectID: b.PublisherInputs["projectId"], RepositoryID: b.PublisherInputs["repository"],
		URL: b.ConsumerInputs["url"], User: b.ConsumerInputs["basicAuthUsername"], Password: b.ConsumerInputs["basicAuthPassword"],
		ResourceDetails: b.ConsumerInputs["resourceDetailsToSend"], CreatedBy: creator}
}

func (s *Server) getRepository(w http.ResponseWriter, r *http.Request) {
	if !scope(w, r) {
		return
	}
	reply(w, http.StatusOK, repoPayload(s.srv.URL+"/"+Org+"/", Project, ProjectID, Repo, RepoID))
}
