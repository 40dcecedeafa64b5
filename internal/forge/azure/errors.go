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

package azure

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

// Azure's words the mapping matches on: the typeKey of a refusal's body,
// which names the server's exception (the status each maps to is Azure
// DevOps Server's GitApiController table).
const (
	// keyExists: 409, "TF401179: An active pull request for the source
	// and target branch already exists."
	keyExists = "GitPullRequestExistsException"
	// keyStale: 409, a completion naming a lastMergeSourceCommit that is
	// no longer the source branch's head.
	keyStale = "GitPullRequestStaleException"
	// keyPolicy: 403, an update (a completion) a branch policy rejects.
	keyPolicy = "GitPullRequestUpdateRejectedByPolicyException"
	// keyCannotActivate: 400, "TF401398: The pull request cannot be
	// activated because the source and/or the target branch no longer
	// exists, or the requested refs are not branches".
	keyCannotActivate = "GitPullRequestCannotBeActivated"
	msgNoBranch       = "TF401398"

	// defaultRetry is the wait of a 429 that names no time.
	defaultRetry = time.Minute
	// resetHeader is the Unix time the user's usage is back to 0 TSTUs;
	// resourceHeader names what was throttled, for a person.
	resetHeader    = "X-RateLimit-Reset"
	resourceHeader = "X-RateLimit-Resource"
)

// kinds maps a refusal's status to the sentinel callers match; the
// typeKeys above refine it.
var kinds = map[int]error{
	http.StatusNonAuthoritativeInfo: forge.ErrUnauthorized,
	http.StatusUnauthorized:         forge.ErrUnauthorized,
	http.StatusForbidden:            forge.ErrForbidden,
	http.StatusNotFound:             forge.ErrNotFound,
	http.StatusBadRequest:           forge.ErrInvalidInput,
	http.StatusConflict:             forge.ErrInvalidInput,
}

// byKey refines kinds by the exception Azure names.
var byKey = map[string]error{
	keyExists:         forge.ErrExists,
	keyStale:          forge.ErrHeadMoved,
	keyPolicy:         forge.ErrNotMergeable,
	keyCannotActivate: forge.ErrNoSuchBranch,
}

// refusal is the error of an answer that is not a success: a
// *forge.RateLimitError for a 429 (and held for the next requests), else a
// *forge.APIError with Azure's message and the sentinel its status and
// typeKey map to. A 203 is Azure's sign-in page, its answer to a token it
// does not take.
func (c *Client) refusal(status int, h http.Header, b []byte) error {
	var body apiError
	msg := forgehttp.Text(b, status)
	if json.Unmarshal(b, &body) == nil && body.Message != "" {
		msg = forgehttp.Text([]byte(body.Message), status)
	}
	if status == http.StatusNonAuthoritativeInfo {
		msg = "Azure DevOps answered its sign-in page: the token is not valid for this organization"
	}
	if status == http.StatusTooManyRequests {
		now := c.clock.Now()
		at, ok := forgehttp.RetryAt(h, now, resetHeader)
		if !ok {
			at = now.Add(defaultRetry)
		}
		msg = limitMessage(h, msg)
		c.hold(at, msg)
		return &forge.RateLimitError{At: at, Msg: msg}
	}
	e := &forge.APIError{Status: status, Message: msg, Kind: kinds[status]}
	if k, ok := byKey[body.TypeKey]; ok {
		e.Kind = k
	}
	if status == http.StatusBadRequest && strings.HasPrefix(body.Message, msgNoBranch) {
		e.Kind = forge.ErrNoSuchBranch
	}
	return e
}

// limitMessage is msg with the throttled resource Azure names, if any.
func limitMessage(h http.Header, msg string) string {
	if r := h.Get(resourceHeader); r != "" {
		return msg + " (" + forgehttp.Text([]byte(r), 0) + ")"
	}
	return msg
}
