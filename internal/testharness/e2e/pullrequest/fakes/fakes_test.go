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
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/pullrequest"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/github"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitlab"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	fakegithub "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
	fakegitlab "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/gitlab"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// GitHub and GitLab cannot run on loopback: these tests run the
// PullRequest controller through the real clients (go-github; GitLab's
// REST v4) against their fakes, which serve the documented payloads and
// headers (ETag and 304, 422 and 409 on a second create, 403 secondary
// limits with Retry-After).

// forgeFixture is a namespace whose ProviderConfig reaches a repository of
// the local Git server at name (owner/repo.git) with the forge named.
func forgeFixture(t testing.TB, name string, typ forge.Type, apiURL, token string, heads ...string) *e2e.Fixture {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-forge-"}}
	if err := e2e.CP.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e2e.Purge(t, ns.Name) })
	repo := testenv.NewBareRepo(t, e2e.GitRoot, name, map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}}})
	if len(heads) > 0 {
		// Each head one commit on main, all in one git run.
		repo.Branch(t, "main", e2e.HeadCommits(heads...))
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "creds"},
		StringData: map[string]string{"username": e2e.GitUser, "password": e2e.GitToken, "apiToken": token}}
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git"},
		Spec: v1alpha1.ProviderConfigSpec{URL: e2e.HTTPGit.RepoURL(name),
			Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: secret.Name}},
			Forge:       &v1alpha1.ForgeConfig{Type: v1alpha1.ForgeType(typ), APIURL: apiURL}}}
	e2e.CreateAll(t, secret, pc)
	return &e2e.Fixture{Namespace: ns.Name, Repo: repo}
}

func TestPullRequestOnGitHub(t *testing.T) {
	gh := fakegithub.NewServer(t)
	e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.GitHub: github.New}))
	owner := "e2e"
	f := forgeFixture(t, "e2e/github-basics.git", forge.GitHub, gh.URL(), fakegithub.Token, "request/demo", "request/limited")
	repo := "github-basics"
	for _, b := range []string{"main", "request/demo", "request/limited"} {
		gh.AddBranch(owner, repo, b, f.Repo.Head(t, b))
	}
	mk := func(name, head string) *v1alpha1.PullRequest {
		return e2e.NewPullRequest(f.Namespace, name, head, func(p *v1alpha1.PullRequestParameters) { p.Body = "" })
	}
	pr := mk("demo", "request/demo")
	e2e.CreateAll(t, pr)
	t.Run("Open", func(t *testing.T) {
		e2e.WaitFor(t, 30*time.Second, pr, e2e.ReadyAndCurrent(t, pr))
		got, ok := gh.Pull(pr.Status.AtProvider.Number)
		if !ok || got.Title != pr.Spec.ForProvider.Title || len(got.Labels) != 1 {
			t.Errorf("GitHub holds %+v", got)
		}
	})
	t.Run("PutsATitleEditBack", func(t *testing.T) {
		gh.EditTitle(pr.Status.AtProvider.Number, "theirs")
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			if got, _ := gh.Pull(pr.Status.AtProvider.Number); got.Title != pr.Spec.ForProvider.Title {
				return fmt.Errorf("title is %q", got.Title)
			}
			return nil
		})
	})
	t.Run("SecondaryLimitOnCreate", func(t *testing.T) {
		gh.SetSecondaryLimit(0, 3*time.Second)
		limited := mk("limited", "request/limited")
		e2e.CreateAll(t, limited)
		e2e.WaitFor(t, 30*time.Second, limited, func() error {
			if err := e2e.ConditionIs(limited, xpv2.TypeReady, corev1.ConditionFalse, pullrequest.ReasonRateLimited); err != nil {
				return err
			}
			return e2e.ConditionIs(limited, xpv2.TypeSynced, corev1.ConditionTrue, "")
		})
		gh.SetSecondaryLimit(-1, 0)
		e2e.WaitFor(t, 30*time.Second, limited, e2e.ReadyAndCurrent(t, limited))
	})
	t.Run("MergedByAReviewer", func(t *testing.T) {
		gh.Merge(pr.Status.AtProvider.Number)
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			if pr.Status.AtProvider.State != string(forge.StateMerged) || pr.Status.AtProvider.MergeCommit == "" {
				return fmt.Errorf("atProvider is %+v", pr.Status.AtProvider)
			}
			return e2e.ReadyAndCurrent(t, pr)()
		})
	})
}

