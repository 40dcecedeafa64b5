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

package gitlab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
	gl "gitlab.com/gitlab-org/api/client-go/v2"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

const (
	errAPIURLFmt   = "GitLab API URL %q must be an absolute http(s) URL"
	errProject     = "GitLab needs the project's namespace and name"
	errNoToken     = "no API token function for GitLab"
	errGetToken    = "cannot get the GitLab API token"
	errClient      = "cannot build the GitLab API client"
	errRead        = "cannot read GitLab's answer"
	errTooLargeFmt = "GitLab's answer is larger than %d bytes"
)

// maxBody bounds what is read of one answer: a page of 100 merge requests
// is about 500 KiB; 32 MiB leaves room and still stops a runaway answer.
const maxBody = 32 << 20

// userAgent names the provider in GitLab's logs.
const userAgent = "provider-git"

// An Option configures a Client.
type Option func(*Client)

// WithClock sets the clock a rate limit's wait is counted from.
func WithClock(c clock.PassiveClock) Option {
	return func(cl *Client) { cl.clock = c }
}

// WithBearer sends the token as an OAuth 2 access token (Authorization:
// Bearer) instead of PRIVATE-TOKEN.
func WithBearer() Option {
	return func(cl *Client) { cl.bearer = true }
}

// Client is a forge.Client (and forge.Hooks) for one GitLab project, on
// GitLab's own Go client.
//
// mu guards users and pages; it is never held across the network.
type Client struct {
	// path is the project's full path, unescaped; client-go escapes it as
	// one segment, the API's :id.
	path   string
	token  func(context.Context) (string, error)
	api    *gl.Client
	clock  clock.PassiveClock
	bearer bool

	mu    sync.Mutex
	users map[string]int64
	pages map[int64]listPage
}

var (
	_ forge.Client = &Client{}
	_ forge.Hooks  = &Client{}
)

// New returns the GitLab Client of c. It is a forge.Opener.
func New(c forge.Config) (forge.Client, error) {
	return NewClient(c)
}

// NewClient returns the GitLab Client of c with options.
func NewClient(c forge.Config, o ...Option) (*Client, error) {
	u, err := url.Parse(c.APIURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf(errAPIURLFmt, c.APIURL)
	}
	if strings.Trim(c.Owner, "/") == "" || strings.Trim(c.Name, "/") == "" {
		return nil, errors.New(errProject)
	}
	if c.Token == nil {
		return nil, fmt.Errorf("%s: %w", errNoToken, forge.ErrNoCredentials)
	}
	cl := &Client{
		path:  strings.Trim(c.Owner, "/") + "/" + strings.Trim(c.Name, "/"),
		token: c.Token,
		clock: clock.RealClock{},
		users: map[string]int64{},
		pages: map[int64]listPage{},
	}
	for _, fn := range o {
		fn(cl)
	}
	hc, err := forgehttp.New(c.HTTPClient, u.String())
	if err != nil {
		return nil, err
	}
	cl.api, err = gl.NewAuthSourceClient(tokenSource{token: cl.token, bearer: cl.bearer},
		gl.WithBaseURL(u.String()),
		gl.WithHTTPClient(hc),
		gl.WithUserAgent(userAgent),
		// No retries, no backoff, no client-side limiter: each would
		// sleep a worker on the wall clock, and client-go retries a 429
		// or a 5xx even of a POST, so a create GitLab carried out behind
		// a proxy's 502 would be sent again. The provider paces its
		// content-creating requests itself (forge.Pacer) and requeues on
		// a *forge.RateLimitError at the time GitLab names.
		gl.WithoutRetries(),
		gl.WithCustomRetryMax(0),
		gl.WithCustomLimiter(unlimited{}),
	)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errClient, err)
	}
	return cl, nil
}

// Type is GitLab.
func (c *Client) Type() forge.Type { return forge.GitLab }

// opts are the request options of every call: its context, and the
// handler that reads GitLab's answer.
func (c *Client) opts(ctx context.Context, more ...gl.RequestOptionFunc) []gl.RequestOptionFunc {
	return append([]gl.RequestOptionFunc{gl.WithContext(ctx), c.handle}, more...)
}

// handle sets answer as the request's response handler.
func (c *Client) handle(r *retryablehttp.Request) error {
	r.SetResponseHandler(c.answer)
	return nil
}

// success are the statuses client-go takes for success (CheckResponse).
var success = map[int]bool{
	http.StatusOK: true, http.StatusCreated: true, http.StatusAccepted: true,
	http.StatusNoContent: true, http.StatusNotModified: true,
}

// answer lets a success through, its body bounded to maxBody, and turns
// any other status into *forge.APIError or *forge.RateLimitError with
// GitLab's own words. It reads and closes a refusal's body itself:
// retryablehttp then hands client-go the error without the response, so
// client-go's ErrorResponse, which carries a body unscrubbed and drops a
// 404's, is never made.
func (c *Client) answer(resp *http.Response) error {
	if success[resp.StatusCode] {
		resp.Body = &capped{r: resp.Body, left: maxBody}
		return nil
	}
	defer resp.Body.Close() //nolint:errcheck // a read-only body's close error says nothing.
	b, err := forgehttp.ReadBody(resp.Body, maxBody)
	if err != nil {
		return fmt.Errorf("%s: %w", errRead, err)
	}
	return c.refusal(resp.StatusCode, resp.Header, b)
}

// capped reads at most left bytes of r; more is an error, so a runaway
// answer stops in the decoder rather than in memory.
type capped struct {
	r    io.ReadCloser
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// At the limit: the end of the body is fine, more is not.
		if n, err := c.r.Read(make([]byte, 1)); n == 0 && err != nil {
			return 0, err
		}
		return 0, fmt.Errorf(errTooLargeFmt, maxBody)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func (c *capped) Close() error { return c.r.Close() }

// tokenSource is client-go's AuthSource of a Client: it reads the token
// per request, so a refreshed token is used from the next request on.
type tokenSource struct {
	token  func(context.Context) (string, error)
	bearer bool
}

func (tokenSource) Init(context.Context, *gl.Client) error { return nil }

func (s tokenSource) Header(ctx context.Context) (string, string, error) {
	t, err := s.token(ctx)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", errGetToken, err)
	}
	if t == "" {
		return "", "", forge.ErrNoCredentials
	}
	if s.bearer {
		return "Authorization", "Bearer " + t, nil
	}
	return "PRIVATE-TOKEN", t, nil
}

// unlimited is client-go's RateLimiter that never waits: client-go's own
// would pace every call from the first answer's RateLimit-Limit, on the
// wall clock.
type unlimited struct{}

func (unlimited) Wait(ctx context.Context) error { return ctx.Err() }
