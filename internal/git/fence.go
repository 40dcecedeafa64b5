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

package git

import (
	"errors"
	"net/http"
)

// errNotHeld is a push a Fence refused: another replica writes this
// repository now. The change is not lost: its resource is observed afresh by
// the replica that holds the repository.
const errNotHeld = "this replica no longer holds the repository: push withheld"

// A Fence says whether this process may still push to a repository. Replicas
// that share repositories (package share) hold each one by a Lease; one that
// lost its Lease, or whose repository moved to another replica, must not
// push what it batched before it knew. The engine asks before every push,
// after the remote's advertisement and right before sending the pack, so
// the window between the answer and the push is one request.
type Fence interface {
	// MayPush reports whether this process holds the repository named key
	// (RepositoryKey of its URL) with a current Lease.
	MayPush(key string) bool
}

// WithFence asks f before every push; nil: every push may go.
func WithFence(f Fence) Option { return func(o *Options) { o.Fence = f } }

// WithUserAgent sends ua as the User-Agent of every HTTP(S) request to a Git
// server, so a server's log tells which replica fetched or pushed.
func WithUserAgent(ua string) Option { return func(o *Options) { o.UserAgent = ua } }

// fenced returns an error when the cache's Fence withholds a push to r.
func (r *Repository) fenced() error {
	f := r.cache.opts.Fence
	if f == nil || f.MayPush(r.key) {
		return nil
	}
	r.cache.opts.Metrics.withheld(r.conn.host)
	return &Error{Kind: KindTransient, Err: errors.New(errNotHeld)}
}

// userAgent sets the User-Agent header of every request it sends.
type userAgent struct {
	next http.RoundTripper
	ua   string
}

func (u userAgent) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("User-Agent", u.ua)
	return u.next.RoundTrip(req)
}

// withUserAgent wraps t when ua is set.
func withUserAgent(t http.RoundTripper, ua string) http.RoundTripper {
	if ua == "" {
		return t
	}
	return userAgent{next: t, ua: ua}
}
