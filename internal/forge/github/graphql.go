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
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

// The GraphQL mutations REST cannot do and go-github does not speak:
// enablePullRequestAutoMerge, convertPullRequestToDraft and
// markPullRequestReadyForReview. Each is posted through go-github's
// NewRequest and Do, so the token, headers, size bound and HTTP refusals
// are REST's; only GraphQL's own errors (answered with HTTP 200) are read
// here.

// GraphQL's words the mapping matches on.
const (
	// msgNoAutoMerge is the refusal when the repository's "Allow
	// auto-merge" setting is off.
	msgNoAutoMerge = "Auto merge is not allowed"
	// msgClean is the refusal to enable auto-merge on a pull request that
	// may be merged now ("Pull request Pull request is in clean status"):
	// the caller merges it itself.
	msgClean = "is in clean status"
	// msgHeadModified is the refusal of an auto-merge whose expected head
	// is no longer the head.
	msgHeadModified = "Head branch was modified"
)

// gqlRequest is a GraphQL query with its variables; every mutation here
// takes one, $input.
type gqlRequest struct {
	Query     string       `json:"query"`
	Variables gqlVariables `json:"variables"`
}

type gqlVariables struct {
	Input gqlInput `json:"input"`
}

// gqlInput is the input of the three mutations.
type gqlInput struct {
	PullRequestID string `json:"pullRequestId"`
	MergeMethod   string `json:"mergeMethod,omitempty"`
	CommitBody    string `json:"commitBody,omitempty"`
	// ExpectedHeadOid makes GitHub refuse the auto-merge when the head
	// moved since it was judged.
	ExpectedHeadOid string `json:"expectedHeadOid,omitempty"`
}

// gqlResponse is what the client reads of GraphQL's answer: its errors.
type gqlResponse struct {
	Errors []gqlErr `json:"errors"`
}

// draft flips draft with convertPullRequestToDraft or
// markPullRequestReadyForReview.
func (c *Client) draft(ctx context.Context, nodeID string, draft bool) error {
	name, typ := "markPullRequestReadyForReview", "MarkPullRequestReadyForReviewInput"
	if draft {
		name, typ = "convertPullRequestToDraft", "ConvertPullRequestToDraftInput"
	}
	return c.mutate(ctx, name, typ, gqlInput{PullRequestID: nodeID}, errDraft)
}

// mutate posts one mutation and maps GraphQL's errors.
func (c *Client) mutate(ctx context.Context, name, inputType string, input gqlInput, what string) error {
	q := "mutation($input: " + inputType + "!) {\n  " + name +
		"(input: $input) { pullRequest { id number isDraft autoMergeRequest { mergeMethod } } }\n}"
	req, err := c.gh.NewRequest(http.MethodPost, c.graphqlURL, gqlRequest{Query: q, Variables: gqlVariables{Input: input}})
	if err != nil {
		return c.fail(err, what)
	}
	var out gqlResponse
	resp, err := c.gh.Do(ctx, req, &out)
	if err != nil {
		return c.fail(err, what)
	}
	if len(out.Errors) > 0 {
		return c.fail(&gqlError{status: resp.StatusCode, header: resp.Header, errs: out.Errors}, what)
	}
	return nil
}

// gqlError is a GraphQL answer with errors (GitHub answers those with
// HTTP 200).
type gqlError struct {
	status int
	header http.Header
	errs   []gqlErr
}

// gqlErr is one of GraphQL's errors: GitHub's type (NOT_FOUND, FORBIDDEN,
// RATE_LIMITED, UNPROCESSABLE, …) and message.
type gqlErr struct {
	Type    string `json:"type"`
	Message string `json:"message"`
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
	x.Message = forgehttp.Text([]byte(x.Message), e.status)
	a := &forge.APIError{Status: e.status, Message: x.Message}
	switch {
	case x.Type == "RATE_LIMITED":
		at, ok := forgehttp.RetryAt(e.header, now, "X-RateLimit-Reset")
		if !ok {
			at = now.Add(defaultRetry)
		}
		return &forge.RateLimitError{At: at, Msg: x.Message}
	case strings.Contains(x.Message, msgHeadModified):
		a.Kind = forge.ErrHeadMoved
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
