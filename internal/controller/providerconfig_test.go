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

package controller_test

import (
	"context"
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
	"github.com/crossplane-contrib/provider-git/internal/controller/spec"
	"github.com/crossplane-contrib/provider-git/internal/session"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

func TestProviderConfigStatus(t *testing.T) {
	startProvider(t, "")
	ctx := context.Background()

	t.Run("WorkingCredentials", func(t *testing.T) {
		f := newFixture(t)
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git"}}
		waitFor(t, 30*time.Second, pc, func() error {
			if err := conditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded); err != nil {
				return err
			}
			return conditionIs(pc, session.TypeStalled, corev1.ConditionFalse, session.ReasonSucceeded)
		})
	})

	t.Run("WrongPasswordStallsUntilTheSecretIsFixed", func(t *testing.T) {
		f := newFixture(t)
		setSecret(t, f.ns, map[string]string{"username": gitUser, "password": "wrong"})
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git"}}
		waitFor(t, 30*time.Second, pc, stalledWith(t, pc, spec.ReasonAuthenticationFailed))
		// The message names the Secret and key the server refused, and says
		// the server's words once.
		want := `cannot reach the repository: the server refused credentials Secret ` + f.ns +
			`/git-credentials key "password": cannot list the remote's references: authentication required: unauthorized`
		if diff := cmp.Diff(want, pc.GetCondition(session.TypeStalled).Message); diff != "" {
			t.Errorf("AuthenticationFailed message: -want, +got:\n%s", diff)
		}
		b := newBranch(f, "b", "b", "main")
		if err := cp.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, b, stalledWith(t, b, spec.ReasonAuthenticationFailed))
		// The resource's own condition names the Secret too: whoever reads
		// the Branch learns which Secret to fix without finding its
		// configuration first.
		named := `the server refused credentials Secret ` + f.ns + `/git-credentials key "password": `
		if msg := b.GetCondition(session.TypeStalled).Message; !strings.Contains(msg, named) {
			t.Errorf("Branch's AuthenticationFailed message %q does not name the refused Secret (%q)", msg, named)
		}
		if _, err := testenv.Git(f.repo.Dir, nil, "rev-parse", "--verify", "refs/heads/b"); err == nil {
			t.Errorf("a Branch whose credentials are refused must not reach the repository")
		}

		// Fixing the Secret converges both, without a restart.
		setSecret(t, f.ns, map[string]string{"username": gitUser, "password": gitToken})
		waitFor(t, 30*time.Second, pc, func() error {
			return conditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded)
		})
		waitFor(t, 30*time.Second, b, readyAndCurrent(t, b))
		if diff := cmp.Diff(int64(1), pc.Status.Users); diff != "" {
			t.Errorf("users: -want, +got:\n%s", diff)
		}
	})

	t.Run("SecretNotFound", func(t *testing.T) {
		f := newFixture(t)
		if err := cp.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git-credentials"}}); err != nil {
			t.Fatal(err)
		}
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git"}}
		waitFor(t, 30*time.Second, pc, stalledWith(t, pc, config.ReasonSecretNotFound))
	})

	t.Run("RepositoryNotFound", func(t *testing.T) {
		f := newFixture(t)
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git"}}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(pc), pc); err != nil {
				return err
			}
			pc.Spec.URL = httpGit.RepoURL("no-such-repository.git")
			return cp.Client.Update(ctx, pc)
		})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, pc, stalledWith(t, pc, spec.ReasonRepositoryNotFound))
	})

	t.Run("SSHHostKeys", func(t *testing.T) {
		testenv.RequireSSHD(t)
		f := newFixture(t)
		ssh := testenv.StartSSHServer(t, gitRoot)
		cases := map[string]struct {
			reason     string
			knownHosts []byte
			want       func(pc *v1alpha1.ProviderConfig) func() error
		}{
			"Matching": {
				reason:     "A known_hosts entry matching the server's key connects.",
				knownHosts: ssh.KnownHosts,
				want: func(pc *v1alpha1.ProviderConfig) func() error {
					return func() error { return conditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded) }
				},
			},
			"Mismatched": {
				reason:     "A changed host key is refused, fail closed.",
				knownHosts: ssh.WrongKnownHosts,
				want: func(pc *v1alpha1.ProviderConfig) func() error {
					return stalledWith(t, pc, spec.ReasonHostKeyMismatch)
				},
			},
			"Unknown": {
				reason: "A host known_hosts does not list is refused, fail closed.",
				// The right key, but for another host.
				knownHosts: []byte("[git.example.org]:22 " + strings.SplitN(string(ssh.KnownHosts), " ", 2)[1]),
				want: func(pc *v1alpha1.ProviderConfig) func() error {
					return stalledWith(t, pc, spec.ReasonHostKeyMismatch)
				},
			},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				secret := &corev1.Secret{
					ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, GenerateName: "ssh-"},
					Data:       map[string][]byte{"identity": ssh.ClientKeyPEM, "known_hosts": tc.knownHosts},
				}
				if err := cp.Client.Create(ctx, secret); err != nil {
					t.Fatal(err)
				}
				pc := &v1alpha1.ProviderConfig{
					ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, GenerateName: "ssh-"},
					Spec: v1alpha1.ProviderConfigSpec{
						URL: ssh.RepoURL(f.ns + ".git"),
						Credentials: v1alpha1.ProviderCredentials{
							Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: secret.Name},
						},
					},
				}
				if err := cp.Client.Create(ctx, pc); err != nil {
					t.Fatal(err)
				}
				waitFor(t, 30*time.Second, pc, tc.want(pc))

				// A managed resource using it reports the same thing.
				b := newBranch(f, pc.Name, pc.Name, "main")
				b.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: pc.Name}
				if err := cp.Client.Create(ctx, b); err != nil {
					t.Fatal(err)
				}
				if name == "Matching" {
					waitFor(t, 30*time.Second, b, readyAndCurrent(t, b))
					return
				}
				waitFor(t, 30*time.Second, b, stalledWith(t, b, spec.ReasonHostKeyMismatch))
			})
		}
	})

	t.Run("AnotherNamespacesConfigIsOutOfReach", func(t *testing.T) {
		owner := newFixture(t)
		other := newFixture(t)
		// The other namespace has no ProviderConfig of that name: a Branch
		// there must not find the owner's.
		otherPC := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: other.ns, Name: "git"}}
		if err := cp.Client.Delete(ctx, otherPC); err != nil {
			t.Fatal(err)
		}
		waitGone(t, otherPC)
		b := newBranch(other, "b", "stolen", "main")
		if err := cp.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, b, stalledWith(t, b, config.ReasonProviderConfigNotFound))
		if _, err := testenv.Git(owner.repo.Dir, nil, "rev-parse", "--verify", "refs/heads/stolen"); err == nil {
			t.Errorf("a Branch must not reach another namespace's repository")
		}
	})

	t.Run("DeletionBlockedWhileInUse", func(t *testing.T) {
		f := newFixture(t)
		b := newBranch(f, "user", "user", "main")
		if err := cp.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, b, readyAndCurrent(t, b))
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git"}}
		if err := cp.Client.Delete(ctx, pc); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, pc, func() error {
			return conditionIs(pc, xpv2.TypeReady, corev1.ConditionFalse, config.ReasonInUse)
		})
		if err := cp.Client.Delete(ctx, b); err != nil {
			t.Fatal(err)
		}
		waitGone(t, b)
		// envtest runs no garbage collector: delete the usage the Branch owned,
		// as the cluster's garbage collector would.
		if err := cp.Client.DeleteAllOf(ctx, &v1alpha1.ProviderConfigUsage{}, client.InNamespace(f.ns)); err != nil {
			t.Fatal(err)
		}
		waitGone(t, pc)
	})
}

func setSecret(t *testing.T, ns string, data map[string]string) {
	t.Helper()
	s := &corev1.Secret{}
	if err := cp.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "git-credentials"}, s); err != nil {
		t.Fatal(err)
	}
	s.Data = nil
	s.StringData = data
	if err := cp.Client.Update(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}
