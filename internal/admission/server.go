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

package admission

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/manifest"
)

// DefaultMaxInFlight bounds the reviews read at once; past it a review is
// answered at once, unread (the API server's failurePolicy Ignore lets the
// write go on), so a flood costs bounded memory and never a slow write.
const DefaultMaxInFlight = 64

// DefaultMaxBody bounds one review's body: an object is at most etcd's
// 1.5 MiB, and an update carries it twice, as JSON.
const DefaultMaxBody = 8 << 20

const errNoCert = "the admission webhook needs a serving certificate"

// Server is the validating admission webhook: it answers every
// AdmissionReview allowed, and keeps the facts of those it can
// authenticate (when client authentication is configured) in its Store.
type Server struct {
	store   *Store
	creds   audit.CredentialSource
	maxBody int64
	metrics *Metrics
	log     logging.Logger
	addr    string
	// requireAuth: a review is a fact only from a client the credentials
	// authenticate (a client CA or a token was configured at start). A
	// source that later loses both then keeps nothing, never everything.
	requireAuth bool
	allowed     []string
	// path, when set, is the only path a review is read at: a secret the
	// webhook configuration alone holds (see WithPath).
	path     string
	inFlight chan struct{}
}

// ServerOption configures a Server.
type ServerOption func(*Server)

// WithServerMetrics records requests on m.
func WithServerMetrics(m *Metrics) ServerOption { return func(s *Server) { s.metrics = m } }

// WithLogger logs what the webhook does not keep, never a credential or
// an object.
func WithLogger(l logging.Logger) ServerOption { return func(s *Server) { s.log = l } }

// WithPath reads reviews only at path; any other is refused unread. A
// path nobody can guess is what keeps forged facts out where the API
// server cannot authenticate itself to webhooks (managed clusters): only
// who can read the ValidatingWebhookConfiguration knows it.
func WithPath(path string) ServerOption { return func(s *Server) { s.path = path } }

// WithMaxInFlight bounds the reviews read at once (DefaultMaxInFlight).
func WithMaxInFlight(n int) ServerOption {
	return func(s *Server) { s.inFlight = make(chan struct{}, max(n, 1)) }
}

// WithAllowedNames keeps facts only from client certificates whose common
// name is one of names (see audit.WithAllowedNames).
func WithAllowedNames(names ...string) ServerOption {
	return func(s *Server) {
		s.allowed = nil
		for _, n := range names {
			if n = strings.TrimSpace(n); n != "" {
				s.allowed = append(s.allowed, n)
			}
		}
	}
}

// NewServer returns the webhook for addr (host:port) feeding store, with
// the credentials src has in force at each handshake and request. When
// they hold a client CA or a token now, a review is kept only from a client
// they authenticate, for as long as the Server runs.
func NewServer(addr string, store *Store, src audit.CredentialSource, o ...ServerOption) (*Server, error) {
	c := src.Current()
	if len(c.Certificate.Certificate) == 0 {
		return nil, errors.New(errNoCert)
	}
	s := &Server{store: store, creds: src, maxBody: DefaultMaxBody, log: logging.NewNopLogger(), addr: addr, requireAuth: c.ClientAuth(),
		inFlight: make(chan struct{}, DefaultMaxInFlight)}
	for _, fn := range o {
		fn(s)
	}
	return s, nil
}

// Start serves on the Server's address until ctx ends: a controller-runtime
// Runnable.
func (s *Server) Start(ctx context.Context) error {
	return audit.ListenAndServeTLS(ctx, s.addr, s, s.creds)
}

// NeedLeaderElection is false: every replica answers the reviews sent to
// it.
func (s *Server) NeedLeaderElection() bool { return false }

// Serve serves TLS on l until ctx ends.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	return audit.ServeTLS(ctx, l, s, s.creds)
}

// ServeHTTP answers a POSTed AdmissionReview allowed, always: what it
// cannot read or authenticate is not kept, and still allowed.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if s.path != "" && subtle.ConstantTimeCompare([]byte(r.URL.Path), []byte(s.path)) != 1 {
		// Not the API server, which calls the configured path: unread.
		s.metrics.request(resultUnauthenticated)
		w.WriteHeader(http.StatusNotFound)
		return
	}
	select {
	case s.inFlight <- struct{}{}:
		defer func() { <-s.inFlight }()
	default:
		s.metrics.request(resultBusy)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var rv review
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err == nil {
		err = json.Unmarshal(body, &rv)
	}
	switch {
	case err != nil || rv.Request == nil:
		s.metrics.request(resultInvalid)
	case s.requireAuth && !s.creds.Current().Authenticate(r, s.allowed):
		s.log.Debug("Kept nothing of an unauthenticated admission review", "remote", r.RemoteAddr)
		s.metrics.request(resultUnauthenticated)
	default:
		s.keep(rv.Request)
	}
	allow(w, rv.Request)
}

// keep keeps req's fact, if it is one.
func (s *Server) keep(req *request) {
	f, ok := req.fact(s.fingerprint)
	if !ok {
		s.metrics.request(resultNotAFact)
		return
	}
	s.store.Add(f)
	s.metrics.request(resultStored)
}

// fingerprint renders obj, of kind gv, as a Mirror does
// (internal/mirror's entry), and returns the Store's fingerprint of it; ""
// when it does not render.
func (s *Server) fingerprint(gv groupVersion, obj []byte) string {
	render := manifest.Render
	if gv.Group == "" && gv.Kind == "Secret" {
		render = manifest.RenderForEncryption
	}
	b, err := render(obj)
	if err != nil {
		return ""
	}
	return s.store.Fingerprint(b)
}

// allowed is the AdmissionReview the webhook answers.
type allowed struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Response   struct {
		UID     string `json:"uid"`
		Allowed bool   `json:"allowed"`
	} `json:"response"`
}

// allow answers req allowed (with no request, an empty UID: the API server
// then counts a failed call, which its failurePolicy Ignore allows).
func allow(w http.ResponseWriter, req *request) {
	a := allowed{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}
	a.Response.Allowed = true
	if req != nil {
		a.Response.UID = req.UID
	}
	b, _ := json.Marshal(a)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
