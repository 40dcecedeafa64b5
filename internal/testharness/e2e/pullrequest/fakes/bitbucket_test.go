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
	"fmt"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/bitbucket"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	fakebb "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/bitbucket"
)

// Bitbucket cannot run on loopback either: these run the PullRequest
// controller through the Bitbucket clients against the fakes of Cloud and
// Data Center. Bitbucket has no labels, so the PullRequests declare none.

func bitbucketPR(ns, name, head string, mutate ...func(*v1alpha1.PullRequestParameters)) *v1alpha1.PullRequest {
	return e2e.NewPullRequest(ns, name, head, append([]func(*v1alpha1.PullRequestParameters){func(p *v1alpha1.PullRequestParameters) {
		p.Body, p.Labels = "", nil
	}}, mutate...)...)
}

// mergedBy waits for pr to be Ready with its pull request merged.
func mergedBy(t *testing.T, pr *v1alpha1.PullRequest) func() error {
	return func() error {
		if a := pr.Status.AtProvider; a.State != string(forge.StateMerged) || a.MergeCommit == "" {
			return fmt.Errorf("atProvider is %+v, want merged", a)
		}
		return e2e.ReadyAndCurrent(t, pr)()
	}
}

func TestPullRequestOnBitbucketCloud(t *testing.T) {
	bb := fakebb.NewCloud(t)
	e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.BitbucketCloud: bitbucket.NewCloud}))
	f := forgeFixture(t, fakebb.Workspace+"/"+fakebb.RepoSlug+".git", forge.BitbucketCloud, bb.URL(), fakebb.Token, "request/demo", "request/auto")
	for _, b := range []string{"main", "request/demo", "request/auto"} {
		bb.SetBranch(b, f.Repo.Head(t, b))
	}
	// A stranger's fork has a pull request of the same branch names.
	fork := bb.Open("mallory/"+fakebb.RepoSlug, "request/demo", fakebb.SHA("evil"), "main", "Innocent typo fix")
	pr := bitbucketPR(f.Namespace, "demo", "request/demo")
	e2e.CreateAll(t, pr)
	t.Run("OpensItsOwnBesideAFork", func(t *testing.T) {
		e2e.WaitFor(t, 30*time.Second, pr, e2e.ReadyAndCurrent(t, pr))
		n := pr.Status.AtProvider.Number
		got, _ := bb.Pull(n)
		if n == fork || got.Source != fakebb.Workspace+"/"+fakebb.RepoSlug || got.Title != pr.Spec.ForProvider.Title {
			t.Errorf("the PullRequest holds #%d (%+v), want its own beside the fork's #%d", n, got, fork)
		}
		if pr.Status.AtProvider.HeadSHA != f.Repo.Head(t, "request/demo") {
			t.Errorf("atProvider.headSHA %q, want the full head %q", pr.Status.AtProvider.HeadSHA, f.Repo.Head(t, "request/demo"))
		}
	})
	t.Run("PutsATitleEditBack", func(t *testing.T) {
		bb.Edit(pr.Status.AtProvider.Number, func(p *fakebb.CloudPull) { p.Title = "theirs" })
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			if got, _ := bb.Pull(pr.Status.AtProvider.Number); got.Title != pr.Spec.ForProvider.Title {
				return fmt.Errorf("title is %q", got.Title)
			}
			return nil
		})
	})
	t.Run("MergedByTheProvider", func(t *testing.T) {
		// Cloud has no auto-merge in its API: the provider merges once
		// Cloud says mergeable, pinned to the head it judged.
		auto := bitbucketPR(f.Namespace, "auto", "request/auto", func(p *v1alpha1.PullRequestParameters) {
			p.Merge = v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeAuto, Method: v1alpha1.MergeMethodSquash, DeleteBranch: true}
			p.Readiness = v1alpha1.ReadinessMerged
		})
		e2e.CreateAll(t, auto)
		e2e.WaitFor(t, 30*time.Second, auto, mergedBy(t, auto))
		if got, _ := bb.Pull(auto.Status.AtProvider.Number); got.Strategy != "squash" || !got.CloseSourceBranch {
			t.Errorf("Cloud merged it by %q (close source %v), want squash closing the source", got.Strategy, got.CloseSourceBranch)
		}
	})
	if got, _ := bb.Pull(fork); got.State != "OPEN" || got.Title != "Innocent typo fix" {
		t.Errorf("the fork's pull request was touched: %+v", got)
	}
}

func TestPullRequestOnBitbucketDataCenter(t *testing.T) {
	bb := fakebb.NewDC(t)
	e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.BitbucketDataCenter: bitbucket.NewDataCenter}))
	f := forgeFixture(t, fakebb.Project+"/"+fakebb.RepoSlug+".git", forge.BitbucketDataCenter, bb.URL(), fakebb.Token, "request/adopt", "request/auto")
	for _, b := range []string{"main", "request/adopt", "request/auto"} {
		bb.SetBranch(b, f.Repo.Head(t, b))
	}
	t.Run("Adopt", func(t *testing.T) {
		id := bb.Open("", "request/adopt", f.Repo.Head(t, "request/adopt"), "main", "by hand")
		pr := bitbucketPR(f.Namespace, "adopt", "request/adopt", func(p *v1alpha1.PullRequestParameters) { p.Reviewers = []string{"jdoe"} })
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, 30*time.Second, pr, e2e.ReadyAndCurrent(t, pr))
		got, _ := bb.Pull(id)
		if pr.Status.AtProvider.Number != id || got.Title != pr.Spec.ForProvider.Title || len(got.Reviewers) != 1 {
			t.Errorf("adopted #%d, want #%d kept as declared; Data Center holds %+v", pr.Status.AtProvider.Number, id, got)
		}
	})
	t.Run("AutoMergeOnceTheVetoLifts", func(t *testing.T) {
		// Data Center's auto-merge is asked at the judged head's version;
		// Data Center merges when its merge checks stop vetoing.
		id := bb.Open("", "request/auto", f.Repo.Head(t, "request/auto"), "main", "by hand")
		bb.Edit(id, func(p *fakebb.DCPull) { p.Vetoes = []string{"Requires 1 approval"} })
		pr := bitbucketPR(f.Namespace, "auto", "request/auto", func(p *v1alpha1.PullRequestParameters) {
			p.Merge = v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeAuto}
			p.Readiness = v1alpha1.ReadinessMerged
		})
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			if got, _ := bb.Pull(id); got.AutoMerge == "" {
				return fmt.Errorf("no auto-merge asked of #%d", id)
			}
			return nil
		})
		bb.Edit(id, func(p *fakebb.DCPull) { p.Vetoes, p.Votes = nil, map[string]string{"ann": "APPROVED"} })
		e2e.WaitFor(t, 30*time.Second, pr, mergedBy(t, pr))
		if got, _ := bb.Pull(id); got.Strategy != "no-ff" {
			t.Errorf("Data Center merged it by %q, want no-ff", got.Strategy)
		}
	})
}
