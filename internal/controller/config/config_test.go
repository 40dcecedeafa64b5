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
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

func scheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func pc(ns, url, secret string) *v1alpha1.ProviderConfig {
	p := &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "git"},
		Spec:       v1alpha1.ProviderConfigSpec{URL: url, Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceNone}},
	}
	if secret != "" {
		p.Spec.Credentials = v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceSecret,
			SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: secret}}
	}
	return p
}

func secret(ns, name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

// withWebhookKey makes p's Secret carry its webhook secret under key.
func withWebhookKey(p *v1alpha1.ProviderConfig, key string) *v1alpha1.ProviderConfig {
	p.Spec.Credentials.SecretRef.WebhookSecretKey = key
	return p
}

// appKeys are a GitHub App's Secret keys.
func appKeys() map[string]string {
	return map[string]string{"githubAppID": "1", "githubAppInstallationID": "2", "githubAppPrivateKey": "PEM"}
}

// viaAPI makes p commit through its forge's API, on forge f when given.
func viaAPI(p *v1alpha1.ProviderConfig, f *v1alpha1.ForgeConfig) *v1alpha1.ProviderConfig {
	p.Spec.Commit.Via, p.Spec.Forge = v1alpha1.CommitViaAPI, f
	return p
}

// branchIn is a managed resource in ns naming the configuration ref.
func branchIn(ns string, ref *xpv2.ProviderConfigReference) *v1alpha1.Branch {
	b := &v1alpha1.Branch{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "b"}}
	b.Spec.ProviderConfigReference = ref
	return b
}

