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
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errListHooks   = "cannot list the service hook subscriptions on Azure DevOps"
	errCreateHook  = "cannot create the service hook subscriptions on Azure DevOps"
	errUpdateHook  = "cannot update the service hook subscriptions on Azure DevOps"
	errDeleteHook  = "cannot delete the service hook subscriptions on Azure DevOps"
	errRepository  = "cannot read the repository's and project's ids on Azure DevOps"
	errRollBackFmt = "subscriptions %s, made before the refusal, could not be deleted: delete them in the project's service hooks settings"
	errInsecureFmt = "refusing to subscribe %q: Azure DevOps would send the webhook secret, as basic authentication, in clear text; serve the events endpoint over https"

	// subscriptionsPath is the organization's service hook subscriptions
	// (Service Hooks REST API 7.1).
	subscriptionsPath = "_apis/hooks/subscriptions"
	// queryPath queries them: the list answers the whole organization's
	// in one body, which on a large one outgrows what a client reads.
	queryPath = "_apis/hooks/subscriptionsquery"
	// The publisher of code events, and the Web Hooks consumer's action
	// that POSTs the event as JSON.
	publisherTFS   = "tfs"
	consumerHooks  = "webHooks"
	actionHTTP     = "httpRequest"
	eventsResource = "1.0"
	// hookUser is the basic authentication user name sent with each
	// delivery; the receiver checks only the password.
	hookUser = "provider-git"
	// idSep joins the subscriptions' ids into one hook id.
	idSep = ","
)

// hookEvents are the event types the receiver acts on
// (internal/forge/events azureKinds, comments left out): Azure's
// subscription carries one event type, so the provider's hook is one
// subscription per type, all to the same URL.
var hookEvents = []string{"git.push", "git.pullrequest.created", "git.pullrequest.updated", "git.pullrequest.merged"}

// ListHooks queries the organization's Web Hooks subscriptions of code
// events of this repository (POST _apis/hooks/subscriptionsquery: the
// list, GET _apis/hooks/subscriptions, is the whole organization's in one
// answer, unpaged) and returns, per URL, the subscriptions that
// the token's own identity created as one hook: its ID their ids, sorted
// and joined by commas; Active only while each of hookEvents has an
// enabled one. A subscription someone else created, even to the same URL,
// is never part of a hook: the provider neither moves nor deletes it.
func (c *Client) ListHooks(ctx context.Context) ([]forge.Hook, error) {
	groups, err := c.ownSubscriptions(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errListHooks, err)
	}
	out := make([]forge.Hook, 0, len(groups))
	for u, subs := range groups {
		out = append(out, forge.Hook{ID: joinIDs(subs), URL: u, Active: complete(subs)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out, nil
}

// CreateHook subscribes h.URL to each of hookEvents of this repository,
// with h.Secret as the basic authentication password Azure sends (the
// receiver's check, internal/forge/events verifyBasic). A refusal part
// way deletes the subscriptions already made.
func (c *Client) CreateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	made, err := c.subscribeAll(ctx, h, nil)
	if err != nil {
		return forge.Hook{}, fmt.Errorf("%s: %w", errCreateHook, err)
	}
	return forge.Hook{ID: joinIDs(made), URL: h.URL, Active: true}, nil
}

// UpdateHook replaces the subscriptions h.ID names (PUT, one per event
// type) with h.URL and h.Secret, creates those of event types missing, and
// deletes the rest of them (a second of one type). The hook returned
// names the subscriptions now kept.
func (c *Client) UpdateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	groups, err := c.ownSubscriptions(ctx)
	if err != nil {
		return forge.Hook{}, fmt.Errorf("%s: %w", errUpdateHook, err)
	}
	ids := splitIDs(h.ID)
	var old []subscription
	for _, subs := range groups {
		for _, s := range subs {
			if slices.Contains(ids, s.ID) {
				old = append(old, s)
			}
		}
	}
	kept, err := c.subscribeAll(ctx, h, old)
	if err != nil {
		return forge.Hook{}, fmt.Errorf("%s: %w", errUpdateHook, err)
	}
	for _, s := range old {
		if !slices.ContainsFunc(kept, func(k subscription) bool { return k.ID == s.ID }) {
			if err := c.unsubscribe(ctx, s.ID); err != nil && !errors.Is(err, forge.ErrNotFound) {
				return forge.Hook{ID: joinIDs(kept), URL: h.URL}, fmt.Errorf("%s: %w", errUpdateHook, err)
			}
		}
	}
	return forge.Hook{ID: joinIDs(kept), URL: h.URL, Active: true}, nil
}

