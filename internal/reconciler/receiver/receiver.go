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
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge/events"
	"github.com/crossplane-contrib/provider-git/internal/git"
)

// Results of a delivery, as counted.
const (
	ResultAccepted        = "accepted"
	ResultPing            = "ping"
	ResultIgnored         = "ignored"
	ResultOtherRepository = "other_repository"
	ResultReplayed        = "replayed"
	ResultStale           = "stale"
	ResultUnknownHook     = "unknown_hook"
	ResultUnsigned        = "unsigned"
	ResultBadSignature    = "bad_signature"
	ResultMalformed       = "malformed"
	ResultTooLarge        = "too_large"
	ResultUnknownSource   = "unknown_source"
	ResultMethod          = "method_not_allowed"
	ResultBusy            = "busy"
	ResultWrongSource     = "wrong_source"
	// Sharing the repositories: sent on to the replica that holds the
	// repository, or not (it is down, or unreachable), or neither held
	// here nor to be sent on (forwarded here already, or no holder known).
	ResultForwarded     = "forwarded"
	ResultForwardFailed = "forward_failed"
	ResultNotHeld       = "not_held"
)

// MaxInFlight bounds the deliveries read at once: each may hold up to
// events.MaxBody, so unbounded they would let anyone who can reach the
// endpoint make the provider hold gigabytes. Only deliveries to a hook
// that exists take a slot, at most perHook of them each; a forge retries
// a delivery answered 503.
const MaxInFlight = 32

// bodyTimeout bounds the read of one delivery's body: a forge sends it at
// once, a client that trickles it holds a slot no longer.
const bodyTimeout = 10 * time.Second

// Waker is what the Receiver needs of the Git watcher.
// Each acts on one clone (Target.Clone).
type Waker interface {
	Nudge(clone string) bool
	WakeFollowing(clone string, branches []string) int
	// Heard: the clone's forge delivers events, so its polls may relax.
	Heard(clone string)
}

// Lists is what the Receiver needs of the shared pull request listings.
type Lists interface {
	Invalidate(clone string) int
}

// A Receiver serves the hooks of a Registry.
type Receiver struct {
	slots  chan struct{}
	reg    *Registry
	waker  Waker
	lists  Lists
	log    logging.Logger
	events *prometheus.CounterVec
	polled prometheus.Histogram
	// holders and forwarder, when replicas share the repositories, send a
	// delivery to the replica that holds its repository (WithHolders).
	holders   Holders
	forwarder Forwarder
	// clock dates forwards and judges their age.
	clock clock.PassiveClock
}

// New returns a Receiver of reg's hooks that acts through waker and lists.
func New(reg *Registry, waker Waker, lists Lists, log logging.Logger, opts ...Option) *Receiver {
	rc := &Receiver{slots: make(chan struct{}, MaxInFlight), reg: reg, waker: waker, lists: lists, log: log, clock: clock.RealClock{},
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_events_total",
			Help: "Forge webhook deliveries, by forge (GitHub, Gitea, Forgejo, GitLab, BitbucketCloud, BitbucketDataCenter, AzureDevOps; \"\" when not verified), kind (push, pull_request, ping, other) and result.",
		}, []string{"forge", "kind", "result"}),
		polled: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "provider_git_event_poll_seconds",
			Help:    "From an accepted push event to the end of the poll (ls-remote, fetch, tree diff) it caused, after which the resources at the changed paths reconcile.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60},
		})}
	for _, o := range opts {
		o(rc)
	}
	return rc
}

// Register registers the Receiver's metrics on r.
func (rc *Receiver) Register(r prometheus.Registerer) error {
	if err := r.Register(rc.events); err != nil {
		return err
	}
	return r.Register(rc.polled)
}

// EventPolled counts a poll an event caused, d after the event
// (watch.Watcher.OnEventPolled).
func (rc *Receiver) EventPolled(d time.Duration) { rc.polled.Observe(d.Seconds()) }

// ServeHTTP answers one delivery: 202 acted on (or nothing to act on),
// 200 a ping, 404 no hook at the path, 405 not a POST, 413 too large,
// 401 unsigned, 403 badly signed, 400 malformed or of no known forge, 409
// a delivery seen before, 503 while MaxInFlight others are read. Only an
// accepted delivery changes anything. A delivery another replica forwarded
// (events.HeaderForwarded) is verified by the forward's HMAC under the same
// secret, and refused alike.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	code, e, result := rc.serve(w, r)
	rc.events.WithLabelValues(e.Source, string(e.Kind), result).Inc()
	w.WriteHeader(code)
}

