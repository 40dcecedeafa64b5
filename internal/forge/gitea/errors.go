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

package gitea

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

// maxErrorBody is as much of a refusal's body as is kept for its message.
const maxErrorBody = 64 << 10

// transport keeps the last
// refusal (status 4xx or 5xx) with its body: the SDK turns some into an
// error of its own wording and drops others (its merge reads only the
// status), where the caller needs the forge's words and headers.
type transport struct {
	base http.RoundTripper

	mu      sync.Mutex
	refusal *refusal
}

// refusal is a response the forge answered with a 4xx or 5xx status.
type refusal struct {
	status  int
	header  http.Header
	message string
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	// A body cut short is still what the forge said, as far as it got.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	t.mu.Lock()
	t.refusal = &refusal{status: resp.StatusCode, header: resp.Header, message: message(resp.StatusCode, body)}
	t.mu.Unlock()
	return resp, nil
}

// reset forgets the last refusal, before the next request.
func (t *transport) reset() {
	t.mu.Lock()
	t.refusal = nil
	t.mu.Unlock()
}

// last returns the last refusal, nil if the forge refused nothing.
func (t *transport) last() *refusal {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refusal
}

// message is the forge's own words: Gitea's {"message": …}, the errors
// of a validation failure, or the body itself.
func message(code int, body []byte) string {
	var m struct {
		Message string   `json:"message"`
		Errors  []string `json:"errors"`
	}
	if json.Unmarshal(body, &m) == nil && m.Message != "" {
		if len(m.Errors) > 0 {
			return forgehttp.Text([]byte(m.Message+": "+strings.Join(m.Errors, "; ")), code)
		}
		return forgehttp.Text([]byte(m.Message), code)
	}
	return forgehttp.Text(body, code)
}

// kinds maps a refusal's status to the sentinel callers match.
var kinds = map[int]error{
	http.StatusUnauthorized:        forge.ErrUnauthorized,
	http.StatusForbidden:           forge.ErrForbidden,
	http.StatusNotFound:            forge.ErrNotFound,
	http.StatusUnprocessableEntity: forge.ErrInvalidInput,
	http.StatusBadRequest:          forge.ErrInvalidInput,
}

// run makes one SDK request: the SDK reads some answers only for their
// status (merge), so a 4xx or 5xx there is a failure too. adjust, if any,
// refines a refusal's Kind for this request before it is wrapped.
func (c *client) run(cl *call, what string, fn func(*sdk.Client) (*sdk.Response, error), adjust ...func(*forge.APIError)) error {
	cl.rt.reset()
	resp, err := fn(cl.Client)
	if err == nil && resp != nil && resp.Response != nil && resp.StatusCode >= 400 {
		err = errors.New(resp.Status)
	}
	if err != nil {
		return c.failed(cl, err, what, adjust...)
	}
	return nil
}

// failed turns a failed SDK call into the forge's refusal: an
// *forge.APIError with the forge's message, its Kind a sentinel or a
// *forge.RateLimitError. An error with no refusal behind it (the network,
// the context) is returned wrapped with what.
func (c *client) failed(cl *call, err error, what string, adjust ...func(*forge.APIError)) error {
	r := cl.rt.last()
	if r == nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	e := &forge.APIError{Status: r.status, Message: r.message, Kind: kinds[r.status]}
	if at, ok := c.retryAt(r); ok {
		e.Kind = &forge.RateLimitError{At: at, Msg: r.message}
		return fmt.Errorf("%s: %w", what, e)
	}
	for _, a := range adjust {
		a(e)
	}
	return fmt.Errorf("%s: %w", what, e)
}

// retryAt is when a rate-limited request may be retried: 429, or a 403
// with Retry-After or an exhausted X-RateLimit-Remaining (how proxies and
// Forgejo's limiter answer), from Retry-After (seconds or a date) or
// X-RateLimit-Reset (Unix seconds); a minute when neither says.
func (c *client) retryAt(r *refusal) (time.Time, bool) {
	ra := r.header.Get("Retry-After")
	limited := r.status == http.StatusTooManyRequests ||
		(r.status == http.StatusForbidden && (ra != "" || r.header.Get("X-RateLimit-Remaining") == "0"))
	if !limited {
		return time.Time{}, false
	}
	now := c.clock.Now()
	if at, ok := forgehttp.RetryAt(r.header, now, "X-RateLimit-Reset"); ok {
		return at, true
	}
	return now.Add(time.Minute), true
}
