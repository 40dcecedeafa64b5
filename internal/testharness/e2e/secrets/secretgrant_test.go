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
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// secretsCPC is f's configuration as a ClusterProviderConfig, with
// encryption enc (its Secrets in f's namespace), whose mirror policy grants
// Mirrors of f's namespace that namespace's Secrets: what a cluster
// administrator writes so that a Mirror may mirror Secrets.
func secretsCPC(t *testing.T, f *e2e.Fixture, enc *v1alpha1.Encryption) (*v1alpha1.ClusterProviderConfig, *xpv2.ProviderConfigReference) {
	t.Helper()
	pc := &v1alpha1.ProviderConfig{}
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: f.Namespace, Name: "git"}, pc); err != nil {
		t.Fatal(err)
	}
	cpc := &v1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "secrets-" + f.Namespace},
		Spec: v1alpha1.ClusterProviderConfigSpec{
			URL: pc.Spec.URL,
			Credentials: v1alpha1.ClusterProviderCredentials{Source: xpv2.CredentialsSourceSecret,
				SecretRef: &v1alpha1.CredentialsSecretRef{Namespace: f.Namespace, Name: pc.Spec.Credentials.SecretRef.Name}},
			Encryption: inNamespace(enc, f.Namespace),
			Mirror:     &v1alpha1.MirrorPolicy{MirrorNamespaces: []string{f.Namespace}, SecretNamespaces: []string{f.Namespace}},
		},
	}
	e2e.Create(t, cpc)
	t.Cleanup(func() { _ = e2e.CP.Client.Delete(context.Background(), cpc) })
	return cpc, &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: cpc.Name}
}

// inNamespace is enc with its Secret references in ns, as a
// ClusterProviderConfig needs them.
func inNamespace(enc *v1alpha1.Encryption, ns string) *v1alpha1.Encryption {
	if enc == nil {
		return nil
	}
	out := enc.DeepCopy()
	out.Age.IdentitySecretRef.Namespace = ns
	if r := out.Age.RecipientsSecretRef; r != nil {
		r.Namespace = ns
	}
	return out
}

// setClusterEncryption sets cpc's encryption (its Secrets in ns).
func setClusterEncryption(t *testing.T, cpc *v1alpha1.ClusterProviderConfig, ns string, enc *v1alpha1.Encryption) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(cpc), cpc); err != nil {
			return err
		}
		cpc.Spec.Encryption = inNamespace(enc, ns)
		return e2e.CP.Client.Update(context.Background(), cpc)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// clusterPublishesRecipients waits for cpc to be Ready and to publish want
// (plus its own key) as its recipients.
func clusterPublishesRecipients(cpc *v1alpha1.ClusterProviderConfig, want ...string) func() error {
	return func() error {
		if err := e2e.ConditionIs(cpc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded); err != nil {
			return err
		}
		st := cpc.Status.Encryption
		if st == nil || !strings.HasPrefix(st.PublicKey, "age1") {
			return fmt.Errorf("status.encryption is %+v, want an age public key", st)
		}
		for _, r := range append(want, st.PublicKey) {
			if !slices.Contains(st.Recipients, r) {
				return fmt.Errorf("status.encryption.recipients %v lacks %s", st.Recipients, r)
			}
		}
		return nil
	}
}