// DeleteHook deletes each subscription id names; ErrNotFound when none
// was there any more. Its caller passes an id ListHooks returned, so only
// the token's own subscriptions of this repository.
func (c *Client) DeleteHook(ctx context.Context, id string) error {
	gone := 0
	ids := splitIDs(id)
	for _, s := range ids {
		err := c.unsubscribe(ctx, s)
		switch {
		case errors.Is(err, forge.ErrNotFound):
			gone++
		case err != nil:
			return fmt.Errorf("%s: %w", errDeleteHook, err)
		}
	}
	if gone == len(ids) {
		return fmt.Errorf("%s: %w", errDeleteHook, &forge.APIError{Status: http.StatusNotFound, Message: "no such subscription", Kind: forge.ErrNotFound})
	}
	return nil
}

// ownSubscriptions are the Web Hooks subscriptions of this repository the
// token's identity created, by consumer URL.
func (c *Client) ownSubscriptions(ctx context.Context) (map[string][]subscription, error) {
	me, err := c.whoAmI(ctx)
	if err != nil {
		return nil, err
	}
	ids, err := c.repositoryIDs(ctx)
	if err != nil {
		return nil, err
	}
	q := subscriptionsQuery{PublisherID: publisherTFS, ConsumerID: consumerHooks, ConsumerActionID: actionHTTP,
		PublisherInputFilters: []inputFilter{{Conditions: []inputCondition{{InputID: "repository", Operator: "equals", InputValue: ids.ID}}}}}
	var all subscriptionsQuery
	if _, err := c.do(ctx, call{method: http.MethodPost, path: queryPath, body: q}, &all); err != nil {
		return nil, err
	}
	out := map[string][]subscription{}
	// Checked again here: the query is the server's to get right.
	for _, s := range all.Results {
		if s.CreatedBy == nil || !strings.EqualFold(s.CreatedBy.ID, me) || s.PublisherID != publisherTFS ||
			!strings.EqualFold(s.PublisherInputs["repository"], ids.ID) || !strings.EqualFold(s.PublisherInputs["projectId"], ids.Project.ID) ||
			!slices.Contains(hookEvents, s.EventType) || s.ConsumerInputs["url"] == "" {
			continue
		}
		u := s.ConsumerInputs["url"]
		out[u] = append(out[u], s)
	}
	return out, nil
}

// subscribeAll makes one subscription per event type of hookEvents to
// h.URL with h.Secret: a PUT of the first of old with that type, else a
// POST. A POST refused part way deletes those this call made.
func (c *Client) subscribeAll(ctx context.Context, h forge.Hook, old []subscription) ([]subscription, error) {
	if err := deliverable(h.URL); err != nil {
		return nil, err
	}
	ids, err := c.repositoryIDs(ctx)
	if err != nil {
		return nil, err
	}
	var kept, made []subscription
	for _, ev := range hookEvents {
		want := subscriptionFor(ev, ids, h)
		var got subscription
		i := slices.IndexFunc(old, func(s subscription) bool { return s.EventType == ev })
		if i >= 0 {
			want.ID = old[i].ID
			_, err = c.do(ctx, call{method: http.MethodPut, path: subscriptionsPath + "/" + url.PathEscape(want.ID), body: want}, &got)
		} else {
			if _, err = c.do(ctx, call{method: http.MethodPost, path: subscriptionsPath, body: want}, &got); err == nil {
				made = append(made, got)
			}
		}
		if err != nil {
			return nil, c.rollBack(ctx, made, err)
		}
		kept = append(kept, got)
	}
	return kept, nil
}

