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

package config

import (
	"context"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

func signingPC(ns string, s v1alpha1.CommitSigning) *v1alpha1.ProviderConfig {
	p := pc(ns, "https://h/r.git", "")
	p.Spec.Commit.Signing = &s
	return p
}

func signingCPC(s v1alpha1.CommitSigning) *v1alpha1.ClusterProviderConfig {
	return &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "shared"},
		Spec: v1alpha1.ClusterProviderConfigSpec{URL: "https://h/r.git", Credentials: v1alpha1.ClusterProviderCredentials{Source: xpv2.CredentialsSourceNone},
			Commit: v1alpha1.CommitConfig{Signing: &s}}}
}

func TestResolveSigning(t *testing.T) {
	priv, pub, err := git.GenerateSSHKey("")
	if err != nil {
		t.Fatal(err)
	}
	ref := func(name, ns string) v1alpha1.SigningKeySecretRef {
		return v1alpha1.SigningKeySecretRef{Name: name, Namespace: ns}
	}
	type want struct {
		publicKey string
		reason    xpv2.ConditionReason // stalled reason
		transient bool
	}
	cases := map[string]struct {
		reason  string
		config  configObject
		objects []client.Object
		want    want
	}{
		"NoSigning": {
			reason: "Without commit.signing commits are not signed.",
			config: pc("a", "https://h/r.git", ""),
		},
		"OwnNamespace": {
			reason:  "A ProviderConfig's signing key is read from its own namespace under the default key.",
			config:  signingPC("a", v1alpha1.CommitSigning{SecretRef: ref("sig", "")}),
			objects: []client.Object{secret("a", "sig", map[string]string{"identity": string(priv)})},
			want:    want{publicKey: pub},
		},
		"OtherKey": {
			reason:  "A named key is read instead of the default.",
			config:  signingPC("a", v1alpha1.CommitSigning{SecretRef: v1alpha1.SigningKeySecretRef{Name: "sig", Key: "signing.key"}}),
			objects: []client.Object{secret("a", "sig", map[string]string{"signing.key": string(priv)})},
			want:    want{publicKey: pub},
		},
		"OtherNamespaceRefused": {
			reason:  "A ProviderConfig cannot reach another namespace's Secret (the CRD refuses it too).",
			config:  signingPC("a", v1alpha1.CommitSigning{SecretRef: ref("sig", "b")}),
			objects: []client.Object{secret("b", "sig", map[string]string{"identity": string(priv)})},
			want:    want{reason: spec.ReasonInvalidConfig},
		},
		"ClusterNamed": {
			reason:  "A ClusterProviderConfig reads the namespace it names.",
			config:  signingCPC(v1alpha1.CommitSigning{SecretRef: ref("sig", "system")}),
			objects: []client.Object{secret("system", "sig", map[string]string{"identity": string(priv)})},
			want:    want{publicKey: pub},
		},
		"ClusterWithoutNamespace": {
			reason: "A ClusterProviderConfig must name the namespace (the CRD requires it too).",
			config: signingCPC(v1alpha1.CommitSigning{SecretRef: ref("sig", "")}),
			want:   want{reason: spec.ReasonInvalidConfig},
		},
		"Missing": {
			reason: "A missing Secret nobody will generate needs a human.",
			config: signingPC("a", v1alpha1.CommitSigning{SecretRef: ref("sig", "")}),
			want:   want{reason: ReasonSecretNotFound},
		},
		"MissingToBeGenerated": {
			reason: "A missing Secret the provider generates is only a matter of time.",
			config: signingPC("a", v1alpha1.CommitSigning{SecretRef: ref("sig", ""), GenerateWhenMissing: true}),
			want:   want{transient: true},
		},
		"NoKey": {
			reason:  "A Secret without the key is refused.",
			config:  signingPC("a", v1alpha1.CommitSigning{SecretRef: ref("sig", "")}),
			objects: []client.Object{secret("a", "sig", map[string]string{"other": string(priv)})},
			want:    want{reason: ReasonSigningKeyInvalid},
		},
		"NotAKey": {
			reason:  "A value that is no private key is refused.",
			config:  signingPC("a", v1alpha1.CommitSigning{SecretRef: ref("sig", "")}),
			objects: []client.Object{secret("a", "sig", map[string]string{"identity": "SECRET-NOT-A-KEY"})},
			want:    want{reason: ReasonSigningKeyInvalid},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(tc.objects...).Build()
			v, err := viewOf(tc.config)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewResolver(c, c, false).signer(context.Background(), v.signing)
			reason, stalled := managed.StalledReason(err)
			got := want{reason: reason, transient: err != nil && !stalled}
			if s != nil {
				got.publicKey = s.PublicKey()
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nsigner: -want, +got:\n%s\nerror: %v", tc.reason, diff, err)
			}
			if err != nil && strings.Contains(err.Error(), "SECRET-NOT-A-KEY") {
				t.Errorf("%s\nthe error repeats the Secret's value: %v", tc.reason, err)
			}
		})
	}
}

