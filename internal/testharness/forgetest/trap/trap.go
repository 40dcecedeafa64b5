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

// Package trap is a forge API that answers every request with a redirect
// to a server elsewhere (another port over https, or plain http), for
// tests that a forge client sends its credential nowhere but the forge.
package trap

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Trap is the API (https) and the places it redirects to.
type Trap struct {
	// API is the forge's origin, https://127.0.0.1:port.
	API string
	// Client trusts API and OtherHTTPS (httptest's certificate).
	Client *http.Client
	// OtherHTTPS is another origin over https; PlainHTTP one over http.
	OtherHTTPS, PlainHTTP string

	secret string
	mu     sync.Mutex
	target string
	leaks  []string
}

// New starts the servers; secret is the credential a client must never
// send elsewhere (looked for in every header value and in the body).
func New(t *testing.T, secret string) *Trap {
	t.Helper()
	tr := &Trap{secret: secret}
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		places := map[string]string{"body": string(body)}
		for k, vs := range r.Header {
			places[k] = strings.Join(vs, ", ")
		}
		for k, v := range places {
			if strings.Contains(v, secret) {
				tr.mu.Lock()
				tr.leaks = append(tr.leaks, r.Method+" "+r.Host+r.URL.Path+" "+k)
				tr.mu.Unlock()
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[]`))
	})
	other := httptest.NewTLSServer(record)
	plain := httptest.NewServer(record)
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.mu.Lock()
		to := tr.target
		tr.mu.Unlock()
		// 307 keeps the method and body: a merge redirected stays a merge.
		http.Redirect(w, r, to+r.URL.RequestURI(), http.StatusTemporaryRedirect) //nolint:gosec // the trap redirects where its test says
	}))
	t.Cleanup(func() { api.Close(); other.Close(); plain.Close() })
	tr.API, tr.Client, tr.OtherHTTPS, tr.PlainHTTP = api.URL, api.Client(), other.URL, plain.URL
	tr.target = other.URL
	return tr
}

// To sets where the API redirects from now on.
func (tr *Trap) To(origin string) {
	tr.mu.Lock()
	tr.target = origin
	tr.mu.Unlock()
}

// Leaks are the requests that reached elsewhere carrying the secret.
func (tr *Trap) Leaks() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.leaks...)
}

// Targets names each place the API can redirect to, for subtests.
func (tr *Trap) Targets() map[string]string {
	return map[string]string{"OtherHost": tr.OtherHTTPS, "PlainHTTP": tr.PlainHTTP}
}
