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
// Server, through go-github (REST) and GitHub's GraphQL endpoint for the
// three things REST cannot do: enable auto-merge and flip draft.
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
	"github.com/google/go-github/v89/github"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errNewClient = "cannot make a GitHub client"
	errAPIURL    = "cannot parse the GitHub API URL"
	errToken     = "cannot get the GitHub API token"

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
	gh          *github.Client
	owner, name string
	graphqlURL  string
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
// https://api.github.com/ or an Enterprise server's https://host/api/v3/.
func NewClient(c forge.Config, o ...Option) (*Client, error) {
	if c.Token == nil {
		return nil, errors.Wrap(forge.ErrNoCredentials, errNewClient)
	}
	api := c.APIURL
	if api == "" {
		api = "https://api.github.com/"
	}
	u, err := url.Parse(api)
	if err != nil || u.Host == "" {
		return nil, errors.Errorf("%s: %q", errAPIURL, api)
	}
	hc := &http.Client{}
	if c.HTTPClient != nil {
		*hc = *c.HTTPClient
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = &bearer{token: c.Token, next: next}
	opts := []github.ClientOptionsFunc{github.WithHTTPClient(hc), github.WithUserAgent("provider-git")}
	gql := "https://api.github.com/graphql"
	if !strings.EqualFold(u.Hostname(), "api.github.com") {
		// Enterprise serves uploads and GraphQL beside the REST API:
		// /api/v3/, /api/uploads/, /api/graphql.
		host := strings.TrimSuffix(strings.TrimSuffix(u.String(), "/"), "/api/v3")
		opts = append(opts, github.WithEnterpriseURLs(host+"/api/v3/", host+"/api/uploads/"))
		gql = host + "/api/graphql"
	}
	gh, err := github.NewClient(opts...)
	if err != nil {
		return nil, errors.Wrap(err, errNewClient)
	}
	cl := &Client{gh: gh, owner: c.Owner, name: c.Name, graphqlURL: gql, clock: clock.RealClock{}, cache: map[string]entry{}}
	for _, fn := range o {
		fn(cl)
	}
	return cl, nil
}

// Type is GitHub.
func (c *Client) Type() forge.Type { return forge.GitHub }

// bearer sets the token of each request, asked for per request so a GitHub
// App installation token is refreshed by the caller's func.
type bearer struct {
	token func(context.Context) (string, error)
	next  http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	t, err := b.token(r.Context())
	if err == nil && t == "" {
		err = forge.ErrNoCredentials
	}
	if err != nil {
		if r.Body != nil {
			_ = r.Body.Close() // a RoundTripper closes the body, also on error
		}
		return nil, errors.Wrap(err, errToken)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t)
	return b.next.RoundTrip(r)
}

// begin refuses a request while a rate limit lasts, measured on the
// client's clock; go-github's own check (on the wall clock) is bypassed so
// that one clock decides.
func (c *Client) begin(ctx context.Context) (context.Context, error) {
	c.mu.Lock()
	until, msg := c.until, c.limitMsg
	c.mu.Unlock()
	if c.clock.Now().Before(until) {
		return nil, &forge.RateLimitError{At: until, Msg: msg}
	}
	return context.WithValue(ctx, github.BypassRateLimitCheck, true), nil
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

// get is a conditional GET of path (relative to the API URL), kept under
// key: a 304 returns the kept answer with notModified true; a 200 is
// decoded into T, converted by conv and kept with its ETag.
func get[T, R any](ctx context.Context, c *Client, key, path string, conv func(T) R) (val R, next int, notModified bool, err error) {
	c.mu.Lock()
	e, kept := c.cache[key]
	c.mu.Unlock()
	req, err := c.gh.NewRequest(ctx, http.MethodGet, path, nil)
	if err != nil {
		return val, 0, false, err
	}
	if kept {
		req.Header.Set("If-None-Match", e.etag)
	}
	var v T
	resp, err := c.gh.Do(req, &v)
	if kept && resp != nil && resp.StatusCode == http.StatusNotModified {
		r, _ := e.val.(R)
		return r, e.next, true, nil
	}
	if err != nil {
		return val, 0, false, err
	}
	val = conv(v)
	if etag := resp.Header.Get("ETag"); etag != "" {
		c.mu.Lock()
		if len(c.cache) >= maxCached {
			c.cache = map[string]entry{}
		}
		c.cache[key] = entry{etag: etag, next: resp.NextPage, val: val}
		c.mu.Unlock()
	}
	return val, resp.NextPage, false, nil
}

// repoPath is repos/{owner}/{repo}/ with both escaped.
func (c *Client) repoPath() string {
	return "repos/" + url.PathEscape(c.owner) + "/" + url.PathEscape(c.name) + "/"
}
