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
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestForgeEventsRegisteredOnGitea: a configuration with
// spec.events.register puts its webhook on a real Gitea, whose deliveries
// then put back a person's push over a managed File while the polls are an
// hour apart; a rotated webhook secret leaves one hook, at the new path
// and signing with the new secret; turning registration off, or deleting
// the configuration, removes the hook.
func TestForgeEventsRegisteredOnGitea(t *testing.T) {
	g := sharedGitea(t)
	p := e2e.StartProvider(t, "", giteaForges(), e2e.WithEventsRegistered(), e2e.WithPoll(time.Hour))
	f := newGiteaFixture(t, g, forge.Gitea, "")
	pc := setRegister(t, f, hookSecret, true)
	id := pc.Status.Events.HookID
	if diff := cmp.Diff(map[int64]string{hookNumber(t, id): p.EventsURL + pc.Status.Events.Path}, g.Hooks(t, f.repo.Name)); diff != "" {
		t.Fatalf("Gitea's webhooks after registering: -want, +got:\n%s", diff)
	}

	fl := &v1alpha1.File{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "registered"},
		Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{Branch: "main", Path: "registered.yaml", Content: ptr.To("owner: provider\n")}}}
	fl.Spec.ProviderConfigReference = e2e.PCRef()
	e2e.CreateAll(t, fl)
	e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	putBack := func(edit string) {
		t.Helper()
		f.g.OverwriteFile(t, f.repo.Name, "main", "registered.yaml", edit)
		testenv.Eventually(t, time.Minute, func() error {
			if got := f.g.FileContent(t, f.repo.Name, "main", "registered.yaml"); got != "owner: provider\n" {
				return fmt.Errorf("registered.yaml on Gitea is %q", got)
			}
			return nil
		})
	}
	putBack("owner: a person\n")

	// Gitea cannot change a hook's secret: the rotation replaces the hook.
	rotated := setRegister(t, f, "a-rotated-secret-of-32-bytes-xyz", true)
	id = rotated.Status.Events.HookID
	if diff := cmp.Diff(map[int64]string{hookNumber(t, id): p.EventsURL + rotated.Status.Events.Path}, g.Hooks(t, f.repo.Name)); diff != "" {
		t.Errorf("Gitea's webhooks after the secret rotated: -want, +got:\n%s", diff)
	}
	putBack("owner: a person, after the rotation\n")

	off := setRegister(t, f, "a-rotated-secret-of-32-bytes-xyz", false)
	if off.Status.Events.HookID != "" {
		t.Errorf("hook id after registration was turned off: %q, want none", off.Status.Events.HookID)
	}
	if got := g.Hooks(t, f.repo.Name); len(got) != 0 {
		t.Errorf("Gitea's webhooks after registration was turned off: %v, want none", got)
	}

	// Registered again, then the configuration deleted: its hook goes
	// with it.
	again := setRegister(t, f, "a-rotated-secret-of-32-bytes-xyz", true)
	if got := g.Hooks(t, f.repo.Name); len(got) != 1 {
		t.Fatalf("Gitea's webhooks after registering again: %v, want one", got)
	}
	ctx := context.Background()
	if err := e2e.CP.Client.Delete(ctx, fl); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, fl)
	// envtest runs no garbage collector: delete the usage the File owned,
	// as the cluster's garbage collector would.
	if err := e2e.CP.Client.DeleteAllOf(ctx, &v1alpha1.ProviderConfigUsage{}, client.InNamespace(f.ns)); err != nil {
		t.Fatal(err)
	}
	if err := e2e.CP.Client.Delete(ctx, again); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, again)
	if got := g.Hooks(t, f.repo.Name); len(got) != 0 {
		t.Errorf("Gitea's webhooks after the configuration was deleted: %v, want none", got)
	}
}

// setRegister gives f's configuration the webhook secret and
// spec.events.register, and returns it once its status says the hook is
// registered (or, turned off, that none is).
func setRegister(t *testing.T, f *giteaFixture, secret string, register bool) *v1alpha1.ProviderConfig {
	t.Helper()
	return e2e.SetWebhook(t, f.ns, "gitea", secret, e2e.Register(register), e2e.Registered(secret, register))
}

func hookNumber(t *testing.T, id string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		t.Fatalf("hook id %q: %v", id, err)
	}
	return n
}
