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
	"net/http"

	gh "github.com/google/go-github/v75/github"
)

// entry is what a conditional GET keeps: the ETag, the converted answer,
// and the next page (a 304 need not carry the Link header).
type entry struct {
	etag string
	next int
	val  any
}

// etagKey is the context key under which a read asks the transport for
// If-None-Match: go-github's service methods take no header per call.
type etagKey struct{}

// get is a conditional read kept under key: fetch makes one go-github call
// with ctx and converts its answer. When an ETag is kept, it is sent as
// If-None-Match, and a 304 (go-github's *ErrorResponse of status 304)
// returns the kept value with notModified true; a 200 is kept with its
// ETag and the next page its Link header names (0 when none).
func get[R any](ctx context.Context, c *Client, key string, fetch func(context.Context) (R, *gh.Response, error)) (val R, next int, notModified bool, err error) {
	c.mu.Lock()
	e, kept := c.cache[key]
	c.mu.Unlock()
	if kept {
		ctx = context.WithValue(ctx, etagKey{}, e.etag)
	}
	v, resp, err := fetch(ctx)
	if kept && resp != nil && resp.StatusCode == http.StatusNotModified {
		kv, _ := e.val.(R)
		return kv, e.next, true, nil
	}
	if err != nil {
		return val, 0, false, err
	}
	if etag := resp.Header.Get("ETag"); etag != "" {
		c.mu.Lock()
		if len(c.cache) >= maxCached {
			c.cache = map[string]entry{}
		}
		c.cache[key] = entry{etag: etag, next: resp.NextPage, val: v}
		c.mu.Unlock()
	}
	return v, resp.NextPage, false, nil
}