func TestResolverForManaged(t *testing.T) {
	pcRef := &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "git"}
	type want struct {
		conn   *Connection
		reason xpv2.ConditionReason // stalled reason; "" means no error
	}
	cases := map[string]struct {
		reason        string
		objects       []client.Object
		mg            *v1alpha1.Branch
		allowInsecure bool
		want          want
	}{
		"HTTPSToken": {
			reason:  "A ProviderConfig in the resource's namespace with a token Secret there.",
			objects: []client.Object{pc("a", "https://h/r.git", "creds"), secret("a", "creds", map[string]string{"username": "u", "password": "p"})},
			mg:      branchIn("a", pcRef),
			want: want{conn: &Connection{Remote: git.Remote{URL: "https://h/r.git", Auth: &git.BasicAuth{Username: "u", Password: "p"}},
				Author: DefaultAuthor, Window: DefaultWindow, Credentials: `credentials Secret a/creds key "password"`}},
		},
		"TokenWithoutUsername": {
			reason:  "Forges take any username with a token.",
			objects: []client.Object{pc("a", "https://h/r.git", "creds"), secret("a", "creds", map[string]string{"password": "p"})},
			mg:      branchIn("a", pcRef),
			want: want{conn: &Connection{Remote: git.Remote{URL: "https://h/r.git", Auth: &git.BasicAuth{Username: "git", Password: "p"}},
				Author: DefaultAuthor, Window: DefaultWindow, Credentials: `credentials Secret a/creds key "password"`}},
		},
		"SSH": {
			reason:  "An scp-like URL takes the private key and known_hosts.",
			objects: []client.Object{pc("a", "git@h:r.git", "creds"), secret("a", "creds", map[string]string{"identity": "KEY", "known_hosts": "h ssh-ed25519 AAAA"})},
			mg:      branchIn("a", pcRef),
			want: want{conn: &Connection{Remote: git.Remote{URL: "git@h:r.git", Auth: &git.SSHAuth{PrivateKey: []byte("KEY"), KnownHosts: []byte("h ssh-ed25519 AAAA")}},
				Author: DefaultAuthor, Window: DefaultWindow, Credentials: `credentials Secret a/creds key "identity"`}},
		},
		"OtherNamespace": {
			reason:  "A ProviderConfig of the same name in another namespace is out of reach.",
			objects: []client.Object{pc("a", "https://h/r.git", "")},
			mg:      branchIn("b", pcRef),
			want:    want{reason: ReasonProviderConfigNotFound},
		},
		"SecretInOtherNamespace": {
			reason:  "A namespaced ProviderConfig reads its Secret from its own namespace only.",
			objects: []client.Object{pc("a", "https://h/r.git", "creds"), secret("b", "creds", map[string]string{"password": "p"})},
			mg:      branchIn("a", pcRef),
			want:    want{reason: ReasonSecretNotFound},
		},
		"NoPassword": {
			reason:  "An HTTPS Secret without a password or token is malformed.",
			objects: []client.Object{pc("a", "https://h/r.git", "creds"), secret("a", "creds", map[string]string{"username": "u"})},
			mg:      branchIn("a", pcRef),
			want:    want{reason: ReasonSecretMalformed},
		},
		"NoKnownHosts": {
			reason:  "SSH without known_hosts fails closed.",
			objects: []client.Object{pc("a", "ssh://git@h/r.git", "creds"), secret("a", "creds", map[string]string{"identity": "KEY"})},
			mg:      branchIn("a", pcRef),
			want:    want{reason: ReasonSecretMalformed},
		},
		"AnonymousSSH": {
			reason:  "SSH always authenticates.",
			objects: []client.Object{pc("a", "ssh://git@h/r.git", "")},
			mg:      branchIn("a", pcRef),
			want:    want{reason: spec.ReasonInvalidConfig},
		},
		"InsecureRefused": {
			reason:  "http:// sends credentials in clear text: refused without the test-only flag.",
			objects: []client.Object{pc("a", "http://h/r.git", "")},
			mg:      branchIn("a", pcRef),
			want:    want{reason: ReasonInsecureRemote},
		},
		"FileRefused": {
			reason:  "file:// reads the provider's own file system: refused without the test-only flag.",
			objects: []client.Object{pc("a", "file:///srv/r.git", "")},
			mg:      branchIn("a", pcRef),
			want:    want{reason: ReasonInsecureRemote},
		},
		"InsecureAllowed": {
			reason:        "With the flag, http:// is accepted (tests, the local default).",
			objects:       []client.Object{pc("a", "http://h/r.git", "")},
			mg:            branchIn("a", pcRef),
			allowInsecure: true,
			want:          want{conn: &Connection{Remote: git.Remote{URL: "http://h/r.git"}, Author: DefaultAuthor, Window: DefaultWindow}},
		},
		"ClusterProviderConfig": {
			reason: "A ClusterProviderConfig names its Secret's namespace; author and window come from it.",
			objects: []client.Object{
				&v1alpha1.ClusterProviderConfig{
					ObjectMeta: metav1.ObjectMeta{Name: "shared"},
					Spec: v1alpha1.ClusterProviderConfigSpec{URL: "https://h/r.git", Credentials: v1alpha1.ClusterProviderCredentials{
						Source:    xpv2.CredentialsSourceSecret,
						SecretRef: &v1alpha1.CredentialsSecretRef{Name: "tok", Namespace: "system", CredentialKeys: v1alpha1.CredentialKeys{PasswordKey: "token"}},
					}, Commit: v1alpha1.CommitConfig{Author: &v1alpha1.CommitAuthor{Name: "Bot", Email: "bot@h"}, Window: &metav1.Duration{Duration: 5 * time.Second}}},
				},
				secret("system", "tok", map[string]string{"token": "t"}),
			},
			mg: branchIn("a", &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "shared"}),
			want: want{conn: &Connection{Remote: git.Remote{URL: "https://h/r.git", Auth: &git.BasicAuth{Username: "git", Password: "t"}},
				Author: git.Signature{Name: "Bot", Email: "bot@h"}, Window: 5 * time.Second, Credentials: `credentials Secret system/tok key "token"`}},
		},
		"ClusterProviderConfigSecretOnlyWhereNamed": {
			reason: "A ClusterProviderConfig's Secret is read from the namespace it names only, never from the resource's.",
			objects: []client.Object{
				&v1alpha1.ClusterProviderConfig{
					ObjectMeta: metav1.ObjectMeta{Name: "shared"},
					Spec: v1alpha1.ClusterProviderConfigSpec{URL: "https://h/r.git", Credentials: v1alpha1.ClusterProviderCredentials{
						Source:    xpv2.CredentialsSourceSecret,
						SecretRef: &v1alpha1.CredentialsSecretRef{Name: "tok", Namespace: "system"},
					}},
				},
				secret("a", "tok", map[string]string{"password": "t"}),
			},
			mg:   branchIn("a", &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "shared"}),
			want: want{reason: ReasonSecretNotFound},
		},
		"WebhookSecret": {
			reason: "The webhook secret is read from the key webhookSecretKey names.",
			objects: []client.Object{withWebhookKey(pc("a", "https://h/r.git", "creds"), "hook"),
				secret("a", "creds", map[string]string{"password": "p", "hook": "0123456789abcdef"})},
			mg: branchIn("a", pcRef),
			want: want{conn: &Connection{Remote: git.Remote{URL: "https://h/r.git", Auth: &git.BasicAuth{Username: "git", Password: "p"}},
				Author: DefaultAuthor, Window: DefaultWindow, Credentials: `credentials Secret a/creds key "password"`, WebhookSecret: []byte("0123456789abcdef")}},
		},
		"WebhookSecretMissing": {
			reason: "A webhookSecretKey the Secret lacks is the Secret's fault.",
			objects: []client.Object{withWebhookKey(pc("a", "https://h/r.git", "creds"), "hook"),
				secret("a", "creds", map[string]string{"password": "p"})},
			mg:   branchIn("a", pcRef),
			want: want{reason: ReasonSecretMalformed},
		},
		"WebhookSecretWeak": {
			reason: "A webhook secret shorter than 16 bytes could be guessed from the path status publishes: refused.",
			objects: []client.Object{withWebhookKey(pc("a", "https://h/r.git", "creds"), "hook"),
				secret("a", "creds", map[string]string{"password": "p", "hook": "hook-secret"})},
			mg:   branchIn("a", pcRef),
			want: want{reason: ReasonSecretMalformed},
		},
		"WindowTooLong": {
			reason: "A window stored before the CRD capped it is refused in code too.",
			objects: []client.Object{func() *v1alpha1.ProviderConfig {
				p := pc("a", "https://h/r.git", "")
				p.Spec.Commit.Window = &metav1.Duration{Duration: 45 * time.Second}
				return p
			}()},
			mg:   branchIn("a", pcRef),
			want: want{reason: spec.ReasonInvalidConfig},
		},
		"ViaAPI": {
			reason:  "A github.com repository with a GitHub App's credentials commits through GitHub's API.",
			objects: []client.Object{viaAPI(pc("a", "https://github.com/acme/gitops.git", "creds"), nil), secret("a", "creds", appKeys())},
			mg:      branchIn("a", pcRef),
			want: want{conn: &Connection{Remote: git.Remote{URL: "https://github.com/acme/gitops.git",
				Auth: &git.AppInstallationAuth{AppID: "1", InstallationID: "2", PrivateKey: []byte("PEM")},
				API:  &git.APITarget{URL: "https://api.github.com/"}},
				Author: DefaultAuthor, Window: DefaultWindow, Credentials: `credentials Secret a/creds key "githubAppPrivateKey"`}},
		},
		"ViaAPIWithAToken": {
			reason:  "GitHub signs only an App's commits: a token's would be unsigned.",
			objects: []client.Object{viaAPI(pc("a", "https://github.com/acme/gitops.git", "creds"), nil), secret("a", "creds", map[string]string{"password": "p"})},
			mg:      branchIn("a", pcRef),
			want:    want{reason: spec.ReasonInvalidConfig},
		},
		"ViaAPINotGitHub": {
			reason:  "Only GitHub's API is spoken for commits.",
			objects: []client.Object{viaAPI(pc("a", "https://gitlab.com/acme/gitops.git", "creds"), nil), secret("a", "creds", appKeys())},
			mg:      branchIn("a", pcRef),
			want:    want{reason: spec.ReasonInvalidConfig},
		},
		"ViaAPIOverHTTP": {
			reason: "The API URL is where the installation token goes: http:// only with the test-only flag.",
			objects: []client.Object{viaAPI(pc("a", "https://ghe.example.org/acme/gitops.git", "creds"),
				&v1alpha1.ForgeConfig{Type: "GitHub", APIURL: "http://ghe.example.org/api/v3/"}), secret("a", "creds", appKeys())},
			mg:   branchIn("a", pcRef),
			want: want{reason: ReasonInsecureRemote},
		},
		"ViaAPIOtherGitHub": {
			reason: "The installation token is minted at the App's API (github.com's here): it never goes to another host's commit API.",
			objects: []client.Object{viaAPI(pc("a", "https://ghe.example.org/acme/gitops.git", "creds"),
				&v1alpha1.ForgeConfig{Type: "GitHub"}), secret("a", "creds", appKeys())},
			mg:   branchIn("a", pcRef),
			want: want{reason: spec.ReasonInvalidConfig},
		},
		"UnknownKind": {
			reason: "Only the two configuration kinds exist.",
			mg:     branchIn("a", &xpv2.ProviderConfigReference{Kind: "Other", Name: "x"}),
			want:   want{reason: spec.ReasonInvalidConfig},
		},
		"NoRef": {
			reason: "A resource without a reference cannot be connected.",
			mg:     branchIn("a", nil),
			want:   want{reason: ReasonProviderConfigNotFound},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(tc.objects...).Build()
			conn, err := NewResolver(c, c, tc.allowInsecure).ForManaged(context.Background(), tc.mg)
			reason, _ := managed.StalledReason(err)
			if err != nil && reason == "" {
				t.Fatalf("%s\nForManaged: unexpected transient error: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.reason, reason); diff != "" {
				t.Errorf("%s\nForManaged: stalled reason: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.conn, conn); diff != "" {
				t.Errorf("%s\nForManaged: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestChecks(t *testing.T) {
	key := types.NamespacedName{Namespace: "a", Name: "git"}
	remote := git.Remote{URL: "https://h/r.git", Auth: &git.BasicAuth{Username: "u", Password: "p"}}
	now := time.Now()
	cases := map[string]struct {
		reason     string
		at         time.Time
		generation int64
		remote     git.Remote
		forget     bool
		want       bool
	}{
		"Fresh":           {reason: "Same generation and credentials, checked just now.", at: now, generation: 1, remote: remote, want: true},
		"Old":             {reason: "A check older than maxAge must be repeated.", at: now.Add(-time.Minute), generation: 1, remote: remote},
		"NewGeneration":   {reason: "A spec change must be checked.", at: now, generation: 2, remote: remote},
		"RotatedPassword": {reason: "New credentials must be checked.", at: now, generation: 1, remote: git.Remote{URL: remote.URL, Auth: &git.BasicAuth{Username: "u", Password: "q"}}},
		"Forgotten":       {reason: "A failed check forgets the last good one.", at: now, generation: 1, remote: remote, forget: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &checks{}
			c.remember(key, 1, remote, tc.at, false)
			if tc.forget {
				c.forget(key)
			}
			if diff := cmp.Diff(tc.want, c.fresh(key, tc.generation, tc.remote, 10*time.Second)); diff != "" {
				t.Errorf("%s\nfresh: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestTransportOf(t *testing.T) {
	cases := map[string]struct {
		reason string
		url    string
		want   transport
	}{
		"HTTPS":      {reason: "https:// takes a username and token.", url: "https://git.example.org/platform/gitops.git", want: transportHTTPS},
		"SSH":        {reason: "ssh:// takes a key and known_hosts.", url: "ssh://git@git.example.org:2222/platform/gitops.git", want: transportSSH},
		"SSHNoUser":  {reason: "ssh:// without a user is still SSH.", url: "ssh://git.example.org/platform/gitops.git", want: transportSSH},
		"SCPLike":    {reason: "user@host:path is SSH, as git reads it.", url: "git@git.example.org:platform/gitops.git", want: transportSSH},
		"HTTP":       {reason: "http:// sends credentials in clear text.", url: "http://127.0.0.1:8080/r.git", want: transportInsecure},
		"File":       {reason: "file:// reads the provider's own file system.", url: "file:///srv/git/r.git", want: transportInsecure},
		"SCPNoUser":  {reason: "host:path is scp-like SSH to the engine, with or without a user.", url: "host:path/a@b", want: transportSSH},
		"BarePath":   {reason: "A bare path is the local file system to the engine: insecure.", url: "/srv/git/r.git", want: transportInsecure},
		"AtInScheme": {reason: "A user in an https URL does not make it SSH.", url: "https://u@git.example.org/r.git", want: transportHTTPS},
		"UpperHTTP":  {reason: "A scheme is case-insensitive: HTTP:// is http://.", url: "HTTP://127.0.0.1:8080/r.git", want: transportInsecure},
		"MixedHTTP":  {reason: "Http:// is http://.", url: "Http://git.example.org/r.git", want: transportInsecure},
		"MixedHTTPS": {reason: "hTTps:// is https://.", url: "hTTps://git.example.org/r.git", want: transportHTTPS},
		"UpperSSH":   {reason: "SSH:// is ssh://: it takes a key and known_hosts.", url: "SSH://git@git.example.org/r.git", want: transportSSH},
		"UpperFile":  {reason: "FILE:// is file://.", url: "FILE:///srv/git/r.git", want: transportInsecure},
		"GitDaemon":  {reason: "git:// is clear text, unauthenticated: insecure, not HTTPS.", url: "git://git.example.org/r.git", want: transportInsecure},
		"UpperGit":   {reason: "GIT:// is git://.", url: "GIT://git.example.org/r.git", want: transportInsecure},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, transportOf(tc.url)); diff != "" {
				t.Errorf("%s\ntransportOf(%q): -want, +got:\n%s", tc.reason, tc.url, diff)
			}
		})
	}
}

func TestConfigsUsing(t *testing.T) {
	cpc := func(name, secretNS, secretName string) *v1alpha1.ClusterProviderConfig {
		c := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c.Spec.Credentials.SecretRef = &v1alpha1.CredentialsSecretRef{Namespace: secretNS, Name: secretName}
		return c
	}
	named := func(ns, name string) *corev1.Secret { return secret(ns, name, nil) }
	req := func(ns, name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
	}
	objects := []client.Object{
		pc("a", "https://h/r.git", "creds"),
		pc("b", "https://h/r.git", "creds"),
		pc("c", "https://h/r.git", ""),
		cpc("shared", "system", "creds"),
		cpc("other", "system", "token"),
	}
	cases := map[string]struct {
		reason string
		kind   configKind
		secret *corev1.Secret
		want   []reconcile.Request
	}{
		"ProviderConfigOwnNamespace": {
			reason: "A ProviderConfig reads a Secret of its own namespace only: a Secret of the same name elsewhere is not its.",
			kind:   providerConfig,
			secret: named("a", "creds"),
			want:   []reconcile.Request{req("a", "git")},
		},
		"ProviderConfigNoSecret": {
			reason: "A ProviderConfig without a Secret is not enqueued by one.",
			kind:   providerConfig,
			secret: named("c", "creds"),
		},
		"ClusterProviderConfig": {
			reason: "A ClusterProviderConfig names its Secret's namespace and name.",
			kind:   clusterProviderConfig,
			secret: named("system", "creds"),
			want:   []reconcile.Request{req("", "shared")},
		},
		"ClusterProviderConfigOtherNamespace": {
			reason: "A Secret of the same name in another namespace is not the one named.",
			kind:   clusterProviderConfig,
			secret: named("a", "creds"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(objects...).Build()
			r := &Reconciler{client: c, kind: tc.kind}
			got := r.configsUsing(context.Background(), tc.secret)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nconfigsUsing: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