func TestEnsureSigningKey(t *testing.T) {
	existing := secret("a", "sig", map[string]string{"identity": "theirs"})
	cases := map[string]struct {
		reason  string
		ref     *signingRef
		objects []client.Object
		created bool
	}{
		"Generates": {
			reason:  "A missing Secret is created with a fresh key.",
			ref:     &signingRef{key: types.NamespacedName{Namespace: "a", Name: "sig"}, dataKey: "identity", generate: true},
			created: true,
		},
		"LeavesExisting": {
			reason:  "An existing Secret is never replaced, whatever it holds.",
			ref:     &signingRef{key: types.NamespacedName{Namespace: "a", Name: "sig"}, dataKey: "identity", generate: true},
			objects: []client.Object{existing},
		},
		"NotAsked": {
			reason: "Without generateWhenMissing nothing is created.",
			ref:    &signingRef{key: types.NamespacedName{Namespace: "a", Name: "sig"}, dataKey: "identity"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(tc.objects...).Build()
			created, err := ensureSigningKey(context.Background(), c, c, tc.ref, "test")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.created, created); diff != "" {
				t.Errorf("%s\ncreated: -want, +got:\n%s", tc.reason, diff)
			}
			s := &corev1.Secret{}
			err = c.Get(context.Background(), tc.ref.key, s)
			switch {
			case tc.created:
				if err != nil {
					t.Fatal(err)
				}
				signer, err := git.NewSSHSigner(s.Data["identity"])
				if err != nil {
					t.Fatalf("%s\nthe generated key does not parse: %v", tc.reason, err)
				}
				if diff := cmp.Diff(signer.PublicKey()+" test\n", string(s.Data["identity.pub"])); diff != "" {
					t.Errorf("%s\nidentity.pub: -want, +got:\n%s", tc.reason, diff)
				}
				again, err := ensureSigningKey(context.Background(), c, c, tc.ref, "test")
				if err != nil || again {
					t.Errorf("%s\na second call created again (%v) or failed: %v", tc.reason, again, err)
				}
			case len(tc.objects) > 0:
				if diff := cmp.Diff("theirs", string(s.Data["identity"])); diff != "" {
					t.Errorf("%s\nexisting key: -want, +got:\n%s", tc.reason, diff)
				}
			default:
				if err == nil {
					t.Errorf("%s\na Secret was created", tc.reason)
				}
			}
		})
	}
}

func TestConfigsUsingSigningSecret(t *testing.T) {
	objects := []client.Object{
		signingPC("a", v1alpha1.CommitSigning{SecretRef: v1alpha1.SigningKeySecretRef{Name: "sig"}}),
		signingCPC(v1alpha1.CommitSigning{SecretRef: v1alpha1.SigningKeySecretRef{Name: "sig", Namespace: "system"}}),
	}
	cases := map[string]struct {
		reason string
		kind   configKind
		secret *corev1.Secret
		want   []reconcile.Request
	}{
		"ProviderConfig": {
			reason: "A fixed or generated signing key is checked at once, not at the next poll.",
			kind:   providerConfig, secret: secret("a", "sig", nil),
			want: []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: "a", Name: "git"}}},
		},
		"ClusterProviderConfig": {
			reason: "A ClusterProviderConfig's signing key lives in the namespace it names.",
			kind:   clusterProviderConfig, secret: secret("system", "sig", nil),
			want: []reconcile.Request{{NamespacedName: types.NamespacedName{Name: "shared"}}},
		},
		"Unrelated": {
			reason: "A Secret of the same name elsewhere is not the signing key.",
			kind:   clusterProviderConfig, secret: secret("a", "sig", nil),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(objects...).Build()
			got := (&Reconciler{client: c, kind: tc.kind}).configsUsing(context.Background(), tc.secret)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nconfigsUsing: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
