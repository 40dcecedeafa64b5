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

package configuration_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestPrivateCA: a repository served over HTTPS with a certificate from a
// private CA is refused, with a reason saying so on the ProviderConfig and
// its resources, until the credentials Secret carries the CA (Flux's caFile
// key); then both converge without a restart.
func TestPrivateCA(t *testing.T) {
	e2e.StartProvider(t, "")
	ctx := context.Background()
	https, ca := testenv.NewHTTPSServer(t, e2e.GitRoot, e2e.GitUser, e2e.GitToken)
	f := e2e.NewFixture(t)
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(pc), pc); err != nil {
			return err
		}
		pc.Spec.URL = https.RepoURL(f.Repo.Name)
		return e2e.CP.Client.Update(ctx, pc)
	})
	if err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, 30*time.Second, pc, e2e.StalledWith(t, pc, spec.ReasonCertificateUntrusted))
	msg := pc.GetCondition(session.TypeStalled).Message
	t.Logf("Stalled message without the CA: %s", msg)
	if !strings.Contains(msg, "certificate") || strings.Contains(msg, e2e.GitToken) {
		t.Errorf("the Stalled message %q does not name the certificate problem, or repeats the token", msg)
	}
	head := f.Repo.Head(t, "main")
	fl := e2e.NewFile(f, "a", "apps/a.yaml", "a: 1\n")
	e2e.Create(t, fl)
	e2e.WaitFor(t, 30*time.Second, fl, e2e.StalledWith(t, fl, spec.ReasonCertificateUntrusted))
	if got := f.Repo.Head(t, "main"); got != head {
		t.Fatalf("a commit %s reached a server the provider must not trust", got[:7])
	}

	setSecret(t, f.Namespace, map[string]string{"username": e2e.GitUser, "password": e2e.GitToken, "caFile": string(ca)})
	e2e.WaitFor(t, 30*time.Second, pc, func() error {
		return e2e.ConditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded)
	})
	e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
	f.WaitRemote(t, "main", map[string]string{"apps/a.yaml": "a: 1\n"})
}

// TestGitHubApp: a ProviderConfig whose Secret holds GitHub App keys (Flux's
// names, a GitHub Enterprise API URL) reaches a server that accepts only the
// installation token the App's JWT buys, and the provider's Files land with
// one token for the whole test.
func TestGitHubApp(t *testing.T) {
	e2e.StartProvider(t, "")
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	const token = "ghs_e2e-installation-token"
	var minted atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		jwt, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		parts := strings.Split(jwt, ".")
		if r.URL.Path != "/api/v3/app/installations/42/access_tokens" || len(parts) != 3 {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, digest[:], sig) != nil {
			http.Error(w, `{"message":"A JSON web token could not be decoded"}`, http.StatusUnauthorized)
			return
		}
		minted.Add(1)
		w.WriteHeader(http.StatusCreated)
		_, _ = fmt.Fprintf(w, `{"token":%q,"expires_at":%q}`, token, time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	}))
	t.Cleanup(api.Close)
	git := testenv.NewHTTPServer(t, e2e.GitRoot, "x-access-token", token)

	f := e2e.NewFixture(t)
	setSecret(t, f.Namespace, map[string]string{
		"githubAppID": "7", "githubAppInstallationID": "42", "githubAppBaseURL": api.URL + "/api/v3",
		"githubAppPrivateKey": string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})),
	})
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(pc), pc); err != nil {
			return err
		}
		pc.Spec.URL = git.RepoURL(f.Repo.Name)
		return e2e.CP.Client.Update(context.Background(), pc)
	})
	if err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, 30*time.Second, pc, func() error {
		return e2e.ConditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded)
	})
	a, b := e2e.NewFile(f, "a", "apps/a.yaml", "a: 1\n"), e2e.NewFile(f, "b", "apps/b.yaml", "b: 1\n")
	e2e.Create(t, a)
	e2e.Create(t, b)
	e2e.WaitFor(t, 30*time.Second, a, e2e.ReadyAndCurrent(t, a))
	e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
	f.WaitRemote(t, "main", map[string]string{"apps/a.yaml": "a: 1\n", "apps/b.yaml": "b: 1\n"})
	if n := minted.Load(); n != 1 {
		t.Errorf("%d installation tokens minted for one configuration within the token's hour, want 1", n)
	}
}
