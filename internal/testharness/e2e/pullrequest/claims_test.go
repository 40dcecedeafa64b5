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

package pullrequest_test

import (
	"context"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// TestTwoPullRequestsOnePullRequest: two PullRequests of one repository,
// head and base claim one pull request. The later one is Stalled Conflict
// and touches nothing (one pull request on the forge, the first's title);
// the first deleted leaves the pull request open and the other adopts it;
// the last deleted closes it. Before, both adopted it, rewrote each
// other's title at every poll, and the first deleted closed it.
func TestTwoPullRequestsOnePullRequest(t *testing.T) {
	forges := startPRProvider(t)
	f := newPRFixture(t, forges, "request/shared")
	first := f.pullRequest("first", "request/shared")
	e2e.CreateAll(t, first)
	e2e.WaitFor(t, 30*time.Second, first, openAs(t, first, f.forge))
	n := first.Status.AtProvider.Number

	second := f.pullRequest("second", "request/shared")
	second.Spec.ForProvider.Title = "Another title"
	e2e.CreateAll(t, second)
	e2e.WaitFor(t, 30*time.Second, second, e2e.StalledWith(t, second, claim.ReasonConflict))
	if got, _ := f.forge.PR(n); got.Title != first.Spec.ForProvider.Title || f.forge.Len() != 1 {
		t.Errorf("the forge holds %d pull requests, #%d titled %q: want one, the first's title", f.forge.Len(), n, got.Title)
	}

	if err := e2e.CP.Client.Delete(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, first)
	e2e.WaitFor(t, 30*time.Second, second, openAs(t, second, f.forge))
	if got := second.Status.AtProvider.Number; got != n || f.forge.Len() != 1 {
		t.Errorf("the second holds #%d with %d on the forge: want #%d adopted, open", got, f.forge.Len(), n)
	}

	if err := e2e.CP.Client.Delete(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, second)
	if got, _ := f.forge.PR(n); got.State != forge.StateClosed {
		t.Errorf("#%d is %s once the last PullRequest is gone, want closed", n, got.State)
	}
}
