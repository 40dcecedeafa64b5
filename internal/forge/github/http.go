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
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

const (
	errToken     = "cannot get the GitHub API token"
	errPathFmt   = "refusing the GitHub API path %q: it climbs out of the API with .."
	errEncode    = "cannot encode the GitHub request"
	errBuild     = "cannot build the GitHub request"
	errSendFmt   = "cannot reach GitHub for %s %s"
	errReadFmt   = "cannot read GitHub's answer to %s %s"
	errDecodeFmt = "cannot decode GitHub's answer to %s %s"

	// The headers GitHub documents for REST calls ("Getting started with
	// the REST API"): its media type, the API version the payloads in
	// types.go are of, and a User-Agent, without which GitHub refuses.
	mediaType  = "application/vnd.github+json"
	apiVersion = "2022-11-28"
	userAgent  = "provider-git"

	// maxBody bounds what is read of one answer: a page of 100 pull
	// requests is about 1.5 MiB; 32 MiB leaves room and still stops a
	// runaway answer.
	maxBody = 32 << 20
)

// call is one request: path is relative to the REST API's URL (escaped)
// or absolute (GraphQL); body, when not nil, is sent as JSON; etag, when
// set, as If-None-Match.
type call struct {
	method string
	path   string
	body   any
	etag   string
}

// answer is what came back from a successful call (2xx, or 304 to a
// conditional one).
type answer struct {
	status int
	header http.Header
}

// do sends r with a current token and decodes a 2xx answer's JSON into out
// (when not nil). A refusal is a *respError for mapError.
func (c *Client) do(ctx context.Context, r call, out any) (answer, error) {
	ref, err := url.Parse(r.path)
	if err != nil {
		return answer{}, errors.Wrap(err, errBuild)
	}
	if slices.Contains(strings.Split(ref.Path, "/"), "..") {
		return answer{}, errors.Errorf(errPathFmt, r.path)
	}
	var body io.Reader
	if r.body != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // a title's <, > and & as typed
		if err := enc.Encode(r.body); err != nil {
			return answer{}, errors.Wrap(err, errEncode)
		}
		body = &buf
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.base.ResolveReference(ref).String(), body)
	if err != nil {
		return answer{}, errors.Wrap(err, errBuild)
	}
	t, err := c.token(ctx)
	if err == nil && t == "" {
		err = forge.ErrNoCredentials
	}
	if err != nil {
		return answer{}, errors.Wrap(err, errToken)
	}
	// Set on the request, not by a RoundTripper: net/http drops it on a
	// redirect to another host.
	req.Header.Set("Authorization", "Bearer "+t)
	req.Header.Set("Accept", mediaType)
	req.Header.Set("X-GitHub-Api-Version", apiVersion)
	req.Header.Set("User-Agent", userAgent)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.etag != "" {
		req.Header.Set("If-None-Match", r.etag)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err() // more telling than the transport's words
		}
		// The URL carries no secret: the token travels in a header.
		return answer{}, errors.Wrapf(err, errSendFmt, r.method, r.path)
	}
	defer resp.Body.Close() //nolint:errcheck // a read body's close error says nothing.
	b, err := forgehttp.ReadBody(resp.Body, maxBody)
	if err != nil {
		return answer{}, errors.Wrapf(err, errReadFmt, r.method, r.path)
	}
	a := answer{status: resp.StatusCode, header: resp.Header}
	switch {
	case resp.StatusCode == http.StatusNotModified && r.etag != "":
		return a, nil
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return a, refused(resp.StatusCode, resp.Header, b)
	}
	if out != nil && len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return a, errors.Wrapf(err, errDecodeFmt, r.method, r.path)
		}
	}
	return a, nil
}

// get is a conditional GET of path, kept under key: a 304 returns the kept
// answer with notModified true; a 200 is decoded into T, converted by conv
// and kept with its ETag and the next page its Link header names (0 when
// none).
func get[T, R any](ctx context.Context, c *Client, key, path string, conv func(T) R) (val R, next int, notModified bool, err error) {
	c.mu.Lock()
	e, kept := c.cache[key]
	c.mu.Unlock()
	r := call{method: http.MethodGet, path: path}
	if kept {
		r.etag = e.etag
	}
	var v T
	a, err := c.do(ctx, r, &v)
	if err != nil {
		return val, 0, false, err
	}
	if a.status == http.StatusNotModified {
		kv, _ := e.val.(R)
		return kv, e.next, true, nil
	}
	val, next = conv(v), nextPage(a.header)
	if etag := a.header.Get("ETag"); etag != "" {
		c.mu.Lock()
		if len(c.cache) >= maxCached {
			c.cache = map[string]entry{}
		}
		c.cache[key] = entry{etag: etag, next: next, val: val}
		c.mu.Unlock()
	}
	return val, next, false, nil
}

// nextPage is the page parameter of the Link header's rel="next" URL
// (GitHub's pagination: <…?page=2>; rel="next", <…?page=3>; rel="last"),
// 0 when there is none.
func nextPage(h http.Header) int {
	for link := range strings.SplitSeq(h.Get("Link"), ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(link), ";")
		if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			continue
		}
		next := false
		for p := range strings.SplitSeq(params, ";") {
			next = next || strings.TrimSpace(p) == `rel="next"`
		}
		u, err := url.Parse(target[1 : len(target)-1])
		if !next || err != nil {
			continue
		}
		if n, err := strconv.Atoi(u.Query().Get("page")); err == nil {
			return n
		}
	}
	return 0
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