// rollBack deletes the subscriptions a refused subscribeAll made, and
// names in the refusal those it could not delete: each carries the
// webhook secret, and after an events URL change nothing finds them again.
func (c *Client) rollBack(ctx context.Context, made []subscription, refusal error) error {
	var left []string
	for _, s := range made {
		if err := c.unsubscribe(ctx, s.ID); err != nil && !errors.Is(err, forge.ErrNotFound) {
			left = append(left, s.ID)
		}
	}
	if len(left) == 0 {
		return refusal
	}
	return fmt.Errorf(errRollBackFmt+": %w", strings.Join(left, ", "), refusal)
}

// subscriptionFor is the subscription of event type ev of the repository
// ids names, delivered to h.URL with h.Secret: every event of the
// repository, whatever its branch or who caused it; the resource whole
// (the receiver reads its repository's URLs), no messages.
func subscriptionFor(ev string, ids repository, h forge.Hook) subscription {
	return subscription{
		PublisherID: publisherTFS, EventType: ev, ResourceVersion: eventsResource,
		ConsumerID: consumerHooks, ConsumerActionID: actionHTTP,
		PublisherInputs: map[string]string{"projectId": ids.Project.ID, "repository": ids.ID},
		ConsumerInputs: map[string]string{"url": h.URL, "basicAuthUsername": hookUser, "basicAuthPassword": h.Secret,
			"resourceDetailsToSend": "all", "messagesToSend": "none", "detailedMessagesToSend": "none"},
	}
}

// unsubscribe is DELETE _apis/hooks/subscriptions/{id}; 404 is ErrNotFound.
func (c *Client) unsubscribe(ctx context.Context, id string) error {
	_, err := c.do(ctx, call{method: http.MethodDelete, path: subscriptionsPath + "/" + url.PathEscape(id)}, nil)
	return err
}

// repositoryIDs reads the repository's and its project's ids once (GET
// {project}/_apis/git/repositories/{repository}): a subscription's
// publisher inputs name them by id.
func (c *Client) repositoryIDs(ctx context.Context) (repository, error) {
	c.mu.Lock()
	r := c.repoIDs
	c.mu.Unlock()
	if r.ID != "" {
		return r, nil
	}
	if _, err := c.do(ctx, call{method: http.MethodGet, path: strings.TrimSuffix(c.repoPath(), "/")}, &r); err != nil {
		return repository{}, fmt.Errorf("%s: %w", errRepository, err)
	}
	if r.ID == "" || r.Project == nil || r.Project.ID == "" {
		return repository{}, fmt.Errorf("%s: %w", errRepository, &forge.APIError{Status: http.StatusOK, Message: "the repository's answer names no id or project id"})
	}
	c.mu.Lock()
	c.repoIDs = r
	c.mu.Unlock()
	return r, nil
}

// deliverable refuses a plain http URL off loopback: Azure DevOps sends
// the secret itself with each delivery, where the other forges sign.
func deliverable(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return &forge.APIError{Message: fmt.Errorf(errInsecureFmt, raw).Error(), Kind: forge.ErrInvalidInput}
	}
	if u.Scheme == "https" {
		return nil
	}
	if ip := net.ParseIP(u.Hostname()); u.Scheme == "http" && (u.Hostname() == "localhost" || (ip != nil && ip.IsLoopback())) {
		return nil
	}
	return &forge.APIError{Message: fmt.Errorf(errInsecureFmt, raw).Error(), Kind: forge.ErrInvalidInput}
}

// complete: every event type has an enabled (or on probation: still
// delivered, retried) subscription.
func complete(subs []subscription) bool {
	for _, ev := range hookEvents {
		if !slices.ContainsFunc(subs, func(s subscription) bool {
			return s.EventType == ev && (s.Status == "enabled" || s.Status == "onProbation")
		}) {
			return false
		}
	}
	return true
}

func joinIDs(subs []subscription) string {
	ids := make([]string, 0, len(subs))
	for _, s := range subs {
		ids = append(ids, s.ID)
	}
	slices.Sort(ids)
	return strings.Join(ids, idSep)
}

func splitIDs(id string) []string {
	var out []string
	for _, s := range strings.Split(id, idSep) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
