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

package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v75/github"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

// GitHub's words the mapping below matches on.
const (
	// msgExists is the custom 422 error of "Create a pull request" when one
	// is open for the same head and base.
	msgExists = "A pull request already exists"
	// docSecondary ends the documentation_url of a secondary rate limit's
	// body (older servers: #abuse-rate-limits).
	docSecondary, docAbuse = "secondary-rate-limits", "#abuse-rate-limits"
	// defaultRetry is GitHub's advice when a rate limit names no time:
	// wait at least a minute.
	defaultRetry = time.Minute
)

// respError is a refusal as GitHub answers it: a status other than 2xx,
// its headers, and the documented error body ("Client errors" in the REST
// overview).
type respError struct {
	status int
	header http.Header
	body   errorBody
}

type errorBody struct {
	Message          string        `json:"message"`
	Errors           []errorDetail `json:"errors"`
	DocumentationURL string        `json:"documentation_url"`
}

// errorDetail is one of a 422's errors: {resource, field, code} with a
// message when code is custom; some endpoints list bare strings instead.
type errorDetail struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (d *errorDetail) UnmarshalJSON(b []byte) error {
	type plain errorDetail
	if err := json.Unmarshal(b, (*plain)(d)); err != nil {
		return json.Unmarshal(b, &d.Message)
	}
	return nil
}

// refusal is the respError of go-github's error for an answer GitHub
// refused (its *ErrorResponse, *RateLimitError, *AbuseRateLimitError or
// *TwoFactorAuthError, each of which carries the answer); any other err is
// returned as it is. go-github puts back the body it read, so the refusal
// reads GitHub's own words once more, through refused.
func refusal(err error) error {
	var (
		resp *http.Response
		er   *gh.ErrorResponse
		rl   *gh.RateLimitError
		ab   *gh.AbuseRateLimitError
		tf   *gh.TwoFactorAuthError
	)
	switch {
	case errors.As(err, &er):
		resp = er.Response
	case errors.As(err, &rl):
		resp = rl.Response
	case errors.As(err, &ab):
		resp = ab.Response
	case errors.As(err, &tf):
		resp = tf.Response
	}
	if resp == nil {
		return err
	}
	var b []byte
	if resp.Body != nil {
		b, _ = io.ReadAll(resp.Body) // bounded by the transport, and already in memory
	}
	return refused(resp.StatusCode, resp.Header, b)
}

// refused is the respError of an answer; a body that is not GitHub's JSON
// leaves the message empty.
func refused(status int, h http.Header, b []byte) *respError {
	e := &respError{status: status, header: h}
	if json.Unmarshal(b, &e.body) != nil {
		e.body = errorBody{Message: forgehttp.Text(b, status)}
	}
	e.body.Message = forgehttp.Text([]byte(e.body.Message), status)
	return e
}

func (e *respError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.status, e.message())
}

// mapError turns GitHub's refusals into the forge's:
//   - a 403 or 429 with X-RateLimit-Remaining 0 (the primary limit) →
//     *forge.RateLimitError at X-RateLimit-Reset (a minute when absent);
//   - a 403 or 429 with Retry-After (a secondary limit, or any other) →
//     the same at now + Retry-After;
//   - a 403 or 429 whose documentation_url is the secondary limits' and
//     that names no time → the same a minute from now, as GitHub advises;
//   - any other refusal → *forge.APIError with GitHub's message: 401
//     ErrUnauthorized, 403 ErrForbidden, 404 ErrNotFound, 422 ErrExists
//     (already exists), ErrNoSuchBranch (head or base invalid), else
//     ErrInvalidInput;
//   - GraphQL errors (gqlError) likewise, by their type.
//
// Other errors (the network, the context, the token func) pass unchanged.
func mapError(err error, now time.Time) error {
	var ge *gqlError
	if errors.As(err, &ge) {
		return ge.mapped(now)
	}
	var re *respError
	if !errors.As(err, &re) {
		return err
	}
	if at, ok := re.limited(now); ok {
		return &forge.RateLimitError{At: at, Msg: re.body.Message}
	}
	e := &forge.APIError{Status: re.status, Message: re.message()}
	switch re.status {
	case http.StatusUnauthorized:
		e.Kind = forge.ErrUnauthorized
	case http.StatusForbidden:
		e.Kind = forge.ErrForbidden
	case http.StatusNotFound:
		e.Kind = forge.ErrNotFound
	case http.StatusUnprocessableEntity:
		e.Kind = re.unprocessable()
	}
	return e
}

// limited says whether the refusal is a rate limit, and until when.
func (e *respError) limited(now time.Time) (time.Time, bool) {
	if e.status != http.StatusForbidden && e.status != http.StatusTooManyRequests {
		return time.Time{}, false
	}
	if e.header.Get("X-RateLimit-Remaining") == "0" {
		if at, ok := forgehttp.RetryAt(e.header, now, "X-RateLimit-Reset"); ok {
			return at, true
		}
		return now.Add(defaultRetry), true
	}
	if at, ok := forgehttp.RetryAt(e.header, now); ok {
		return at, true
	}
	if doc := e.body.DocumentationURL; strings.HasSuffix(doc, docSecondary) || strings.HasSuffix(doc, docAbuse) {
		return now.Add(defaultRetry), true
	}
	return time.Time{}, false
}

func (e *respError) unprocessable() error {
	for _, d := range e.body.Errors {
		if strings.Contains(d.Message, msgExists) {
			return forge.ErrExists
		}
	}
	for _, d := range e.body.Errors {
		if (d.Field == "head" || d.Field == "base") && d.Code == "invalid" {
			return forge.ErrNoSuchBranch
		}
	}
	return forge.ErrInvalidInput
}

// message is GitHub's message with the detail of each error, e.g.
// "Validation Failed: A pull request already exists for o:feature." or
// "Validation Failed: head invalid".
func (e *respError) message() string {
	var parts []string
	for _, d := range e.body.Errors {
		switch {
		case d.Message != "":
			parts = append(parts, d.Message)
		case d.Field != "":
			parts = append(parts, d.Field+" "+d.Code)
		case d.Code != "":
			parts = append(parts, d.Code)
		}
	}
	if len(parts) == 0 {
		return e.body.Message
	}
	// The details are GitHub's words too: scrubbed, and the whole bounded.
	return forgehttp.Text([]byte(e.body.Message+": "+strings.Join(parts, "; ")), e.status)
}
