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

package commits_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// setSigning points the fixture's ProviderConfig at a signing key.
func setSigning(t *testing.T, f *e2e.Fixture, s *v1alpha1.CommitSigning) *v1alpha1.ProviderConfig {
	t.Helper()
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(pc), pc); err != nil {
			return err
		}
		pc.Spec.Commit.Signing = s
		return e2e.CP.Client.Update(context.Background(), pc)
	})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// publishesKey waits for pc to be Ready with a public key in its status.
func publishesKey(pc *v1alpha1.ProviderConfig) func() error {
	return func() error {
		if err := e2e.ConditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded); err != nil {
			return err
		}
		if pc.Status.Signing == nil || !strings.HasPrefix(pc.Status.Signing.PublicKey, "ssh-ed25519 ") {
			return fmt.Errorf("status.signing is %+v, want an ed25519 public key", pc.Status.Signing)
		}
		return nil
	}
}

// verifyAll runs git verify-commit on every commit of branch except those
// in foreign, which must fail it, and returns how many of ours verified.
func verifyAll(t *testing.T, f *e2e.Fixture, branch, publicKey string, foreign map[string]bool) int {
	t.Helper()
	ours := 0
	for _, e := range f.Repo.Log(t, branch) {
		err := f.Repo.VerifyCommit(t, e.SHA, publicKey)
		switch {
		case foreign[e.SHA] && err == nil:
			t.Errorf("foreign unsigned commit %s verified", e.SHA[:7])
		case !foreign[e.SHA] && err != nil:
			t.Errorf("commit %s %q: git verify-commit: %v", e.SHA[:7], e.Message, err)
		case !foreign[e.SHA]:
			ours++
		}
	}
	return ours
}

// recordWrites counts the provider's writes to Secrets and ProviderConfigs.
type recordWrites struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []string
}

func (r *recordWrites) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && (strings.Contains(req.URL.Path, "/secrets") || strings.Contains(req.URL.Path, "/providerconfigs/")) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Method+" "+req.URL.Path)
		r.mu.Unlock()
	}
	return r.next.RoundTrip(req)
}

func (r *recordWrites) writes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// TestGeneratedSigningKeySignsEveryCommit: a ProviderConfig that asks for a
// generated key gets one Secret, publishes its public key, and every commit
// the provider pushes with it verifies with git verify-commit: the first
// commit of an empty repository, a batch of Files, a CommitRequest, and a
// change made after a foreign push. A restarted provider keeps the key and,
// in steady state, writes neither the Secret nor the ProviderConfig.
func TestGeneratedSigningKeySignsEveryCommit(t *testing.T) {
	dir := t.TempDir()
	p := e2e.StartProvider(t, dir)
	ctx := context.Background()
	f := e2e.NewFixtureOf(t, nil)
	pc := setSigning(t, f, &v1alpha1.CommitSigning{SecretRef: v1alpha1.SigningKeySecretRef{Name: "signing"}, GenerateWhenMissing: true})
	e2e.WaitFor(t, 30*time.Second, pc, publishesKey(pc))
	pub := pc.Status.Signing.PublicKey

	key := &corev1.Secret{}
	if err := e2e.CP.Client.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: "signing"}, key); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(key.Data["identity.pub"]), pub+" ") {
		t.Errorf("the Secret's identity.pub %q is not the published key %q", key.Data["identity.pub"], pub)
	}
	if s, err := git.NewSSHSigner(key.Data["identity"]); err != nil || s.PublicKey() != pub {
		t.Fatalf("the Secret's identity does not hold the published key: %v", err)
	}
	if key.Labels[config.LabelGeneratedSigningKey] != "true" {
		t.Errorf("the generated Secret is not labelled %s", config.LabelGeneratedSigningKey)
	}

	// The empty repository's first commit, then a batch and a CommitRequest.
	b := e2e.NewBranch(f, "main", "main", "")
	e2e.Create(t, b)
	e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
	a, c := e2e.NewFile(f, "a", "apps/a.yaml", "a: 1\n"), e2e.NewFile(f, "c", "apps/c.yaml", "c: 1\n")
	e2e.Create(t, a)
	e2e.Create(t, c)
	cr := e2e.NewCommitRequest(f, "release", e2e.ReleaseMessage, v1alpha1.CommitFile{Path: "VERSION", Content: ptr.To("1.2\n")})
	e2e.Create(t, cr)
	for _, o := range []interface {
		client.Object
		GetCondition(xpv2.ConditionType) xpv2.Condition
	}{a, c, cr} {
		e2e.WaitFor(t, 30*time.Second, o, e2e.ReadyAndCurrent(t, o))
	}

	// A foreign push, then a change on top of it.
	foreign, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "foreign", Files: map[string]string{"foreign": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	e2e.SetContent(t, a, "a: 2\n")
	f.WaitRemote(t, "main", map[string]string{"apps/a.yaml": "a: 2\n", "apps/c.yaml": "c: 1\n", "VERSION": "1.2\n", "foreign": "x"})
	e2e.WritesLanded(t)
	if n := verifyAll(t, f, "main", pub, map[string]bool{foreign: true}); n < 4 {
		t.Errorf("verified %d commits of the provider's, want at least 4 (first commit, batch, CommitRequest, after the foreign push)", n)
	}

	// Restart on the same cache: the key is not regenerated, and steady
	// state writes neither the Secret nor the ProviderConfig.
	keyVersion := key.ResourceVersion
	p.Stop()
	rec := &recordWrites{}
	e2e.StartProvider(t, dir, e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec }))
	before := e2e.HTTPGit.Counts().UploadPackAdverts
	// The configuration's check asks the server for its references at every
	// poll: a few of them prove the restarted provider reconciled it.
	testenv.Eventually(t, 30*time.Second, func() error {
		if n := e2e.HTTPGit.Counts().UploadPackAdverts - before; n < 4 {
			return fmt.Errorf("%d reference advertisements since the restart, want 4", n)
		}
		return nil
	})
	e2e.WaitFor(t, 30*time.Second, pc, publishesKey(pc))
	if diff := cmp.Diff(pub, pc.Status.Signing.PublicKey); diff != "" {
		t.Errorf("published key after restart: -want, +got:\n%s", diff)
	}
	if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(key), key); err != nil {
		t.Fatal(err)
	}
	if key.ResourceVersion != keyVersion {
		t.Errorf("the signing key Secret changed across a restart: resourceVersion %s -> %s", keyVersion, key.ResourceVersion)
	}
	if w := rec.writes(); len(w) != 0 {
		t.Errorf("steady state after restart wrote %v, want nothing", w)
	}
	e2e.SetContent(t, c, "c: 2\n")
	f.WaitRemote(t, "main", map[string]string{"apps/a.yaml": "a: 2\n", "apps/c.yaml": "c: 2\n", "VERSION": "1.2\n", "foreign": "x"})
	e2e.WritesLanded(t)
	if head := f.Repo.Head(t, "main"); f.Repo.VerifyCommit(t, head, pub) != nil {
		t.Errorf("the commit after the restart %s does not verify with the key published before it", head[:7])
	}
	// A forge verifies a signature against the committer's account: the
	// configuration's author, not the provider's default identity.
	ce, err := testenv.Git(f.Repo.Dir, nil, "log", "-1", "--format=%ce", "main")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("e2e@example.org", strings.TrimSpace(ce)); diff != "" {
		t.Errorf("committer of a signed commit: -want, +got:\n%s", diff)
	}
}

