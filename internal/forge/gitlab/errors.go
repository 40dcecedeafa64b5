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
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

// defaultWait is how long to wait after a 429 that names no time: GitLab's
// default throttle period (Admin > Settings > Network > rate limits) is 60
// seconds.
const defaultWait = time.Minute

// Texts of GitLab's refusals that say more than their status.
const (
	// From the merge request model's validate_branches, answered 409.
	textExists = "Another open merge request already exists"
	// From MergeRequests::BuildService: `Source branch "x" does not exist`.
	textNoBranch = "does not exist"
)

// refusal turns a non-2xx answer into *forge.RateLimitError or
// *forge.APIError with GitLab's own words.
func (c *Client) refusal(status int, h http.Header, body []byte) error {
	msg, fields := message(body, status)
	if status == http.StatusTooManyRequests {
		return &forge.RateLimitError{At: c.retryAt(h), Msg: msg}
	}
	e := &forge.APIError{Status: status, Message: msg}
	switch status {
	case http.StatusUnauthorized:
		e.Kind = forge.ErrUnauthorized
	case http.StatusForbidden:
		e.Kind = forge.ErrForbidden
	case http.StatusNotFound:
		e.Kind = forge.ErrNotFound
	case http.StatusConflict:
		if strings.Contains(msg, textExists) {
			e.Kind = forge.ErrExists
		}
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		e.Kind = forge.ErrInvalidInput
		if noSuchBranch(msg, fields) {
			e.Kind = forge.ErrNoSuchBranch
		}
	}
	return e
}

// noSuchBranch tells a refusal naming a missing source or target branch:
// `["Source branch \"x\" does not exist"]` (422, the create service's
// words) or `{"source_branch": ["does not exist"]}` (400, a validation).
func noSuchBranch(msg string, fields []string) bool {
	for _, f := range fields {
		if f == "source_branch" || f == "target_branch" {
			return true
		}
	}
	l := strings.ToLower(msg)
	return strings.Contains(l, "branch") && strings.Contains(l, textNoBranch)
}

// message reads GitLab's error body, whose "message" is a string
// ("404 Not found"), a list (["Another open merge request …"]) or an object
// of field to list ({"title": ["can't be blank"]}); OAuth and parameter
// errors carry "error" (and "error_description") instead. A body that is
// not JSON (the throttle's "Retry later") is its own text. It returns the
// text and, for an object, its field names.
func message(body []byte, status int) (string, []string) {
	var b struct {
		Message          json.RawMessage `json:"message"`
		Error            string          `json:"error"`
		ErrorDescription string          `json:"error_description"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return forgehttp.Text(body, status), nil
	}
	var parts []string
	var fields []string
	var s string
	var l []string
	var m map[string]json.RawMessage
	switch {
	case len(b.Message) == 0 || string(b.Message) == "null":
	case json.Unmarshal(b.Message, &s) == nil:
		parts = append(parts, s)
	case json.Unmarshal(b.Message, &l) == nil:
		parts = append(parts, strings.Join(l, "; "))
	case json.Unmarshal(b.Message, &m) == nil:
		for k := range m {
			fields = append(fields, k)
		}
		sort.Strings(fields)
		for _, k := range fields {
			var vs []string
			if json.Unmarshal(m[k], &vs) != nil {
				vs = []string{strings.Trim(string(m[k]), `"`)}
			}
			parts = append(parts, k+" "+strings.Join(vs, ", "))
		}
	default:
		parts = append(parts, string(b.Message))
	}
	if b.Error != "" {
		parts = append(parts, b.Error)
	}
	if b.ErrorDescription != "" {
		parts = append(parts, b.ErrorDescription)
	}
	return forgehttp.Text([]byte(strings.Join(parts, "; ")), status), fields
}

// retryAt is when GitLab allows the next request: Retry-After, else
// RateLimit-Reset, else RateLimit-ResetTime, else defaultWait from now.
func (c *Client) retryAt(h http.Header) time.Time {
	now := c.clock.Now()
	if at, ok := forgehttp.RetryAt(h, now, "RateLimit-Reset", "RateLimit-ResetTime"); ok {
		return at
	}
	return now.Add(defaultWait)
}
