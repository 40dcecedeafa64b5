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

package v1alpha1_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// These tests run against a real API server: what they check is the CRD
// schema (OpenAPI + CEL) that 'make generate' wrote to package/crds.

var kube client.Client

func TestMain(m *testing.M) {
	// The tests that need the API server's validation skip without it under
	// -short (make unit); the others read the CRDs from disk.
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	cp, err := testenv.StartControlPlane(testenv.ControlPlaneOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	kube = cp.Client
	code := m.Run()
	_ = cp.Stop()
	os.Exit(code)
}

func namespace(t *testing.T) string {
	t.Helper()
	testenv.Integration(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "pc-"}}
	if err := kube.Create(context.Background(), ns); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	return ns.Name
}

func TestProviderConfigRoundTrip(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	in := &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "repo"},
		Spec: v1alpha1.ProviderConfigSpec{
			URL: "ssh://git@git.example.org/platform/gitops.git",
			Credentials: v1alpha1.ProviderCredentials{
				Source:    xpv2.CredentialsSourceSecret,
				SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: "git-credentials"},
			},
			Commit: v1alpha1.CommitConfig{Author: &v1alpha1.CommitAuthor{Name: "Platform Bot", Email: "bot@example.org"}},
		},
	}
	if err := kube.Create(ctx, in); err != nil {
		t.Fatalf("create: %v", err)
	}
	got := &v1alpha1.ProviderConfig{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(in), got); err != nil {
		t.Fatalf("get: %v", err)
	}
	// What the API server must default: the commit window and the Secret's
	// key names (Flux's names, so one Secret serves both).
	want := in.Spec.DeepCopy()
	want.Commit.Window = &metav1.Duration{Duration: time.Second}
	want.Credentials.SecretRef.CredentialKeys = v1alpha1.CredentialKeys{
		SSHPrivateKeyKey: "identity", KnownHostsKey: "known_hosts", UsernameKey: "username", PasswordKey: "password", APITokenKey: "apiToken",
	}
	if diff := cmp.Diff(*want, got.Spec); diff != "" {
		t.Errorf("ProviderConfig spec after round trip: -want, +got:\n%s", diff)
	}

	// Status round-trips through the status subresource.
	got.SetObservedGeneration(got.Generation)
	*got.StatusConditions() = []xpv2.Condition{xpv2.Available()}
	if err := kube.Status().Update(ctx, got); err != nil {
		t.Fatalf("status update: %v", err)
	}
	after := &v1alpha1.ProviderConfig{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(in), after); err != nil {
		t.Fatalf("get: %v", err)
	}
	if diff := cmp.Diff(got.Generation, after.Status.ObservedGeneration); diff != "" {
		t.Errorf("observedGeneration: -want, +got:\n%s", diff)
	}
}

func TestClusterProviderConfigRoundTrip(t *testing.T) {
	testenv.Integration(t)
	ctx := context.Background()
	in := &v1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: v1alpha1.ClusterProviderConfigSpec{
			URL: "https://git.example.org/platform/gitops.git",
			Credentials: v1alpha1.ClusterProviderCredentials{
				Source: xpv2.CredentialsSourceSecret,
				SecretRef: &v1alpha1.CredentialsSecretRef{Name: "git-token", Namespace: "crossplane-system",
					CredentialKeys: v1alpha1.CredentialKeys{PasswordKey: "token"}},
			},
			Commit: v1alpha1.CommitConfig{Window: &metav1.Duration{Duration: 250 * time.Millisecond}},
		},
	}
	if err := kube.Create(ctx, in); err != nil {
		t.Fatalf("create: %v", err)
	}
	got := &v1alpha1.ClusterProviderConfig{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(in), got); err != nil {
		t.Fatalf("get: %v", err)
	}
	want := in.Spec.DeepCopy()
	want.Credentials.SecretRef.CredentialKeys = v1alpha1.CredentialKeys{
		SSHPrivateKeyKey: "identity", KnownHostsKey: "known_hosts", UsernameKey: "username", PasswordKey: "token", APITokenKey: "apiToken",
	}
	if diff := cmp.Diff(*want, got.Spec); diff != "" {
		t.Errorf("ClusterProviderConfig spec after round trip: -want, +got:\n%s", diff)
	}
}