// TestMirrorSecretsNeedAGrant: with encryption on, a Mirror through its
// namespace's ProviderConfig, or through a ClusterProviderConfig whose
// policy does not list the namespace in secretNamespaces, mirrors its
// ConfigMaps, says in Ready's message why its Secrets are not, and the
// provider neither lists nor watches a Secret of the namespace: not one
// request for the namespace's Secret collection. The grant makes them SOPS
// files.
func TestMirrorSecretsNeedAGrant(t *testing.T) {
	rec := &secretRecorder{}
	e2e.StartProvider(t, "", e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec }))
	f := e2e.NewFixture(t)
	ns := f.Namespace
	pc, identity := generatedIdentity(t, f)
	demo := e2e.ConfigMap(ns, "demo", map[string]string{"app": "demo"}, map[string]string{"k": "1"})
	db := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db", Labels: map[string]string{"app": "demo"}},
		Data: map[string][]byte{"password": []byte(secretPassword)}}
	e2e.Create(t, demo)
	e2e.Create(t, db)
	params := func(path string) v1alpha1.MirrorParameters {
		return v1alpha1.MirrorParameters{Path: path,
			Resources:     []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "v1", Kind: "Secret"}},
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "demo"}},
		}
	}

	viaPC := e2e.NewMirror(ns, "via-pc", params("via-pc"), e2e.PCRef())
	e2e.Create(t, viaPC)
	cpc, ref := secretsCPC(t, f, pc.Spec.Encryption)
	e2e.WaitFor(t, 30*time.Second, cpc, clusterPublishesRecipients(cpc))
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(cpc), cpc); err != nil {
		t.Fatal(err)
	}
	cpc.Spec.Mirror.SecretNamespaces = nil
	if err := e2e.CP.Client.Update(context.Background(), cpc); err != nil {
		t.Fatal(err)
	}
	ungranted := e2e.NewMirror(ns, "ungranted", params("ungranted"), ref)
	e2e.Create(t, ungranted)
	for _, m := range []*v1alpha1.Mirror{viaPC, ungranted} {
		e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
		if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "secretNamespaces") || !strings.Contains(msg, "Secrets") {
			t.Errorf("%s: Ready's message does not say Secrets need the grant: %q", m.Name, msg)
		}
	}
	e2e.WritesLanded(t)
	files := f.Files(t, "main")
	for _, p := range []string{"via-pc", "ungranted"} {
		if got := files[fmt.Sprintf("%s/%s/core/configmap/demo.yaml", p, ns)]; got != e2e.Rendered(t, demo) {
			t.Errorf("%s: the ConfigMap is not mirrored beside the Secrets left out: %q", p, got)
		}
		for path := range files {
			if strings.HasPrefix(path, p+"/") && strings.Contains(path, "/secret/") {
				t.Errorf("%s: a Secret is in the folder without the grant: %s", p, path)
			}
		}
	}
	if reqs := rec.collections()[ns]; len(reqs) > 0 {
		t.Errorf("without the grant the provider lists or watches the namespace's Secrets: %v", reqs)
	}

	// The grant: the Secret is a SOPS file, and its namespace's Secrets
	// are watched.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(cpc), cpc); err != nil {
			return err
		}
		cpc.Spec.Mirror.SecretNamespaces = []string{ns}
		return e2e.CP.Client.Update(context.Background(), cpc)
	}); err != nil {
		t.Fatal(err)
	}
	// Nothing pokes the Mirror: the change of its configuration wakes it
	// (a converged Mirror is not polled, and the resync is an hour away).
	secretPath := fmt.Sprintf("ungranted/%s/core/secret/db.sops.yaml", ns)
	testenv.Eventually(t, 30*time.Second, func() error {
		doc, ok := f.Files(t, "main")[secretPath]
		if !ok {
			return fmt.Errorf("%s is not in the folder yet", secretPath)
		}
		if got := sopsDecrypt(t, doc, identity); !strings.Contains(got, "password:") {
			return fmt.Errorf("%s does not decrypt to the Secret:\n%s", secretPath, got)
		}
		return nil
	})
	e2e.WaitFor(t, time.Minute, ungranted, e2e.ReadyAndCurrent(t, ungranted))
	if msg := ungranted.GetCondition(xpv2.TypeReady).Message; strings.Contains(msg, "Secret") {
		t.Errorf("with the grant Ready's message still says Secrets are left out: %q", msg)
	}
	if len(rec.collections()[ns]) == 0 {
		t.Errorf("with the grant the Secret is mirrored without a watch of the namespace's Secrets")
	}
	noPlaintextInHistory(t, f)
	// The namespaced ProviderConfig still grants nothing.
	e2e.ReconciledAgain(t, 1, true, viaPC)
	if _, ok := f.Files(t, "main")[strings.Replace(secretPath, "ungranted/", "via-pc/", 1)]; ok {
		t.Errorf("a ProviderConfig's Mirror mirrors Secrets")
	}
}
