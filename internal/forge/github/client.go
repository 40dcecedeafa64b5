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

// Package github is the forge.Client of GitHub and GitHub Enterprise
// Server, on net/http and encoding/json against GitHub's documented REST
// API (version 2022-11-28), and its GraphQL endpoint for the three things
// REST cannot do: enable auto-merge and flip draft. It models only the
// fields it reads and writes, under their documented names (types.go).
//
// Why not google/go-github: measured on 2026-12-05, go-github v75 for the
// calls made here adds 0.9 MiB to the stripped provider binary (53.7 ->
// 54.6 MiB), so size is no longer the reason; what it would not give for
// free is the conditional list (If-None-Match answered from the client's
// cache, which GitHub does not count against the rate limit) and the
// GraphQL mutations. Moving to it, on forgehttp's client, is open work.
//
// Reads are conditional: each GET's ETag is kept and sent back as
// If-None-Match, and a 304 (which GitHub does not count against the rate
// limit) answers from what the client kept. A Client therefore belongs to
// one repository for as long as the caller polls it; keep it, do not open a
// new one per poll.
//
// Locking: Client.mu guards until, limitMsg and cache. It is never held
// across a request.
package github

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

const (
	errNewClient = "cannot make a GitHub client"
	errAPIURL    = "cannot parse the GitHub API URL"

	// defaultAPI and defaultGraphQL are github.com's.
	defaultAPI     = "https://api.github.com/"
	defaultGraphQL = "https://api.github.com/graphql"

	// maxCached bounds the ETag cache: at four entries per pull request
	// read through Get (pull, status, check runs, reviews) it holds a
	// thousand, past which it starts afresh (the next reads cost one
	// full answer each).
	maxCached = 4096
	// perPage is the most GitHub's list endpoints return per page.
	perPage = 100
)

// An Option configures a Client.
type Option func(*Client)

// WithClock sets the clock rate-limit waits are measured on.
func WithClock(c clock.PassiveClock) Option { return func(cl *Client) { cl.clock = c } }

// Client is the forge.Client of one GitHub repository. It is safe for
// concurrent use.
type Client struct {
	http *http.Client
	// base is the REST API's URL, with a trailing slash.
	base        *url.URL
	graphqlURL  string
	token       func(context.Context) (string, error)
	owner, name string
	clock       clock.PassiveClock

	mu sync.Mutex
	// until is when the last rate limit ends; no request is sent before.
	until    time.Time
	limitMsg string
	cache    map[string]entry
}

// entry is what a conditional GET keeps: the ETag, the decoded answer,
// and the next page (a 304 need not carry the Link header).
type entry struct {
	etag string
	next int
	val  any
}

var _ forge.Client = (*Client)(nil)

// New is the forge.Opener of GitHub.
func New(c forge.Config) (forge.Client, error) { return NewClient(c) }

// NewClient returns the Client of the repository c names. c.APIURL is
// https://api.github.com/ or an Enterprise server's https://host/api/v3/
// (the host alone is taken as that).
func NewClient(c forge.Config, o ...Option) (*Client, error) {
	if c.Token == nil {
		return nil, errors.Wrap(forge.ErrNoCredentials, errNewClient)
	}
	api := c.APIURL
	if api == "" {
		api = defaultAPI
	}
	u, err := url.Parse(api)
	if err != nil || u.Host == "" {
		return nil, errors.Errorf("%s: %q", errAPIURL, api)
	}
	base, gql := defaultAPI, defaultGraphQL
	if !strings.EqualFold(u.Hostname(), "api.github.com") {
		// Enterprise serves REST and GraphQL side by side: /api/v3/,
		// /api/graphql.
		host := strings.TrimSuffix(strings.TrimSuffix(u.String(), "/"), "/api/v3")
		base, gql = host+"/api/v3/", host+"/api/graphql"
	}
	bu, err := url.Parse(base)
	if err != nil {
		return nil, errors.Errorf("%s: %q", errAPIURL, api)
	}
	hc, err := forgehttp.New(c.HTTPClient, base)
	if err != nil {
		return nil, err
	}
	cl := &Client{http: hc, base: bu, graphqlURL: gql, token: c.Token, owner: c.Owner, name: c.Name,
		clock: clock.RealClock{}, cache: map[string]entry{}}
	for _, fn := range o {
		fn(cl)
	}
	return cl, nil
}

// Type is GitHub.
func (c *Client) Type() forge.Type { return forge.GitHub }

// begin refuses a request while a rate limit lasts, measured on the
// client's clock.
func (c *Client) begin() error {
	c.mu.Lock()
	until, msg := c.until, c.limitMsg
	c.mu.Unlock()
	if c.clock.Now().Before(until) {
		return &forge.RateLimitError{At: until, Msg: msg}
	}
	return nil
}

// fail maps err (see errors.go), remembers a rate limit, and wraps it with
// what was being done.
func (c *Client) fail(err error, what string) error {
	err = mapError(err, c.clock.Now())
	var rl *forge.RateLimitError
	if errors.As(err, &rl) {
		c.mu.Lock()
		if rl.At.After(c.until) {
			c.until, c.limitMsg = rl.At, rl.Msg
		}
		c.mu.Unlock()
	}
	return errors.Wrap(err, what)
}

// repoPath is repos/{owner}/{repo}/ with both escaped.
func (c *Client) repoPath() string {
	return "repos/" + url.PathEscape(c.owner) + "/" + url.PathEscape(c.name) + "/"
}

// pullPath is repos/{owner}/{repo}/pulls/{number} and its sub-resources.
func (c *Client) pullPath(number int64, sub string) string {
	p := c.repoPath() + "pulls/" + itoa(number)
	if sub != "" {
		p += "/" + sub
	}
	return p
}