func TestProviderConfigValidation(t *testing.T) {
	valid := func() v1alpha1.ProviderConfigSpec {
		return v1alpha1.ProviderConfigSpec{
			URL: "https://git.example.org/platform/gitops.git",
			Credentials: v1alpha1.ProviderCredentials{
				Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: "creds"},
			},
		}
	}
	type want struct {
		// message the API server must return; empty means accepted.
		message string
	}
	cases := map[string]struct {
		reason string
		mutate func(*v1alpha1.ProviderConfigSpec)
		want   want
	}{
		"HTTPS": {
			reason: "An https URL with a path is the common case.",
			mutate: func(*v1alpha1.ProviderConfigSpec) {},
		},
		"SSH": {
			reason: "ssh:// URLs with a user and a port are accepted.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.URL = "ssh://git@git.example.org:2222/platform/gitops.git" },
		},
		"SCPLike": {
			reason: "scp-like user@host:path URLs are what most forges show.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.URL = "git@github.com:org/repo.git" },
		},
		"File": {
			reason: "file:// passes the schema; the provider refuses it without its test-only flag.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.URL = "file:///srv/git/repo.git" },
		},
		"AnonymousHTTPS": {
			reason: "Source None needs no Secret.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) {
				s.Credentials = v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceNone}
			},
		},
		"BadScheme": {
			reason: "Only Git transports the provider speaks are accepted.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.URL = "ftp://git.example.org/repo.git" },
			want:   want{message: "url must be https://host/path"},
		},
		"EmptyURL": {
			reason: "A ProviderConfig without a repository means nothing.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.URL = "" },
			want:   want{message: "spec.url: Invalid value"},
		},
		"CredentialsInURL": {
			reason: "A token in the URL would be readable by anyone who can read the ProviderConfig.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.URL = "https://user:token@git.example.org/repo.git" },
			want:   want{message: "credentials never go in the URL"},
		},
		"NegativeWindow": {
			reason: "A commit window below zero is meaningless.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.Commit.Window = &metav1.Duration{Duration: -time.Second} },
			want:   want{message: "commit.window must be a duration between 0s and 30s"},
		},
		"HugeWindow": {
			reason: "A window longer than 30s would outlast the reconcile that waits for it.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.Commit.Window = &metav1.Duration{Duration: time.Hour} },
			want:   want{message: "commit.window must be a duration between 0s and 30s"},
		},
		"SecretSourceWithoutRef": {
			reason: "Source Secret without a secretRef cannot be resolved.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.Credentials.SecretRef = nil },
			want:   want{message: "credentials.secretRef is required when credentials.source is Secret"},
		},
		"BadEmail": {
			reason: "Git needs an author email that looks like one.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) {
				s.Commit.Author = &v1alpha1.CommitAuthor{Name: "Bot", Email: "not-an-email"}
			},
			want: want{message: "commit.author.email must look like user@host"},
		},
		"Signing": {
			reason: "A signing key Secret in the ProviderConfig's namespace, generated when missing.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) {
				s.Commit.Signing = &v1alpha1.CommitSigning{SecretRef: v1alpha1.SigningKeySecretRef{Name: "sig"}, GenerateWhenMissing: true}
			},
		},
		"SigningOtherNamespace": {
			reason: "A ProviderConfig reads Secrets of its own namespace only.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) {
				s.Commit.Signing = &v1alpha1.CommitSigning{SecretRef: v1alpha1.SigningKeySecretRef{Name: "sig", Namespace: "other"}}
			},
			want: want{message: "commit.signing.secretRef.namespace is not allowed in a ProviderConfig"},
		},
		"ViaAPIOnGitHub": {
			reason: "Commits through GitHub's API on a github.com repository over HTTPS.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) {
				s.URL, s.Commit.Via = "https://github.com/acme/gitops.git", v1alpha1.CommitViaAPI
			},
		},
		"ViaAPIOnGitHubEnterprise": {
			reason: "A GitHub Enterprise host is GitHub when spec.forge.type says so.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) {
				s.Commit.Via, s.Forge = v1alpha1.CommitViaAPI, &v1alpha1.ForgeConfig{Type: "GitHub"}
			},
		},
		"ViaAPIElsewhere": {
			reason: "Only GitHub creates and signs commits through its API for an App.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.Commit.Via = v1alpha1.CommitViaAPI },
			want:   want{message: "commit.via API needs a GitHub repository over HTTPS"},
		},
		"ViaAPIOverSSH": {
			reason: "A GitHub App authenticates over HTTPS only.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) {
				s.URL, s.Commit.Via = "git@github.com:acme/gitops.git", v1alpha1.CommitViaAPI
			},
			want: want{message: "commit.via API needs a GitHub repository over HTTPS"},
		},
		"ViaGitAnywhere": {
			reason: "Git, the default, is valid on any forge.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.Commit.Via = v1alpha1.CommitViaGit },
		},
		"ViaUnknown": {
			reason: "Git or API, nothing else.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) { s.Commit.Via = "Carrier" },
			want:   want{message: "spec.commit.via: Unsupported value"},
		},
		"SigningBadKey": {
			reason: "A Secret key must be a valid data key name.",
			mutate: func(s *v1alpha1.ProviderConfigSpec) {
				s.Commit.Signing = &v1alpha1.CommitSigning{SecretRef: v1alpha1.SigningKeySecretRef{Name: "sig", Key: "a/b"}}
			},
			want: want{message: "spec.commit.signing.secretRef.key"},
		},
	}
	ns := namespace(t)
	i := 0
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			i++
			spec := valid()
			tc.mutate(&spec)
			pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("pc-%d", i)}, Spec: spec}
			err := kube.Create(context.Background(), pc)
			got := ""
			if err != nil {
				got = err.Error()
			}
			switch {
			case tc.want.message == "" && err != nil:
				t.Errorf("%s\nCreate: want accepted, got: %v", tc.reason, err)
			case tc.want.message != "" && !strings.Contains(got, tc.want.message):
				t.Errorf("%s\nCreate: want an error containing %q, got: %v", tc.reason, tc.want.message, err)
			}
		})
	}
}

