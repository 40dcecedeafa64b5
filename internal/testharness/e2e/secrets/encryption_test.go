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
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/getsops/sops/v3/decrypt"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/manifest"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

const (
	secretPassword = "hunter2-correct-horse-battery"
	secretToken    = "tok-9f8e7d6c5b4a"
)

// secretObject is a Secret with one value in data (base64) and one in
// stringData.
var secretObject = []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"app"},"type":"Opaque",` +
	`"data":{"password":"` + base64.StdEncoding.EncodeToString([]byte(secretPassword)) + `"},"stringData":{"token":"` + secretToken + `"}}`)

// setEncryption points the fixture's ProviderConfig at age keys.
func setEncryption(t *testing.T, f *e2e.Fixture, e *v1alpha1.Encryption) *v1alpha1.ProviderConfig {
	t.Helper()
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(pc), pc); err != nil {
			return err
		}
		pc.Spec.Encryption = e
		return e2e.CP.Client.Update(context.Background(), pc)
	})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// publishesRecipients waits for pc to be Ready and to publish want (plus its
// own key) as its recipients.
func publishesRecipients(pc *v1alpha1.ProviderConfig, want ...string) func() error {
	return func() error {
		if err := e2e.ConditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded); err != nil {
			return err
		}
		st := pc.Status.Encryption
		if st == nil || !strings.HasPrefix(st.PublicKey, "age1") {
			return fmt.Errorf("status.encryption is %+v, want an age public key", st)
		}
		for _, r := range append(want, st.PublicKey) {
			if !slices.Contains(st.Recipients, r) {
				return fmt.Errorf("status.encryption.recipients %v lacks %s", st.Recipients, r)
			}
		}
		if len(st.Recipients) != len(want)+1 {
			return fmt.Errorf("status.encryption.recipients is %v, want %d", st.Recipients, len(want)+1)
		}
		return nil
	}
}

// statusWrites counts the provider's status writes in one namespace.
type statusWrites struct {
	next http.RoundTripper
	ns   string
	mu   sync.Mutex
	seen []string
}

func (r *statusWrites) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && strings.HasSuffix(req.URL.Path, "/status") && strings.Contains(req.URL.Path, "/namespaces/"+r.ns+"/") {
		r.mu.Lock()
		r.seen = append(r.seen, req.Method+" "+req.URL.Path)
		r.mu.Unlock()
	}
	return r.next.RoundTrip(req)
}

func (r *statusWrites) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// sopsDecrypt decrypts doc the way the sops tool does, with identity.
func sopsDecrypt(t *testing.T, doc, identity string) string {
	t.Helper()
	t.Setenv("SOPS_AGE_KEY", identity)
	out, err := decrypt.Data([]byte(doc), "yaml")
	if err != nil {
		t.Fatalf("sops decrypt: %v\n%s", err, doc)
	}
	return string(out)
}

// noPlaintextInHistory greps every object of the repository (reachable or
// not) for the Secret's values, raw and base64.
func noPlaintextInHistory(t *testing.T, f *e2e.Fixture) {
	t.Helper()
	all := f.GitOut(t, "cat-file", "--batch-all-objects", "--batch")
	if all == "" {
		t.Fatal("the repository has no objects")
	}
	for _, v := range []string{secretPassword, base64.StdEncoding.EncodeToString([]byte(secretPassword)), secretToken} {
		if n := strings.Count(all, v); n != 0 {
			t.Errorf("the repository's objects hold the secret value %q %d times", v, n)
		}
	}
}

// TestEncryptedSecretFile: with encryption configured, a File whose object
// is a Secret writes a SOPS document that SOPS decrypts, with the
// provider's generated identity and with another recipient's, to the
// Secret; no object of the repository holds a secret value; steady state,
// across polls and across a restart (when nothing remembers the last
// encryption), makes no commit and no status write; a new recipient
// re-encrypts the file in one commit.
func TestEncryptedSecretFile(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	dir := t.TempDir()
	rec := &statusWrites{ns: f.Namespace}
	p := e2e.StartProvider(t, dir, e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec }))
	fluxID, fluxRecipient, err := encrypt.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	enc := &v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{
		Recipients:          []string{fluxRecipient},
		IdentitySecretRef:   v1alpha1.AgeIdentitySecretRef{Name: "sops-age"},
		GenerateWhenMissing: true,
	}}
	pc := setEncryption(t, f, enc)
	e2e.WaitFor(t, 30*time.Second, pc, publishesRecipients(pc, fluxRecipient))
	idSecret := &corev1.Secret{}
	if err := e2e.CP.Client.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: "sops-age"}, idSecret); err != nil {
		t.Fatal(err)
	}
	providerID := strings.TrimSpace(string(idSecret.Data[config.DefaultAgeIdentityKey]))
	if got := strings.TrimSpace(string(idSecret.Data[config.DefaultAgeIdentityKey+".pub"])); got != pc.Status.Encryption.PublicKey {
		t.Errorf("the identity Secret's public key %q is not the published %q", got, pc.Status.Encryption.PublicKey)
	}

	fl := e2e.NewFile(f, "db", "apps/db.sops.yaml", "")
	fl.Spec.ForProvider.Content = nil
	fl.Spec.ForProvider.Object = &runtime.RawExtension{Raw: secretObject}
	e2e.Create(t, fl)
	e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
	e2e.WritesLanded(t)

	plain, err := manifest.RenderForEncryption(secretObject)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Files(t, "main")["apps/db.sops.yaml"]
	for name, id := range map[string]string{"provider": providerID, "flux": fluxID} {
		got := sopsDecrypt(t, doc, id)
		if same, err := encrypt.SameManifest(plain, []byte(got)); err != nil || !same {
			t.Errorf("decrypted with the %s identity, the file is not the Secret (err %v):\n%s", name, err, got)
		}
	}
	noPlaintextInHistory(t, f)

	// The usage count is written config.UsageDebounce after its last
	// change: let it land before the steady state is measured (a status
	// write of its own, which landed inside the measurement when the steps
	// above took less than the debounce) and before the restart, or the
	// restarted provider writes it, rightly.
	pcNow := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
	e2e.WaitFor(t, 30*time.Second, pcNow, func() error {
		if pcNow.Status.Users != 1 {
			return fmt.Errorf("ProviderConfig counts %d users, want 1", pcNow.Status.Users)
		}
		return nil
	})
	// Steady state: wakes as Git events would, then a restart.
	head := f.Repo.Head(t, "main")
	before := rec.count()
	f.Stays(t, fl, false, "main", head, "an unchanged Secret must not be committed again")
	if n := rec.count() - before; n != 0 {
		t.Errorf("steady state wrote status %d times, want 0: %v", n, rec.seen[before:])
	}
	p.Stop()
	rec2 := &statusWrites{ns: f.Namespace}
	e2e.StartProvider(t, dir, e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper { rec2.next = rt; return rec2 }))
	f.Stays(t, fl, false, "main", head, "a restarted provider must recognise the Secret it encrypted")
	if n := rec2.count(); n != 0 {
		t.Errorf("steady state after a restart wrote status %d times, want 0: %v", n, rec2.seen)
	}

	// A new recipient: one commit re-encrypts the file for it.
	_, teamRecipient, err := encrypt.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	enc.Age.Recipients = append(enc.Age.Recipients, teamRecipient)
	setEncryption(t, f, enc)
	e2e.WaitFor(t, 30*time.Second, pc, publishesRecipients(pc, fluxRecipient, teamRecipient))
	// Nothing else wakes the File: its configuration's new recipients do.
	testenv.Eventually(t, 30*time.Second, func() error {
		if !strings.Contains(f.Files(t, "main")["apps/db.sops.yaml"], teamRecipient) {
			return fmt.Errorf("the file is not encrypted to the new recipient yet")
		}
		return nil
	})
	e2e.WritesLanded(t)
	if n := len(f.Repo.Log(t, "main")) - len(f.Repo.Log(t, head)); n != 1 {
		t.Errorf("re-encrypting for a new recipient took %d commits, want 1", n)
	}
	f.Stays(t, fl, false, "main", f.Repo.Head(t, "main"), "re-encrypted once, then steady")
	noPlaintextInHistory(t, f)
}

// TestEncryptionKeyInvalid: a recipient that is not an age key stalls the
// ProviderConfig, and its Secret File, with a reason naming the problem;
// nothing reaches the repository until it is fixed.
func TestEncryptionKeyInvalid(t *testing.T) {
	e2e.StartProvider(t, "")
	f := e2e.NewFixture(t)
	e2e.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "team"}, Data: map[string][]byte{"recipients": []byte("age1notakey\n")}})
	pc := setEncryption(t, f, &v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{
		RecipientsSecretRef: &v1alpha1.AgeRecipientsSecretRef{Name: "team"},
		IdentitySecretRef:   v1alpha1.AgeIdentitySecretRef{Name: "sops-age"},
		GenerateWhenMissing: true,
	}})
	e2e.WaitFor(t, 30*time.Second, pc, e2e.StalledWith(t, pc, config.ReasonEncryptionKeyInvalid))
	if msg := pc.GetCondition(session.TypeStalled).Message; !strings.Contains(msg, `"age1notakey"`) {
		t.Errorf("the Stalled message %q does not name the bad recipient", msg)
	}
	head := f.Repo.Head(t, "main")
	fl := e2e.NewFile(f, "db", "apps/db.sops.yaml", "")
	fl.Spec.ForProvider.Content = nil
	fl.Spec.ForProvider.Object = &runtime.RawExtension{Raw: secretObject}
	e2e.Create(t, fl)
	e2e.WaitFor(t, 30*time.Second, fl, e2e.StalledWith(t, fl, config.ReasonEncryptionKeyInvalid))
	if got := f.Repo.Head(t, "main"); got != head {
		t.Fatalf("a commit %s reached the repository with a garbled recipient", got[:7])
	}

	_, r, err := encrypt.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	e2e.SetSecretData(t, f.Namespace, "team", map[string][]byte{"recipients": []byte("# team\n" + r + "\n")})
	e2e.WaitFor(t, 30*time.Second, pc, publishesRecipients(pc, r))
	e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
	if doc := f.Files(t, "main")["apps/db.sops.yaml"]; !strings.Contains(doc, r) {
		t.Errorf("the file is not encrypted to the fixed recipient:\n%s", doc)
	}
	noPlaintextInHistory(t, f)
}
