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

// Package azure is the forge.Client of Azure Repos: Azure DevOps Services
// (dev.azure.com, {organization}.visualstudio.com) and Azure DevOps Server,
// on net/http and encoding/json against the documented Git REST API 7.1
// (pull requests, their reviewers and labels) and the Policy API (the
// pull request's policy evaluations), through forgehttp's client.
//
// Why not microsoft/azure-devops-go-api: v7.1.0's git package would add
// only 104 KiB to the stripped provider binary (measured 2026-12-06,
// 56,479,906 → 56,586,402 bytes, 9 more packages), but it writes the
// package-level SessionId from every answer's X-TFS-Session header without
// a lock (a data race between concurrent clients, and one organization's
// answer sets the header sent to every other), discovers each route with
// an OPTIONS request into another package-level cache first, opens its
// resource-area lookups on an http.Client of its own rather than the
// hardened one, and drops an answer's headers from its errors, where the
// Retry-After of Azure's throttling is. The dozen calls made here are
// written against the REST reference instead.
//
// Credentials: the token is a personal access token, sent as basic
// authentication with an empty user name, or a Microsoft Entra ID access
// token (a service principal's or a workload identity's, resource
// 499b84ac-1321-427f-aa17-267ca6975798), sent as a bearer token. A token
// is told to be the latter by its form: a JWT (three base64url parts, the
// first starting "eyJ"); a PAT never holds a dot.
//
// Reviewers are identities: Spec.Reviewers are unique names (the sign-in
// address of a user, as Azure's uniqueName spells it), identity ids, or
// the display name only one identity has (a group's: "[Project]\Team"; a
// sign-in address never matches a display name), looked up once each through the identities API (on vssps.dev.azure.com, or
// {organization}.vssps.visualstudio.com, for Azure DevOps Services; the
// collection's own host for Azure DevOps Server). Spec.Reviewers are added
// as required reviewers, Spec.OptionalReviewers as optional ones. Reviewers
// a person adds, or makes required or optional, stay: reviewers are a
// floor.
// PullRequest.Reviewers lists each reviewer's unique name and id, and the
// declared name of one this client resolved. Azure DevOps has no
// assignees: a Spec with Assignees is refused (ErrInvalidInput).
//
// Drafts are isDraft; labels are the pull request's labels (tags).
//
// Merge completes the pull request (status completed) naming the head it
// judged as lastMergeSourceCommit: Azure refuses a head that moved since
// (409 GitPullRequestStaleException, ErrHeadMoved). AutoMerge sets
// auto-complete (autoCompleteSetBy, the token's own identity, and the
// completion options): Azure completes once every blocking policy passes.
// Its auto-complete names no head: the head is checked just before it is
// set, and the client pins it to that head itself: a Get that finds the
// head moved cancels it (autocomplete.go). Methods:
// merge is noFastForward, squash is squash, rebase is rebase (rebase and
// fast-forward). Azure's fourth, rebaseMerge (semi-linear: rebase, then a
// merge commit), has no forge.MergeMethod yet; a branch policy that limits
// the merge types refuses the others. DeleteBranch is deleteSourceBranch.
//
// Checks fold the pull request's blocking policy evaluations other than
// the reviewer policies (build validation, status checks, comments, work
// items); ReviewDecision comes from the reviewer policies (minimum number
// of reviewers, required reviewers) and the votes. Mergeable is
// mergeStatus: succeeded is true; conflicts, rejectedByPolicy and failure
// false; queued and notSet unknown; a draft is never mergeable.
//
// The list Azure answers cuts each description at 400 characters; a cut
// description that starts the full one this client last read or wrote is
// reported whole, so a long body is not seen as a person's edit at every
// poll. Azure answers lists without ETag: ListOpen never reports
// notModified.
//
// Rate limits: a 429 is a *forge.RateLimitError until Retry-After, else
// X-RateLimit-Reset (Unix seconds), else a minute; a Retry-After on an
// answer that succeeded (Azure delays a user nearing the limit) holds the
// next requests until then, as the documentation asks.
//
// Hooks: the provider's webhook is one service hook subscription (Web
// Hooks, httpRequest) per event type of hooks.go's hookEvents, filtered to
// the repository, all to the same URL with the webhook secret as the basic
// authentication password; a hook's ID is the subscriptions' ids joined
// by commas. Subscriptions are the organization's: only those of this
// repository that the token's own identity created count, so another
// user's subscription to the same URL is never changed or deleted. Keeping
// them needs the Service Hooks (Read & write) scope, vso.hooks_write, and
// the project's "Edit subscriptions" permission (Project Administrators).
//
// Locking: Client.mu guards until, limitMsg, me, bodies, names and repoIDs. It is
// never held across a request.
package azure

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

const (
	errNewClient = "cannot make an Azure DevOps client"
	errAPIURLFmt = "the Azure DevOps API URL %q must be an organization's or collection's http(s) URL"
	errOwnerFmt  = "cannot tell the Azure DevOps project from %q: want organization/project"

	// Services' hosts: the organization's, and where its identities are.
	servicesHost = "dev.azure.com"
	vstsSuffix   = ".visualstudio.com"

	// maxKept bounds the descriptions and names kept: past it they start
	// afresh (a description is read whole once more).
	maxKept = 4096
)

