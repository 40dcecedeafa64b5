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

// Package github is the forge.Client and forge.Hooks of GitHub and GitHub
// Enterprise Server, on google/go-github v75 (REST API version 2022-11-28):
// go-github builds every REST request and decodes every answer into its
// types, over forgehttp's one hardened http.Client.
//
// What stays hand-written, and why:
//   - graphql.go, the three GraphQL mutations REST cannot do and go-github
//     does not speak (enable auto-merge, convert to draft, mark ready for
//     review): the query, its input and GraphQL's error shape, 98 lines of
//     code (`tail -n +17 graphql.go | grep -cv '^\s*//\|^\s*$'`). They are
//     posted through go-github's NewRequest and Do, so the token, headers,
//     size bound and HTTP refusals are REST's.
//   - transport.go (44 lines), the http.RoundTripper beneath go-github and
//     inside forgehttp's guard: the token per request (Config.Token, so an
//     App's installation token is used as it turns), GitHub's documented
//     media type, If-None-Match for a conditional read, and the bound on an
//     answer's size; go-github takes none of these per call.
//   - conditional.go (37 lines), the ETag cache: go-github has none and
//     returns a 304 as an error, so a read asks the transport for
//     If-None-Match and takes the 304 as "what was kept stands".
//   - errors.go, GitHub's refusals mapped to the forge's sentinels and
//     *forge.RateLimitError, GitHub's words scrubbed by forgehttp.Text
//     (go-github's errors carry the raw body and a message of their own).
//
// go-github's own rate-limit gate is off (DisableRateLimitCheck): it reads
// the wall clock, and this client keeps one gate, on the injected clock.
//
// What it costs: the stripped provider binary (CGO_ENABLED=0 go build
// -trimpath -ldflags='-s -w' ./cmd/provider, Go 1.26.8, linux/amd64) went
// from 59.02 to 61.64 MiB (+2.62 MiB) and from 109 to 110 modules
// (go-querystring came with GitLab's client-go), measured on 2026-12-06
// (docs/development.md, "The binary"). An earlier estimate of 0.9 MiB did
// not hold: the binary links text/template, whose method lookups by name
// make the linker keep every exported method of a type it keeps, so each
// reachable go-github type brings all its Get accessors and each service
// all its methods (5,482 functions).
//
// The provider's webhook (hooks.go, forge.Hooks) is go-github's
// Repositories hooks calls: a JSON "web" hook, TLS verified, delivering
// push, pull_request, pull_request_review, check_suite and status (the last
// three for PullRequests that wait to merge or for readiness Merged; see
// hookEvents). Its secret goes in the request body, and GitHub answers it
// masked, so a hook read back never carries one.
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
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v75/github"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

const (
	errNewClient = "cannot make a GitHub client"
	errAPIURLFmt = "cannot parse the GitHub API URL %q"
	errRepoFmt   = "%q/%q is not a GitHub repository's owner and name"

	// defaultAPI and defaultGraphQL are github.com's.
	defaultAPI     = "https://api.github.com/"
	defaultGraphQL = "https://api.github.com/graphql"

	// userAgent names the provider: GitHub refuses a request without one
	// ("Getting started with the REST API").
	userAgent = "provider-git"

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
	gh *gh.Client
	// graphqlURL is absolute: Enterprise serves it beside /api/v3/.
	graphqlURL string
	// owner and name are path-escaped, as go-github puts them in a path
	// unescaped; org is the owner as GitHub spells it (a team reviewer is
	// org/team).
	owner, name, org string
	clock            clock.PassiveClock

	mu sync.Mutex
	// until is when the last rate limit ends; no request is sent before.
	until    time.Time
	limitMsg string
	cache    map[string]entry

	// pacer spaces content-creating requests of the Git data API
	// (gitdata.go) under paceKey, waiting on timer.
	pacer   *forge.Pacer
	paceKey string
	timer   clock.Clock
}

var (
	_ forge.Client = (*Client)(nil)
	_ forge.Hooks  = (*Client)(nil)
)

// New is the forge.Opener of GitHub.
func New(c forge.Config) (forge.Client, error) { return NewClient(c) }

// NewClient returns the Client of the repository c names. c.APIURL is
// https://api.github.com/, an Enterprise server's https://host/api/v3/
// (the host alone is taken as that), or a GHE.com API host
// (https://api.SUBDOMAIN.ghe.com/), as go-github's WithEnterpriseURLs
// reads them.
func NewClient(c forge.Config, o ...Option) (*Client, error) {
	if c.Token == nil {
		return nil, fmt.Errorf("%s: %w", errNewClient, forge.ErrNoCredentials)
	}
	if !pathSafe(c.Owner) || !pathSafe(c.Name) || strings.Contains(c.Owner+c.Name, "/") {
		return nil, fmt.Errorf(errRepoFmt, c.Owner, c.Name)
	}
	api := c.APIURL
	if api == "" {
		api = defaultAPI
	}
	u, err := url.Parse(api)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf(errAPIURLFmt, api)
	}
	base := http.Client{}
	if c.HTTPClient != nil {
		base = *c.HTTPClient
	}
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	// Beneath forgehttp's guard, so the token goes only where it allows.
	base.Transport = &transport{token: c.Token, next: next}
	hc, err := forgehttp.New(&base, api)
	if err != nil {
		return nil, err
	}
	g, gql := gh.NewClient(hc), defaultGraphQL
	if !strings.EqualFold(u.Hostname(), "api.github.com") {
		if g, err = g.WithEnterpriseURLs(api, api); err != nil {
			return nil, fmt.Errorf(errAPIURLFmt, api)
		}
		// Enterprise serves GraphQL at /api/graphql beside /api/v3/;
		// GHE.com's API host at /graphql, as github.com.
		rest := g.BaseURL.String()
		gql = rest + "graphql"
		if host, ok := strings.CutSuffix(rest, "/api/v3/"); ok {
			gql = host + "/api/graphql"
		}
	}
	g.UserAgent = userAgent
	g.DisableRateLimitCheck = true
	cl := &Client{gh: g, graphqlURL: gql, owner: url.PathEscape(c.Owner), name: url.PathEscape(c.Name), org: c.Owner,
		clock: clock.RealClock{}, cache: map[string]entry{}, timer: clock.RealClock{}, paceKey: api + c.Owner + "/" + c.Name}
	for _, fn := range o {
		fn(cl)
	}
	if cl.pacer == nil {
		cl.pacer = forge.NewPacer(cl.timer)
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
	err = mapError(refusal(err), c.clock.Now())
	var rl *forge.RateLimitError
	if errors.As(err, &rl) {
		c.mu.Lock()
		if rl.At.After(c.until) {
			c.until, c.limitMsg = rl.At, rl.Msg
		}
		c.mu.Unlock()
	}
	return fmt.Errorf("%s: %w", what, err)
}

// pathSafe refuses what would climb out of, or vanish from, a path
// go-github builds with it unescaped and then resolves ("..", ".", ""):
// a branch or SHA the forge answered is never trusted to be one.
func pathSafe(s string) bool {
	for seg := range strings.SplitSeq(s, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// number is a pull request's number as go-github takes it.
func number(n int64) int { return int(n) }

func ptr[T any](v T) *T { return &v }
