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
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

const (
	// xrAPIVersion and xrKind are the example's XR type (definition.yaml).
	xrAPIVersion = "platform.example.org/v1alpha1"
	xrKind       = "AppEnvironment"
	// commitWindow is the ProviderConfig's batching window in this test.
	commitWindow = time.Second
)

// testComposition drives examples/composition: a team's namespace with an
// SSH deploy key and a ProviderConfig, the XRD and Composition (the function
// is served by the caller), then the XR; and reads the Git server.
func testComposition(t *testing.T, x *crossplane, provider *process) {
	gitRoot := t.TempDir()
	repo := testenv.NewBareRepo(t, gitRoot, "gitops.git", map[string][]testenv.CommitSpec{
		"main": {{Message: "Initial commit", Files: map[string]string{"README.md": "# gitops\n"}}},
	})
	ssh := testenv.StartSSHServer(t, gitRoot)

	xr := loadExample(t, x.tl.root, "composition/xr.yaml")[0]
	ns := xr.GetNamespace()
	x.apply(t, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "git-deploy-key", Namespace: ns},
		Data:       map[string][]byte{"identity": ssh.ClientKeyPEM, "known_hosts": ssh.KnownHosts},
	})
	x.apply(t, &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "gitops", Namespace: ns},
		Spec: v1alpha1.ProviderConfigSpec{
			URL: ssh.RepoURL("gitops.git"),
			Credentials: v1alpha1.ProviderCredentials{
				Source:    "Secret",
				SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: "git-deploy-key"},
			},
			Commit: v1alpha1.CommitConfig{
				Author: &v1alpha1.CommitAuthor{Name: "Platform Bot", Email: "platform-bot@example.org"},
				Window: &metav1.Duration{Duration: commitWindow},
			},
		},
	})

	def := loadExample(t, x.tl.root, "composition/definition.yaml")[0]
	x.apply(t, def)
	testenv.Eventually(t, 2*time.Minute, x.conditionTrue(def.GetAPIVersion(), def.GetKind(), "", def.GetName(), "Established"))
	for _, o := range loadExample(t, x.tl.root, "composition/composition.yaml") {
		x.apply(t, o)
	}

	created := time.Now()
	x.apply(t, xr)
	testenv.Eventually(t, 3*time.Minute, func() error {
		if err := provider.exited(); err != nil {
			return err
		}
		return x.conditionTrue(xrAPIVersion, xrKind, ns, xr.GetName(), "Ready")()
	})
	t.Logf("FIGURE XR created -> XR Ready: %s (commit window %s)", time.Since(created).Round(10*time.Millisecond), commitWindow)

	const branch = "environments/staging"
	dir := "apps/" + ns + "/" + xr.GetName() + "/"
	files := repo.Files(t, branch)
	t.Run("FilesHoldWhatTheXRAsked", func(t *testing.T) {
		wantDeployment := deployment("demo", ns, "ghcr.io/example/demo:1.4.2", 2)
		if diff := cmp.Diff(wantDeployment, yamlOf(t, files[dir+"deployment.yaml"])); diff != "" {
			t.Errorf("%s on %s: -want, +got:\n%s", dir+"deployment.yaml", branch, diff)
		}
		wantReadme := "# demo in staging\n\nWritten by Crossplane for the AppEnvironment default/demo-staging.\n" +
			"Edits made here are put back: change the AppEnvironment instead.\n"
		if diff := cmp.Diff(wantReadme, files[dir+"README.md"]); diff != "" {
			t.Errorf("%s on %s: -want, +got:\n%s", dir+"README.md", branch, diff)
		}
		wantRecord := "app: demo\nenvironment: staging\nappEnvironment: default/demo-staging\n"
		if diff := cmp.Diff(wantRecord, files["onboarding/default/demo-staging.yaml"]); diff != "" {
			t.Errorf("onboarding record on %s: -want, +got:\n%s", branch, diff)
		}
	})
	t.Run("OnboardingCommitLandedOnce", func(t *testing.T) {
		u, err := x.get(xrAPIVersion, xrKind, ns, xr.GetName())
		if err != nil {
			t.Fatal(err)
		}
		recorded, _, _ := unstructured.NestedString(u.Object, "status", "onboardingCommit")
		var shas []string
		for _, e := range repo.Log(t, branch) {
			if strings.HasPrefix(e.Message, "Onboard demo to staging\n") {
				shas = append(shas, e.SHA)
			}
		}
		if diff := cmp.Diff([]string{recorded}, shas); diff != "" {
			t.Errorf("commits of the CommitRequest on %s, and the XR's status.onboardingCommit: -want, +got:\n%s", branch, diff)
		}
	})

	t.Run("ImageChangeLandsAsACommit", func(t *testing.T) {
		x.mergePatch(t, xrAPIVersion, xrKind, ns, xr.GetName(), map[string]any{"spec": map[string]any{"image": "ghcr.io/example/demo:1.5.0"}})
		want := deployment("demo", ns, "ghcr.io/example/demo:1.5.0", 2)
		testenv.Eventually(t, 2*time.Minute, func() error {
			got, err := repo.BareRepo.Files(branch)
			if err != nil {
				return err
			}
			if diff := cmp.Diff(want, yamlOf(t, got[dir+"deployment.yaml"])); diff != "" {
				return fmt.Errorf("%s on %s: -want, +got:\n%s", dir+"deployment.yaml", branch, diff)
			}
			return nil
		})
		testenv.Eventually(t, time.Minute, x.conditionTrue(xrAPIVersion, xrKind, ns, xr.GetName(), "Ready"))
	})

	t.Run("ImmutableInputRefusedOnTheXR", func(t *testing.T) {
		err := x.tryMergePatch(xrAPIVersion, xrKind, ns, xr.GetName(), map[string]any{"spec": map[string]any{"environment": "production"}})
		if err == nil || !strings.Contains(err.Error(), "environment is immutable") {
			t.Errorf("changing the environment of an AppEnvironment: want the API server to refuse it as immutable, got %v", err)
		}
	})

	t.Run("WithoutTheGuardTheXRReportsTheRefusal", func(t *testing.T) {
		// A composer who leaves the XRD's guard out: the edit reaches the
		// Branch, whose API refuses it, and the XR must say so.
		x.jsonPatch(t, def, `[{"op": "remove", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/environment/x-kubernetes-validations"}]`)
		testenv.Eventually(t, time.Minute, func() error {
			return x.tryMergePatch(xrAPIVersion, xrKind, ns, xr.GetName(), map[string]any{"spec": map[string]any{"environment": "production"}})
		})
		// Crossplane names the composed resources it could not apply in the
		// XR's Synced condition, and says why in a Warning event on the XR:
		// the API server's refusal, with the CRD's own message.
		testenv.Eventually(t, time.Minute, func() error {
			u, err := x.get(xrAPIVersion, xrKind, ns, xr.GetName())
			if err != nil {
				return err
			}
			if s, r, m := condition(u, "Synced"); s != "False" || !strings.Contains(m, "Unsynced resources: branch") {
				return fmt.Errorf("XR Synced=%q (%s: %s), want False naming the Branch", s, r, m)
			}
			return x.warningOn(u, `cannot apply composed resource "branch"`, "branch is immutable; create a new Branch instead")
		})
		// Back to what the composed resources hold: the XR recovers.
		x.mergePatch(t, xrAPIVersion, xrKind, ns, xr.GetName(), map[string]any{"spec": map[string]any{"environment": "staging"}})
		testenv.Eventually(t, time.Minute, x.conditionTrue(xrAPIVersion, xrKind, ns, xr.GetName(), "Synced"))
	})

	t.Run("DeletingTheXR", func(t *testing.T) {
		testDeletion(t, x, repo, xr, branch, dir)
	})
}

