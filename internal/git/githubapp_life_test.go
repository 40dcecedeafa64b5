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
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// appSources is how many GitHub App token sources the cache holds.
func appSources(c *Cache) int {
	c.appsMu.Lock()
	defer c.appsMu.Unlock()
	return len(c.apps)
}

// TestGitHubAppSourcePerConnection: configurations that share an App but
// trust different CAs get a token source each, so the token request goes
// through each one's own TLS settings; a source goes with the last clone
// that uses it.
func TestGitHubAppSourcePerConnection(t *testing.T) {
	t.Parallel()
	key, keyPEM := rsaKeyPEM(t)
	clock := testingclock.NewFakeClock(time.Now())
	gh := &fakeGitHub{pub: &key.PublicKey, clock: clock}
	gh.Server = httptest.NewTLSServer(http.HandlerFunc(gh.serve))
	t.Cleanup(gh.Close)
	ghCA := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: gh.Certificate().Raw})

	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "repo.git", seed())
	git, gitCA := testenv.NewHTTPSServer(t, root, appTokenUser, testAppToken)
	auth := &AppInstallationAuth{AppID: testAppID, InstallationID: testInstallationID, PrivateKey: keyPEM, APIURL: gh.URL + testEnterprisePath}
	c, err := NewCache(t.TempDir(), WithClock(clock), WithIdleTimeout(time.Minute), WithCommitWindow(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)

	trusting, err := c.Repository(Remote{URL: git.RepoURL(repo.Name), Auth: auth, CABundle: append(append([]byte{}, gitCA...), ghCA...)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trusting.Check(ctx(t)); err != nil {
		t.Fatalf("a CA bundle trusting both servers: %v", err)
	}
	// The same App, but a bundle that does not trust the API server: its
	// token request must fail on the certificate, not borrow the first
	// clone's client.
	distrusting, err := c.Repository(Remote{URL: git.RepoURL(repo.Name), Auth: auth, CABundle: gitCA})
	if err != nil {
		t.Fatal(err)
	}
	_, err = distrusting.Check(ctx(t))
	if diff := cmp.Diff(KindCertificate.String(), KindOf(err).String()); diff != "" {
		t.Errorf("a CA bundle that does not trust the API server: kind -want, +got:\n%s\nerror: %v", diff, err)
	}
	if got := appSources(c); got != 2 {
		t.Errorf("token sources for one App under two CA bundles: got %d, want 2", got)
	}

	clock.Step(2 * time.Minute)
	c.Sweep()
	if got := appSources(c); got != 0 {
		t.Errorf("token sources after every clone was evicted: got %d, want 0", got)
	}
}

// TestGitHubAppSourceRotation: after the App's key rotates, the old key's
// source (and its RSA key) goes when its clone does, and the new one stays.
func TestGitHubAppSourceRotation(t *testing.T) {
	t.Parallel()
	_, oldPEM := rsaKeyPEM(t)
	_, newPEM := rsaKeyPEM(t)
	clock := testingclock.NewFakeClock(time.Now())
	s := httpServer(t)
	c, err := NewCache(t.TempDir(), WithClock(clock), WithIdleTimeout(time.Minute), WithCommitWindow(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	app := func(pemKey []byte) Remote {
		return Remote{URL: s.remote.URL, Auth: &AppInstallationAuth{AppID: testAppID, InstallationID: testInstallationID, PrivateKey: pemKey, APIURL: "https://ghe.example.org/api/v3"}}
	}
	if _, err := c.Repository(app(oldPEM)); err != nil {
		t.Fatal(err)
	}
	clock.Step(2 * time.Minute)
	rotated, err := c.Repository(app(newPEM))
	if err != nil {
		t.Fatal(err)
	}
	c.Sweep()
	if got := appSources(c); got != 1 {
		t.Fatalf("token sources after the old key's clone was evicted: got %d, want 1", got)
	}
	for _, left := range c.apps {
		if left != rotated.conn.app {
			t.Errorf("the source left is not the rotated key's")
		}
	}
}