// An Option configures a Client.
type Option func(*Client)

// WithClock sets the clock rate-limit waits are measured on.
func WithClock(c clock.PassiveClock) Option { return func(cl *Client) { cl.clock = c } }

// Client is the forge.Client of one Azure Repos repository. It is safe for
// concurrent use; keep it for as long as the repository is polled.
type Client struct {
	api, ids      *http.Client
	base, idBase  *url.URL
	project, repo string
	token         func(context.Context) (string, error)
	clock         clock.PassiveClock
	// top is the page size a list asks for.
	top int

	mu sync.Mutex
	// until is when the last rate limit ends; no request is sent before.
	until    time.Time
	limitMsg string
	// me is the token's identity id, read once from connectionData.
	me string
	// bodies are the full descriptions last read or written, by number.
	bodies map[int64]string
	// names are declared reviewer names and the identity ids they resolved to.
	names map[string]string
	// repoIDs are the repository's and its project's ids, read once for
	// the service hook subscriptions.
	repoIDs repository
	// pins are the heads auto-complete was set at, by number
	// (autocomplete.go).
	pins map[int64]string
}

var (
	_ forge.Client = (*Client)(nil)
	_ forge.Hooks  = (*Client)(nil)
	_ forge.Opener = New
)

// New is the forge.Opener of Azure DevOps.
func New(c forge.Config) (forge.Client, error) { return NewClient(c) }

// NewClient returns the Client of the repository c names: c.APIURL is the
// organization's (https://dev.azure.com/{organization}/,
// https://{organization}.visualstudio.com/) or the collection's URL,
// c.Owner organization/project (its last segment is the project), c.Name
// the repository.
func NewClient(c forge.Config, o ...Option) (*Client, error) {
	if c.Token == nil {
		return nil, fmt.Errorf("%s: %w", errNewClient, forge.ErrNoCredentials)
	}
	api := c.APIURL
	if !strings.HasSuffix(api, "/") {
		api += "/"
	}
	base, err := url.Parse(api)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" || base.RawQuery != "" {
		return nil, fmt.Errorf(errAPIURLFmt, c.APIURL)
	}
	i := strings.LastIndex(c.Owner, "/")
	project := c.Owner[i+1:]
	if project == "" || c.Name == "" {
		return nil, fmt.Errorf(errOwnerFmt, c.Owner)
	}
	idBase := identitiesURL(base)
	hc, err := forgehttp.New(c.HTTPClient, base.String())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errNewClient, err)
	}
	ids := hc
	if idBase.Host != base.Host {
		if ids, err = forgehttp.New(c.HTTPClient, idBase.String()); err != nil {
			return nil, fmt.Errorf("%s: %w", errNewClient, err)
		}
	}
	cl := &Client{api: hc, ids: ids, base: base, idBase: idBase, project: project, repo: c.Name,
		token: c.Token, clock: clock.RealClock{}, top: pageSize, bodies: map[int64]string{}, names: map[string]string{},
		pins: map[int64]string{}}
	for _, fn := range o {
		fn(cl)
	}
	return cl, nil
}

// identitiesURL is where the identities of the organization at base are
// searched: Services keep them on vssps, a Server in the collection.
func identitiesURL(base *url.URL) *url.URL {
	u := *base
	host := strings.ToLower(u.Hostname())
	switch {
	case host == servicesHost:
		u.Host = "vssps." + servicesHost
	case strings.HasSuffix(host, vstsSuffix) && strings.Count(host, ".") == 2:
		u.Host = strings.TrimSuffix(host, vstsSuffix) + ".vssps" + vstsSuffix
	}
	return &u
}

// Type is AzureDevOps.
func (c *Client) Type() forge.Type { return forge.AzureDevOps }

// authorization is the Authorization header of token: bearer for an Entra
// ID token (a JWT), else basic with an empty user name and the PAT.
func authorization(token string) string {
	if strings.HasPrefix(token, "eyJ") && strings.Count(token, ".") == 2 {
		return "Bearer " + token
	}
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(":"+token))
}

// begin refuses a request while a rate limit lasts.
func (c *Client) begin() error {
	c.mu.Lock()
	until, msg := c.until, c.limitMsg
	c.mu.Unlock()
	if c.clock.Now().Before(until) {
		return &forge.RateLimitError{At: until, Msg: msg}
	}
	return nil
}

// hold keeps every request back until at.
func (c *Client) hold(at time.Time, msg string) {
	c.mu.Lock()
	if at.After(c.until) {
		c.until, c.limitMsg = at, msg
	}
	c.mu.Unlock()
}

// repoPath is {project}/_apis/git/repositories/{repository}/, escaped.
func (c *Client) repoPath() string {
	return url.PathEscape(c.project) + "/_apis/git/repositories/" + url.PathEscape(c.repo) + "/"
}

// keep remembers the full description of pull request n.
func (c *Client) keep(n int64, body string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bodies) >= maxKept {
		c.bodies = map[int64]string{}
	}
	c.bodies[n] = body
}

// forget drops what is kept of pull request n, no longer open.
func (c *Client) forget(n int64) {
	c.mu.Lock()
	delete(c.bodies, n)
	delete(c.pins, n)
	c.mu.Unlock()
}
