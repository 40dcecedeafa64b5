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

package attribution_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// wait is the provider's --audit-attribution-wait in these tests.
const wait = 2 * time.Second

// committer is the fixture's configured commit identity.
const committer = "E2E <e2e@example.org>"

// userClient acts as user: a client certificate envtest's authenticator
// accepts, in system:masters so that RBAC lets it edit anything.
func userClient(t *testing.T, user string) client.Client {
	t.Helper()
	cfg, err := e2e.CP.UserConfig(user, "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: e2e.CP.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// impersonating acts as user, impersonated by the administrator.
func impersonating(t *testing.T, user string) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(e2e.CP.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:masters", "system:authenticated"}}
	c, err := client.New(cfg, client.Options{Scheme: e2e.CP.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// edit sets data k=v on ConfigMap ns/name as c.
func edit(t *testing.T, c client.Client, ns, name, k, v string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm := &corev1.ConfigMap{}
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[k] = v
		return c.Update(context.Background(), cm)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// commit is one commit as git log tells it.
type commit struct {
	Author, Committer string
	Files             []string
}

// commitsSince lists the commits of main after before, oldest first, with
// their author, committer and the mirrored files they touch.
func commitsSince(t *testing.T, f *e2e.Fixture, before string) ([]commit, []string) {
	t.Helper()
	out := f.GitOut(t, "log", "--reverse", "--format=%H%x09%an <%ae>%x09%cn <%ce>", before+"..main")
	var cs []commit
	var shas []string
	for line := range strings.SplitSeq(out, "\n") {
		if line == "" {
			continue
		}
		p := strings.Split(line, "\t")
		var files []string
		for _, fl := range strings.Split(f.GitOut(t, "diff-tree", "--no-commit-id", "--name-only", "-r", p[0]), "\n") {
			if fl != "" && !strings.HasSuffix(fl, mirrorcontroller.MarkerFile) {
				files = append(files, fl)
			}
		}
		cs = append(cs, commit{Author: p[1], Committer: p[2], Files: files})
		shas = append(shas, p[0])
	}
	return cs, shas
}

// setSigning has the fixture's ProviderConfig sign with a generated key
// and returns the public key it publishes.
func setSigning(t *testing.T, f *e2e.Fixture) string {
	t.Helper()
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(pc), pc); err != nil {
			return err
		}
		pc.Spec.Commit.Signing = &v1alpha1.CommitSigning{SecretRef: v1alpha1.SigningKeySecretRef{Name: "signing"}, GenerateWhenMissing: true}
		return e2e.CP.Client.Update(context.Background(), pc)
	})
	if err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, 30*time.Second, pc, func() error {
		if pc.Status.Signing == nil || !strings.HasPrefix(pc.Status.Signing.PublicKey, "ssh-ed25519 ") {
			return fmt.Errorf("status.signing is %+v, want an ed25519 public key", pc.Status.Signing)
		}
		return nil
	})
	return pc.Status.Signing.PublicKey
}

func attributed(p v1alpha1.MirrorParameters) v1alpha1.MirrorParameters {
	p.Attribution = v1alpha1.MirrorAttributionAudit
	if len(p.Resources) == 0 {
		p.Resources = []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}
	}
	return p
}

// TestAttributedCommits: two users (client certificates) and a
// ServiceAccount (impersonated by the administrator) each edit a mirrored
// ConfigMap: three commits, each authored by its actor and committed by
// the configured identity, each signed with the configuration's key.
func TestAttributedCommits(t *testing.T) {
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait))
	pub := setSigning(t, f)
	ns := f.Namespace
	m := e2e.NewMirror(ns, "m", attributed(v1alpha1.MirrorParameters{}), e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	want := map[string]string{}
	for _, n := range []string{"a", "b", "c"} {
		cm := e2e.ConfigMap(ns, n, nil, map[string]string{"k": "0"})
		e2e.Create(t, cm)
		want[e2e.ObjPath(ns, "core", "configmap", n)] = e2e.Rendered(t, cm)
	}
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	before := f.Repo.Head(t, "main")

	sa := "system:serviceaccount:" + ns + ":deployer"
	edit(t, userClient(t, "alice"), ns, "a", "k", "1")
	edit(t, userClient(t, "bob"), ns, "b", "k", "1")
	edit(t, impersonating(t, sa), ns, "c", "k", "1")
	for _, n := range []string{"a", "b", "c"} {
		want[e2e.ObjPath(ns, "core", "configmap", n)] = e2e.Rendered(t, e2e.ConfigMap(ns, n, nil, nil))
	}
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)

	got, shas := commitsSince(t, f, before)
	slices.SortFunc(got, func(x, y commit) int { return strings.Compare(x.Files[0], y.Files[0]) })
	author := func(u string) string { return u + " <" + u + "@users.noreply.example.org>" }
	wantCommits := []commit{
		{Author: author("alice"), Committer: committer, Files: []string{e2e.ObjPath(ns, "core", "configmap", "a")}},
		{Author: author("bob"), Committer: committer, Files: []string{e2e.ObjPath(ns, "core", "configmap", "b")}},
		{Author: author(sa), Committer: committer, Files: []string{e2e.ObjPath(ns, "core", "configmap", "c")}},
	}
	if diff := cmp.Diff(wantCommits, got); diff != "" {
		t.Errorf("commits after the edits: -want, +got:\n%s", diff)
	}
	for _, sha := range shas {
		if err := f.Repo.VerifyCommit(t, sha, pub); err != nil {
			t.Errorf("commit %s: git verify-commit: %v", sha[:7], err)
		}
	}
}

