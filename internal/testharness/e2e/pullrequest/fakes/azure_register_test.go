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
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/azure"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	fakeazure "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/azure"
)

// TestForgeEventsRegisteredOnAzureDevOps: a configuration with
// spec.events.register subscribes its endpoint to the repository's code
// events on Azure DevOps, one service hook subscription per event type, the
// webhook secret as the basic authentication password: a delivery Azure
// makes with what registration set is verified (202), one with another
// password refused. A rotated secret moves the same subscriptions; turning
// registration off deletes them; a second user's subscription to the very
// URL is never touched.
func TestForgeEventsRegisteredOnAzureDevOps(t *testing.T) {
	az := fakeazure.NewServer(t)
	p := e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.AzureDevOps: azure.New}), e2e.WithEventsRegistered())
	f := forgeFixture(t, fakeazure.Project+"/"+fakeazure.Repo+".git", forge.AzureDevOps, az.APIURL(), fakeazure.PAT)
	az.SetBranch("main", f.Repo.Head(t, "main"))
	events := []string{"git.push", "git.pullrequest.created", "git.pullrequest.updated", "git.pullrequest.merged"}
	ours := func(pc *v1alpha1.ProviderConfig, secret string) []fakeazure.Subscription {
		var out []fakeazure.Subscription
		for _, ev := range events {
			out = append(out, fakeazure.Subscription{EventType: ev, ProjectID: fakeazure.ProjectID, RepositoryID: fakeazure.RepoID,
				URL: p.EventsURL + pc.Status.Events.Path, User: "provider-git", Password: secret, ResourceDetails: "all",
				CreatedBy: fakeazure.MeID, Status: "enabled"})
		}
		return out
	}
	ignoreIDs := cmpopts.IgnoreFields(fakeazure.Subscription{}, "ID")

	const first, rotated = "a-webhook-secret-of-32-bytes-abc", "a-rotated-secret-of-32-bytes-xyz"
	pc := registerHook(t, f.Namespace, first, true)
	if diff := cmp.Diff(ours(pc, first), az.Subscriptions(), ignoreIDs); diff != "" {
		t.Fatalf("Azure's subscriptions after registering: -want, +got:\n%s", diff)
	}
	if want := subscriptionIDs(az.Subscriptions(), fakeazure.MeID); pc.Status.Events.HookID != want {
		t.Errorf("status.events.hookID %q, want the subscriptions' ids %q", pc.Status.Events.HookID, want)
	}
	// A second user subscribes the same URL, guessing at the secret.
	theirs := fakeazure.Subscription{EventType: "git.push", ProjectID: fakeazure.ProjectID, RepositoryID: fakeazure.RepoID,
		URL: p.EventsURL + pc.Status.Events.Path, User: "x", Password: "a-guess", CreatedBy: fakeazure.TheirID, Status: "enabled"}
	theirs.ID = az.AddSubscription(theirs)
	for i, s := range az.Subscriptions() {
		want := http.StatusAccepted
		if s.CreatedBy == fakeazure.TheirID {
			want = http.StatusForbidden
		}
		if got, err := az.Deliver(context.Background(), http.DefaultClient, s, "delivery-"+string(rune('a'+i))); err != nil || got != want {
			t.Errorf("a %s delivery of %s's subscription: %d (%v), want %d", s.EventType, s.CreatedBy, got, err, want)
		}
	}

	pc = registerHook(t, f.Namespace, rotated, true)
	if diff := cmp.Diff(append([]fakeazure.Subscription{theirs}, ours(pc, rotated)...), sortedTheirsFirst(az.Subscriptions()), ignoreIDs); diff != "" {
		t.Errorf("Azure's subscriptions after the secret rotated: -want, +got:\n%s", diff)
	}

	registerHook(t, f.Namespace, rotated, false)
	if diff := cmp.Diff([]fakeazure.Subscription{theirs}, az.Subscriptions()); diff != "" {
		t.Errorf("Azure's subscriptions after registration was turned off: -want, +got:\n%s", diff)
	}
}

// subscriptionIDs is the hook id of creator's subscriptions: their ids,
// sorted, joined by commas.
func subscriptionIDs(subs []fakeazure.Subscription, creator string) string {
	var ids []string
	for _, s := range subs {
		if s.CreatedBy == creator {
			ids = append(ids, s.ID)
		}
	}
	slices.Sort(ids)
	return strings.Join(ids, ",")
}

// sortedTheirsFirst puts other users' subscriptions first, keeping the
// order of each side.
func sortedTheirsFirst(subs []fakeazure.Subscription) []fakeazure.Subscription {
	slices.SortStableFunc(subs, func(a, b fakeazure.Subscription) int {
		return boolInt(a.CreatedBy == fakeazure.MeID) - boolInt(b.CreatedBy == fakeazure.MeID)
	})
	return subs
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
