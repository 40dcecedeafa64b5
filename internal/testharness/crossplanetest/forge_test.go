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

package crossplanetest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// giteaCallTimeout bounds one call of the test to Gitea's API.
const giteaCallTimeout = 30 * time.Second

// testDirectPushStalls writes a File straight onto the protected main of the
// configuration in ns: Gitea refuses the push, and the File says so in the
// forge's words with the way out, Stalled PushRejected. Deleting it then
// needs nothing from Git.
func testDirectPushStalls(t testing.TB, x *crossplane, ns string) {
	t.Helper()
	f := &v1alpha1.File{
		ObjectMeta: metav1.ObjectMeta{Name: "straight-to-main", Namespace: ns},
		Spec: v1alpha1.FileSpec{
			ForProvider: v1alpha1.FileParameters{Branch: "main", Path: "environments/direct.yaml", Content: ptr.To("direct: true\n")},
		},
	}
	f.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "gitops"}
	x.apply(t, f)
	const (
		words = "Not allowed to push to protected branch main"
		hint  = "write to a branch and open a PullRequest"
	)
	testenv.Eventually(t, 2*time.Minute, func() error {
		u, err := x.get(v1alpha1.SchemeGroupVersion.String(), "File", ns, f.Name)
		if err != nil {
			return err
		}
		if s, r, m := condition(u, "Stalled"); s != "True" || r != "PushRejected" || !strings.Contains(m, words) || !strings.Contains(m, hint) {
			return fmt.Errorf("File %s: Stalled=%q (%s: %s), want True PushRejected with %q and %q", f.Name, s, r, m, words, hint)
		}
		if s, r, _ := condition(u, "Ready"); s != "False" || r != "PushRejected" {
			return fmt.Errorf("File %s: Ready=%q (%s), want False PushRejected", f.Name, s, r)
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := x.kube.Delete(ctx, f); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		_, err := x.get(v1alpha1.SchemeGroupVersion.String(), "File", ns, f.Name)
		if kerrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("File %s is not gone after its delete (%w)", f.Name, err)
	})
}

// giteaCall runs fn with the admin's client and a bounded context.
func giteaCall(t testing.TB, g *testenv.Gitea, what string, fn func(c *gitea.Client) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), giteaCallTimeout)
	defer cancel()
	if err := fn(g.Client(ctx, t)); err != nil {
		t.Fatalf("gitea: %s: %v", what, err)
	}
}

// giteaFile returns path on ref as Gitea serves it, "" when it is not there.
func giteaFile(t testing.TB, g *testenv.Gitea, repo testenv.GiteaRepo, ref, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), giteaCallTimeout)
	defer cancel()
	b, resp, err := g.Client(ctx, t).GetFile(repo.Owner, repo.Name, ref, path)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return ""
	}
	if err != nil {
		t.Fatalf("gitea: read %s on %s: %v", path, ref, err)
	}
	return string(b)
}

// giteaBranchGone is a check for eventually: branch is not on Gitea.
func giteaBranchGone(t testing.TB, g *testenv.Gitea, repo testenv.GiteaRepo, branch string) func() error {
	t.Helper()
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), giteaCallTimeout)
		defer cancel()
		_, resp, err := g.Client(ctx, t).GetRepoBranch(repo.Owner, repo.Name, branch)
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return nil
		}
		return fmt.Errorf("%s is still on Gitea after its Branch was deleted (%w)", branch, err)
	}
}
