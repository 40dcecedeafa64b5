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

package configuration_test

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
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestProviderConfigStatus(t *testing.T) {
	e2e.StartProvider(t, "")
	ctx := context.Background()

	t.Run("WorkingCredentials", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
		e2e.WaitFor(t, 30*time.Second, pc, func() error {
			if err := e2e.ConditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded); err != nil {
				return err
			}
			return e2e.ConditionIs(pc, session.TypeStalled, corev1.ConditionFalse, session.ReasonSucceeded)
		})
	})

	t.Run("WrongPasswordStallsUntilTheSecretIsFixed", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		setSecret(t, f.Namespace, map[string]string{"username": e2e.GitUser, "password": "wrong"})
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
		e2e.WaitFor(t, 30*time.Second, pc, e2e.StalledWith(t, pc, spec.ReasonAuthenticationFailed))
		// The message names the Secret and key the server refused, and says
		// the server's words once.
		want := `cannot reach the repository: the server refused credentials Secret ` + f.Namespace +
			`/git-credentials key "password": cannot list the remote's references: authentication required: unauthorized`
		if diff := cmp.Diff(want, pc.GetCondition(session.TypeStalled).Message); diff != "" {
			t.Errorf("AuthenticationFailed message: -want, +got:\n%s", diff)
		}
		b := e2e.NewBranch(f, "b", "b", "main")
		if err := e2e.CP.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, b, e2e.StalledWith(t, b, spec.ReasonAuthenticationFailed))
		// The resource's own condition names the Secret too: whoever reads
		// the Branch learns which Secret to fix without finding its
		// configuration first.
		named := `the server refused credentials Secret ` + f.Namespace + `/git-credentials key "password": `
		if msg := b.GetCondition(session.TypeStalled).Message; !strings.Contains(msg, named) {
			t.Errorf("Branch's AuthenticationFailed message %q does not name the refused Secret (%q)", msg, named)
		}
		if _, err := testenv.Git(f.Repo.Dir, nil, "rev-parse", "--verify", "refs/heads/b"); err == nil {
			t.Errorf("a Branch whose credentials are refused must not reach the repository")
		}

		// Fixing the Secret converges both, without a restart.
		setSecret(t, f.Namespace, map[string]string{"username": e2e.GitUser, "password": e2e.GitToken})
		e2e.WaitFor(t, 30*time.Second, pc, func() error {
			return e2e.ConditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded)
		})
		e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
		if diff := cmp.Diff(int64(1), pc.Status.Users); diff != "" {
			t.Errorf("users: -want, +got:\n%s", diff)
		}
	})

	t.Run("SecretNotFound", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		if err := e2e.CP.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git-credentials"}}); err != nil {
			t.Fatal(err)
		}
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
		e2e.WaitFor(t, 30*time.Second, pc, e2e.StalledWith(t, pc, config.ReasonSecretNotFound))
	})

	t.Run("RepositoryNotFound", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(pc), pc); err != nil {
				return err
			}
			pc.Spec.URL = e2e.HTTPGit.RepoURL("no-such-repository.git")
			return e2e.CP.Client.Update(ctx, pc)
		})
		if err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, pc, e2e.StalledWith(t, pc, spec.ReasonRepositoryNotFound))
	})

	t.Run("SSHHostKeys", func(t *testing.T) {
		t.Parallel()
		testenv.RequireSSHD(t)
		f := e2e.NewFixture(t)
		ssh := testenv.StartSSHServer(t, e2e.GitRoot)
		cases := map[string]struct {
			reason     string
			knownHosts []byte
			want       func(pc *v1alpha1.ProviderConfig) func() error
		}{
			"Matching": {
				reason:     "A known_hosts entry matching the server's key connects.",
				knownHosts: ssh.KnownHosts,
				want: func(pc *v1alpha1.ProviderConfig) func() error {
					return func() error {
						return e2e.ConditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded)
					}
				},
			},
			"Mismatched": {
				reason:     "A changed host key is refused, fail closed.",
				knownHosts: ssh.WrongKnownHosts,
				want: func(pc *v1alpha1.ProviderConfig) func() error {
					return e2e.StalledWith(t, pc, spec.ReasonHostKeyMismatch)
				},
			},
			"Unknown": {
				reason: "A host known_hosts does not list is refused, fail closed.",
				// The right key, but for another host.
				knownHosts: []byte("[git.example.org]:22 " + strings.SplitN(string(ssh.KnownHosts), " ", 2)[1]),
				want: func(pc *v1alpha1.ProviderConfig) func() error {
					return e2e.StalledWith(t, pc, spec.ReasonHostKeyMismatch)
				},
			},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				secret := &corev1.Secret{
					ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, GenerateName: "ssh-"},
					Data:       map[string][]byte{"identity": ssh.ClientKeyPEM, "known_hosts": tc.knownHosts},
				}
				if err := e2e.CP.Client.Create(ctx, secret); err != nil {
					t.Fatal(err)
				}
				pc := &v1alpha1.ProviderConfig{
					ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, GenerateName: "ssh-"},
					Spec: v1alpha1.ProviderConfigSpec{
						URL: ssh.RepoURL(f.Namespace + ".git"),
						Credentials: v1alpha1.ProviderCredentials{
							Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: secret.Name},
						},
					},
				}
				if err := e2e.CP.Client.Create(ctx, pc); err != nil {
					t.Fatal(err)
				}
				e2e.WaitFor(t, 30*time.Second, pc, tc.want(pc))

				// A managed resource using it reports the same thing.
				b := e2e.NewBranch(f, pc.Name, pc.Name, "main")
				b.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: pc.Name}
				if err := e2e.CP.Client.Create(ctx, b); err != nil {
					t.Fatal(err)
				}
				if name == "Matching" {
					e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
					return
				}
				e2e.WaitFor(t, 30*time.Second, b, e2e.StalledWith(t, b, spec.ReasonHostKeyMismatch))
			})
		}
	})

	t.Run("AnotherNamespacesConfigIsOutOfReach", func(t *testing.T) {
		t.Parallel()
		owner := e2e.NewFixture(t)
		other := e2e.NewFixture(t)
		// The other namespace has no ProviderConfig of that name: a Branch
		// there must not find the owner's.
		otherPC := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: other.Namespace, Name: "git"}}
		if err := e2e.CP.Client.Delete(ctx, otherPC); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, otherPC)
		b := e2e.NewBranch(other, "b", "stolen", "main")
		if err := e2e.CP.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, b, e2e.StalledWith(t, b, config.ReasonProviderConfigNotFound))
		if _, err := testenv.Git(owner.Repo.Dir, nil, "rev-parse", "--verify", "refs/heads/stolen"); err == nil {
			t.Errorf("a Branch must not reach another namespace's repository")
		}
	})

	t.Run("DeletionBlockedWhileInUse", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		b := e2e.NewBranch(f, "user", "user", "main")
		if err := e2e.CP.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
		if err := e2e.CP.Client.Delete(ctx, pc); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, pc, func() error {
			return e2e.ConditionIs(pc, xpv2.TypeReady, corev1.ConditionFalse, config.ReasonInUse)
		})
		if err := e2e.CP.Client.Delete(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, b)
		// envtest runs no garbage collector: delete the usage the Branch owned,
		// as the cluster's garbage collector would.
		if err := e2e.CP.Client.DeleteAllOf(ctx, &v1alpha1.ProviderConfigUsage{}, client.InNamespace(f.Namespace)); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, pc)
	})
}

func setSecret(t *testing.T, ns string, data map[string]string) {
	t.Helper()
	s := &corev1.Secret{}
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "git-credentials"}, s); err != nil {
		t.Fatal(err)
	}
	s.Data = nil
	s.StringData = data
	if err := e2e.CP.Client.Update(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}
