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

package receiver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge/events"
)

// Holders says, when replicas share the repositories
// (--share-repositories), which one holds a repository: a delivery that
// reaches another is forwarded to it. share.Membership is one.
type Holders interface {
	// HolderOf reports whether this replica holds the repository key
	// now, and otherwise the address (IP:port) at which the replica that
	// does receives forwarded deliveries ("" when it publishes none, or
	// no replica holds it); members is how many replicas share.
	HolderOf(key string) (self bool, addr string, members int)
}

// A Forwarder sends a verified delivery, with the headers events.Forward
// made, to path at another replica's address.
type Forwarder interface {
	Forward(ctx context.Context, addr, path string, h http.Header, body []byte) error
}

// A ForwarderFn is a function that is a Forwarder.
type ForwarderFn func(ctx context.Context, addr, path string, h http.Header, body []byte) error

// Forward calls f.
func (f ForwarderFn) Forward(ctx context.Context, addr, path string, h http.Header, body []byte) error {
	return f(ctx, addr, path, h, body)
}

// An Option configures a Receiver.
type Option func(*Receiver)

// WithClock dates forwards and judges their age with c, not the wall clock.
func WithClock(c clock.PassiveClock) Option {
	return func(rc *Receiver) { rc.clock = c }
}

// WithHolders forwards a delivery for a repository another replica holds
// to that replica through f, and acts only on those this one holds.
func WithHolders(h Holders, f Forwarder) Option {
	return func(rc *Receiver) { rc.holders, rc.forwarder = h, f }
}

// A route is what a verified, new delivery for a configuration's
// repository does on this replica.
type route struct {
	// act: poll the clone, list its pull requests, wake its PullRequests.
	act bool
	// relax: the clone's forge events reach its holder, so its polls may
	// relax (Waker.Heard).
	relax bool
	// to is the holder's address to forward to, "" for none.
	to string
}

// decide routes a delivery for the repository key, forwarded by another
// replica or not.
//
// Without sharing a replica acts on every delivery and relaxes. Sharing,
// the holder acts on the deliveries that reach it, directly or forwarded,
// and a non-holder forwards what the forge sent it to the holder. A
// forwarded delivery is never forwarded again, so replicas whose views of
// the membership disagree for a moment cannot pass one back and forth: the
// handover that follows observes every moved resource afresh anyway.
//
// The holder relaxes its polls on a forwarded delivery, or when it shares
// with nobody: a direct one shows that the forge reaches this replica, not
// that the deliveries the Service sends to the others reach it too (a
// NetworkPolicy that admits only the ingress would stop those), and a
// holder that relaxed on its own share of the deliveries would act on the
// others' only at its relaxed poll.
func decide(h Holders, key string, forwarded bool) route {
	if h == nil {
		return route{act: true, relax: true}
	}
	self, addr, members := h.HolderOf(key)
	switch {
	case self:
		return route{act: true, relax: forwarded || members <= 1}
	case forwarded:
		return route{}
	default:
		return route{to: addr}
	}
}

// forwardTimeout bounds one forward: the forge waits for the answer to its
// delivery (GitHub gives it 10 s), and a holder on the pod network
// answers in milliseconds.
const forwardTimeout = 3 * time.Second

// forwardAnswerMax is how much of a holder's answer is read: it says
// nothing, only its status counts.
const forwardAnswerMax = 4 << 10

// HTTPForwarder forwards deliveries over plain HTTP on the pod network.
// What it sends carries no credential (events.Forward keeps none), never
// goes through a proxy, and never follows a redirect.
type HTTPForwarder struct {
	c *http.Client
}

// NewForwarder returns an HTTPForwarder.
func NewForwarder() *HTTPForwarder {
	return &HTTPForwarder{c: &http.Client{
		Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute},
		Timeout:   forwardTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}
}

// Forward posts body with h to path at addr, an IP and a port (what a
// Lease says is never taken for a host name to resolve). The holder's 202
// (acted on), 200 (a ping) and 409 (it had the delivery already, from the
// forge) are success.
func (f *HTTPForwarder) Forward(ctx context.Context, addr, path string, h http.Header, body []byte) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return fmt.Errorf("the holder's address %q is not an IP and a port", addr)
	}
	ctx, cancel := context.WithTimeout(ctx, forwardTimeout)
	defer cancel()
	// The address is a member's, from its Lease in the provider's own
	// namespace; parsed as an IP and a port, nothing else reaches the URL.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+ap.String()+path, bytes.NewReader(body)) //nolint:gosec // G704: see above

	if err != nil {
		return err
	}
	req.Header = h.Clone()
	resp, err := f.c.Do(req) //nolint:gosec // G704: the address is a member's (above); no redirect is followed
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		// Without the URL: its path is the hook's, which only its
		// configuration's status publishes; logs go further.
		return fmt.Errorf("cannot reach the holder at %s: %w", ap, ue.Err)
	}
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, forwardAnswerMax))
	switch resp.StatusCode {
	case http.StatusAccepted, http.StatusOK, http.StatusConflict:
		return nil
	}
	return fmt.Errorf("the holder at %s answered %s", ap, resp.Status)
}

// forward sends a delivery of the hook at path, verified with secret, to
// the holder at addr, and returns the result to count.
func (rc *Receiver) forward(ctx context.Context, addr, path string, e events.Event, h http.Header, body, secret []byte) string {
	if err := rc.forwarder.Forward(ctx, addr, path, events.Forward(h, path, body, secret, rc.clock.Now()), body); err != nil {
		rc.log.Info("Cannot forward a forge event to the replica that holds its repository; it acts at its next poll",
			"source", e.Source, "kind", e.Kind, "holder", addr, "error", err)
		return ResultForwardFailed
	}
	rc.log.Debug("Forwarded a forge event to the replica that holds its repository", "source", e.Source, "kind", e.Kind, "holder", addr)
	return ResultForwarded
}
