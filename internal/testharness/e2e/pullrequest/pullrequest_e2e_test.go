/*
Copyright 2026 The e2e.Provider-git Authors.

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

package pullrequest_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/controller/pullrequest"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/memory"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// These tests run the PullRequest controller on a real API server and a
// real Git server (the head branch is read from the clone) against an
// in-memory forge (forgetest/memory) opened through the same opener map
// cmd/provider passes. The same flows run against a real Gitea
// (pullrequest/gitea).

// prFixture is a namespace with a ProviderConfig "git" whose repository
// (e2e/<namespace>.git) has main and the head branches given, and names a
// Gitea forge.
type prFixture struct {
	*e2e.Fixture
	forge *memory.Forge
}

func newPRFixture(t *testing.T, forges *memory.Forges, heads ...string) *prFixture {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-pr-"}}
	if err := e2e.CP.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	name := "e2e/" + ns.Name + ".git"
	repo := testenv.NewBareRepo(t, e2e.GitRoot, name, map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}}})
	if len(heads) > 0 {
		// Each head one commit on main, all in one git run: a hundred
		// heads made one commit at a time took a minute.
		repo.Branch(t, "main", e2e.HeadCommits(heads...))
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git-credentials"},
		StringData: map[string]string{"username": e2e.GitUser, "password": e2e.GitToken},
	}
	pc := &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git"},
		Spec: v1alpha1.ProviderConfigSpec{
			URL: e2e.HTTPGit.RepoURL(name),
			Credentials: v1alpha1.ProviderCredentials{
				Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: secret.Name},
			},
			Forge: &v1alpha1.ForgeConfig{Type: v1alpha1.ForgeType(forge.Gitea), APIURL: "http://forge.invalid/api/v1/"},
		},
	}
	e2e.CreateAll(t, secret, pc)
	t.Cleanup(func() { e2e.Purge(t, ns.Name) })
	return &prFixture{Fixture: &e2e.Fixture{Namespace: ns.Name, Repo: repo}, forge: forges.Repo("e2e", ns.Name)}
}

func (f *prFixture) pullRequest(name, head string, mutate ...func(*v1alpha1.PullRequestParameters)) *v1alpha1.PullRequest {
	return e2e.NewPullRequest(f.Namespace, name, head, mutate...)
}

func startPRProvider(t *testing.T, opts ...e2e.ProviderOption) *memory.Forges {
	t.Helper()
	forges := memory.NewForges()
	e2e.StartProvider(t, "", append(opts, e2e.WithForges(map[forge.Type]forge.Opener{forge.Gitea: forges.Open}))...)
	return forges
}

// openAs is an open pull request as declared, kstatus Current.
func openAs(t *testing.T, pr *v1alpha1.PullRequest, f *memory.Forge) func() error {
	ready := e2e.ReadyAndCurrent(t, pr)
	return func() error {
		if err := ready(); err != nil {
			return err
		}
		a := pr.Status.AtProvider
		if a.State != string(forge.StateOpen) || a.Number == 0 || a.Forge != string(forge.Gitea) {
			return fmt.Errorf("atProvider is %+v, want an open Gitea pull request", a)
		}
		got, ok := f.PR(a.Number)
		if !ok || got.Title != pr.Spec.ForProvider.Title {
			return fmt.Errorf("the forge's pull request #%d is %+v, want title %q", a.Number, got, pr.Spec.ForProvider.Title)
		}
		return nil
	}
}

func TestPullRequestLifecycle(t *testing.T) {
	forges := startPRProvider(t)
	f := newPRFixture(t, forges, "request/demo")
	file := &v1alpha1.File{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "demo"},
		Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{Branch: "request/demo", Path: "apps/demo.yaml", Content: ptrTo("a: 1\n")}}}
	file.Spec.ProviderConfigReference = e2e.PCRef()
	pr := f.pullRequest("demo", "request/demo")
	pr.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionAll}
	e2e.CreateAll(t, file, pr)

	t.Run("Open", func(t *testing.T) {
		e2e.WaitFor(t, 30*time.Second, pr, openAs(t, pr, f.forge))
		got, _ := f.forge.PR(pr.Status.AtProvider.Number)
		if got.Body != "Files:\n- apps/demo.yaml" {
			t.Errorf("body is %q, want the Files on the head branch listed", got.Body)
		}
		if tok := forges.Tokens(); len(tok) == 0 || tok[0] != e2e.GitToken {
			t.Errorf("the forge client was opened with tokens %q, want the Secret's password", tok)
		}
	})
	t.Run("PutsATitleEditBack", func(t *testing.T) {
		f.forge.Edit(pr.Status.AtProvider.Number, func(p *forge.PullRequest) { p.Title = "Edited by a person" })
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			if got, _ := f.forge.PR(pr.Status.AtProvider.Number); got.Title != pr.Spec.ForProvider.Title {
				return fmt.Errorf("title is %q", got.Title)
			}
			return nil
		})
	})
	t.Run("Update", func(t *testing.T) {
		// The provider writes status meanwhile: edit the spec of what the
		// server holds now, as kubectl edit would.
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(pr), pr); err != nil {
				return err
			}
			pr.Spec.ForProvider.Title = "Add demo, v2"
			pr.Spec.ForProvider.Labels = []string{"provider-git", "v2"}
			return e2e.CP.Client.Update(context.Background(), pr)
		}); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			got, _ := f.forge.PR(pr.Status.AtProvider.Number)
			if got.Title != "Add demo, v2" || len(got.Labels) != 2 {
				return fmt.Errorf("the forge holds %q %v", got.Title, got.Labels)
			}
			return e2e.ReadyAndCurrent(t, pr)()
		})
		if n := f.forge.Calls()["Create"]; n != 1 {
			t.Errorf("%d creates, want 1", n)
		}
	})
	t.Run("DeleteCloses", func(t *testing.T) {
		n := pr.Status.AtProvider.Number
		if err := e2e.CP.Client.Delete(context.Background(), pr); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, pr)
		if got, _ := f.forge.PR(n); got.State != forge.StateClosed {
			t.Errorf("pull request #%d is %s after its PullRequest was deleted, want Closed", n, got.State)
		}
	})
}

func TestPullRequestAdoptsAnOpenOne(t *testing.T) {
	forges := startPRProvider(t)
	f := newPRFixture(t, forges, "request/adopt")
	// Opened before the PullRequest (by a person, or by a provider whose
	// status write was lost).
	existing, err := f.forge.Create(context.Background(), forge.Spec{Head: "request/adopt", Base: "main", Title: "by hand"})
	if err != nil {
		t.Fatal(err)
	}
	pr := f.pullRequest("adopt", "request/adopt")
	e2e.CreateAll(t, pr)
	e2e.WaitFor(t, 30*time.Second, pr, openAs(t, pr, f.forge))
	if pr.Status.AtProvider.Number != existing.Number || f.forge.Len() != 1 {
		t.Errorf("adopted #%d with %d pull requests on the forge, want #%d alone", pr.Status.AtProvider.Number, f.forge.Len(), existing.Number)
	}
}

func TestPullRequestWaitsForItsHead(t *testing.T) {
	forges := startPRProvider(t)
	f := newPRFixture(t, forges)
	pr := f.pullRequest("later", "request/later")
	e2e.CreateAll(t, pr)
	e2e.WaitFor(t, 30*time.Second, pr, func() error {
		if err := e2e.ConditionIs(pr, xpv2.TypeReady, corev1.ConditionFalse, pullrequest.ReasonHeadBranchMissing); err != nil {
			return err
		}
		if s := e2e.KstatusOf(t, pr); s != status.InProgressStatus {
			return fmt.Errorf("kstatus is %s, want InProgress", s)
		}
		return nil
	})
	if n := f.forge.Calls()["Create"]; n != 0 {
		t.Errorf("%d creates while the head is missing, want 0", n)
	}
	// A Branch created later (here: by hand) lets it converge.
	f.Repo.CreateBranch(t, "request/later", "main")
	e2e.WaitFor(t, 30*time.Second, pr, openAs(t, pr, f.forge))
}

func TestPullRequestClosedByAPerson(t *testing.T) {
	forges := startPRProvider(t)
	f := newPRFixture(t, forges, "request/closed")
	pr := f.pullRequest("closed", "request/closed")
	e2e.CreateAll(t, pr)
	e2e.WaitFor(t, 30*time.Second, pr, openAs(t, pr, f.forge))
	n := pr.Status.AtProvider.Number
	f.forge.Edit(n, func(p *forge.PullRequest) { p.State = forge.StateClosed })
	e2e.WaitFor(t, 30*time.Second, pr, e2e.StalledWith(t, pr, pullrequest.ReasonClosed))
	if got, _ := f.forge.PR(n); got.State != forge.StateClosed || f.forge.Len() != 1 {
		t.Errorf("pull request #%d is %s with %d on the forge: it must stay closed, and none be opened", n, got.State, f.forge.Len())
	}
}

func TestPullRequestMergeAutoAndReadinessMerged(t *testing.T) {
	forges := startPRProvider(t)
	f := newPRFixture(t, forges, "request/auto", "request/review")
	f.forge.MergeOnAuto()
	auto := f.pullRequest("auto", "request/auto", func(p *v1alpha1.PullRequestParameters) {
		p.Merge = v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeAuto, Method: v1alpha1.MergeMethodSquash}
		p.Readiness = v1alpha1.ReadinessMerged
	})
	review := f.pullRequest("review", "request/review", func(p *v1alpha1.PullRequestParameters) { p.Readiness = v1alpha1.ReadinessMerged })
	e2e.CreateAll(t, auto, review)
	t.Run("Auto", func(t *testing.T) {
		e2e.WaitFor(t, 30*time.Second, auto, func() error {
			if auto.Status.AtProvider.State != string(forge.StateMerged) {
				return fmt.Errorf("state is %q", auto.Status.AtProvider.State)
			}
			return e2e.ReadyAndCurrent(t, auto)()
		})
	})
	t.Run("WaitsForAReviewer", func(t *testing.T) {
		e2e.WaitFor(t, 30*time.Second, review, func() error {
			if err := e2e.ConditionIs(review, xpv2.TypeReady, corev1.ConditionFalse, pullrequest.ReasonAwaitingMerge); err != nil {
				return err
			}
			if err := e2e.ConditionIs(review, session.TypeStalled, corev1.ConditionFalse, ""); err != nil {
				return err
			}
			if s := e2e.KstatusOf(t, review); s != status.InProgressStatus {
				return fmt.Errorf("kstatus is %s, want InProgress", s)
			}
			return nil
		})
		// A reviewer merges it on the forge.
		f.forge.Edit(review.Status.AtProvider.Number, func(p *forge.PullRequest) { p.State, p.MergeCommit = forge.StateMerged, "abc123" })
		e2e.WaitFor(t, 30*time.Second, review, func() error {
			if review.Status.AtProvider.MergeCommit != "abc123" {
				return fmt.Errorf("merge commit is %q", review.Status.AtProvider.MergeCommit)
			}
			return e2e.ReadyAndCurrent(t, review)()
		})
	})
}

func TestPullRequestSSHConfigNeedsAPIToken(t *testing.T) {
	forges := startPRProvider(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-pr-"}}
	if err := e2e.CP.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e2e.Purge(t, ns.Name) })
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "ssh"},
		Data: map[string][]byte{"identity": pem.EncodeToMemory(block),
			"known_hosts": []byte("github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n")}}
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git"},
		Spec: v1alpha1.ProviderConfigSpec{URL: "git@github.com:o/r.git", Credentials: v1alpha1.ProviderCredentials{
			Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: "ssh"}}}}
	pr := (&prFixture{Fixture: &e2e.Fixture{Namespace: ns.Name}}).pullRequest("ssh", "request/x")
	e2e.CreateAll(t, secret, pc, pr)
	e2e.WaitFor(t, 30*time.Second, pr, func() error {
		if err := e2e.StalledWith(t, pr, config.ReasonForgeTokenMissing)(); err != nil {
			return err
		}
		if want := fmt.Sprintf(`credentials Secret %s/ssh has no key "apiToken"`, ns.Name); !contains(pr.GetCondition(xpv2.TypeReady).Message, want) {
			return fmt.Errorf("message %q does not name %s", pr.GetCondition(xpv2.TypeReady).Message, want)
		}
		return nil
	})
	_ = forges
}

// TestPullRequestSteadyState: 40 open PullRequests of one repository, once
// converged, cost about one list request per poll interval between them
// (a request per PullRequest would be 40 a poll) and write no status at
// all.
func TestPullRequestSteadyState(t *testing.T) {
	const n = 40
	counter := &e2e.StatusCounter{}
	forges := startPRProvider(t, e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper {
		counter.Next = rt
		return counter
	}))
	heads := e2e.Heads(n)
	f := newPRFixture(t, forges, heads...)
	prs := make([]*v1alpha1.PullRequest, n)
	objs := make([]client.Object, n)
	for i := range prs {
		prs[i] = f.pullRequest(fmt.Sprintf("pr-%03d", i), heads[i], func(p *v1alpha1.PullRequestParameters) { p.Body = "" })
		objs[i] = prs[i]
	}
	e2e.CreateAtOnce(t, objs...)
	for _, pr := range prs {
		e2e.WaitFor(t, 60*time.Second, pr, openAs(t, pr, f.forge))
	}
	// Let the last status writes of convergence land: a full poll of every
	// resource, then count from there.
	e2e.ReconciledAgain(t, 1, true, prs[0])
	e2e.UsersCounted(t, f.Namespace, n)
	calls0, writes0 := f.forge.Calls(), counter.Writes()
	start := time.Now()
	// Three poll intervals of every PullRequest, each asked for by the
	// timer alone.
	counts := make([]int, n)
	for i, o := range objs {
		counts[i] = e2e.ReconcilesOf(o)
	}
	testenv.Eventually(t, 60*time.Second, func() error {
		for i, o := range objs {
			if got := e2e.ReconcilesOf(o); got < counts[i]+3 {
				return fmt.Errorf("%s: %d polls since, want 3", o.GetName(), got-counts[i])
			}
		}
		return nil
	})
	elapsed := time.Since(start)
	calls, writes := f.forge.Calls(), counter.Writes()
	lists := calls["ListOpen"] - calls0["ListOpen"]
	others := 0
	for k, v := range calls {
		if k != "ListOpen" {
			others += v - calls0[k]
		}
	}
	polls := float64(elapsed) / float64(e2e.Poll)
	t.Logf("%d PullRequests, %.1f poll intervals (%s each): %d list requests (%.2f per poll), %d other forge requests, %d status writes",
		n, polls, e2e.Poll, lists, float64(lists)/polls, others, writes-writes0)
	if others != 0 {
		t.Errorf("%d forge requests other than the shared list in steady state, want 0", others)
	}
	if float64(lists) > 2*polls+1 {
		t.Errorf("%d list requests in %.1f poll intervals: want about one per poll, not one per PullRequest", lists, polls)
	}
	if w := writes - writes0; w != 0 {
		t.Errorf("%d status writes in steady state, want 0: %v", w, counter.Since(writes0))
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func ptrTo(s string) *string { return &s }
