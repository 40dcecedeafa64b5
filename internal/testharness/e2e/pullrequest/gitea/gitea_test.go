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

package gitea_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "code.gitea.io/sdk/gitea"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/pullrequest"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitea"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// giteaAPICounter is a reverse proxy in front of Gitea's API that counts the
// provider's requests by method and path pattern, and those Gitea refused
// by pattern and status.
type giteaAPICounter struct {
	mu      sync.Mutex
	n       map[string]int
	refused map[string]int
}

// statusWriter keeps the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func countGiteaAPI(t testing.TB, target string) (*giteaAPICounter, string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	c := &giteaAPICounter{n: map[string]int{}, refused: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := r.Method + " " + giteaPattern(r.URL.Path)
		c.mu.Lock()
		c.n[k]++
		c.mu.Unlock()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		rp.ServeHTTP(sw, r)
		if sw.status >= http.StatusBadRequest {
			c.mu.Lock()
			c.refused[fmt.Sprintf("%s %d", k, sw.status)]++
			c.mu.Unlock()
		}
	}))
	t.Cleanup(srv.Close)
	return c, srv.URL + "/api/v1/"
}

// pattern replaces numbers in an API path: GET /api/v1/repos/o/r/pulls/{n}.
func giteaPattern(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if s != "" && strings.Trim(s, "0123456789") == "" {
			parts[i] = "{n}"
		}
	}
	return strings.Join(parts, "/")
}

func (c *giteaAPICounter) counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// refusals are the requests Gitea answered 4xx or 5xx, by pattern and
// status.
func (c *giteaAPICounter) refusals() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.refused)
}

// giteaFixture is a namespace whose ProviderConfig reaches a repository of
// the real Gitea (or Forgejo: typ) over HTTP, its API through apiURL.
type giteaFixture struct {
	ns   string
	g    *testenv.Gitea
	repo testenv.GiteaRepo
}

func newGiteaFixture(t *testing.T, g *testenv.Gitea, typ forge.Type, apiURL string) *giteaFixture {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-gitea-"}}
	if err := e2e.CP.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e2e.Purge(t, ns.Name) })
	repo := g.CreateRepo(t, ns.Name)
	if apiURL == "" {
		apiURL = repo.APIURL
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea"},
		StringData: map[string]string{"username": testenv.GiteaAdmin, "password": g.Token}}
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git"},
		Spec: v1alpha1.ProviderConfigSpec{URL: repo.CloneURL,
			Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: secret.Name}},
			Forge:       &v1alpha1.ForgeConfig{Type: v1alpha1.ForgeType(typ), APIURL: apiURL}}}
	e2e.CreateAll(t, secret, pc)
	return &giteaFixture{ns: ns.Name, g: g, repo: repo}
}

func (f *giteaFixture) pullRequest(name, head string, mutate ...func(*v1alpha1.PullRequestParameters)) *v1alpha1.PullRequest {
	return e2e.NewPullRequest(f.ns, name, head, mutate...)
}

// onGitea is an open pull request as declared, read back from Gitea.
func (f *giteaFixture) onGitea(t *testing.T, pr *v1alpha1.PullRequest) func() error {
	ready := e2e.ReadyAndCurrent(t, pr)
	return func() error {
		if err := ready(); err != nil {
			return err
		}
		a := pr.Status.AtProvider
		if a.State != string(forge.StateOpen) || a.Number == 0 {
			return fmt.Errorf("atProvider is %+v", a)
		}
		got := f.g.PR(t, f.repo.Name, a.Number)
		if got.Title != pr.Spec.ForProvider.Title || got.State != sdk.StateOpen {
			return fmt.Errorf("Gitea's #%d is %q %s", a.Number, got.Title, got.State)
		}
		return nil
	}
}

// giteaForges are the forges of cmd/provider that speak Gitea's API.
func giteaForges() e2e.ProviderOption {
	return e2e.WithForges(map[forge.Type]forge.Opener{forge.Gitea: gitea.New, forge.Forgejo: gitea.New})
}