// TestUnusableSigningKeyPushesNothing: a signing key that is not ed25519, or
// not a key, stalls the ProviderConfig and its resources with a reason
// saying so, and nothing reaches the repository until the Secret is fixed.
func TestUnusableSigningKeyPushesNothing(t *testing.T) {
	e2e.StartProvider(t, "")
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason string
		key    []byte
	}{
		"ECDSA":      {reason: "Only ed25519 keys sign.", key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})},
		"Unreadable": {reason: "Bytes that are no key at all.", key: []byte("not a key")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := e2e.NewFixture(t)
			e2e.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "signing"}, Data: map[string][]byte{"identity": tc.key}})
			pc := setSigning(t, f, &v1alpha1.CommitSigning{SecretRef: v1alpha1.SigningKeySecretRef{Name: "signing"}})
			e2e.WaitFor(t, 30*time.Second, pc, e2e.StalledWith(t, pc, config.ReasonSigningKeyInvalid))
			if msg := pc.GetCondition(session.TypeStalled).Message; !strings.Contains(msg, "ed25519") {
				t.Errorf("%s\nthe Stalled message %q does not say what key is needed", tc.reason, msg)
			}
			head := f.Repo.Head(t, "main")
			fl := e2e.NewFile(f, "a", "apps/a.yaml", "a: 1\n")
			e2e.Create(t, fl)
			e2e.WaitFor(t, 30*time.Second, fl, e2e.StalledWith(t, fl, config.ReasonSigningKeyInvalid))
			if got := f.Repo.Head(t, "main"); got != head {
				t.Fatalf("%s\na commit %s reached the repository with an unusable signing key", tc.reason, got[:7])
			}

			// A good key in the same Secret converges both, signed.
			priv, pub, err := git.GenerateSSHKey("")
			if err != nil {
				t.Fatal(err)
			}
			e2e.SetSecretData(t, f.Namespace, "signing", map[string][]byte{"identity": priv})
			e2e.WaitFor(t, 30*time.Second, pc, publishesKey(pc))
			e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
			if err := f.Repo.VerifyCommit(t, f.Repo.Head(t, "main"), pub); err != nil {
				t.Errorf("%s\nthe commit after the fix: %v", tc.reason, err)
			}
		})
	}
}