// TestUnresolvedWithoutAuditRoute: ServiceAccounts are not in the audit
// policy, so a Mirror of them hears of no change: after the wait each is
// authored unresolved, never the committer. An unauthenticated POST of an
// audit event naming the change is refused and changes nothing: the
// commit does not name its forged user.
func TestUnresolvedWithoutAuditRoute(t *testing.T) {
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait))
	ns := f.Namespace
	m := e2e.NewMirror(ns, "m", attributed(v1alpha1.MirrorParameters{
		Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ServiceAccount"}},
	}), e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	before := f.Repo.Head(t, "main")

	facts := store.Len()
	forged := fmt.Sprintf(`{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[{"stage":"ResponseComplete","verb":"create","user":{"username":"mallory"},"objectRef":{"resource":"serviceaccounts","namespace":%q,"name":"robot"},"responseStatus":{"code":201}}]}`, ns)
	if code := post(t, forged); code != http.StatusUnauthorized {
		t.Errorf("unauthenticated POST: want 401, got %d", code)
	}
	if got := store.Len(); got != facts {
		t.Errorf("unauthenticated POST: the store holds %d facts, had %d", got, facts)
	}

	robot := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "robot"}}
	e2e.Create(t, robot)
	f.WaitMirrored(t, map[string]string{e2e.ObjPath(ns, "core", "serviceaccount", "robot"): e2e.Rendered(t, robot)})
	e2e.WritesLanded(t)
	got, _ := commitsSince(t, f, before)
	want := []commit{{
		Author:    attribution.UnresolvedName + " <" + attribution.UnresolvedEmail + ">",
		Committer: committer, Files: []string{e2e.ObjPath(ns, "core", "serviceaccount", "robot")},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commits: -want, +got:\n%s", diff)
	}
}

// post sends body to the audit endpoint over TLS with no client
// certificate and no token.
func post(t *testing.T, body string) int {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: serverCA, MinVersion: tls.VersionTLS12}}, Timeout: 30 * time.Second}
	defer c.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestIgnoredUsers: a Mirror that ignores Flux's ServiceAccount commits
// nothing of what it alone creates or changes; a person's change is one
// commit, authored by them. The proof needs no sleep: the audit webhook
// delivers events in order, so when the person's later edit is attributed
// Flux's change is too, and the commits touch the person's file alone;
// then the branch stays over two more reconciles.
func TestIgnoredUsers(t *testing.T) {
	flux := "system:serviceaccount:flux-system:kustomize-controller"
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait))
	ns := f.Namespace
	m := e2e.NewMirror(ns, "m", attributed(v1alpha1.MirrorParameters{Ignore: &v1alpha1.MirrorIgnore{Users: []string{flux}}}), e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	before := f.Repo.Head(t, "main")

	fluxClient, alice := impersonating(t, flux), userClient(t, "alice")
	app := e2e.ConfigMap(ns, "app", nil, map[string]string{"image": "web:1"})
	if err := fluxClient.Create(context.Background(), app); err != nil {
		t.Fatal(err)
	}
	canary := e2e.ConfigMap(ns, "canary", nil, map[string]string{"n": "0"})
	if err := alice.Create(context.Background(), canary); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{e2e.ObjPath(ns, "core", "configmap", "canary"): e2e.Rendered(t, canary)}
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	got, _ := commitsSince(t, f, before)
	alices := "alice <alice@users.noreply.example.org>"
	if diff := cmp.Diff([]commit{{Author: alices, Committer: committer, Files: []string{e2e.ObjPath(ns, "core", "configmap", "canary")}}}, got); diff != "" {
		t.Errorf("commits after Flux's and a person's creates: -want, +got:\n%s", diff)
	}
	head := f.Repo.Head(t, "main")
	f.Stays(t, m, false, "main", head, "what the ignored user alone created")

	edit(t, alice, ns, "app", "image", "web:2")
	want[e2e.ObjPath(ns, "core", "configmap", "app")] = e2e.Rendered(t, app)
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	got, _ = commitsSince(t, f, head)
	if diff := cmp.Diff([]commit{{Author: alices, Committer: committer, Files: []string{e2e.ObjPath(ns, "core", "configmap", "app")}}}, got); diff != "" {
		t.Errorf("commits after a person's edit of Flux's object: -want, +got:\n%s", diff)
	}
}