// TestPullRequestsOnGitHubSteadyState: 40 open PullRequests of one
// repository on GitHub cost one list per poll between them, answered 304
// (free against the rate limit), and no status write: a request per
// PullRequest would be 40 a poll, which the bound of about one catches as
// surely as at 100, for less than half the test's time.
func TestPullRequestsOnGitHubSteadyState(t *testing.T) {
	const n = 40
	// GitHub's own pace (60 creates a minute after a burst of 20) would
	// take 20 s to open them; the pace has tests of its own
	// (forge.TestPacer, pullrequest.TestCreatePaced); this one is about the
	// steady state.
	rate := forge.Rate{PerMinute: 1200, Burst: 20}
	gh := fakegithub.NewServer(t)
	counter := &e2e.StatusCounter{}
	e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.GitHub: github.New}), e2e.WithForgeRate(rate), e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper {
		counter.Next = rt
		return counter
	}))
	heads := e2e.Heads(n)
	f := forgeFixture(t, "e2e/github-steady.git", forge.GitHub, gh.URL(), fakegithub.Token, heads...)
	at, err := f.Repo.Heads()
	if err != nil {
		t.Fatal(err)
	}
	gh.AddBranch("e2e", "github-steady", "main", at["main"])
	prs := make([]*v1alpha1.PullRequest, n)
	objs := make([]client.Object, n)
	for i, h := range heads {
		gh.AddBranch("e2e", "github-steady", h, at[h])
		prs[i] = e2e.NewPullRequest(f.Namespace, fmt.Sprintf("pr-%03d", i), h, func(p *v1alpha1.PullRequestParameters) { p.Body, p.Labels = "", nil })
		objs[i] = prs[i]
	}
	start := time.Now()
	e2e.CreateAtOnce(t, objs...)
	for _, pr := range prs {
		e2e.WaitFor(t, 3*time.Minute, pr, e2e.ReadyAndCurrent(t, pr))
	}
	creates := gh.Count(func(r fakegithub.Request) bool {
		return r.Method == http.MethodPost && r.Path == "/repos/e2e/github-steady/pulls"
	})
	t.Logf("%d PullRequests open on GitHub in %s (creates paced at %.0f a minute after a burst of %.0f): %d creates, %d requests",
		n, time.Since(start).Round(time.Millisecond), rate.PerMinute, rate.Burst, creates, len(gh.Requests()))
	if creates != n {
		t.Errorf("%d creates for %d PullRequests", creates, n)
	}
	// Two more rounds of every PullRequest: the first list after the last
	// create (which invalidated the listing) answers 200 with the list's new
	// ETag, and it must come before the count starts, or it is counted as
	// a changed poll.
	e2e.ReconciledAgain(t, 1, false, objs...)
	e2e.UsersCounted(t, f.Namespace, n)
	gh.ResetRequests()
	writes0 := counter.Writes()
	counts := make([]int, n)
	for i, o := range objs {
		counts[i] = e2e.ReconcilesOf(o)
	}
	t0 := time.Now()
	testenv.Eventually(t, 60*time.Second, func() error {
		for i, o := range objs {
			if got := e2e.ReconcilesOf(o); got < counts[i]+3 {
				return fmt.Errorf("%s: %d polls since, want 3", o.GetName(), got-counts[i])
			}
		}
		return nil
	})
	polls := float64(time.Since(t0)) / float64(e2e.Poll)
	reqs := gh.Requests()
	notModified := 0
	for _, r := range reqs {
		if r.Status == http.StatusNotModified {
			notModified++
		}
	}
	t.Logf("steady state: %.1f poll intervals (%s each), %d GitHub requests (%.2f per poll), %d answered 304, %d status writes",
		polls, e2e.Poll, len(reqs), float64(len(reqs))/polls, notModified, counter.Writes()-writes0)
	if float64(len(reqs)) > 2*polls+1 {
		t.Errorf("%d requests in %.1f polls: want about one list per poll: %+v", len(reqs), polls, reqs)
	}
	if notModified != len(reqs) {
		t.Errorf("%d of %d requests answered 304: an unchanged poll must cost nothing: %+v", notModified, len(reqs), reqs)
	}
	if w := counter.Writes() - writes0; w != 0 {
		t.Errorf("%d status writes in steady state, want 0: %v", w, counter.Since(writes0))
	}
}

