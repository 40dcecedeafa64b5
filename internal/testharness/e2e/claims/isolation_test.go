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

package claims_test

import (
	"context"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestNamespaceIsolation: a namespaced resource reaches configurations and
// credentials only where its namespace, or a cluster administrator's
// ClusterProviderConfig, says. (That another namespace's ProviderConfig is
// out of reach is TestProviderConfigStatus/AnotherNamespacesConfigIsOutOfReach.)
func TestNamespaceIsolation(t *testing.T) {
	e2e.StartProvider(t, "")
	ctx := context.Background()
	noBranch := func(t *testing.T, repo *testenv.BareRepo, branch string) {
		t.Helper()
		if _, err := testenv.Git(repo.Dir, nil, "rev-parse", "--verify", "refs/heads/"+branch); err == nil {
			t.Errorf("branch %s was created through credentials out of the resource's reach", branch)
		}
	}

	t.Run("AnotherNamespacesSecretIsOutOfReach", func(t *testing.T) {
		owner := e2e.NewFixture(t)
		thief := e2e.NewFixture(t)
		// The thief's ProviderConfig points at the owner's repository and
		// names a Secret only the owner's namespace holds.
		if err := e2e.CP.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: thief.Namespace, Name: "git-credentials"}}); err != nil {
			t.Fatal(err)
		}
		pointAt(t, thief.Namespace, "git", owner)
		b := e2e.NewBranch(thief, "b", "stolen", "main")
		e2e.Create(t, b)
		e2e.WaitFor(t, 30*time.Second, b, e2e.StalledWith(t, b, config.ReasonSecretNotFound))
		noBranch(t, owner.Repo, "stolen")
	})

	t.Run("ClusterProviderConfigSecretOnlyWhereItSays", func(t *testing.T) {
		f := e2e.NewFixture(t)
		vault := otherNamespace(t)
		pc := &v1alpha1.ProviderConfig{}
		if err := e2e.CP.Client.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: "git"}, pc); err != nil {
			t.Fatal(err)
		}
		// It names a Secret in vault; the resource's own namespace has one
		// of that name, which must not be used instead.
		cpc := &v1alpha1.ClusterProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Name: f.Namespace + "-vault"},
			Spec: v1alpha1.ClusterProviderConfigSpec{URL: pc.Spec.URL, Credentials: v1alpha1.ClusterProviderCredentials{
				Source:    xpv2.CredentialsSourceSecret,
				SecretRef: &v1alpha1.CredentialsSecretRef{Namespace: vault, Name: "git-credentials"},
			}},
		}
		e2e.Create(t, cpc)
		t.Cleanup(func() { removeClusterConfig(cpc) })
		b := e2e.NewBranch(f, "b", "through-cluster", "main")
		b.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: cpc.Name}
		e2e.Create(t, b)
		e2e.WaitFor(t, 30*time.Second, b, e2e.StalledWith(t, b, config.ReasonSecretNotFound))
		noBranch(t, f.Repo, "through-cluster")

		// Once the Secret exists where the ClusterProviderConfig says, it
		// works: that, and only that, is the path to the credentials.
		e2e.Create(t, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: vault, Name: "git-credentials"},
			StringData: map[string]string{"username": e2e.GitUser, "password": e2e.GitToken},
		})
		e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
	})
}

// pointAt sets namespace's ProviderConfig name to f's repository URL.
func pointAt(t *testing.T, namespace, name string, f *e2e.Fixture) {
	t.Helper()
	owner := &v1alpha1.ProviderConfig{}
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: f.Namespace, Name: "git"}, owner); err != nil {
		t.Fatal(err)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pc := &v1alpha1.ProviderConfig{}
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, pc); err != nil {
			return err
		}
		pc.Spec.URL = owner.Spec.URL
		return e2e.CP.Client.Update(context.Background(), pc)
	})
	if err != nil {
		t.Fatal(err)
	}
}
