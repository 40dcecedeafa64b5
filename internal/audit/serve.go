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
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// What the audit endpoint and the admission webhook (internal/admission)
// share: TLS from a CredentialSource that may rotate, a server that shuts
// down with its context, and the check of the API server's client
// certificate or token.

// Timeouts of an endpoint's connections.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = time.Minute
	idleTimeout       = 2 * time.Minute
	shutdownTimeout   = 5 * time.Second
)

const (
	errListen = "cannot listen"
	errServe  = "cannot serve"
)

// ServingTLS is the TLS configuration of an endpoint serving src's
// certificate, taken at each handshake (a rotation is in force at the next
// connection). It asks for a client certificate and leaves checking it to
// the handler (Credentials.Authenticate).
func ServingTLS(src CredentialSource) *tls.Config {
	return &tls.Config{
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			c := src.Current().Certificate
			return &c, nil
		},
		ClientAuth: tls.RequestClientCert,
		MinVersion: tls.VersionTLS12,
	}
}

// ListenAndServeTLS listens on addr (host:port) and serves h over TLS with
// src's credentials until ctx ends.
func ListenAndServeTLS(ctx context.Context, addr string, h http.Handler, src CredentialSource) error {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return errors.Wrap(err, errListen)
	}
	return ServeTLS(ctx, l, h, src)
}

// ServeTLS serves h over TLS on l with src's credentials until ctx ends,
// then shuts down within shutdownTimeout.
func ServeTLS(ctx context.Context, l net.Listener, h http.Handler, src CredentialSource) error {
	hs := &http.Server{
		Handler: h, TLSConfig: ServingTLS(src),
		ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, IdleTimeout: idleTimeout,
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		// ctx is done: the shutdown needs a deadline of its own.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	err := hs.ServeTLS(l, "", "")
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return errors.Wrap(err, errServe)
}

// Authenticate reports whether r comes with a client certificate that
// c.ClientCAs signed (for client authentication) whose common name is one
// of allowed (any, when allowed is empty), or with the bearer token
// c.Token.
func (c Credentials) Authenticate(r *http.Request, allowed []string) bool {
	if c.ClientCAs != nil && r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		inter := x509.NewCertPool()
		for _, ic := range r.TLS.PeerCertificates[1:] {
			inter.AddCert(ic)
		}
		leaf := r.TLS.PeerCertificates[0]
		_, err := leaf.Verify(x509.VerifyOptions{
			Roots: c.ClientCAs, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		})
		if err == nil && (len(allowed) == 0 || slices.Contains(allowed, leaf.Subject.CommonName)) {
			return true
		}
	}
	if len(c.Token) == 0 {
		return false
	}
	h := r.Header.Get("Authorization")
	const bearer = "Bearer "
	if len(h) <= len(bearer) || !strings.EqualFold(h[:len(bearer)], bearer) {
		return false
	}
	// Digests of equal length: the comparison takes the same time
	// whatever the token's length or content.
	got, want := sha256.Sum256([]byte(h[len(bearer):])), sha256.Sum256(c.Token)
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// ClientAuth reports whether c lets any client in: a client CA or a
// token.
func (c Credentials) ClientAuth() bool { return c.clientAuth() }
