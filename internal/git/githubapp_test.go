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

package git

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

const (
	testAppID          = "1234"
	testInstallationID = "4242"
	testAppToken       = "ghs_installation-token"
	testEnterprisePath = "/api/v3"
)

// fakeGitHub is GitHub Enterprise's installation token endpoint: it checks
// the JWT's signature against the App's public key and its claims against
// the clock, counts the tokens it minted, and answers each with a token
// valid for an hour.
type fakeGitHub struct {
	*httptest.Server
	pub    *rsa.PublicKey
	clock  *testingclock.FakeClock
	minted atomic.Int32
	mu     sync.Mutex
	errs   []string
}

func newFakeGitHub(t *testing.T, pub *rsa.PublicKey, clock *testingclock.FakeClock) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{pub: pub, clock: clock}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeGitHub) refuse(w http.ResponseWriter, status int, msg string) {
	f.mu.Lock()
	f.errs = append(f.errs, msg)
	f.mu.Unlock()
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

func (f *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	if want := testEnterprisePath + "/app/installations/" + testInstallationID + "/access_tokens"; r.Method != http.MethodPost || r.URL.Path != want {
		f.refuse(w, http.StatusNotFound, fmt.Sprintf("want POST %s, got %s %s", want, r.Method, r.URL.Path))
		return
	}
	jwt, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(jwt, ".")
	if !ok || len(parts) != 3 {
		f.refuse(w, http.StatusUnauthorized, "no bearer JWT")
		return
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err != nil || rsa.VerifyPKCS1v15(f.pub, crypto.SHA256, digest[:], sig) != nil {
		f.refuse(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
		return
	}
	var header struct{ Alg string }
	var claims struct {
		Iat, Exp int64
		Iss      json.Number
	}
	h, _ := base64.RawURLEncoding.DecodeString(parts[0])
	c, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(h, &header) != nil || json.Unmarshal(c, &claims) != nil || header.Alg != "RS256" {
		f.refuse(w, http.StatusUnauthorized, "malformed JWT")
		return
	}
	now := f.clock.Now().Unix()
	switch {
	case claims.Iss.String() != testAppID:
		f.refuse(w, http.StatusUnauthorized, "iss is "+claims.Iss.String())
		return
	case claims.Iat > now || claims.Exp <= now || claims.Exp-claims.Iat > int64((10*time.Minute).Seconds()):
		f.refuse(w, http.StatusUnauthorized, fmt.Sprintf("'Expiration time' claim ('exp') is too far in the future or past: iat %d exp %d now %d", claims.Iat, claims.Exp, now))
		return
	}
	f.minted.Add(1)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"token": testAppToken, "expires_at": f.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
}

func rsaKeyPEM(t *testing.T) (*rsa.PrivateKey, []byte) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

// TestGitHubAppTokens: a GitHub App remote mints one installation token
// and reuses it for every fetch and push until five minutes before it
// expires, then mints the next; concurrent sessions share one request.
func TestGitHubAppTokens(t *testing.T) {
	t.Parallel()
	key, keyPEM := rsaKeyPEM(t)
	clock := testingclock.NewFakeClock(time.Now())
	gh := newFakeGitHub(t, &key.PublicKey, clock)
	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "repo.git", seed())
	git := testenv.NewHTTPServer(t, root, appTokenUser, testAppToken)
	remote := Remote{URL: git.RepoURL(repo.Name), Auth: &AppInstallationAuth{
		AppID: testAppID, InstallationID: testInstallationID, PrivateKey: keyPEM, APIURL: gh.URL + testEnterprisePath}}
	r, cache := newRepo(t, remote, WithClock(clock), WithIdleTimeout(0), WithCommitWindow(0)) // the fake clock stands still: no window to wait out

	minted := func(want int32, why string) {
		t.Helper()
		if got := gh.minted.Load(); got != want {
			t.Fatalf("%s: %d tokens minted, want %d (refusals: %v)", why, got, want, gh.errs)
		}
	}
	if _, err := r.Check(ctx(t)); err != nil {
		t.Fatal(err)
	}
	minted(1, "first use")
	for i := range 3 {
		if res := r.Submit(ctx(t), "main", putChange(fmt.Sprintf("app/%d", i), "x")); res.Err != nil {
			t.Fatal(res.Err)
		}
		if err := r.Refresh(ctx(t), 0, "main"); err != nil {
			t.Fatal(err)
		}
	}
	minted(1, "pushes and fetches within the token's hour")

	// Another repository of the same installation: its clone shares the
	// installation's token.
	other := testenv.NewBareRepo(t, root, "other.git", seed())
	r2, err := cache.Repository(Remote{URL: git.RepoURL(other.Name), Auth: remote.Auth})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Check(ctx(t)); err != nil {
		t.Fatal(err)
	}
	minted(1, "a second repository of the installation")

	clock.Step(54 * time.Minute)
	if _, err := r.Check(ctx(t)); err != nil {
		t.Fatal(err)
	}
	minted(1, "54 minutes in: still more than the refresh margin left")

	clock.Step(2 * time.Minute)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := r.Check(ctx(t))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	minted(2, "56 minutes in, 8 concurrent sessions")
	if got := repo.Files(t, "main")["app/2"]; got != "x" {
		t.Errorf("the pushes with the installation token did not land: %q", got)
	}
}

func TestGitHubAppRefused(t *testing.T) {
	t.Parallel()
	key, keyPEM := rsaKeyPEM(t)
	_, otherPEM := rsaKeyPEM(t)
	clock := testingclock.NewFakeClock(time.Now())
	gh := newFakeGitHub(t, &key.PublicKey, clock)
	s := httpServer(t)
	cases := map[string]struct {
		reason string
		auth   *AppInstallationAuth
		want   Kind
	}{
		"WrongKey": {reason: "GitHub refuses a JWT signed with another key: a human must fix the Secret.",
			auth: &AppInstallationAuth{AppID: testAppID, InstallationID: testInstallationID, PrivateKey: otherPEM, APIURL: gh.URL + testEnterprisePath}, want: KindAuth},
		"WrongInstallation": {reason: "An installation GitHub does not know is refused.",
			auth: &AppInstallationAuth{AppID: testAppID, InstallationID: "1", PrivateKey: keyPEM, APIURL: gh.URL + testEnterprisePath}, want: KindAuth},
		"NotAnRSAKey": {reason: "A key that is not RSA PEM is a configuration error.",
			auth: &AppInstallationAuth{AppID: testAppID, InstallationID: testInstallationID, PrivateKey: []byte("SECRET-garbage"), APIURL: gh.URL}, want: KindInvalid},
		"NoInstallation": {reason: "Both IDs are needed.",
			auth: &AppInstallationAuth{AppID: testAppID, PrivateKey: keyPEM}, want: KindInvalid},
		"BadAPIURL": {reason: "The API URL must be absolute.",
			auth: &AppInstallationAuth{AppID: testAppID, InstallationID: testInstallationID, PrivateKey: keyPEM, APIURL: "api.example.org"}, want: KindInvalid},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := NewCache(t.TempDir(), WithClock(clock), WithIdleTimeout(0))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			r, err := c.Repository(Remote{URL: s.remote.URL, Auth: tc.auth})
			if err == nil {
				_, err = r.Check(ctx(t))
			}
			t.Logf("error: %v", err)
			if diff := cmp.Diff(tc.want.String(), KindOf(err).String()); diff != "" {
				t.Errorf("%s\nkind: -want, +got:\n%s\nerror: %v", tc.reason, diff, err)
			}
			if err != nil && (strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "PRIVATE KEY")) {
				t.Errorf("%s\nthe error repeats the key: %v", tc.reason, err)
			}
		})
	}
}

