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
	"testing"
	"time"

	sdk "code.gitea.io/sdk/gitea"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/pullrequest"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestPullRequestNeverAStrangersOnGitea is the review's two takeovers, as
// a stranger and a tenant would try them on a real Gitea:
//   - a user with no rights forks the repository and opens a pull request
//     from the fork's fork-1; a PullRequest declaring head fork-1 with an
//     Auto merge that deletes the branch never adopts, edits nor merges
//     it, before or after a fork-1 of the repository's own exists (then
//     it opens its own). Before, it adopted, retitled and merged the fork's.
//   - a PullRequest whose external name is a person's unrelated pull
//     request is Stalled NotOurs, leaves its title and body alone, and
//     being deleted does not close it. Before, it retitled and closed it.
func TestPullRequestNeverAStrangersOnGitea(t *testing.T) {
	g := sharedGitea(t)
	e2e.StartProvider(t, "", giteaForges())
	f := newGiteaFixture(t, g, forge.Gitea, "")
	stranger := g.CreateUser(t, "stranger-"+f.repo.Name)

	t.Run("Fork", func(t *testing.T) {
		n, _ := g.OpenFromFork(t, stranger, f.repo.Name, "fork-1", "main", "fork.yaml")
		pr := f.pullRequest("fork", "fork-1", func(p *v1alpha1.PullRequestParameters) {
			p.Labels = nil
			p.Merge = v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeAuto, Method: v1alpha1.MergeMethodMerge, DeleteBranch: true}
			p.Readiness = v1alpha1.ReadinessMerged
		})
		e2e.CreateAll(t, pr)
		// No branch fork-1 in the repository yet: the resource waits for it.
		e2e.WaitFor(t, 60*time.Second, pr, func() error {
			return e2e.ConditionIs(pr, xpv2.TypeReady, corev1.ConditionFalse, pullrequest.ReasonHeadBranchMissing)
		})
		untouched(t, g, f.repo.Name, n, "Please merge fork-1")
		if got := meta.GetExternalName(pr); got != "" {
			t.Errorf("the fork's pull request was adopted: external name %q", got)
		}
		f.g.CommitFile(t, f.repo.Name, "fork-1", "main", "apps/ours.yaml", "a: 1\n")
		e2e.WaitFor(t, 90*time.Second, pr, func() error {
			if a := pr.Status.AtProvider; a.Number == 0 || a.Number == n || a.State != string(forge.StateMerged) {
				return fmt.Errorf("atProvider is %+v (%s); want its own pull request, merged", a, pr.GetCondition(xpv2.TypeReady).Message)
			}
			return nil
		})
		untouched(t, g, f.repo.Name, n, "Please merge fork-1")
	})

	t.Run("ExternalName", func(t *testing.T) {
		f.g.CommitFile(t, f.repo.Name, "a-persons-work", "main", "apps/person.yaml", "a: 1\n")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		theirs, _, err := g.Client(ctx, t).CreatePullRequest(testenv.GiteaAdmin, f.repo.Name,
			sdk.CreatePullRequestOption{Head: "a-persons-work", Base: "main", Title: "A person's work", Body: "Theirs"})
		if err != nil {
			t.Fatal(err)
		}
		f.g.CommitFile(t, f.repo.Name, "take-1", "main", "apps/take.yaml", "a: 1\n")
		pr := f.pullRequest("take", "take-1", func(p *v1alpha1.PullRequestParameters) { p.Labels = nil })
		meta.SetExternalName(pr, fmt.Sprint(theirs.Index))
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, 60*time.Second, pr, e2e.StalledWith(t, pr, pullrequest.ReasonNotOurs))
		untouched(t, g, f.repo.Name, theirs.Index, "A person's work")
		if err := e2e.CP.Client.Delete(context.Background(), pr); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, pr)
		untouched(t, g, f.repo.Name, theirs.Index, "A person's work")
	})
}

// untouched: pull request n is still open, unmerged, with its title.
func untouched(t *testing.T, g *testenv.Gitea, repo string, n int64, title string) {
	t.Helper()
	got := g.PR(t, repo, n)
	if got.State != sdk.StateOpen || got.HasMerged || got.Title != title {
		t.Errorf("#%d is %s (merged %t) titled %q; want open, unmerged, %q", n, got.State, got.HasMerged, got.Title, title)
	}
}
