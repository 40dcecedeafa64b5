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
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

const testToken = "s3cr3t-t0ken"

// endpoint is a Server on loopback with a client CA and a token.
type endpoint struct {
	url                         string
	store                       *Store
	serverCA, clientCA, otherCA *testCA
	metrics                     *Metrics
}

func startEndpoint(t *testing.T) *endpoint {
	t.Helper()
	e := &endpoint{serverCA: newTestCA(t, "server CA"), clientCA: newTestCA(t, "client CA"), otherCA: newTestCA(t, "other CA"), metrics: NewMetrics()}
	serving, _, _ := e.serverCA.issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	e.store = NewStore()
	e.store.Want("m", configMaps)
	s, err := NewServer("127.0.0.1:0", e.store, Static{Certificate: serving, ClientCAs: e.clientCA.pool(), Token: []byte(testToken)}, WithServerMetrics(e.metrics))
	if err != nil {
		t.Fatal(err)
	}
	e.url = serve(t, s)
	return e
}

// serveReloading serves, for src's credentials, a store that wants the
// ConfigMaps, and returns its URL.
func serveReloading(t *testing.T, src CredentialSource) string {
	t.Helper()
	store := NewStore()
	store.Want("m", configMaps)
	s, err := NewServer("127.0.0.1:0", store, src)
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, s)
}

// serve runs s on a loopback port until the test ends, and returns its
// URL.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve(): %v", err)
		}
	})
	return "https://" + l.Addr().String() + "/audit"
}

// post sends body as the API server would, with cert (if any) and header
// (if any).
func (e *endpoint) post(t *testing.T, method string, cert *tls.Certificate, auth string, body []byte) int {
	t.Helper()
	code, err := send(t, e.url, e.serverCA.pool(), method, cert, auth, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, e.url, err)
	}
	return code
}