// TestPullRequestOnGitea: a PullRequest's life (open, a person's edit put
// back, update, delete closes, adopt, closed by a person, auto-merge, a
// reviewer's merge) on each real forge of Gitea's API, with the same
// assertions.
func TestPullRequestOnGitea(t *testing.T) {
	for _, fg := range testenv.GiteaForges() {
		t.Run(fg.Name, func(t *testing.T) { testPullRequestLifecycle(t, fg) })
	}
}

func testPullRequestLifecycle(t *testing.T, fg testenv.GiteaForge) {
	g := sharedGitea(t, fg.Options...)
	e2e.StartProvider(t, "", giteaForges())
	f := newGiteaFixture(t, g, forge.Type(fg.Name), "")
	f.g.CommitFile(t, f.repo.Name, "request/demo", "main", "apps/demo.yaml", "a: 1\n")
	pr := f.pullRequest("demo", "request/demo", func(p *v1alpha1.PullRequestParameters) { p.Labels = nil })
	e2e.CreateAll(t, pr)

	t.Run("Open", func(t *testing.T) {
		e2e.WaitFor(t, 60*time.Second, pr, f.onGitea(t, pr))
	})
	t.Run("PutsATitleEditBack", func(t *testing.T) {
		f.g.EditTitle(t, f.repo.Name, pr.Status.AtProvider.Number, "Edited by a person")
		e2e.WaitFor(t, 60*time.Second, pr, func() error {
			if got := f.g.PR(t, f.repo.Name, pr.Status.AtProvider.Number); got.Title != pr.Spec.ForProvider.Title {
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
			return e2e.CP.Client.Update(context.Background(), pr)
		}); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 60*time.Second, pr, func() error {
			if got := f.g.PR(t, f.repo.Name, pr.Status.AtProvider.Number); got.Title != "Add demo, v2" {
				return fmt.Errorf("title is %q", got.Title)
			}
			return e2e.ReadyAndCurrent(t, pr)()
		})
	})
	t.Run("DeleteCloses", func(t *testing.T) {
		n := pr.Status.AtProvider.Number
		if err := e2e.CP.Client.Delete(context.Background(), pr); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, pr)
		if got := f.g.PR(t, f.repo.Name, n); got.State != sdk.StateClosed || got.HasMerged {
			t.Errorf("Gitea's #%d is %s (merged %v) after its PullRequest was deleted, want closed", n, got.State, got.HasMerged)
		}
	})
	t.Run("Adopt", func(t *testing.T) {
		// These four, each with a pull request of its own, run at once
		// once the demo one is closed: their waits overlap.
		t.Parallel()
		f.g.CommitFile(t, f.repo.Name, "request/adopt", "main", "apps/adopt.yaml", "a: 1\n")
		var existing *sdk.PullRequest
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		existing, _, err := f.g.Client(ctx, t).CreatePullRequest(testenv.GiteaAdmin, f.repo.Name, sdk.CreatePullRequestOption{Head: "request/adopt", Base: "main", Title: "by hand"})
		if err != nil {
			t.Fatal(err)
		}
		adopt := f.pullRequest("adopt", "request/adopt", func(p *v1alpha1.PullRequestParameters) { p.Labels = nil })
		e2e.CreateAll(t, adopt)
		e2e.WaitFor(t, 60*time.Second, adopt, f.onGitea(t, adopt))
		if adopt.Status.AtProvider.Number != existing.Index {
			t.Errorf("adopted #%d, want the open #%d", adopt.Status.AtProvider.Number, existing.Index)
		}
	})
	t.Run("ClosedByAPerson", func(t *testing.T) {
		t.Parallel()
		f.g.CommitFile(t, f.repo.Name, "request/closed", "main", "apps/closed.yaml", "a: 1\n")
		closed := f.pullRequest("closed", "request/closed", func(p *v1alpha1.PullRequestParameters) { p.Labels = nil })
		e2e.CreateAll(t, closed)
		e2e.WaitFor(t, 60*time.Second, closed, f.onGitea(t, closed))
		f.g.ClosePR(t, f.repo.Name, closed.Status.AtProvider.Number)
		e2e.WaitFor(t, 60*time.Second, closed, e2e.StalledWith(t, closed, pullrequest.ReasonClosed))
		if got := f.g.PR(t, f.repo.Name, closed.Status.AtProvider.Number); got.State != sdk.StateClosed {
			t.Errorf("Gitea's #%d was reopened: %s", closed.Status.AtProvider.Number, got.State)
		}
	})
	t.Run("MergeAuto", func(t *testing.T) {
		t.Parallel()
		f.g.CommitFile(t, f.repo.Name, "request/auto", "main", "apps/auto.yaml", "a: 1\n")
		auto := f.pullRequest("auto", "request/auto", func(p *v1alpha1.PullRequestParameters) {
			p.Labels = nil
			p.Merge = v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeAuto, Method: v1alpha1.MergeMethodMerge}
			p.Readiness = v1alpha1.ReadinessMerged
		})
		e2e.CreateAll(t, auto)
		e2e.WaitFor(t, 90*time.Second, auto, func() error {
			if auto.Status.AtProvider.State != string(forge.StateMerged) {
				return fmt.Errorf("state is %q (%s)", auto.Status.AtProvider.State, auto.GetCondition(xpv2.TypeReady).Message)
			}
			return e2e.ReadyAndCurrent(t, auto)()
		})
		if got := f.g.PR(t, f.repo.Name, auto.Status.AtProvider.Number); !got.HasMerged || got.MergedCommitID == nil || *got.MergedCommitID != auto.Status.AtProvider.MergeCommit {
			t.Errorf("Gitea's #%d merged %v as %v, status says %q", auto.Status.AtProvider.Number, got.HasMerged, got.MergedCommitID, auto.Status.AtProvider.MergeCommit)
		}
	})
	t.Run("ReadinessMergedWaitsForAReviewer", func(t *testing.T) {
		t.Parallel()
		f.g.CommitFile(t, f.repo.Name, "request/review", "main", "apps/review.yaml", "a: 1\n")
		reviewer := f.g.CreateUser(t, "reviewer", f.repo.Name)
		review := f.pullRequest("review", "request/review", func(p *v1alpha1.PullRequestParameters) {
			p.Labels = nil
			p.Readiness = v1alpha1.ReadinessMerged
		})
		e2e.CreateAll(t, review)
		e2e.WaitFor(t, 60*time.Second, review, func() error {
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
		f.g.MergeAsReviewer(t, &reviewer, f.repo.Name, review.Status.AtProvider.Number)
		e2e.WaitFor(t, 60*time.Second, review, func() error {
			if review.Status.AtProvider.State != string(forge.StateMerged) || review.Status.AtProvider.MergeCommit == "" {
				return fmt.Errorf("atProvider is %+v", review.Status.AtProvider)
			}
			return e2e.ReadyAndCurrent(t, review)()
		})
	})
}

// TestPullRequestsOnGiteaSteadyState: open PullRequests of one repository
// on the real Gitea, once converged, cost about one list of open pull
// requests per poll interval between them (one request per page of
// pageSize) and no status write. 25 in make test: three pages, the last one
// short, at a quarter of the time Gitea takes to open a hundred (about 1.5 s
// each, one at a time); GITEA_STEADY_PULL_REQUESTS=100 is the size
// BenchmarkPullRequestsCreatedAtOnce measures.
func TestPullRequestsOnGiteaSteadyState(t *testing.T) {
	n := e2e.BenchN("GITEA_STEADY_PULL_REQUESTS", 25)
	pages := (n + pageSize - 1) / pageSize
	g := sharedGitea(t)
	api, apiURL := countGiteaAPI(t, g.URL)
	counter := &e2e.StatusCounter{}
	// Gitea's own pace (forge.RateOf): ten at once, then five a second. At
	// a burst of 50, creates queued in Gitea past the reconcile's minute on
	// a loaded machine, and each cancelled one was sent again.
	e2e.StartProvider(t, "", giteaForges(), e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper {
		counter.Next = rt
		return counter
	}))
	f := newGiteaFixture(t, g, forge.Gitea, apiURL)
	prs := make([]*v1alpha1.PullRequest, n)
	objs := make([]client.Object, n)
	heads := map[string]testenv.CommitSpec{}
	for i := range prs {
		head := fmt.Sprintf("request/%03d", i)
		heads[head] = testenv.CommitSpec{Message: "write " + head, Files: map[string]string{fmt.Sprintf("apps/%03d.yaml", i): "a: 1\n"}}
		prs[i] = f.pullRequest(fmt.Sprintf("pr-%03d", i), head, func(p *v1alpha1.PullRequestParameters) { p.Labels, p.Body = nil, "" })
		objs[i] = prs[i]
	}
	// One push of every head: a hundred commits through Gitea's contents
	// API took minutes.
	f.g.PushBranches(t, f.repo, "main", heads)
	start := time.Now()
	e2e.CreateAtOnce(t, objs...)
	// What is measured is the steady state after: the opening is Gitea's
	// own time, 2 min 51 s for 25 on CI's two cores, past a minute per
	// create when other tests load the machine.
	for _, pr := range prs {
		e2e.WaitFor(t, 6*time.Minute, pr, e2e.ReadyAndCurrent(t, pr))
	}
	t.Logf("%d PullRequests open on Gitea in %s; forge requests: %v, refused: %v", n, time.Since(start).Round(time.Millisecond), api.counts(), api.refusals())
	if got := giteaPullCount(t, f); got != n {
		t.Errorf("Gitea holds %d pull requests for %d PullRequests: none may be opened twice", got, n)
	}
	e2e.ReconciledAgain(t, 1, true, prs[0])
	e2e.UsersCounted(t, f.ns, n)
	req0, writes0 := api.counts(), counter.Writes()
	counts := make([]int, n)
	for i, o := range objs {
		counts[i] = e2e.ReconcilesOf(o)
	}
	t0 := time.Now()
	testenv.Eventually(t, 90*time.Second, func() error {
		for i, o := range objs {
			if got := e2e.ReconcilesOf(o); got < counts[i]+3 {
				return fmt.Errorf("%s: %d polls since, want 3", o.GetName(), got-counts[i])
			}
		}
		return nil
	})
	polls := float64(time.Since(t0)) / float64(e2e.Poll)
	req, writes := api.counts(), counter.Writes()
	diff := map[string]int{}
	total := 0
	for k, v := range req {
		if d := v - req0[k]; d > 0 {
			diff[k], total = d, total+d
		}
	}
	t.Logf("steady state: %.1f poll intervals (%s each), %d forge requests (%.2f per poll) %v, %d status writes",
		polls, e2e.Poll, total, float64(total)/polls, diff, writes-writes0)
	if float64(total) > float64(pages)*(2*polls+1) {
		t.Errorf("%d forge requests in %.1f polls: want about one list (%d pages) per poll, not one per PullRequest", total, polls, pages)
	}
	if w := writes - writes0; w != 0 {
		t.Errorf("%d status writes in steady state, want 0: %v", w, counter.Since(writes0))
	}
}

// giteaPullCount is how many pull requests, in any state, the fixture's
// repository holds.
func giteaPullCount(t *testing.T, f *giteaFixture) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	total := 0
	for page := 1; ; page++ {
		prs, _, err := f.g.Client(ctx, t).ListRepoPullRequests(testenv.GiteaAdmin, f.repo.Name, sdk.ListPullRequestsOptions{
			ListOptions: sdk.ListOptions{Page: page, PageSize: 50}, State: sdk.StateAll})
		if err != nil {
			t.Fatal(err)
		}
		total += len(prs)
		if len(prs) == 0 {
			return total
		}
	}
}
