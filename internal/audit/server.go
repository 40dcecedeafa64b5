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

package audit

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
)

// DefaultMaxBody bounds one request's body: far above a batch of the API
// server's (400 events by default) at the Metadata level.
const DefaultMaxBody = 32 << 20

const (
	errNoClientAuth = "the audit endpoint needs a client CA or a bearer token to authenticate the API server with"
	errNoCert       = "the audit endpoint needs a serving certificate"
	errNotAList     = "the body is not an EventList with items"
)

// Credentials are what the endpoint serves with and whom it accepts: a
// client certificate signed by ClientCAs, or the bearer token Token. At
// least one must be set.
type Credentials struct {
	Certificate tls.Certificate
	ClientCAs   *x509.CertPool
	Token       []byte
}

// clientAuth reports whether c lets any client in: a client CA or a
// token.
func (c Credentials) clientAuth() bool { return c.ClientCAs != nil || len(c.Token) > 0 }

// Server is the audit webhook endpoint: it accepts a POST of an
// audit.k8s.io/v1 EventList from an authenticated client and keeps the
// facts its Store wants. Any request it cannot authenticate is 401 and
// changes nothing, whatever its method or body.
type Server struct {
	store   *Store
	creds   CredentialSource
	maxBody int64
	metrics *Metrics
	log     logging.Logger
	addr    string
	// allowed are the client certificate names let in (common name or a
	// DNS name); empty lets in any certificate the client CA signed.
	allowed []string
}

// ServerOption configures a Server.
type ServerOption func(*Server)

// WithMaxBody bounds a request's body.
func WithMaxBody(n int64) ServerOption { return func(s *Server) { s.maxBody = n } }

// WithServerMetrics records requests and events on m.
func WithServerMetrics(m *Metrics) ServerOption { return func(s *Server) { s.metrics = m } }

// WithAllowedNames lets in only client certificates whose common name is
// one of names (as kube-apiserver's
// --requestheader-allowed-names): a CA that signs other clients too (the
// cluster's, which signs every kubelet's) then admits the API server
// alone. Empty names let in any certificate the client CA signed.
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

// WithLogger logs what the endpoint refuses, never a credential.
func WithLogger(l logging.Logger) ServerOption { return func(s *Server) { s.log = l } }

// NewServer returns the endpoint for addr (host:port) feeding store, with
// the credentials src has in force at each handshake and request (Static
// ones, or Reloading ones that follow a rotation).
func NewServer(addr string, store *Store, src CredentialSource, o ...ServerOption) (*Server, error) {
	c := src.Current()
	if !c.clientAuth() {
		return nil, errors.New(errNoClientAuth)
	}
	if len(c.Certificate.Certificate) == 0 {
		return nil, errors.New(errNoCert)
	}
	s := &Server{store: store, creds: src, maxBody: DefaultMaxBody, log: logging.NewNopLogger(), addr: addr}
	for _, fn := range o {
		fn(s)
	}
	return s, nil
}

// TLSConfig is the endpoint's (ServingTLS): it asks for a client
// certificate and checks it itself (authenticated), so that a wrong one is a
// 401 like a missing one rather than a failed handshake the API server logs
// less clearly.
func (s *Server) TLSConfig() *tls.Config { return ServingTLS(s.creds) }

// Start serves on the Server's address until ctx ends: a controller-runtime
// Runnable.
func (s *Server) Start(ctx context.Context) error { return ListenAndServeTLS(ctx, s.addr, s, s.creds) }

// NeedLeaderElection is false: every replica takes the events sent to it.
func (s *Server) NeedLeaderElection() bool { return false }

// Serve serves TLS on l until ctx ends.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	return ServeTLS(ctx, l, s, s.creds)
}