// TestGitHubAppTokenNoRedirect: a token endpoint that redirects (to another
// host, or to plain http) gets no JWT there; the remote fails as
// misconfigured. Before, net/http followed with the JWT to a same-host
// http URL and to any host's copy of the Authorization-less request.
func TestGitHubAppTokenNoRedirect(t *testing.T) {
	t.Parallel()
	_, keyPEM := rsaKeyPEM(t)
	var got atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			got.Add(1)
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"token":"x","expires_at":"2099-01-01T00:00:00Z"}`))
	}))
	t.Cleanup(elsewhere.Close)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(api.Close)
	s := httpServer(t)
	c, err := NewCache(t.TempDir(), WithIdleTimeout(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	r, err := c.Repository(Remote{URL: s.remote.URL, Auth: &AppInstallationAuth{
		AppID: testAppID, InstallationID: testInstallationID, PrivateKey: keyPEM, APIURL: api.URL}})
	if err == nil {
		_, err = r.Check(ctx(t))
	}
	if diff := cmp.Diff(KindInvalid.String(), KindOf(err).String()); diff != "" {
		t.Errorf("a redirected token request: -want, +got kind:\n%s\n(%v)", diff, err)
	}
	if n := got.Load(); n > 0 {
		t.Errorf("the JWT reached the redirect's target %d times", n)
	}
}
