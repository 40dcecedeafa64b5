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

package fakes_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/github"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	fakegithub "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestVerifiedCommitsThroughGitHubAPI: a Branch and a File written through
// a ProviderConfig with spec.commit.via API land as a commit GitHub
// created through its Git data API and shows Verified, carrying the
// File's trailers, recorded in the File's status; and a configuration
// that asks for the API without a GitHub App's credentials is refused,
// saying why.
func TestVerifiedCommitsThroughGitHubAPI(t *testing.T) {
	gh := fakegithub.NewServer(t)
	e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.GitHub: github.New}))
	// GitHub's Git endpoint takes the installation token as x-access-token.
	appGit := testenv.NewHTTPServer(t, e2e.GitRoot, "x-access-token", fakegithub.Token)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-viaapi-"}}
	if err := e2e.CP.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e2e.Purge(t, ns.Name) })
	name := "e2e/github-viaapi.git"
	repo := testenv.NewBareRepo(t, e2e.GitRoot, name, map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}}})
	gh.ServeGitData("e2e", "github-viaapi", repo.Dir)

	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "app"}, StringData: map[string]string{
		"githubAppID": "1", "githubAppInstallationID": "2", "githubAppBaseURL": gh.URL(),
		"githubAppPrivateKey": string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})),
	}}
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git"},
		Spec: v1alpha1.ProviderConfigSpec{URL: appGit.RepoURL(name),
			Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: secret.Name}},
			Forge:       &v1alpha1.ForgeConfig{Type: v1alpha1.ForgeType(forge.GitHub), APIURL: gh.URL()},
			Commit:      v1alpha1.CommitConfig{Via: v1alpha1.CommitViaAPI}}}
	e2e.CreateAll(t, secret, pc)
	f := &e2e.Fixture{Namespace: ns.Name, Repo: repo}

	t.Run("BranchAndFile", func(t *testing.T) {
		br := e2e.NewBranch(f, "feature", "feature", "main")
		fl := e2e.NewFile(f, "app", "apps/app.yaml", "replicas: 2\n")
		fl.Spec.ForProvider.Branch = "feature"
		e2e.CreateAll(t, br, fl)
		e2e.WaitFor(t, time.Minute, br, e2e.ReadyAndCurrent(t, br))
		e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
		head := repo.Head(t, "feature")
		if fl.Status.AtProvider.Commit != head {
			t.Errorf("the File records commit %s, the branch is at %s", fl.Status.AtProvider.Commit, head)
		}
		if !gh.Verified(head) {
			t.Errorf("commit %s is not one GitHub created and Verified", head)
		}
		if got := repo.Files(t, "feature")["apps/app.yaml"]; got != "replicas: 2\n" {
			t.Errorf("apps/app.yaml holds %q", got)
		}
		if uids := repo.Log(t, "feature")[0].Trailers[git.TrailerUID]; len(uids) != 1 || uids[0] != string(fl.GetUID()) {
			t.Errorf("trailers name UIDs %v, want the File's %s", uids, fl.GetUID())
		}
		if n := gh.Count(func(r fakegithub.Request) bool {
			return r.Method == http.MethodPatch && strings.HasSuffix(r.Path, "/git/refs/heads/feature")
		}); n != 1 {
			t.Errorf("%d ref updates through the API, want 1", n)
		}
	})

	t.Run("RefusedWithoutAnApp", func(t *testing.T) {
		plain := forgeFixture(t, "e2e/github-viaapi-token.git", forge.GitHub, gh.URL(), fakegithub.Token)
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: plain.Namespace, Name: "git"}}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(pc), pc); err != nil {
				return err
			}
			pc.Spec.Commit.Via = v1alpha1.CommitViaAPI
			return e2e.CP.Client.Update(ctx, pc)
		})
		if err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, time.Minute, pc, func() error {
			if err := e2e.StalledWith(t, pc, spec.ReasonInvalidConfig)(); err != nil {
				return err
			}
			if msg := pc.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "GitHub App credentials") {
				return fmt.Errorf("message %q does not say what is missing", msg)
			}
			return nil
		})
	})
}