// ServeHTTP authenticates, then takes a POSTed EventList.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.authenticated(r) {
		s.log.Debug("Refused an unauthenticated request to the audit endpoint", "remote", r.RemoteAddr)
		s.reply(w, http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodPost {
		s.reply(w, http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.reply(w, http.StatusRequestEntityTooLarge)
			return
		}
		s.reply(w, http.StatusBadRequest)
		return
	}
	if !s.store.mentioned(body) {
		// No event of a watched kind: not even parsed.
		s.metrics.event(resultUnwatched, bytes.Count(body, auditIDKey))
		s.reply(w, http.StatusOK)
		return
	}
	if err := s.ingest(body); err != nil {
		s.reply(w, http.StatusBadRequest)
		return
	}
	s.reply(w, http.StatusOK)
}

func (s *Server) reply(w http.ResponseWriter, code int) {
	s.metrics.request(strconv.Itoa(code))
	w.WriteHeader(code)
}

// auditIDKey starts every event, for counting the events of a body that
// is not parsed.
var auditIDKey = []byte(`"auditID"`)

// ingest reads the EventList in body item by item: an item that does not
// mention a watched resource is skipped once found, without decoding.
func (s *Server) ingest(body []byte) error {
	items, ok := splitItems(body)
	if !ok {
		return errors.New(errNotAList)
	}
	var events []event
	unwatched := 0
	for _, raw := range items {
		if !s.store.mentioned(raw) {
			unwatched++
			continue
		}
		var e event
		if err := json.Unmarshal(raw, &e); err != nil {
			return err
		}
		events = append(events, e)
	}
	s.metrics.event(resultUnwatched, unwatched)
	s.keep(events)
	return nil
}

// splitItems returns the objects of the top-level "items" array of the
// JSON object body, and whether body's brackets and strings are balanced.
// It does not validate what it skips: an item it returns is decoded (and
// validated) only when it mentions a watched resource, and one it does not
// return could not hold a fact. It is a scan of bytes with no allocation
// per item, where encoding/json's would validate and allocate every one.
func splitItems(body []byte) ([][]byte, bool) {
	var (
		out             [][]byte
		depth           int
		inString, esc   bool
		keyStart, start = -1, -1
		lastString      []byte
		inItems         bool
	)
	for i, c := range body {
		if inString {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inString = false
				if depth == 1 {
					lastString = body[keyStart+1 : i]
				}
			}
			continue
		}
		switch c {
		case '"':
			inString, keyStart = true, i
		case '{', '[':
			depth++
			switch {
			case c == '[' && depth == 2 && string(lastString) == "items":
				inItems = true
			case c == '{' && inItems && depth == 3:
				start = i
			}
		case '}', ']':
			switch {
			case c == '}' && inItems && depth == 3 && start >= 0:
				out = append(out, body[start:i+1])
				start = -1
			case c == ']' && inItems && depth == 2:
				inItems = false
			}
			depth--
			if depth < 0 {
				return nil, false
			}
		}
	}
	return out, depth == 0 && !inString
}

// keep keeps the facts among events that the Store wants. The check of the
// group/resource comes first: an event nobody watches costs one map lookup.
func (s *Server) keep(events []event) {
	var stored, unwatched, other, invalid int
	for i := range events {
		e := &events[i]
		if e.ObjectRef == nil {
			other++
			continue
		}
		if !s.store.Wants(GroupResource{Group: e.ObjectRef.APIGroup, Resource: e.ObjectRef.Resource}) {
			unwatched++
			continue
		}
		if !e.write() {
			other++
			continue
		}
		k, f, ok := e.fact(time.Time{})
		if !ok {
			invalid++
			continue
		}
		if s.store.Add(k, f) {
			stored++
		}
	}
	s.metrics.event(resultStored, stored)
	s.metrics.event(resultUnwatched, unwatched)
	s.metrics.event(resultNotAWrite, other)
	s.metrics.event(resultInvalid, invalid)
}

// authenticated reports whether r comes with a client certificate that
// ClientCAs signed (for client authentication) and WithAllowedNames lets
// in, or with the bearer token.
func (s *Server) authenticated(r *http.Request) bool {
	return s.creds.Current().Authenticate(r, s.allowed)
}
