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
	"fmt"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestPullRequestFollowsItsHeadOnGitea: a File this provider pushes to a
// pull request's head branch shows in the PullRequest's atProvider.headSHA
// at once, as Gitea reports it. The poll interval is an hour, far beyond
// the wait: only the wake of the branch's move (and the one read of the
// pull request it causes, the shared list being an hour old) passes. On
// each real forge of Gitea's API.
func TestPullRequestFollowsItsHeadOnGitea(t *testing.T) {
	for _, fg := range testenv.GiteaForges() {
		t.Run(fg.Name, func(t *testing.T) { testFollowsItsHead(t, fg) })
	}
}

func testFollowsItsHead(t *testing.T, fg testenv.GiteaForge) {
	const head = "request/follow"
	g := sharedGitea(t, fg.Options...)
	e2e.StartProvider(t, "", giteaForges(), e2e.WithPoll(time.Hour))
	f := newGiteaFixture(t, g, forge.Type(fg.Name), "")
	first := g.CommitFile(t, f.repo.Name, head, "main", "apps/first.yaml", "a: 1\n")
	pr := f.pullRequest("follow", head, func(p *v1alpha1.PullRequestParameters) { p.Labels, p.Body = nil, "" })
	e2e.CreateAll(t, pr)
	e2e.WaitFor(t, 60*time.Second, pr, f.onGitea(t, pr))
	if got := pr.Status.AtProvider.HeadSHA; got != first {
		t.Fatalf("atProvider.headSHA once open = %q, want the head %q", got, first)
	}

	fl := e2e.NewFile(&e2e.Fixture{Namespace: f.ns}, "second", "apps/second.yaml", "b: 2\n")
	fl.Spec.ForProvider.Branch = head
	fl.Spec.ForProvider.Content = ptr.To("b: 2\n")
	e2e.CreateAll(t, fl)
	e2e.WaitFor(t, 60*time.Second, fl, func() error {
		if fl.Status.AtProvider.Commit == "" || fl.Status.AtProvider.Commit == first {
			return fmt.Errorf("atProvider.commit is %q", fl.Status.AtProvider.Commit)
		}
		return e2e.ReadyAndCurrent(t, fl)()
	})
	pushed := fl.Status.AtProvider.Commit
	start := time.Now()
	e2e.WaitFor(t, 30*time.Second, pr, func() error {
		if got := pr.Status.AtProvider.HeadSHA; got != pushed {
			return fmt.Errorf("atProvider.headSHA is %q, want the File's commit %q", got, pushed)
		}
		return e2e.ReadyAndCurrent(t, pr)()
	})
	t.Logf("headSHA followed the File's push in %s (poll interval 1h)", time.Since(start).Round(time.Millisecond))
	if got := g.PR(t, f.repo.Name, pr.Status.AtProvider.Number).Head.Sha; got != pushed {
		t.Errorf("Gitea's #%d head is %q, status says %q", pr.Status.AtProvider.Number, got, pushed)
	}
}
