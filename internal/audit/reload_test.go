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
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// generation is one set of the endpoint's credentials: a serving
// certificate from its own CA, a client CA, a client certificate it
// signed, and a token.
type generation struct {
	serverCA, clientCA *testCA
	client             tls.Certificate
	cert, key          []byte
	token              string
}

func newGeneration(t *testing.T, name, token string) generation {
	t.Helper()
	g := generation{serverCA: newTestCA(t, name+" server CA"), clientCA: newTestCA(t, name+" client CA"), token: token}
	_, g.cert, g.key = g.serverCA.issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	g.client, _, _ = g.clientCA.issue(t, "kube-apiserver", x509.ExtKeyUsageClientAuth)
	return g
}

// accepted is what the endpoint does with each credential of g: whether
// a client trusting g's server CA completes the handshake, and the status
// of a request with g's client certificate and of one with g's token.
type accepted struct {
	Handshake   bool
	Certificate int
	Token       int
}

func (g generation) try(t *testing.T, url string, trustAll *x509.CertPool) accepted {
	t.Helper()
	body := list(update())
	var a accepted
	code, err := send(t, url, g.serverCA.pool(), http.MethodPost, &g.client, "", body)
	a.Handshake, a.Certificate = err == nil, code
	// The token is tried over a handshake that succeeds whoever serves:
	// trustAll has every generation's server CA.
	if a.Token, err = send(t, url, trustAll, http.MethodPost, nil, "Bearer "+g.token, body); err != nil {
		t.Fatalf("POST with token: %v", err)
	}
	return a
}

// TestReloadFilesRotates: the serving certificate, client CA and token are
// written anew on disk while the endpoint serves; within the reload
// interval the old ones stay in force, after it the new ones are, and the
// old ones are refused, all without a restart. A rotation that does not
// parse keeps the credentials in force.
func TestReloadFilesRotates(t *testing.T) {
	old, next := newGeneration(t, "old", "old-token"), newGeneration(t, "next", "next-token-longer")
	trustAll := x509.NewCertPool()
	trustAll.AddCert(old.serverCA.cert)
	trustAll.AddCert(next.serverCA.cert)
	dir := t.TempDir()
	f := Files{Cert: filepath.Join(dir, "tls.crt"), Key: filepath.Join(dir, "tls.key"), CA: filepath.Join(dir, "ca.crt"), Token: filepath.Join(dir, "token")}
	stamp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(g generation, cert []byte) {
		t.Helper()
		// Each rotation stamps its files a minute later: the size of a
		// certificate may not change, its modification time does.
		stamp = stamp.Add(time.Minute)
		for p, b := range map[string][]byte{f.Cert: cert, f.Key: g.key, f.CA: g.clientCA.pem, f.Token: []byte(g.token + "\n")} {
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, stamp, stamp); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(old, old.cert)
	clk := clocktesting.NewFakeClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	src, err := ReloadFiles(context.Background(), f, WithReloadClock(clk), WithReloadInterval(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	url := serveReloading(t, src)

	in := accepted{Handshake: true, Certificate: http.StatusOK, Token: http.StatusOK}
	out := accepted{Handshake: false, Certificate: 0, Token: http.StatusUnauthorized}
	steps := []struct {
		reason   string
		do       func()
		old, new accepted
	}{
		{
			reason: "Before any rotation the old credentials are in force.",
			do:     func() {},
			old:    in, new: out,
		},
		{
			reason: "Rotated on disk, but the interval has not passed: no look yet, the old ones stay.",
			do:     func() { write(next, next.cert); clk.Step(9 * time.Second) },
			old:    in, new: out,
		},
		{
			reason: "The interval passed: the new ones are in force and the old ones refused, without a restart.",
			do:     func() { clk.Step(time.Second) },
			old:    out, new: in,
		},
		{
			reason: "A rotation that does not parse (a certificate of the wrong key) keeps those in force.",
			do:     func() { write(next, old.cert); clk.Step(10 * time.Second) },
			old:    out, new: in,
		},
		{
			reason: "Rotated back to the old ones, once they parse again, they are in force again.",
			do:     func() { write(old, old.cert); clk.Step(10 * time.Second) },
			old:    in, new: out,
		},
	}
	for i, st := range steps {
		st.do()
		// The first caller after the interval starts the look, which runs
		// beside it: wait for it, so that the step sees what it put in force.
		src.Current()
		settle(src)
		got := struct{ Old, New accepted }{old.try(t, url, trustAll), next.try(t, url, trustAll)}
		want := struct{ Old, New accepted }{st.old, st.new}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("step %d: %s\n-want +got:\n%s", i, st.reason, diff)
		}
	}
}

// TestReloadSecretRotates: credentials from a Secret are read again when
// its resourceVersion changes, at most every interval; a token removed
// from it is revoked.
func TestReloadSecretRotates(t *testing.T) {
	old, next := newGeneration(t, "old", "old-token"), newGeneration(t, "next", "next-token")
	nn := types.NamespacedName{Namespace: "crossplane-system", Name: "audit"}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: nn.Namespace, Name: nn.Name}, Data: map[string][]byte{
		SecretKeyCert: old.cert, SecretKeyKey: old.key, SecretKeyToken: []byte(old.token),
	}}
	c := fake.NewClientBuilder().WithObjects(sec).Build()
	clk := clocktesting.NewFakeClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	src, err := ReloadSecret(context.Background(), c, nn, WithReloadClock(clk), WithReloadInterval(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	token := func() string {
		src.Current()
		settle(src)
		return string(src.Current().Token)
	}
	sec.Data = map[string][]byte{SecretKeyCert: next.cert, SecretKeyKey: next.key, SecretKeyToken: []byte(next.token)}
	if err := c.Update(context.Background(), sec); err != nil {
		t.Fatal(err)
	}
	got := []string{token()}
	clk.Step(10 * time.Second)
	got = append(got, token())
	sec.Data[SecretKeyToken] = nil
	if err := c.Update(context.Background(), sec); err != nil {
		t.Fatal(err)
	}
	clk.Step(10 * time.Second)
	got = append(got, token())
	want := []string{old.token, next.token, ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens in force: before the interval, after it, after the token is removed (and there is no CA: every client refused): -want +got:\n%s", diff)
	}
}

// settle waits for the look r has under way, if any.
func settle(r *Reloading) { r.looks.Wait() }
