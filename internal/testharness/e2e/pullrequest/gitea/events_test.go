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

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// hookSecret is the webhook secret of the events tests, in the
// configuration's Secret and in Gitea's hook.
const hookSecret = "hook-secret-of-at-least-16-bytes"

// TestForgeEventsOnGitea: the real Gitea delivers its webhooks to the
// provider, whose polls are an hour apart, so only an event explains what
// happens within the test's minute: a reviewer's merge makes a readiness
// Merged PullRequest Ready, a person's push over a managed File is put
// back, a pull request closed by a person turns Closed.
func TestForgeEventsOnGitea(t *testing.T) {
	g := sharedGitea(t)
	p := e2e.StartProvider(t, "", giteaForges(), e2e.WithEvents(), e2e.WithPoll(time.Hour))
	f := newGiteaFixture(t, g, forge.Gitea, "")
	path := receiveEvents(t, f)
	g.AddHook(t, f.repo.Name, p.EventsURL+path, hookSecret)

	t.Run("MergedByAReviewer", func(t *testing.T) {
		f.g.CommitFile(t, f.repo.Name, "request/event", "main", "apps/event.yaml", "a: 1\n")
		reviewer := f.g.CreateUser(t, "event-reviewer", f.repo.Name)
		pr := f.pullRequest("event", "request/event", func(p *v1alpha1.PullRequestParameters) {
			p.Labels, p.Readiness = nil, v1alpha1.ReadinessMerged
		})
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, time.Minute, pr, func() error {
			if pr.Status.AtProvider.Number == 0 {
				return fmt.Errorf("not opened yet: %s", pr.GetCondition(xpv2.TypeReady).Message)
			}
			return nil
		})
		f.g.MergeAsReviewer(t, &reviewer, f.repo.Name, pr.Status.AtProvider.Number)
		e2e.WaitFor(t, time.Minute, pr, func() error {
			if pr.Status.AtProvider.State != string(forge.StateMerged) {
				return fmt.Errorf("state %q: %s", pr.Status.AtProvider.State, pr.GetCondition(xpv2.TypeReady).Message)
			}
			return e2e.ReadyAndCurrent(t, pr)()
		})
	})
	t.Run("ClosedByAPerson", func(t *testing.T) {
		f.g.CommitFile(t, f.repo.Name, "request/closed", "main", "apps/closed.yaml", "a: 1\n")
		pr := f.pullRequest("closed", "request/closed", func(p *v1alpha1.PullRequestParameters) { p.Labels = nil })
		e2e.CreateAll(t, pr)
		e2e.WaitFor(t, time.Minute, pr, e2e.ReadyAndCurrent(t, pr))
		f.g.ClosePR(t, f.repo.Name, pr.Status.AtProvider.Number)
		e2e.WaitFor(t, time.Minute, pr, func() error {
			if pr.Status.AtProvider.State != string(forge.StateClosed) {
				return fmt.Errorf("state %q: %s", pr.Status.AtProvider.State, pr.GetCondition(xpv2.TypeReady).Message)
			}
			return nil
		})
	})
	t.Run("PushOverAFile", func(t *testing.T) {
		fl := &v1alpha1.File{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "managed"},
			Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{Branch: "main", Path: "managed.yaml", Content: ptr.To("owner: provider\n")}}}
		fl.Spec.ProviderConfigReference = e2e.PCRef()
		e2e.CreateAll(t, fl)
		e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
		f.g.OverwriteFile(t, f.repo.Name, "main", "managed.yaml", "owner: a person\n")
		testenv.Eventually(t, time.Minute, func() error {
			if got := f.g.FileContent(t, f.repo.Name, "main", "managed.yaml"); got != "owner: provider\n" {
				return fmt.Errorf("managed.yaml on Gitea is %q", got)
			}
			return nil
		})
	})
}

// receiveEvents gives f's configuration a webhook secret and returns the
// path it receives events at, once published.
func receiveEvents(t *testing.T, f *giteaFixture) string {
	t.Helper()
	return e2e.SetWebhook(t, f.ns, "gitea", hookSecret, nil, e2e.EventsPublished).Status.Events.Path
}