func TestPullRequestOnGitLab(t *testing.T) {
	gl := fakegitlab.NewServer(t)
	e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.GitLab: gitlab.New}))
	f := forgeFixture(t, fakegitlab.Project+".git", forge.GitLab, gl.APIURL(), fakegitlab.Token, "request/adopt", "request/auto", "request/pipeline")
	gl.AddBranch("request/adopt")
	gl.AddBranch("request/auto")
	gl.AddBranch("request/pipeline")
	mk := func(name, head string, mutate ...func(*v1alpha1.PullRequestParameters)) *v1alpha1.PullRequest {
		return e2e.NewPullRequest(f.Namespace, name, head, append([]func(*v1alpha1.PullRequestParameters){func(p *v1alpha1.PullRequestParameters) { p.Body = "" }}, mutate...)...)
	}
	t.Run("Adopt", func(t *testing.T) {
		iid := gl.Open("request/adopt", "main", "by hand")
		pr := mk("adopt", "request/adopt")
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, 30*time.Second, pr, e2e.ReadyAndCurrent(t, pr))
		if pr.Status.AtProvider.Number != iid {
			t.Errorf("adopted !%d, want the open !%d", pr.Status.AtProvider.Number, iid)
		}
		if mr, _ := gl.MR(iid); mr.Title != pr.Spec.ForProvider.Title {
			t.Errorf("title is %q, want it put back to %q", mr.Title, pr.Spec.ForProvider.Title)
		}
	})
	t.Run("MergeAuto", func(t *testing.T) {
		// No pipeline runs: GitLab merges at once when auto-merge is set.
		pr := mk("auto", "request/auto", func(p *v1alpha1.PullRequestParameters) {
			p.Merge = v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeAuto}
			p.Readiness = v1alpha1.ReadinessMerged
		})
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			if pr.Status.AtProvider.State != string(forge.StateMerged) {
				return fmt.Errorf("state is %q", pr.Status.AtProvider.State)
			}
			return e2e.ReadyAndCurrent(t, pr)()
		})
		if mr, _ := gl.MR(pr.Status.AtProvider.Number); mr.State != "merged" {
			t.Errorf("GitLab's !%d is %s", pr.Status.AtProvider.Number, mr.State)
		}
	})
	t.Run("MergeAutoWhilePipelineRuns", func(t *testing.T) {
		// The merge request's pipeline runs (it started when the merge
		// request was opened): auto-merge is set on it and the
		// PullRequest says it waits, checks pending, until GitLab merges
		// it once the pipeline passes.
		iid := gl.Open("request/pipeline", "main", "Add pipeline")
		gl.SetPipeline(iid, "running")
		pr := mk("pipeline", "request/pipeline", func(p *v1alpha1.PullRequestParameters) {
			p.Labels = nil
			p.Merge = v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeAuto, Method: v1alpha1.MergeMethodSquash}
			p.Readiness = v1alpha1.ReadinessMerged
		})
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			if mr, _ := gl.MR(iid); !mr.AutoMerge {
				return fmt.Errorf("GitLab's !%d has no auto-merge set", iid)
			}
			a := pr.Status.AtProvider
			if a.Number != iid || a.State != string(forge.StateOpen) || a.Checks != string(forge.ChecksPending) {
				return fmt.Errorf("atProvider is %+v, want !%d open with checks pending", a, iid)
			}
			if err := e2e.ConditionIs(pr, xpv2.TypeReady, corev1.ConditionFalse, pullrequest.ReasonAwaitingMerge); err != nil {
				return err
			}
			if m := pr.GetCondition(xpv2.TypeReady).Message; !strings.Contains(m, "the forge merges it once checks and reviews allow") {
				return fmt.Errorf("Ready's message %q does not say the forge merges it", m)
			}
			return e2e.ConditionIs(pr, session.TypeStalled, corev1.ConditionFalse, "")
		})
		if mr, _ := gl.MR(iid); mr.State != "opened" {
			t.Fatalf("GitLab's !%d is %s while its pipeline runs, want opened", iid, mr.State)
		}
		gl.SetPipeline(iid, "success")
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			a := pr.Status.AtProvider
			if a.State != string(forge.StateMerged) || a.MergeCommit == "" {
				return fmt.Errorf("atProvider is %+v, want merged", a)
			}
			return e2e.ReadyAndCurrent(t, pr)()
		})
		if mr, _ := gl.MR(iid); mr.State != "merged" || !mr.Squash {
			t.Errorf("GitLab's !%d is %s (squash %v), want merged by squash", iid, mr.State, mr.Squash)
		}
	})
}