func (rc *Receiver) serve(w http.ResponseWriter, r *http.Request) (int, events.Event, string) {
	if r.Method != http.MethodPost {
		return http.StatusMethodNotAllowed, events.Event{}, ResultMethod
	}
	if r.ContentLength > events.MaxBody {
		return http.StatusRequestEntityTooLarge, events.Event{}, ResultTooLarge
	}
	// Only a delivery to a hook that exists takes a slot: anyone can
	// reach the endpoint, only a hook's owner knows its path.
	secret, t, ok, busy := rc.reg.enter(r.URL.Path)
	if !ok {
		return http.StatusNotFound, events.Event{}, ResultUnknownHook
	}
	if !busy {
		defer rc.reg.leave(r.URL.Path)
		select {
		case rc.slots <- struct{}{}:
			defer func() { <-rc.slots }()
		default:
			busy = true
		}
	}
	if busy {
		return http.StatusServiceUnavailable, events.Event{}, ResultBusy
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyTimeout))
	body, err := io.ReadAll(io.LimitReader(r.Body, events.MaxBody+1))
	if err != nil {
		return http.StatusBadRequest, events.Event{}, ResultMalformed
	}
	forwarded := events.Forwarded(r.Header)
	var e events.Event
	if forwarded {
		e, err = events.ParseForwarded(r.Header, r.URL.Path, body, secret, rc.clock.Now())
	} else {
		e, err = events.Parse(r.Header, body, secret)
	}
	if err != nil {
		code, result := refusal(err)
		return code, events.Event{}, result
	}
	switch {
	case !fromSource(t.Sources, e.Source):
		return http.StatusBadRequest, e, ResultWrongSource
	case e.Kind == events.KindPing:
		return http.StatusOK, e, ResultPing
	case e.Kind == events.KindOther:
		return http.StatusAccepted, e, ResultIgnored
	case !names(e.Repositories, t.Repo):
		// A hook of an organization sends every repository's events to
		// each of its URLs: another repository's costs nothing more.
		return http.StatusAccepted, e, ResultOtherRepository
	case !rc.reg.firstSeen(r.URL.Path, body):
		// Each replica remembers what reached it: a delivery forwarded
		// from the one the forge sent it to is new here.
		return http.StatusConflict, e, ResultReplayed
	}
	rt := decide(rc.holders, t.Repo, forwarded)
	switch {
	case rt.act:
		rc.act(t, e, rt.relax)
		return http.StatusAccepted, e, ResultAccepted
	case rt.to != "":
		return http.StatusAccepted, e, rc.forward(r.Context(), rt.to, r.URL.Path, e, r.Header, body, secret)
	}
	return http.StatusAccepted, e, ResultNotHeld
}

// act polls the configuration's clone now (a push), or lists its pull
// requests again and wakes the PullRequests of the branches named (a pull
// request event), and with relax lets the clone's polls relax. Nothing but
// the configuration's own clone is touched.
func (rc *Receiver) act(t Target, e events.Event, relax bool) {
	if relax {
		rc.waker.Heard(t.Clone)
	}
	switch e.Kind {
	case events.KindPush:
		n := rc.waker.Nudge(t.Clone)
		rc.log.Debug("Forge event: push", "source", e.Source, "repository", t.Repo, "branches", e.Branches, "polled", n)
	case events.KindPullRequest:
		l := rc.lists.Invalidate(t.Clone)
		n := rc.waker.WakeFollowing(t.Clone, e.Branches)
		rc.log.Debug("Forge event: pull request", "source", e.Source, "repository", t.Repo, "branches", e.Branches, "listings", l, "woken", n)
	}
}

// fromSource reports whether a delivery of source is one the hook takes.
func fromSource(sources []string, source string) bool {
	return len(sources) == 0 || slices.Contains(sources, source)
}

// names reports whether any of urls is the repository repo names.
func names(urls []string, repo string) bool {
	for _, u := range urls {
		if k, err := git.RepositoryKey(u); err == nil && k == repo {
			return true
		}
	}
	return false
}

// refusal is the answer to a delivery Parse refused.
func refusal(err error) (int, string) {
	switch {
	case errors.Is(err, events.ErrTooLarge):
		return http.StatusRequestEntityTooLarge, ResultTooLarge
	case errors.Is(err, events.ErrUnsigned):
		return http.StatusUnauthorized, ResultUnsigned
	case errors.Is(err, events.ErrBadSignature):
		return http.StatusForbidden, ResultBadSignature
	case errors.Is(err, events.ErrStale):
		return http.StatusConflict, ResultStale
	case errors.Is(err, events.ErrUnknownSource):
		return http.StatusBadRequest, ResultUnknownSource
	default:
		return http.StatusBadRequest, ResultMalformed
	}
}

// A Server serves a Receiver on an address; add it to the manager.
type Server struct {
	addr string
	srv  *http.Server
	log  logging.Logger
}

// NewServer returns a Server of rc on addr.
func NewServer(addr string, rc *Receiver, log logging.Logger) *Server {
	mux := http.NewServeMux()
	mux.Handle(PathPrefix, rc)
	return &Server{addr: addr, log: log, srv: &http.Server{
		Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
	}}
}

// Start serves on the Server's address until ctx ends.
func (s *Server) Start(ctx context.Context) error {
	l, err := (&net.ListenConfig{}).Listen(ctx, "tcp", s.addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, l)
}

// Serve serves on l until ctx ends.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	go func() {
		<-ctx.Done()
		// ctx is done: the shutdown needs a deadline of its own.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = s.srv.Shutdown(sctx)
	}()
	s.log.Info("Serving forge events", "address", l.Addr().String())
	if err := s.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// NeedLeaderElection is false: every replica receives, and each acts on
// the clones it holds.
func (s *Server) NeedLeaderElection() bool { return false }