// testDeletion deletes the XR and checks that what the composed resources'
// policies say was removed, and nothing else: the Files' paths are removed
// in a commit, the branch stays (its Branch leaves out Delete), and the
// onboarding commit and record stay (a CommitRequest is history).
func testDeletion(t testing.TB, x *crossplane, repo *testenv.BareRepo, xr *unstructured.Unstructured, branch, dir string) {
	t.Helper()
	onboarding := "onboarding/" + xr.GetNamespace() + "/" + xr.GetName() + ".yaml"
	before := repo.Files(t, branch)[onboarding]
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := x.kube.Delete(ctx, xr); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 2*time.Minute, x.noneLeft(xr.GetNamespace(), "Branch", "File", "CommitRequest"))
	if head, err := repo.BareRepo.Head(branch); err != nil || head == "" {
		t.Fatalf("%s is gone (%v); its Branch leaves out Delete", branch, err)
	}
	files := repo.Files(t, branch)
	for _, p := range []string{dir + "deployment.yaml", dir + "README.md"} {
		if _, ok := files[p]; ok {
			t.Errorf("%s is still on %s after its File was deleted", p, branch)
		}
	}
	if diff := cmp.Diff(before, files[onboarding]); diff != "" {
		t.Errorf("%s on %s after the XR was deleted: -want, +got:\n%s", onboarding, branch, diff)
	}
}

