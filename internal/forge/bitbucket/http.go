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

package bitbucket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

const (
	errToken     = "cannot get the Bitbucket API credential"
	errPathFmt   = "refusing the Bitbucket API path %q: it climbs out of the API with .."
	errEncode    = "cannot encode the Bitbucket request"
	errBuild     = "cannot build the Bitbucket request"
	errSendFmt   = "cannot reach Bitbucket for %s %s"
	errReadFmt   = "cannot read Bitbucket's answer to %s %s"
	errDecodeFmt = "cannot decode Bitbucket's answer to %s %s"

	// userAgent names the provider to Bitbucket's logs.
	userAgent = "provider-git"
	// maxBody bounds what is read of one answer: a page of 50 Cloud pull
	// requests with their participants is well under 1 MiB.
	maxBody = 32 << 20
	// maxPages bounds one list walk: 200 pages of 50 (Cloud) or 100
	// (Data Center) is 10,000 open pull requests or more; a server whose
	// pages never end stops here.
	maxPages = 200
)

// An Option configures a Client.
type Option func(*core)

// WithClock sets the clock rate-limit waits are measured on.
func WithClock(c clock.PassiveClock) Option { return func(k *core) { k.clock = c } }

// core is what both products' clients share: the API's base, the
// hardened HTTP client, the credential and the rate-limit hold.
type core struct {
	http  *http.Client
	base  *url.URL
	token func(context.Context) (string, error)
	clock clock.PassiveClock
	// defaultWait is how long a 429 without Retry-After holds requests.
	defaultWait time.Duration

	mu       sync.Mutex
	until    time.Time
	limitMsg string
}

func newCore(c forge.Config, api string, wait time.Duration, o []Option) (*core, error) {
	if c.Token == nil {
		return nil, forge.ErrNoCredentials
	}
	if !strings.HasSuffix(api, "/") {
		api += "/"
	}
	u, err := url.Parse(api)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf(errAPIURLFmt, api)
	}
	hc, err := forgehttp.New(c.HTTPClient, api)
	if err != nil {
		return nil, err
	}
	k := &core{http: hc, base: u, token: c.Token, clock: clock.RealClock{}, defaultWait: wait}
	for _, fn := range o {
		fn(k)
	}
	return k, nil
}

const errAPIURLFmt = "the Bitbucket API URL %q must be an absolute http(s) URL"

// call is one request: path is relative to the API's base (escaped) or an
// absolute URL (a page link Cloud answered, or Data Center's other REST
// roots); body, when not nil, is sent as JSON.
type call struct {
	method string
	path   string
	body   any
}

// refusal is an answer other than 2xx (and 3xx, which the client follows
// on the API's origin): the status, the headers and the forge's words.
type refusal struct {
	status    int
	header    http.Header
	message   string
	exception string
	// fields are the names of the fields a Cloud 400 complains of.
	fields []string
}

func (r *refusal) Error() string { return "HTTP " + strconv.Itoa(r.status) + ": " + r.message }

// begin refuses a request while a rate limit lasts.
func (k *core) begin() error {
	k.mu.Lock()
	until, msg := k.until, k.limitMsg
	k.mu.Unlock()
	if k.clock.Now().Before(until) {
		return &forge.RateLimitError{At: until, Msg: msg}
	}
	return nil
}

// do sends r with the current credential and decodes a 2xx answer's JSON
// into out (when not nil). It returns the status; a refusal is a *refusal.
func (k *core) do(ctx context.Context, r call, out any) (int, error) {
	if err := k.begin(); err != nil {
		return 0, err
	}
	ref, err := url.Parse(r.path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", errBuild, err)
	}
	if slices.Contains(strings.Split(ref.Path, "/"), "..") {
		return 0, fmt.Errorf(errPathFmt, r.path) //nolint:staticcheck // ST1005: the message ends with "..", the path element it refuses
	}
	var body io.Reader
	if r.body != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // a title's <, > and & as typed
		if err := enc.Encode(r.body); err != nil {
			return 0, fmt.Errorf("%s: %w", errEncode, err)
		}
		body = &buf
	}
	req, err := http.NewRequestWithContext(ctx, r.method, k.base.ResolveReference(ref).String(), body)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", errBuild, err)
	}
	t, err := k.token(ctx)
	if err == nil && t == "" {
		err = forge.ErrNoCredentials
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", errToken, err)
	}
	// Set on the request, not by a RoundTripper; forgehttp refuses a
	// request or redirect off the API's origin.
	if user, secret, basic := strings.Cut(t, ":"); basic {
		req.SetBasicAuth(user, secret)
	} else {
		req.Header.Set("Authorization", "Bearer "+t)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := k.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err() // more telling than the transport's words
		}
		// The URL carries no secret: the credential is a header.
		return 0, fmt.Errorf(errSendFmt+": %w", r.method, redact(r.path), err)
	}
	defer resp.Body.Close() //nolint:errcheck // a read body's close error says nothing.
	b, err := forgehttp.ReadBody(resp.Body, maxBody)
	if err != nil {
		return resp.StatusCode, fmt.Errorf(errReadFmt+": %w", r.method, redact(r.path), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, refused(resp.StatusCode, resp.Header, b)
	}
	if out != nil && len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, fmt.Errorf(errDecodeFmt+": %w", r.method, redact(r.path), err)
		}
	}
	return resp.StatusCode, nil
}

