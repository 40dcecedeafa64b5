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
	"slices"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/pullrequest"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/azure"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	fakeazure "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/azure"
)

// TestPullRequestOnAzureDevOps runs the PullRequest controller through the
// Azure DevOps client against its fake: open with labels and reviewers,
// a person's title edit put back, a person's pull request adopted,
// auto-complete set while a build validation runs and the completion once
// it passes, and a fork's pull request of the same branch name left alone.
func TestPullRequestOnAzureDevOps(t *testing.T) {
	az := fakeazure.NewServer(t)
	e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.AzureDevOps: azure.New}))
	heads := []string{"request/demo", "request/adopt", "request/auto", "request/fork"}
	// The repository's path names the fake's project and repository.
	f := forgeFixture(t, fakeazure.Project+"/"+fakeazure.Repo+".git", forge.AzureDevOps, az.APIURL(), fakeazure.PAT, heads...)
	for _, b := range append([]string{"main"}, heads...) {
		az.SetBranch(b, f.Repo.Head(t, b))
	}
	mk := func(name, head string, mutate ...func(*v1alpha1.PullRequestParameters)) *v1alpha1.PullRequest {
		return e2e.NewPullRequest(f.Namespace, name, head, append([]func(*v1alpha1.PullRequestParameters){func(p *v1alpha1.PullRequestParameters) { p.Body = "" }}, mutate...)...)
	}
	t.Run("Open", func(t *testing.T) {
		pr := mk("demo", "request/demo", func(p *v1alpha1.PullRequestParameters) { p.Reviewers = []string{"jane@fabrikam.com"} })
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, 30*time.Second, pr, e2e.ReadyAndCurrent(t, pr))
		n := pr.Status.AtProvider.Number
		got, ok := az.PR(n)
		if !ok || got.Title != pr.Spec.ForProvider.Title || !slices.Equal(got.Labels, []string{"provider-git"}) || len(got.Reviewers) != 1 || !got.Reviewers[0].Required {
			t.Fatalf("Azure DevOps holds %+v", got)
		}
		az.Edit(n, func(p *fakeazure.PullRequest) { p.Title = "theirs" })
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			if got, _ := az.PR(n); got.Title != pr.Spec.ForProvider.Title {
				return fmt.Errorf("title is %q", got.Title)
			}
			return nil
		})
	})
	t.Run("Adopt", func(t *testing.T) {
		n := az.Open("request/adopt", "main", "by hand")
		pr := mk("adopt", "request/adopt")
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, 30*time.Second, pr, e2e.ReadyAndCurrent(t, pr))
		if pr.Status.AtProvider.Number != n {
			t.Errorf("adopted #%d, want the open #%d", pr.Status.AtProvider.Number, n)
		}
	})
	t.Run("AutoComplete", func(t *testing.T) {
		pr := mk("auto", "request/auto", func(p *v1alpha1.PullRequestParameters) {
			p.Labels = nil
			p.Merge = v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeAuto, Method: v1alpha1.MergeMethodSquash, DeleteBranch: true}
			p.Readiness = v1alpha1.ReadinessMerged
		})
		// Build validation runs on every pull request into main.
		n := az.Open("request/auto", "main", "Add auto")
		az.Edit(n, func(p *fakeazure.PullRequest) {
			p.Policies = []fakeazure.Policy{{Type: fakeazure.PolicyBuild, Name: "Build", Status: "running", Blocking: true}}
		})
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			if got, _ := az.PR(n); got.AutoCompleteSetBy != fakeazure.MeID || got.MergeStrategy != "squash" || !got.DeleteSourceBranch {
				return fmt.Errorf("Azure DevOps holds %+v: no auto-complete by squash", got)
			}
			if a := pr.Status.AtProvider; a.Checks != string(forge.ChecksPending) {
				return fmt.Errorf("atProvider is %+v, want checks pending", a)
			}
			return e2e.ConditionIs(pr, xpv2.TypeReady, corev1.ConditionFalse, pullrequest.ReasonAwaitingMerge)
		})
		az.Edit(n, func(p *fakeazure.PullRequest) { p.Policies[0].Status = "approved" })
		e2e.WaitFor(t, 30*time.Second, pr, func() error {
			if a := pr.Status.AtProvider; a.State != string(forge.StateMerged) || a.MergeCommit == "" {
				return fmt.Errorf("atProvider is %+v, want merged", a)
			}
			return e2e.ReadyAndCurrent(t, pr)()
		})
	})
	t.Run("ForkLeftAlone", func(t *testing.T) {
		fork := az.OpenFromFork("Stranger/gitops", "request/fork", "0123456789abcdef0123456789abcdef01234567", "main", "a stranger's")
		pr := mk("fork", "request/fork")
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, 30*time.Second, pr, e2e.ReadyAndCurrent(t, pr))
		if n := pr.Status.AtProvider.Number; n == fork {
			t.Errorf("the fork's pull request #%d was adopted", fork)
		}
		if got, _ := az.PR(fork); got.Title != "a stranger's" || got.Status != "active" {
			t.Errorf("the fork's pull request was touched: %+v", got)
		}
	})
}

// TestAzureAutoCompleteFollowsItsHead: auto-complete set at the judged
// head, then a push on Azure moves the head (one the provider never
// judged). Azure's auto-complete names no commit and would complete the
// new head once its build passes; the provider cancels it at its next read
// and sets it again only at the head it then judged.
func TestAzureAutoCompleteFollowsItsHead(t *testing.T) {
	az := fakeazure.NewServer(t)
	e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.AzureDevOps: azure.New}))
	f := forgeFixture(t, fakeazure.Project+"/"+fakeazure.Repo+".git", forge.AzureDevOps, az.APIURL(), fakeazure.PAT, "request/moved")
	for _, b := range []string{"main", "request/moved"} {
		az.SetBranch(b, f.Repo.Head(t, b))
	}
	n := az.Open("request/moved", "main", "Add moved")
	az.Edit(n, func(p *fakeazure.PullRequest) {
		p.Policies = []fakeazure.Policy{{Type: fakeazure.PolicyBuild, Name: "Build", Status: "running", Blocking: true}}
	})
	pr := e2e.NewPullRequest(f.Namespace, "moved", "request/moved", func(p *v1alpha1.PullRequestParameters) {
		p.Body, p.Labels = "", nil
		p.Merge = v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeAuto, Method: v1alpha1.MergeMethodSquash}
		p.Readiness = v1alpha1.ReadinessMerged
	})
	e2e.CreateAll(t, pr)
	judged := f.Repo.Head(t, "request/moved")
	e2e.WaitFor(t, 30*time.Second, pr, func() error {
		if got, _ := az.PR(n); got.AutoCompleteSetBy != fakeazure.MeID || got.AutoCompleteSetAt != judged {
			return fmt.Errorf("Azure DevOps holds %+v: no auto-complete at %s", got, judged)
		}
		return nil
	})
	moved := az.AddBranch("request/moved")
	e2e.WaitFor(t, 30*time.Second, pr, func() error {
		got, _ := az.PR(n)
		if got.AutoCompleteSetBy != fakeazure.MeID || got.AutoCompleteSetAt != moved {
			return fmt.Errorf("Azure DevOps holds auto-complete by %q set at %s, want it set again at the moved head %s", got.AutoCompleteSetBy, got.AutoCompleteSetAt, moved)
		}
		if a := pr.Status.AtProvider; a.HeadSHA != moved {
			return fmt.Errorf("atProvider.headSHA is %s, want the moved head %s", a.HeadSHA, moved)
		}
		return nil
	})
}
