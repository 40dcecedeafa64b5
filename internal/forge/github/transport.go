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

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

const (
	errToken = "cannot get the GitHub API token"

	// mediaType is the one GitHub documents for REST and GraphQL calls
	// ("Getting started with the REST API"); go-github still sends the
	// older application/vnd.github.v3+json, and a preview type on a few
	// endpoints (check runs) whose preview ended long ago.
	mediaType = "application/vnd.github+json"

	// maxBody bounds what is read of one answer: a page of 100 pull
	// requests is about 1.5 MiB; 32 MiB leaves room and still stops a
	// runaway answer (go-github reads a refusal's body whole).
	maxBody = 32 << 20
)

// transport lies beneath go-github and inside forgehttp's guard, which
// refuses every request (first hop or redirect) off the API's origin before
// it gets here: only requests to the forge ever get the token. Per request
// it sets the current token (Config.Token is called per request, so an
// App's installation token is refreshed as it expires), GitHub's media
// type, If-None-Match when the caller asked for a conditional read
// (conditional.go), and bounds the answer's body.
type transport struct {
	token func(context.Context) (string, error)
	next  http.RoundTripper
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := t.token(r.Context())
	if err == nil && tok == "" {
		err = forge.ErrNoCredentials
	}
	if err != nil {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, fmt.Errorf("%s: %w", errToken, err)
	}
	r = r.Clone(r.Context()) // a RoundTripper must not change its caller's request
	r.Header.Set("Authorization", "Bearer "+tok)
	if a := r.Header.Get("Accept"); strings.HasPrefix(a, "application/vnd.github.") && strings.HasSuffix(a, "+json") {
		r.Header.Set("Accept", mediaType)
	}
	if etag, ok := r.Context().Value(etagKey{}).(string); ok && etag != "" && r.Method == http.MethodGet {
		r.Header.Set("If-None-Match", etag)
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = forgehttp.LimitBody(resp.Body, maxBody)
	return resp, nil
}