// serveFunction installs function-patch-and-transform as users do, from a
// Function package (built from the function's own package metadata and
// pushed to the registry), and serves it as its runtime would: the binary
// with a server certificate from Crossplane's CA, its endpoint recorded in
// the FunctionRevision.
func serveFunction(t testing.TB, x *crossplane, reg string) {
	t.Helper()
	fn := loadExample(t, x.tl.root, "composition/functions.yaml")[0]
	pkg, _, _ := unstructured.NestedString(fn.Object, "spec", "package")
	_, repoAndTag, ok := strings.Cut(pkg, "/")
	if !ok {
		t.Fatalf("Function package %q has no registry", pkg)
	}
	xpkg := filepath.Join(t.TempDir(), "function.xpkg")
	ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
	defer cancel()
	if _, stderr, err := run(ctx, x.tl.cli, nil, "xpkg", "build", "--package-root="+x.tl.function+"-package", "-o", xpkg); err != nil {
		t.Fatalf("crossplane xpkg build of the function: %v\n%s", err, stderr)
	}
	ref := pushPackage(t, reg+"/"+repoAndTag, xpkg)
	if err := unstructured.SetNestedField(fn.Object, ref, "spec", "package"); err != nil {
		t.Fatal(err)
	}
	x.apply(t, fn)

	rev := x.revisionOf(t, "FunctionRevision", fn.GetName())
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	p := start(t, "function-patch-and-transform", x.tl.function, nil,
		"--tls-certs-dir="+x.ca.tlsDir(t, "function-patch-and-transform"), "--address="+addr)
	testenv.Eventually(t, time.Minute, func() error {
		if err := p.exited(); err != nil {
			return err
		}
		return listening(addr)()
	})
	x.serveRevision(t, rev, addr)
	testenv.Eventually(t, 2*time.Minute, x.conditionTrue("pkg.crossplane.io/v1", "FunctionRevision", "", rev.GetName(), "RevisionHealthy"))
}

// deployment is the Deployment the Composition writes for an app, as the
// YAML a File's object becomes.
func deployment(app, namespace, image string, replicas int) map[string]any {
	return yamlOf(nil, fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[2]s
  labels:
    app.kubernetes.io/name: %[1]s
    platform.example.org/environment: staging
spec:
  replicas: %[4]d
  selector:
    matchLabels:
      app.kubernetes.io/name: %[1]s
  template:
    metadata:
      labels:
        app.kubernetes.io/name: %[1]s
    spec:
      containers:
        - name: app
          image: %[3]s
`, app, namespace, image, replicas))
}

// yamlOf decodes a YAML document (nil for no document).
func yamlOf(t testing.TB, s string) map[string]any {
	if s == "" {
		return nil
	}
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		if t != nil {
			t.Errorf("not YAML: %v\n%s", err, s)
		}
		return nil
	}
	return m
}
