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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

const (
	errToken     = "cannot get the Azure DevOps token"
	errPathFmt   = "refusing the Azure DevOps API path %q: it climbs out of the API with .."
	errEncode    = "cannot encode the Azure DevOps request"
	errBuild     = "cannot build the Azure DevOps request"
	errSendFmt   = "cannot reach Azure DevOps for %s %s"
	errReadFmt   = "cannot read Azure DevOps' answer to %s %s"
	errDecodeFmt = "cannot decode Azure DevOps' answer to %s %s"
	errPagesFmt  = "Azure DevOps' list %s goes on past %d pages"

	// apiVersion is the Git REST API's; previewVersion that of the calls
	// still in preview in 7.1 (pull request labels, policy evaluations).
	// A released resource accepts the preview flag too.
	apiVersion     = "7.1"
	previewVersion = "7.1-preview.1"
	userAgent      = "provider-git"

	// maxBody bounds what is read of one answer: a page of 100 pull
	// requests with their reviewers is well under 1 MiB.
	maxBody = 16 << 20

	// pageSize is as many items as one page of a list asks for ($top); a
	// page as long is followed by the next.
	pageSize = 100
	// maxPages bounds one list walk (20,000 items at pageSize): a forge
	// that names a next page for ever does not hold a worker for ever.
	maxPages = 200
	// continuationHeader names the next page of a list that has one; it
	// goes back as the continuationToken parameter.
	continuationHeader = "X-Ms-Continuationtoken"
)

// call is one request: path is relative to the organization's URL
// (escaped, with its query but no api-version); body, when not nil, is
// sent as JSON.
type call struct {
	method  string
	path    string
	version string
	body    any
	// ids sends the call to the identities' host.
	ids bool
}

// do sends r with a current token and decodes a 2xx answer's JSON into out
// (when not nil). A refusal is a *forge.APIError (see refusal); a
// Retry-After on a success holds the next requests.
func (c *Client) do(ctx context.Context, r call, out any) (http.Header, error) {
	if err := c.begin(); err != nil {
		return nil, err
	}
	ref, err := url.Parse(r.path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errBuild, err)
	}
	if slices.Contains(strings.Split(ref.Path, "/"), "..") {
		return nil, fmt.Errorf(errPathFmt, r.path) //nolint:staticcheck // ST1005: the message ends with "..", the path element it refuses
	}
	q := ref.Query()
	q.Set("api-version", cmpOr(r.version, apiVersion))
	ref.RawQuery = q.Encode()
	base, hc := c.base, c.api
	if r.ids {
		base, hc = c.idBase, c.ids
	}
	var body io.Reader
	if r.body != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // a title's <, > and & as typed
		if err := enc.Encode(r.body); err != nil {
			return nil, fmt.Errorf("%s: %w", errEncode, err)
		}
		body = &buf
	}
	req, err := http.NewRequestWithContext(ctx, r.method, base.ResolveReference(ref).String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errBuild, err)
	}
	t, err := c.token(ctx)
	if err == nil && t == "" {
		err = forge.ErrNoCredentials
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errToken, err)
	}
	// Set on the request, not by a RoundTripper: forgehttp's client
	// sends nothing off the API's origin.
	req.Header.Set("Authorization", authorization(t))
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	// Without it, Azure answers a refused credential with a redirect to
	// its sign-in page (another host, refused) rather than 401.
	req.Header.Set("X-TFS-FedAuthRedirect", "Suppress")
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		// The URL carries no secret: the token travels in a header.
		return nil, fmt.Errorf(errSendFmt+": %w", r.method, r.path, err)
	}
	defer resp.Body.Close() //nolint:errcheck // a read body's close error says nothing.
	b, err := forgehttp.ReadBody(resp.Body, maxBody)
	if err != nil {
		return nil, fmt.Errorf(errReadFmt+": %w", r.method, r.path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 || resp.StatusCode == http.StatusNonAuthoritativeInfo {
		return resp.Header, c.refusal(resp.StatusCode, resp.Header, b)
	}
	if at, ok := forgehttp.RetryAt(http.Header{"Retry-After": resp.Header.Values("Retry-After")}, c.clock.Now()); ok {
		c.hold(at, limitMessage(resp.Header, "Azure DevOps delays this user's requests"))
	}
	if out != nil && len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.Header, fmt.Errorf(errDecodeFmt+": %w", r.method, r.path, err)
		}
	}
	return resp.Header, nil
}

// pages gets every page of the list at path: $top and $skip, or the
// continuation token a page's header names.
func pages[T any](ctx context.Context, c *Client, path, version string, ids bool) ([]T, error) {
	var all []T
	token := ""
	for skip, n := 0, 0; ; n++ {
		if n == maxPages {
			return nil, &forge.APIError{Status: http.StatusOK, Message: fmt.Sprintf(errPagesFmt, redact(path), maxPages)}
		}
		q := url.Values{"$top": {strconv.Itoa(c.top)}}
		if token != "" {
			q.Set("continuationToken", token)
		} else if skip > 0 {
			q.Set("$skip", strconv.Itoa(skip))
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		var page list[T]
		h, err := c.do(ctx, call{method: http.MethodGet, path: path + sep + q.Encode(), version: version, ids: ids}, &page)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Value...)
		switch next := h.Get(continuationHeader); {
		case next != "":
			token = next
		case token == "" && len(page.Value) >= c.top:
			skip += len(page.Value)
		default:
			return all, nil
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// redact is a path without its query, for messages.
func redact(p string) string {
	p, _, _ = strings.Cut(p, "?")
	return p
}
