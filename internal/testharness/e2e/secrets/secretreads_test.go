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

package secrets_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// secretRequest is one request of the provider for Secrets.
type secretRequest struct {
	method, path, fieldSelector string
	watch                       bool
}

func (r secretRequest) String() string {
	s := r.method + " " + r.path
	if r.watch {
		s += "?watch"
	}
	if r.fieldSelector != "" {
		s += " fieldSelector=" + r.fieldSelector
	}
	return s
}

// secretRecorder records the provider's requests for Secrets and counts
// the bytes it received in answer: what it can hold of them.
type secretRecorder struct {
	next http.RoundTripper

	mu    sync.Mutex
	reqs  []secretRequest
	bytes int
}

func (r *secretRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	p := req.URL.Path
	isSecret := p == "/api/v1/secrets" || strings.Contains(p, "/secrets/") || strings.HasSuffix(p, "/secrets")
	if isSecret && strings.HasPrefix(p, "/api/v1/") {
		q := req.URL.Query()
		r.mu.Lock()
		r.reqs = append(r.reqs, secretRequest{method: req.Method, path: p, fieldSelector: q.Get("fieldSelector"), watch: q.Get("watch") == "true"})
		r.mu.Unlock()
	}
	resp, err := r.next.RoundTrip(req)
	if err == nil && isSecret {
		resp.Body = &countingBody{ReadCloser: resp.Body, r: r}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	r *secretRecorder
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.r.mu.Lock()
	b.r.bytes += n
	b.r.mu.Unlock()
	return n, err
}

// collections are the requests that list or watch every Secret of a
// namespace, or of the cluster ("" for /api/v1/secrets), by namespace: the
// ones that fill a cache with Secrets nobody named.
func (r *secretRecorder) collections() map[string][]secretRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]secretRequest{}
	for _, q := range r.reqs {
		if q.method != http.MethodGet || strings.Contains(q.path, "/secrets/") || strings.HasPrefix(q.fieldSelector, "metadata.name=") {
			continue
		}
		ns := ""
		if rest, ok := strings.CutPrefix(q.path, "/api/v1/namespaces/"); ok {
			ns, _, _ = strings.Cut(rest, "/")
		}
		out[ns] = append(out[ns], q)
	}
	return out
}

// touches returns the requests of Secrets in namespace ns.
func (r *secretRecorder) touches(ns string) []secretRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []secretRequest
	for _, q := range r.reqs {
		if strings.HasPrefix(q.path, "/api/v1/namespaces/"+ns+"/") {
			out = append(out, q)
		}
	}
	return out
}

func (r *secretRecorder) received() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

// unusedSecretSize is the size of each Secret of the namespace nobody uses:
// large, as a Helm release record often is, so that a cache holding even
// one of them would show in the bytes received.
const unusedSecretSize = 256 << 10

// TestProviderHoldsOnlySecretsItUses: the provider never lists or watches
// the Secrets of the cluster, nor those of a namespace no configuration or
// Mirror uses. With no encryption and no Mirror it reads only the Secrets a
// configuration names, each by name; a Mirror that mirrors Secrets watches
// them in the namespaces it is allowed to read, and nowhere else. 32 large
// Secrets in an unused namespace cost it nothing: not a byte of them is
// received, so none can be held.
func TestProviderHoldsOnlySecretsItUses(t *testing.T) {
	rec := &secretRecorder{}
	e2e.StartProvider(t, "", e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec }))

	unused := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "unused-"}}
	e2e.Create(t, unused)
	t.Cleanup(func() { e2e.Purge(t, unused.Name) })
	big := bytes.Repeat([]byte("x"), unusedSecretSize)
	for i := range 32 {
		e2e.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: unused.Name, Name: fmt.Sprintf("helm-release-%02d", i)},
			Data: map[string][]byte{"release": big}})
	}

	f := e2e.NewFixture(t)
	fl := e2e.NewFile(f, "one", "apps/one.yaml", "one\n")
	e2e.Create(t, fl)
	e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))

	check := func(phase string, allowed ...string) {
		t.Helper()
		for ns, reqs := range rec.collections() {
			switch {
			case ns == "":
				t.Errorf("%s: the provider lists or watches every Secret of the cluster: %v", phase, reqs)
			case !slices.Contains(allowed, ns):
				t.Errorf("%s: the provider lists or watches every Secret of namespace %s, which no Mirror may mirror: %v", phase, ns, reqs)
			}
		}
		if reqs := rec.touches(unused.Name); len(reqs) > 0 {
			t.Errorf("%s: the provider reads Secrets of namespace %s, which nothing uses: %v", phase, unused.Name, reqs)
		}
		if got := rec.received(); got >= unusedSecretSize {
			t.Errorf("%s: the provider received %d bytes of Secrets, more than one unused Secret (%d): it holds Secrets it does not use", phase, got, unusedSecretSize)
		}
	}
	check("no encryption, no Mirror")

	// A Mirror of its own namespace selecting Secrets, with encryption and
	// the grant: its namespace's Secrets are watched, and still nothing else.
	pc, _ := generatedIdentity(t, f)
	cpc, ref := secretsCPC(t, f, pc.Spec.Encryption)
	e2e.WaitFor(t, 30*time.Second, cpc, clusterPublishesRecipients(cpc))
	e2e.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "db", Labels: map[string]string{"app": "demo"}},
		Data: map[string][]byte{"password": []byte(secretPassword)}})
	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{
		Resources:     []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "Secret"}},
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "demo"}},
	}, ref)
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	if len(rec.collections()[f.Namespace]) == 0 {
		t.Errorf("the Mirror mirrors Secrets of %s without watching them there: %v", f.Namespace, rec.collections())
	}
	check("a Mirror of Secrets", f.Namespace)
	t.Logf("Secret requests of the provider (%d bytes received):\n%s", rec.received(), rec.summary())
}

// summary lists each distinct request once, with how often it was made.
func (r *secretRecorder) summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := map[string]int{}
	var order []string
	for _, q := range r.reqs {
		s := q.String()
		if n[s] == 0 {
			order = append(order, s)
		}
		n[s]++
	}
	var b strings.Builder
	for _, s := range order {
		fmt.Fprintf(&b, "%4d %s\n", n[s], s)
	}
	return b.String()
}
