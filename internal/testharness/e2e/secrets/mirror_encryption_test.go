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
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/manifest"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// renderedSecret is the plaintext manifest a live Secret is encrypted from.
func renderedSecret(t *testing.T, s *corev1.Secret) []byte {
	t.Helper()
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(s), s); err != nil {
		t.Fatal(err)
	}
	s.APIVersion, s.Kind = "v1", "Secret"
	j, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	out, err := manifest.RenderForEncryption(j)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// generatedIdentity turns on encryption for f's ProviderConfig with an age
// identity the provider generates into the Secret sops-age, waits until
// the configuration publishes it, and returns the configuration and the
// identity, to decrypt what the provider writes.
func generatedIdentity(t *testing.T, f *e2e.Fixture) (*v1alpha1.ProviderConfig, string) {
	t.Helper()
	pc := setEncryption(t, f, &v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{
		IdentitySecretRef:   v1alpha1.AgeIdentitySecretRef{Name: "sops-age"},
		GenerateWhenMissing: true,
	}})
	e2e.WaitFor(t, 30*time.Second, pc, publishesRecipients(pc))
	idSecret := &corev1.Secret{}
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: f.Namespace, Name: "sops-age"}, idSecret); err != nil {
		t.Fatal(err)
	}
	return pc, strings.TrimSpace(string(idSecret.Data[config.DefaultAgeIdentityKey]))
}