// redact is a path without its query, for messages.
func redact(p string) string {
	p, _, _ = strings.Cut(p, "?")
	return p
}

// errorBody reads both products' refusals: Cloud's {"type": "error",
// "error": {"message", "detail", "fields"}} and Data Center's {"errors":
// [{"message", "exceptionName"}]}.
type errorBody struct {
	Error *struct {
		Message string         `json:"message"`
		Detail  string         `json:"detail"`
		Fields  map[string]any `json:"fields"`
	} `json:"error"`
	Errors []struct {
		Message       string `json:"message"`
		ExceptionName string `json:"exceptionName"`
	} `json:"errors"`
}

func refused(status int, h http.Header, b []byte) *refusal {
	r := &refusal{status: status, header: h}
	var e errorBody
	if json.Unmarshal(b, &e) != nil {
		r.message = forgehttp.Text(b, status)
		return r
	}
	var msgs []string
	switch {
	case e.Error != nil:
		msgs = append(msgs, e.Error.Message)
		if e.Error.Detail != "" {
			msgs = append(msgs, e.Error.Detail)
		}
		for f := range e.Error.Fields {
			r.fields = append(r.fields, f)
		}
		slices.Sort(r.fields)
	case len(e.Errors) > 0:
		for _, x := range e.Errors {
			msgs = append(msgs, x.Message)
		}
		r.exception = e.Errors[0].ExceptionName
	}
	r.message = forgehttp.Text([]byte(strings.Join(msgs, ": ")), status)
	return r
}

// asRefusal returns the refusal behind err, nil when there is none.
func asRefusal(err error) *refusal {
	var r *refusal
	if errors.As(err, &r) {
		return r
	}
	return nil
}

// authorisation is the exception Data Center answers (with 401) to a
// credential that may not do what it asked, rather than a bad one.
const authorisation = "AuthorisationException"

// fail maps a refusal to the forge's errors, holds every request through
// a rate limit, and wraps err with what was being done:
//   - 429 → *forge.RateLimitError at Retry-After, else defaultWait on;
//   - 401 → ErrUnauthorized (Data Center's AuthorisationException:
//     ErrForbidden), 403 ErrForbidden, 404 ErrNotFound, 400 ErrInvalidInput;
//   - kind, when given, overrides the sentinel for this call's refusal.
//
// Other errors (the network, the context, the credential) pass unchanged.
func (k *core) fail(err error, what string, kind ...error) error {
	r := asRefusal(err)
	if r == nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	now := k.clock.Now()
	if r.status == http.StatusTooManyRequests {
		at, ok := forgehttp.RetryAt(r.header, now)
		if !ok {
			at = now.Add(k.defaultWait)
		}
		k.mu.Lock()
		if at.After(k.until) {
			k.until, k.limitMsg = at, r.message
		}
		k.mu.Unlock()
		return fmt.Errorf("%s: %w", what, &forge.RateLimitError{At: at, Msg: r.message})
	}
	e := &forge.APIError{Status: r.status, Message: r.message}
	switch r.status {
	case http.StatusUnauthorized:
		e.Kind = forge.ErrUnauthorized
		if strings.HasSuffix(r.exception, authorisation) {
			e.Kind = forge.ErrForbidden
		}
	case http.StatusForbidden:
		e.Kind = forge.ErrForbidden
	case http.StatusNotFound:
		e.Kind = forge.ErrNotFound
	case http.StatusBadRequest:
		e.Kind = forge.ErrInvalidInput
	}
	if len(kind) > 0 && kind[0] != nil {
		e.Kind = kind[0]
	}
	return fmt.Errorf("%s: %w", what, e)
}

// refuse is an error of the forge's kind with the provider's words, for
// what is refused before anything is sent.
func refuse(kind error, msg, what string) error {
	return fmt.Errorf("%s: %w", what, &forge.APIError{Status: http.StatusUnprocessableEntity, Message: msg, Kind: kind})
}
