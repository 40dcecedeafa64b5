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
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/google/go-github/v89/github"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// GitHub's words the mapping below matches on.
const (
	// msgExists is the custom 422 error of "Create a pull request" when one
	// is open for the same head and base.
	msgExists = "A pull request already exists"
	// msgNoAutoMerge is GraphQL's refusal when the repository's "Allow
	// auto-merge" setting is off.
	msgNoAutoMerge = "Auto merge is not allowed"
	// msgClean is GraphQL's refusal to enable auto-merge on a pull request
	// that may be merged now ("Pull request Pull request is in clean
	// status"): the caller merges it itself.
	msgClean = "is in clean status"
	// defaultRetry is GitHub's advice when a secondary limit names no
	// time: wait at least a minute.
	defaultRetry = time.Minute
)

// mapError turns go-github's errors into the forge's:
//   - *github.RateLimitError (primary: X-RateLimit-Remaining 0) →
//     *forge.RateLimitError at X-RateLimit-Reset;
//   - *github.AbuseRateLimitError (secondary) → *forge.RateLimitError at
//     now + Retry-After (a minute when GitHub names no time);
//   - any other 403 or 429 with Retry-After → the same;
//   - *github.ErrorResponse → *forge.APIError with GitHub's message: 401
//     ErrUnauthorized, 403 ErrForbidden, 404 ErrNotFound, 422 ErrExists
//     (already exists), ErrNoSuchBranch (head or base invalid), else
//     ErrInvalidInput;
//   - GraphQL errors (gqlError) likewise, by their type.
//
// Other errors (the network, the context, the token func) pass unchanged.
func mapError(err error, now time.Time) error {
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		at := rl.Rate.Reset.Time
		if at.IsZero() {
			at = now.Add(defaultRetry)
		}
		return &forge.RateLimitError{At: at, Msg: rl.Message}
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		wait := defaultRetry
		if ab.RetryAfter != nil {
			wait = *ab.RetryAfter
		}
		return &forge.RateLimitError{At: now.Add(wait), Msg: ab.Message}
	}
	var ge *gqlError
	if errors.As(err, &ge) {
		return ge.mapped(now)
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return err
	}
	status := er.Response.StatusCode
	if status == http.StatusForbidden || status == http.StatusTooManyRequests {
		if s, perr := strconv.Atoi(er.Response.Header.Get("Retry-After")); perr == nil {
			return &forge.RateLimitError{At: now.Add(time.Duration(s) * time.Second), Msg: er.Message}
		}
	}
	e := &forge.APIError{Status: status, Message: message(er)}
	switch status {
	case http.StatusUnauthorized:
		e.Kind = forge.ErrUnauthorized
	case http.StatusForbidden:
		e.Kind = forge.ErrForbidden
	case http.StatusNotFound:
		e.Kind = forge.ErrNotFound
	case http.StatusUnprocessableEntity:
		e.Kind = unprocessable(er)
	}
	return e
}

func unprocessable(er *github.ErrorResponse) error {
	for _, d := range er.Errors {
		if strings.Contains(d.Message, msgExists) {
			return forge.ErrExists
		}
	}
	for _, d := range er.Errors {
		if (d.Field == "head" || d.Field == "base") && d.Code == "invalid" {
			return forge.ErrNoSuchBranch
		}
	}
	return forge.ErrInvalidInput
}

// message is GitHub's message with the detail of each error, e.g.
// "Validation Failed: A pull request already exists for o:feature." or
// "Validation Failed: head invalid".
func message(er *github.ErrorResponse) string {
	var parts []string
	for _, d := range er.Errors {
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
		return er.Message
	}
	return er.Message + ": " + strings.Join(parts, "; ")
}

// gqlError is a GraphQL answer with errors (GitHub answers those with
// HTTP 200).
type gqlError struct {
	status int
	header http.Header
	errs   []gqlErr
}

type gqlErr struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    []any  `json:"path"`
}

func (e *gqlError) Error() string {
	msgs := make([]string, 0, len(e.errs))
	for _, x := range e.errs {
		msgs = append(msgs, fmt.Sprintf("%s (%s)", x.Message, x.Type))
	}
	return "GraphQL: " + strings.Join(msgs, "; ")
}

// mapped maps GraphQL error types: RATE_LIMITED to a RateLimitError at
// X-RateLimit-Reset; "Auto merge is not allowed" and "in clean status" to
// ErrUnsupported (the caller merges itself); NOT_FOUND, FORBIDDEN; the
// rest to ErrInvalidInput.
func (e *gqlError) mapped(now time.Time) error {
	if len(e.errs) == 0 {
		return &forge.APIError{Status: e.status, Message: "GraphQL answered no data", Kind: forge.ErrInvalidInput}
	}
	x := e.errs[0]
	a := &forge.APIError{Status: e.status, Message: x.Message}
	switch {
	case x.Type == "RATE_LIMITED":
		at := now.Add(defaultRetry)
		if s, err := strconv.ParseInt(e.header.Get("X-RateLimit-Reset"), 10, 64); err == nil && s > 0 {
			at = time.Unix(s, 0)
		}
		return &forge.RateLimitError{At: at, Msg: x.Message}
	case strings.Contains(x.Message, msgNoAutoMerge), strings.Contains(x.Message, msgClean):
		a.Kind = forge.ErrUnsupported
	case x.Type == "NOT_FOUND":
		a.Kind = forge.ErrNotFound
	case x.Type == "FORBIDDEN":
		a.Kind = forge.ErrForbidden
	default:
		a.Kind = forge.ErrInvalidInput
	}
	return a
}