// TestMirrorEncryptsSecrets: with encryption configured, a Mirror that
// selects Secrets writes each as a SOPS document at {name}.sops.yaml that
// SOPS decrypts, with the provider's identity, to the live Secret; no object
// of the repository holds a secret value; an unchanged Secret makes no
// commit over several observations, and a changed one makes exactly one.
func TestMirrorEncryptsSecrets(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	ns := f.Namespace
	pc, identity := generatedIdentity(t, f)
	// Mirroring Secrets needs a cluster administrator's grant.
	cpc, ref := secretsCPC(t, f, pc.Spec.Encryption)
	e2e.WaitFor(t, 30*time.Second, cpc, clusterPublishesRecipients(cpc))

	demo := e2e.ConfigMap(ns, "demo", map[string]string{"app": "demo"}, map[string]string{"k": "1"})
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db", Labels: map[string]string{"app": "demo"}},
		Data:       map[string][]byte{"password": []byte(secretPassword)},
		StringData: map[string]string{"token": secretToken},
	}
	for _, o := range []client.Object{demo, secret} {
		e2e.Create(t, o)
	}
	// The selector keeps the identity Secret, which lives in the same
	// namespace, out of the folder.
	m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{
		Resources:     []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "v1", Kind: "Secret"}},
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "demo"}},
	}, ref)
	e2e.Create(t, m)
	secretPath := fmt.Sprintf("%s/%s/core/secret/db.sops.yaml", e2e.MirrorFolder, ns)
	decrypted := func(want []byte) error {
		doc, ok := f.Mirrored(t)[secretPath]
		if !ok {
			return fmt.Errorf("%s is not in the folder yet", secretPath)
		}
		got := sopsDecrypt(t, doc, identity)
		same, err := encrypt.SameManifest(want, []byte(got))
		if err != nil {
			return err
		}
		if !same {
			return fmt.Errorf("decrypted, %s is not the live Secret:\n%s", secretPath, got)
		}
		return nil
	}
	testenv.Eventually(t, 30*time.Second, func() error { return decrypted(renderedSecret(t, secret)) })
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	e2e.WritesLanded(t)
	files := f.Mirrored(t)
	if len(files) != 2 || files[e2e.ObjPath(ns, "core", "configmap", "demo")] != e2e.Rendered(t, demo) {
		t.Errorf("the folder holds %d files, want the ConfigMap and the Secret: %v", len(files), keys(files))
	}
	if msg := m.GetCondition(xpv2.TypeReady).Message; strings.Contains(msg, "Secret") {
		t.Errorf("Ready's message says Secrets were left out, but they are mirrored encrypted: %q", msg)
	}
	noPlaintextInHistory(t, f)

	// Steady state: Git events and user pokes find the same Secret.
	head := f.Repo.Head(t, "main")
	f.Stays(t, m, false, "main", head, "an unchanged Secret must not be committed again")
	f.Stays(t, m, true, "main", head, "an unchanged Secret must not be committed again")

	// A changed Secret: one commit.
	const newToken = "tok-rotated-0a1b2c3d"
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(secret), secret); err != nil {
			return err
		}
		secret.Data["token"] = []byte(newToken)
		return e2e.CP.Client.Update(ctx, secret)
	})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, func() error { return decrypted(renderedSecret(t, secret)) })
	e2e.WritesLanded(t)
	if n := len(f.Repo.Log(t, "main")) - len(f.Repo.Log(t, head)); n != 1 {
		t.Errorf("a changed Secret took %d commits, want 1", n)
	}
	f.Stays(t, m, false, "main", f.Repo.Head(t, "main"), "the changed Secret, once committed, must not be committed again")
	noPlaintextInHistory(t, f)
	all := f.GitOut(t, "cat-file", "--batch-all-objects", "--batch")
	for _, v := range []string{newToken, base64.StdEncoding.EncodeToString([]byte(newToken))} {
		if strings.Contains(all, v) {
			t.Errorf("the repository's objects hold the new secret value %q", v)
		}
	}

	// A new recipient: its configuration's change, and nothing else, wakes
	// the Mirror, which re-encrypts the Secret for it in one commit.
	_, teamRecipient, err := encrypt.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	head = f.Repo.Head(t, "main")
	setClusterEncryption(t, cpc, ns, &v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{
		IdentitySecretRef: v1alpha1.AgeIdentitySecretRef{Name: "sops-age"},
		Recipients:        []string{teamRecipient},
	}})
	e2e.WaitFor(t, 30*time.Second, cpc, clusterPublishesRecipients(cpc, teamRecipient))
	testenv.Eventually(t, 30*time.Second, func() error {
		if !strings.Contains(f.Mirrored(t)[secretPath], teamRecipient) {
			return fmt.Errorf("%s is not encrypted to the new recipient yet", secretPath)
		}
		return decrypted(renderedSecret(t, secret))
	})
	e2e.WritesLanded(t)
	if n := len(f.Repo.Log(t, "main")) - len(f.Repo.Log(t, head)); n != 1 {
		t.Errorf("re-encrypting for a new recipient took %d commits, want 1", n)
	}

	// Encryption removed: the Secret is no longer read, its file goes (the
	// default prune), and Ready says Secrets are left out; the
	// configuration's change wakes the Mirror.
	setClusterEncryption(t, cpc, ns, nil)
	testenv.Eventually(t, 30*time.Second, func() error {
		if _, ok := f.Mirrored(t)[secretPath]; ok {
			return fmt.Errorf("%s is still in the folder", secretPath)
		}
		return nil
	})
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "Secret") {
		t.Errorf("without encryption, Ready's message does not say Secrets were left out: %q", msg)
	}
	if diff := cmp.Diff(map[string]string{e2e.ObjPath(ns, "core", "configmap", "demo"): e2e.Rendered(t, demo)}, f.Mirrored(t)); diff != "" {
		t.Errorf("without encryption the folder holds: -want, +got:\n%s", diff)
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestMirrorNeverMirrorsConfigurationSecrets: a Mirror with encryption that
// selects every Secret of its namespace mirrors an application's Secret but
// never the age identity Secret its ProviderConfig decrypts with, nor any
// other Secret a configuration reads, even encrypted, and says so in Ready.
func TestMirrorNeverMirrorsConfigurationSecrets(t *testing.T) {
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	ns := f.Namespace
	pc, identity := generatedIdentity(t, f)
	cpc, ref := secretsCPC(t, f, pc.Spec.Encryption)
	e2e.WaitFor(t, 30*time.Second, cpc, clusterPublishesRecipients(cpc))
	app := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
		Data:       map[string][]byte{"password": []byte(secretPassword)},
	}
	e2e.Create(t, app)

	// No selector: every Secret of the namespace is a candidate.
	m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{
		Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "Secret"}},
	}, ref)
	e2e.Create(t, m)
	appPath := fmt.Sprintf("%s/%s/core/secret/app.sops.yaml", e2e.MirrorFolder, ns)
	testenv.Eventually(t, 30*time.Second, func() error {
		if _, ok := f.Mirrored(t)[appPath]; !ok {
			return fmt.Errorf("%s is not in the folder yet", appPath)
		}
		return nil
	})
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	e2e.WritesLanded(t)
	files := f.Mirrored(t)
	for p := range files {
		if strings.Contains(p, "sops-age") {
			t.Errorf("the age identity Secret is in the folder at %s", p)
		}
	}
	if got := sopsDecrypt(t, files[appPath], identity); !strings.Contains(got, base64.StdEncoding.EncodeToString([]byte(secretPassword))) {
		t.Errorf("the application's Secret does not decrypt to its data:\n%s", got)
	}
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "Secrets a ProviderConfig reads") || !strings.Contains(msg, "sops-age") {
		t.Errorf("Ready's message does not say the identity Secret was left out: %q", msg)
	}
	// The identity itself is nowhere in the repository, encrypted or not.
	if strings.Contains(f.GitOut(t, "cat-file", "--batch-all-objects", "--batch"), identity) {
		t.Error("the age identity is in the repository")
	}
}