// send sends body to url trusting roots for the server's certificate, and
// returns the status, or the error of a connection that failed (a
// handshake with a certificate roots did not sign).
func send(t *testing.T, url string, roots *x509.CertPool, method string, cert *tls.Certificate, auth string, body []byte) (int, error) {
	t.Helper()
	tc := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if cert != nil {
		tc.Certificates = []tls.Certificate{*cert}
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}, Timeout: 30 * time.Second}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// TestServerAuthentication: only the API server's client certificate or
// token is let in; anything else is 401 and keeps no fact.
func TestServerAuthentication(t *testing.T) {
	e := startEndpoint(t)
	client, _, _ := e.clientCA.issue(t, "kube-apiserver", x509.ExtKeyUsageClientAuth)
	stranger, _, _ := e.otherCA.issue(t, "kube-apiserver", x509.ExtKeyUsageClientAuth)
	serverOnly, _, _ := e.clientCA.issue(t, "kube-apiserver", x509.ExtKeyUsageServerAuth)

	type args struct {
		method string
		cert   *tls.Certificate
		auth   string
	}
	type want struct {
		code  int
		facts int
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Anonymous": {
			reason: "No certificate and no token: refused.",
			args:   args{method: http.MethodPost},
			want:   want{code: http.StatusUnauthorized},
		},
		"WrongToken": {
			reason: "A token that is not the configured one: refused.",
			args:   args{method: http.MethodPost, auth: "Bearer " + testToken + "x"},
			want:   want{code: http.StatusUnauthorized},
		},
		"TokenPrefix": {
			reason: "A prefix of the token is not the token.",
			args:   args{method: http.MethodPost, auth: "Bearer " + testToken[:4]},
			want:   want{code: http.StatusUnauthorized},
		},
		"BasicAuth": {
			reason: "The token in another scheme is not a bearer token.",
			args:   args{method: http.MethodPost, auth: "Basic " + testToken},
			want:   want{code: http.StatusUnauthorized},
		},
		"StrangerCertificate": {
			reason: "A client certificate another CA signed: refused.",
			args:   args{method: http.MethodPost, cert: &stranger},
			want:   want{code: http.StatusUnauthorized},
		},
		"ServerCertificate": {
			reason: "A certificate of the client CA that is not for client authentication: refused.",
			args:   args{method: http.MethodPost, cert: &serverOnly},
			want:   want{code: http.StatusUnauthorized},
		},
		"UnauthenticatedGet": {
			reason: "Whatever the method, the unauthenticated are refused first.",
			args:   args{method: http.MethodGet},
			want:   want{code: http.StatusUnauthorized},
		},
		"ClientCertificate": {
			reason: "The API server's client certificate is let in.",
			args:   args{method: http.MethodPost, cert: &client},
			want:   want{code: http.StatusOK, facts: 1},
		},
		"Token": {
			reason: "The bearer token is let in.",
			args:   args{method: http.MethodPost, auth: "Bearer " + testToken},
			want:   want{code: http.StatusOK, facts: 1},
		},
		"AuthenticatedGet": {
			reason: "An authenticated client may only POST.",
			args:   args{method: http.MethodGet, auth: "Bearer " + testToken},
			want:   want{code: http.StatusMethodNotAllowed},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := e.store.Len()
			// An event of its own: the store keeps one fact per request.
			ev := update()
			ev.id = name
			got := e.post(t, tc.args.method, tc.args.cert, tc.args.auth, list(ev))
			if diff := cmp.Diff(tc.want.code, got); diff != "" {
				t.Errorf("%s\nstatus: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.facts, e.store.Len()-before); diff != "" {
				t.Errorf("%s\nfacts kept: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	if got := testutil.ToFloat64(e.metrics.requests.WithLabelValues("401")); got != 7 {
		t.Errorf("provider_git_audit_requests_total{code=401}: want 7, got %v", got)
	}
}

// TestServerBadBody: an authenticated client's body that mentions a
// watched resource but is no EventList is refused and keeps nothing. (One
// that mentions none is not parsed: it can hold no fact.)
func TestServerBadBody(t *testing.T) {
	e := startEndpoint(t)
	if got := e.post(t, http.MethodPost, nil, "Bearer "+testToken, []byte(`{"items": [{"objectRef": {"resource": "configmaps"`)); got != http.StatusBadRequest {
		t.Errorf("truncated JSON: want 400, got %d", got)
	}
	if e.store.Len() != 0 {
		t.Errorf("truncated JSON kept %d facts", e.store.Len())
	}
}

// TestNewServerNeedsClientAuth: an endpoint that would accept anybody is
// not made.
func TestNewServerNeedsClientAuth(t *testing.T) {
	ca := newTestCA(t, "ca")
	serving, _, _ := ca.issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	if _, err := NewServer("127.0.0.1:0", NewStore(), Static{Certificate: serving}); err == nil {
		t.Error("NewServer() without a client CA or token: want an error")
	}
}

// TestFromFiles: credentials read from files; a token's final newline is
// not part of it; a CA file with no certificate is an error.
func TestFromFiles(t *testing.T) {
	ca := newTestCA(t, "ca")
	_, certPEM, keyPEM := ca.issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f := Files{Cert: write("tls.crt", certPEM), Key: write("tls.key", keyPEM), Token: write("token", []byte(testToken+"\n"))}
	c, err := FromFiles(f)
	if err != nil {
		t.Fatalf("FromFiles(): %v", err)
	}
	if diff := cmp.Diff(testToken, string(c.Token)); diff != "" {
		t.Errorf("Token: -want, +got:\n%s", diff)
	}
	f.CA = write("ca.crt", []byte("not PEM"))
	if _, err := FromFiles(f); err == nil {
		t.Error("FromFiles() with a CA file that holds no certificate: want an error")
	}
	if _, err := FromFiles(Files{Cert: f.Cert, Key: f.Key}); err == nil {
		t.Error("FromFiles() with neither CA nor token: want an error")
	}
}

// TestServerAllowedNames: with allowed names, a certificate the client CA
// signed for another name (a kubelet's, when the CA is the cluster's) is
// refused and keeps no fact; the allowed name, as common name or DNS
// name, is let in. Before, any certificate of the CA was let in.
func TestServerAllowedNames(t *testing.T) {
	serverCA, clientCA := newTestCA(t, "server CA"), newTestCA(t, "cluster CA")
	serving, _, _ := serverCA.issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	store := NewStore()
	store.Want("m", configMaps)
	s, err := NewServer("127.0.0.1:0", store, Static{Certificate: serving, ClientCAs: clientCA.pool()}, WithAllowedNames("kube-apiserver-audit"))
	if err != nil {
		t.Fatal(err)
	}
	url := serve(t, s)
	apiserver, _, _ := clientCA.issue(t, "kube-apiserver-audit", x509.ExtKeyUsageClientAuth)
	kubelet, _, _ := clientCA.issue(t, "system:node:worker-1", x509.ExtKeyUsageClientAuth)
	cases := map[string]struct {
		reason string
		cert   tls.Certificate
		code   int
		facts  int
	}{
		"OtherName": {"A certificate of the same CA with another name: refused.", kubelet, http.StatusUnauthorized, 0},
		"Allowed":   {"The allowed name is let in.", apiserver, http.StatusOK, 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := store.Len()
			code, err := send(t, url, serverCA.pool(), http.MethodPost, &tc.cert, "", list(update()))
			if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || store.Len()-before != tc.facts {
				t.Errorf("%s\nstatus %d with %d facts kept, want %d with %d", tc.reason, code, store.Len()-before, tc.code, tc.facts)
			}
		})
	}
}