func TestClusterProviderConfigSigningNamespace(t *testing.T) {
	testenv.Integration(t)
	cases := map[string]struct {
		reason    string
		namespace string
		message   string
	}{
		"Named":   {reason: "A ClusterProviderConfig names its signing key Secret's namespace.", namespace: "crossplane-system"},
		"Missing": {reason: "A ClusterProviderConfig has no namespace of its own to fall back on.", message: "commit.signing.secretRef.namespace is required in a ClusterProviderConfig"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &v1alpha1.ClusterProviderConfig{
				ObjectMeta: metav1.ObjectMeta{Name: "signing-" + strings.ToLower(name)},
				Spec: v1alpha1.ClusterProviderConfigSpec{
					URL:         "https://git.example.org/platform/gitops.git",
					Credentials: v1alpha1.ClusterProviderCredentials{Source: xpv2.CredentialsSourceNone},
					Commit: v1alpha1.CommitConfig{Signing: &v1alpha1.CommitSigning{
						SecretRef: v1alpha1.SigningKeySecretRef{Name: "sig", Namespace: tc.namespace}}},
				},
			}
			err := kube.Create(context.Background(), c)
			switch {
			case tc.message == "" && err != nil:
				t.Errorf("%s\nCreate: want accepted, got: %v", tc.reason, err)
			case tc.message != "" && (err == nil || !strings.Contains(err.Error(), tc.message)):
				t.Errorf("%s\nCreate: want an error containing %q, got: %v", tc.reason, tc.message, err)
			}
		})
	}
}

// TestClusterProviderConfigViaAPI: a ClusterProviderConfig has the same
// rule for spec.commit.via API as a ProviderConfig.
func TestClusterProviderConfigViaAPI(t *testing.T) {
	testenv.Integration(t)
	cases := map[string]struct {
		reason  string
		url     string
		message string
	}{
		"GitHub":    {reason: "A github.com repository over HTTPS.", url: "https://github.com/acme/gitops.git"},
		"Elsewhere": {reason: "No forge but GitHub signs an App's commits.", url: "https://git.example.org/platform/gitops.git", message: "commit.via API needs a GitHub repository over HTTPS"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &v1alpha1.ClusterProviderConfig{
				ObjectMeta: metav1.ObjectMeta{Name: "via-api-" + strings.ToLower(name)},
				Spec: v1alpha1.ClusterProviderConfigSpec{
					URL:         tc.url,
					Credentials: v1alpha1.ClusterProviderCredentials{Source: xpv2.CredentialsSourceNone},
					Commit:      v1alpha1.CommitConfig{Via: v1alpha1.CommitViaAPI},
				},
			}
			err := kube.Create(context.Background(), c)
			switch {
			case tc.message == "" && err != nil:
				t.Errorf("%s\nCreate: want accepted, got: %v", tc.reason, err)
			case tc.message != "" && (err == nil || !strings.Contains(err.Error(), tc.message)):
				t.Errorf("%s\nCreate: want an error containing %q, got: %v", tc.reason, tc.message, err)
			}
		})
	}
}
