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
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

const (
	errAPIURLFmt = "GitLab API URL %q must be an absolute http(s) URL"
	errProject   = "GitLab needs the project's namespace and name"
	errNoToken   = "no API token function for GitLab"
	errGetToken  = "cannot get the GitLab API token"
	errEncode    = "cannot encode the GitLab request"
	errRequest   = "cannot build the GitLab request"
	errSendFmt   = "cannot reach GitLab for %s %s"
	errReadFmt   = "cannot read GitLab's answer to %s %s"
	errDecodeFmt = "cannot decode GitLab's answer to %s %s"
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

// Client is a forge.Client for one GitLab project's merge requests.
//
// mu guards users and pages; it is never held across the network.
type Client struct {
	base *url.URL
	// path is the project's full path, unescaped; escaped as one segment
	// it is the API's :id.
	path   string
	token  func(context.Context) (string, error)
	http   *http.Client
	clock  clock.PassiveClock
	bearer bool

	mu    sync.Mutex
	users map[string]int64
	pages map[string]listPage
}

var _ forge.Client = &Client{}

// New returns the GitLab Client of c. It is a forge.Opener.
func New(c forge.Config) (forge.Client, error) {
	return NewClient(c)
}

// NewClient returns the GitLab Client of c with options.
func NewClient(c forge.Config, o ...Option) (*Client, error) {
	u, err := url.Parse(c.APIURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, errors.Errorf(errAPIURLFmt, c.APIURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	if strings.Trim(c.Owner, "/") == "" || strings.Trim(c.Name, "/") == "" {
		return nil, errors.New(errProject)
	}
	if c.Token == nil {
		return nil, errors.Wrap(forge.ErrNoCredentials, errNoToken)
	}
	cl := &Client{
		base:  u,
		path:  strings.Trim(c.Owner, "/") + "/" + strings.Trim(c.Name, "/"),
		token: c.Token,
		clock: clock.RealClock{},
		users: map[string]int64{},
		pages: map[string]listPage{},
	}
	if cl.http, err = forgehttp.New(c.HTTPClient, u.String()); err != nil {
		return nil, err
	}
	for _, fn := range o {
		fn(cl)
	}
	return cl, nil
}

// Type is GitLab.
func (c *Client) Type() forge.Type { return forge.GitLab }

// request is one call to the API.
type request struct {
	method string
	// path is relative to the API URL, already escaped.
	path  string
	query url.Values
	body  any
	// etag, when set, is sent as If-None-Match.
	etag string
}

// answer is what came back from a successful (2xx or 304) call.
type answer struct {
	status int
	header http.Header
}

// do sends r and decodes a 2xx answer's JSON into out (when not nil). A
// refusal is returned as *forge.APIError or *forge.RateLimitError.
func (c *Client) do(ctx context.Context, r request, out any) (answer, error) {
	u := *c.base
	ref, err := url.Parse(r.path)
	if err != nil {
		return answer{}, errors.Wrap(err, errRequest)
	}
	full := u.ResolveReference(ref)
	if len(r.query) > 0 {
		full.RawQuery = r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return answer{}, errors.Wrap(err, errEncode)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, full.String(), body)
	if err != nil {
		return answer{}, errors.Wrap(err, errRequest)
	}
	if err := c.authorize(ctx, req); err != nil {
		return answer{}, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.etag != "" {
		req.Header.Set("If-None-Match", r.etag)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// The URL carries no secret: the token travels in a header.
		return answer{}, errors.Wrapf(err, errSendFmt, r.method, r.path)
	}
	defer resp.Body.Close() //nolint:errcheck // a read-only body's close error says nothing.
	b, err := forgehttp.ReadBody(resp.Body, maxBody)
	if err != nil {
		return answer{}, errors.Wrapf(err, errReadFmt, r.method, r.path)
	}
	a := answer{status: resp.StatusCode, header: resp.Header}
	switch {
	case resp.StatusCode == http.StatusNotModified:
		return a, nil
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return a, c.refusal(resp.StatusCode, resp.Header, b)
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return a, errors.Wrapf(err, errDecodeFmt, r.method, r.path)
		}
	}
	return a, nil
}

// authorize sets the request's token header from a current token.
func (c *Client) authorize(ctx context.Context, req *http.Request) error {
	t, err := c.token(ctx)
	if err != nil {
		return errors.Wrap(err, errGetToken)
	}
	if t == "" {
		return forge.ErrNoCredentials
	}
	if c.bearer {
		req.Header.Set("Authorization", "Bearer "+t)
		return nil
	}
	req.Header.Set("PRIVATE-TOKEN", t)
	return nil
}

// mrPath is the path of the project's merge requests, or of one of them and
// its sub-resources.
func (c *Client) mrPath(iid int64, sub ...string) string {
	p := "projects/" + url.PathEscape(c.path) + "/merge_requests"
	if iid > 0 {
		p += "/" + itoa(iid)
	}
	for _, s := range sub {
		p += "/" + s
	}
	return p
}
