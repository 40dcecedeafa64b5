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
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

const (
	// requestKind is the XR type of examples/composition/request.
	requestKind = "EnvironmentRequest"
	// requestNamespace is the team's namespace in this test: its own
	// ProviderConfig "gitops" reaches the Gitea repository, while default's
	// reaches the SSH server of testComposition.
	requestNamespace = "team-payments"
)

// testRequestComposition drives examples/composition/request through its
// whole day on a real Gitea whose main is protected and takes one approval:
// the XR is created, the provider opens the pull request, the XR waits, a
// reviewer approves and merges it through the forge's API, and the XR is
// Ready with main holding the manifest. The function is served by the
// caller.
func testRequestComposition(t *testing.T, x *crossplane, provider *process) {
	g := testenv.StartGitea(t)
	repo := g.CreateRepo(t, "gitops")
	g.ProtectBranch(t, repo.Name, "main")
	giteaCall(t, g, "require one approval on main", func(c *gitea.Client) error {
		_, _, err := c.EditBranchProtection(repo.Owner, repo.Name, "main", gitea.EditBranchProtectionOption{RequiredApprovals: ptr.To[int64](1)})
		return err
	})
	reviewer := g.CreateUser(t, "reviewer", repo.Name)

	xr := loadExample(t, x.tl.root, "composition/request/xr.yaml")[0]
	xr.SetNamespace(requestNamespace)
	ns, name := xr.GetNamespace(), xr.GetName()
	x.apply(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	// HTTPS with the admin's token as the password: Git and the forge's API
	// both take it, so the Secret needs no apiToken key.
	x.apply(t, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "gitea-credentials", Namespace: ns},
		Data:       map[string][]byte{"username": []byte(testenv.GiteaAdmin), "password": []byte(g.Token)},
	})
	x.apply(t, &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "gitops", Namespace: ns},
		Spec: v1alpha1.ProviderConfigSpec{
			URL: repo.CloneURL,
			Credentials: v1alpha1.ProviderCredentials{
				Source:    "Secret",
				SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: "gitea-credentials"},
			},
			Commit: v1alpha1.CommitConfig{
				Author: &v1alpha1.CommitAuthor{Name: "Platform Bot", Email: "platform-bot@example.org"},
				Window: &metav1.Duration{Duration: commitWindow},
			},
			Forge: &v1alpha1.ForgeConfig{Type: "Gitea", APIURL: repo.APIURL},
		},
	})

	def := loadExample(t, x.tl.root, "composition/request/definition.yaml")[0]
	x.apply(t, def)
	testenv.Eventually(t, 2*time.Minute, x.conditionTrue(def.GetAPIVersion(), def.GetKind(), "", def.GetName(), "Established"))
	for _, o := range loadExample(t, x.tl.root, "composition/request/composition.yaml") {
		x.apply(t, o)
	}

	const (
		environment = "payments-preview"
		path        = "environments/" + environment + "/namespace.yaml"
		title       = "Environment " + environment + " for payments"
	)
	head := "request/" + ns + "/" + name
	wantManifest := yamlOf(nil, `
apiVersion: v1
kind: Namespace
metadata:
  name: `+environment+`
  labels:
    platform.example.org/team: payments
  annotations:
    platform.example.org/requested-by: `+ns+`/`+name+`
`)

	created := time.Now()
	x.apply(t, xr)

	// The Branch and the File are Ready; the PullRequest is open and waits
	// for the merge, Synced; the XR waits for the PullRequest alone.
	var number int64
	var fileCommit string
	testenv.Eventually(t, 3*time.Minute, func() error {
		if err := provider.exited(); err != nil {
			return err
		}
		for _, r := range []string{"branch", "manifest"} {
			u, err := x.composed(xr, r)
			if err != nil {
				return err
			}
			if s, rs, m := condition(u, "Ready"); s != "True" {
				return fmt.Errorf("%s %s: Ready=%q (%s: %s)", u.GetKind(), u.GetName(), s, rs, m)
			}
		}
		pr, err := x.composed(xr, "pull-request")
		if err != nil {
			return err
		}
		if s, r, m := condition(pr, "Synced"); s != "True" {
			return fmt.Errorf("PullRequest %s: Synced=%q (%s: %s)", pr.GetName(), s, r, m)
		}
		if s, r, m := condition(pr, "Ready"); s != "False" || r != "AwaitingMerge" {
			return fmt.Errorf("PullRequest %s: Ready=%q (%s: %s), want False AwaitingMerge", pr.GetName(), s, r, m)
		}
		number, _, _ = unstructured.NestedInt64(pr.Object, "status", "atProvider", "number")
		if state, _, _ := unstructured.NestedString(pr.Object, "status", "atProvider", "state"); state != "Open" || number == 0 {
			return fmt.Errorf("PullRequest %s: state %q, number %d, want Open and a number", pr.GetName(), state, number)
		}
		file, err := x.composed(xr, "manifest")
		if err != nil {
			return err
		}
		fileCommit, _, _ = unstructured.NestedString(file.Object, "status", "atProvider", "commit")
		u, err := x.get(xrAPIVersion, requestKind, ns, name)
		if err != nil {
			return err
		}
		if s, r, m := condition(u, "Ready"); s != "False" || m != "Unready resources: pull-request" {
			return fmt.Errorf("XR Ready=%q (%s: %s), want False waiting for the pull-request alone", s, r, m)
		}
		return nil
	})
	t.Logf("FIGURE XR created -> pull request #%d open, Branch and File Ready: %s", number, time.Since(created).Round(10*time.Millisecond))

	t.Run("PullRequestOpenedOnTheForge", func(t *testing.T) {
		// The forge's head is the File's commit once Gitea took the push.
		var pr *gitea.PullRequest
		testenv.Eventually(t, time.Minute, func() error {
			pr = g.PR(t, repo.Name, number)
			if pr.Head == nil || pr.Head.Sha != fileCommit {
				return fmt.Errorf("pull request #%d head %+v, want the File's commit %s", number, pr.Head, fileCommit)
			}
			return nil
		})
		got := map[string]any{"head": pr.Head.Ref, "base": pr.Base.Ref, "title": pr.Title, "state": string(pr.State), "merged": pr.HasMerged}
		want := map[string]any{"head": head, "base": "main", "title": title, "state": "open", "merged": false}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pull request #%d on Gitea: -want, +got:\n%s", number, diff)
		}
		if !strings.Contains(pr.Body, "\n- "+path+"\n") || !strings.Contains(pr.Body, "EnvironmentRequest "+ns+"/"+name) {
			t.Errorf("pull request #%d body must name the XR and list %s on its head:\n%s", number, path, pr.Body)
		}
		if diff := cmp.Diff(wantManifest, yamlOf(t, giteaFile(t, g, repo, head, path))); diff != "" {
			t.Errorf("%s on %s: -want, +got:\n%s", path, head, diff)
		}
		if content := giteaFile(t, g, repo, "main", path); content != "" {
			t.Errorf("%s is on the protected main before any merge:\n%s", path, content)
		}
		u, err := x.get(xrAPIVersion, requestKind, ns, name)
		if err != nil {
			t.Fatal(err)
		}
		status, _, _ := unstructured.NestedMap(u.Object, "status", "pullRequest")
		if diff := cmp.Diff(map[string]any{"number": number, "url": pr.HTMLURL, "state": "Open"}, status); diff != "" {
			t.Errorf("XR status.pullRequest: -want, +got:\n%s", diff)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("AmendedWhileOpen", func(t *testing.T) {
		// The reviewer asks for another owner; the requester edits the XR.
		// The change lands on the open pull request: a new head commit, the
		// title declared anew.
		x.mergePatch(t, xrAPIVersion, requestKind, ns, name, map[string]any{"spec": map[string]any{"team": "payments-platform"}})
		if err := unstructured.SetNestedField(wantManifest, "payments-platform", "metadata", "labels", "platform.example.org/team"); err != nil {
			t.Fatal(err)
		}
		before := fileCommit
		testenv.Eventually(t, 2*time.Minute, func() error {
			file, err := x.composed(xr, "manifest")
			if err != nil {
				return err
			}
			fileCommit, _, _ = unstructured.NestedString(file.Object, "status", "atProvider", "commit")
			if fileCommit == before {
				return fmt.Errorf("the File's commit is still %s", before)
			}
			pr := g.PR(t, repo.Name, number)
			if pr.Head == nil || pr.Head.Sha != fileCommit || pr.Title != "Environment "+environment+" for payments-platform" {
				return fmt.Errorf("pull request #%d: head %+v, title %q; want the File's commit %s and the new team in the title", number, pr.Head, pr.Title, fileCommit)
			}
			return nil
		})
		if diff := cmp.Diff(wantManifest, yamlOf(t, giteaFile(t, g, repo, head, path))); diff != "" {
			t.Errorf("%s on %s after the edit: -want, +got:\n%s", path, head, diff)
		}
		if u, err := x.get(xrAPIVersion, requestKind, ns, name); err != nil {
			t.Fatal(err)
		} else if s, _, m := condition(u, "Ready"); s != "False" {
			t.Errorf("XR Ready=%q (%s) with the pull request still open", s, m)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("MergedByAReviewer", func(t *testing.T) {
		g.Approve(t, reviewer, repo.Name, number)
		// Gitea checks mergeability after each push, asynchronously.
		testenv.Eventually(t, time.Minute, func() error {
			if pr := g.PR(t, repo.Name, number); !pr.Mergeable {
				return fmt.Errorf("pull request #%d is not mergeable yet", number)
			}
			return nil
		})
		// Approved but not merged: still waiting.
		if u, err := x.get(xrAPIVersion, requestKind, ns, name); err != nil {
			t.Fatal(err)
		} else if s, _, m := condition(u, "Ready"); s != "False" {
			t.Errorf("XR Ready=%q (%s) with the pull request approved but not merged; readiness Merged waits for the merge", s, m)
		}
		g.MergeAsReviewer(t, &reviewer, repo.Name, number)
		merged := time.Now()
		testenv.Eventually(t, 2*time.Minute, func() error {
			if err := provider.exited(); err != nil {
				return err
			}
			return x.conditionTrue(xrAPIVersion, requestKind, ns, name, "Ready")()
		})
		t.Logf("FIGURE merged by a reviewer -> XR Ready: %s (poll %s)", time.Since(merged).Round(10*time.Millisecond), providerPoll)

		forge := g.PR(t, repo.Name, number)
		if forge.MergedCommitID == nil || *forge.MergedCommitID == "" {
			t.Fatalf("Gitea reports pull request #%d without a merge commit: %+v", number, forge)
		}
		pr, err := x.composed(xr, "pull-request")
		if err != nil {
			t.Fatal(err)
		}
		if s, r, m := condition(pr, "Ready"); s != "True" {
			t.Errorf("PullRequest Ready=%q (%s: %s), want True once merged", s, r, m)
		}
		state, _, _ := unstructured.NestedString(pr.Object, "status", "atProvider", "state")
		mc, _, _ := unstructured.NestedString(pr.Object, "status", "atProvider", "mergeCommit")
		if diff := cmp.Diff([]string{"Merged", *forge.MergedCommitID}, []string{state, mc}); diff != "" {
			t.Errorf("PullRequest status.atProvider state and mergeCommit: -want, +got:\n%s", diff)
		}
		u, err := x.get(xrAPIVersion, requestKind, ns, name)
		if err != nil {
			t.Fatal(err)
		}
		xrState, _, _ := unstructured.NestedString(u.Object, "status", "pullRequest", "state")
		xrCommit, _, _ := unstructured.NestedString(u.Object, "status", "pullRequest", "mergeCommit")
		if diff := cmp.Diff([]string{"Merged", *forge.MergedCommitID}, []string{xrState, xrCommit}); diff != "" {
			t.Errorf("XR status.pullRequest state and mergeCommit: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(wantManifest, yamlOf(t, giteaFile(t, g, repo, "main", path))); diff != "" {
			t.Errorf("%s on main after the merge: -want, +got:\n%s", path, diff)
		}
	})

	t.Run("DirectPushToMainStalls", func(t *testing.T) {
		testDirectPushStalls(t, x, ns)
	})

	t.Run("DeletingTheMergedRequest", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		if err := x.kube.Delete(ctx, xr); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 2*time.Minute, x.noneLeft(ns, "Branch", "File", "PullRequest"))
		// The request's branch goes with its Branch; the merge stays.
		testenv.Eventually(t, time.Minute, giteaBranchGone(t, g, repo, head))
		if pr := g.PR(t, repo.Name, number); !pr.HasMerged {
			t.Errorf("pull request #%d is no longer merged after the XR was deleted: %s", number, pr.State)
		}
		if diff := cmp.Diff(wantManifest, yamlOf(t, giteaFile(t, g, repo, "main", path))); diff != "" {
			t.Errorf("%s on main after the XR was deleted: -want, +got:\n%s", path, diff)
		}
	})

	t.Run("WithdrawnBeforeTheMerge", func(t *testing.T) {
		testWithdrawn(t, x, g, repo, ns)
	})
}

// testWithdrawn creates a second EnvironmentRequest, waits for its pull
// request to open, and deletes the XR before anyone merged it: the
// request is withdrawn, its pull request closed unmerged and its branch
// deleted, and main never holds its manifest.
func testWithdrawn(t testing.TB, x *crossplane, g *testenv.Gitea, repo testenv.GiteaRepo, ns string) {
	t.Helper()
	xr := loadExample(t, x.tl.root, "composition/request/xr.yaml")[0]
	xr.SetNamespace(ns)
	xr.SetName("payments-sandbox")
	if err := unstructured.SetNestedField(xr.Object, "payments-sandbox", "spec", "environment"); err != nil {
		t.Fatal(err)
	}
	head := "request/" + ns + "/" + xr.GetName()
	x.apply(t, xr)
	var number int64
	testenv.Eventually(t, 2*time.Minute, func() error {
		pr, err := x.composed(xr, "pull-request")
		if err != nil {
			return err
		}
		if s, r, m := condition(pr, "Ready"); r != "AwaitingMerge" {
			return fmt.Errorf("PullRequest %s: Ready=%q (%s: %s), want AwaitingMerge", pr.GetName(), s, r, m)
		}
		number, _, _ = unstructured.NestedInt64(pr.Object, "status", "atProvider", "number")
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := x.kube.Delete(ctx, xr); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 2*time.Minute, x.noneLeft(ns, "Branch", "File", "PullRequest"))
	testenv.Eventually(t, time.Minute, giteaBranchGone(t, g, repo, head))
	pr := g.PR(t, repo.Name, number)
	if diff := cmp.Diff([]any{"closed", false}, []any{string(pr.State), pr.HasMerged}); diff != "" {
		t.Errorf("pull request #%d of the withdrawn request, state and merged: -want, +got:\n%s", number, diff)
	}
	if content := giteaFile(t, g, repo, "main", "environments/payments-sandbox/namespace.yaml"); content != "" {
		t.Errorf("the withdrawn request's manifest is on main:\n%s", content)
	}
}

// composed returns the resource composed for xr under the Composition's
// resource name r.
func (x *crossplane) composed(xr *unstructured.Unstructured, r string) (*unstructured.Unstructured, error) {
	u, err := x.get(xr.GetAPIVersion(), xr.GetKind(), xr.GetNamespace(), xr.GetName())
	if err != nil {
		return nil, err
	}
	refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "crossplane", "resourceRefs")
	for _, ref := range refs {
		m, ok := ref.(map[string]any)
		if !ok {
			continue
		}
		apiVersion, _ := m["apiVersion"].(string)
		kind, _ := m["kind"].(string)
		name, _ := m["name"].(string)
		c, err := x.get(apiVersion, kind, xr.GetNamespace(), name)
		if err != nil {
			return nil, err
		}
		if c.GetAnnotations()["crossplane.io/composition-resource-name"] == r {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%s %s has composed no %q yet", xr.GetKind(), xr.GetName(), r)
}

// noneLeft is a check for eventually: no object of the provider's kinds is
// left in namespace.
func (x *crossplane) noneLeft(namespace string, kinds ...string) func() error {
	return func() error {
		for _, kind := range kinds {
			l := &unstructured.UnstructuredList{}
			l.SetAPIVersion(v1alpha1.SchemeGroupVersion.String())
			l.SetKind(kind + "List")
			ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
			err := x.kube.List(ctx, l, client.InNamespace(namespace))
			cancel()
			if err != nil {
				return err
			}
			if len(l.Items) > 0 {
				return fmt.Errorf("%d %s(s) left in %s", len(l.Items), kind, namespace)
			}
		}
		return nil
	}
}
