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

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/github"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	fakegithub "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
)

// TestForgeEventsRegisteredOnGitHub: a configuration with
// spec.events.register puts its webhook on GitHub through the go-github
// client (JSON, TLS verified, the provider's events, the secret); a rotated
// webhook secret moves the same hook (GitHub changes a secret in place);
// turning registration off removes it; a person's hook on the repository
// is never touched.
func TestForgeEventsRegisteredOnGitHub(t *testing.T) {
	gh := fakegithub.NewServer(t)
	p := e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.GitHub: github.New}), e2e.WithEventsRegistered())
	f := forgeFixture(t, "e2e/github-hooks.git", forge.GitHub, gh.URL(), fakegithub.Token)
	const owner, repo = "e2e", "github-hooks"
	gh.AddBranch(owner, repo, "main", f.Repo.Head(t, "main"))
	theirs := fakegithub.Hook{URL: "https://ci.example.com/hook", ContentType: "form", InsecureSSL: "0", Events: []string{"push"}, Active: true}
	theirs.ID = gh.AddHook(owner, repo, theirs)
	events := []string{"push", "pull_request", "pull_request_review", "check_suite", "status"}
	ours := func(pc *v1alpha1.ProviderConfig, secret string) fakegithub.Hook {
		var id int64
		_, _ = fmt.Sscan(pc.Status.Events.HookID, &id)
		return fakegithub.Hook{ID: id, URL: p.EventsURL + pc.Status.Events.Path, ContentType: "json", Secret: secret,
			InsecureSSL: "0", Events: events, Active: true}
	}

	const first, rotated = "a-webhook-secret-of-32-bytes-abc", "a-rotated-secret-of-32-bytes-xyz"
	pc := registerHook(t, f.Namespace, first, true)
	if diff := cmp.Diff([]fakegithub.Hook{theirs, ours(pc, first)}, gh.Hooks(owner, repo)); diff != "" {
		t.Fatalf("GitHub's webhooks after registering: -want, +got:\n%s", diff)
	}
	id := pc.Status.Events.HookID

	pc = registerHook(t, f.Namespace, rotated, true)
	if pc.Status.Events.HookID != id {
		t.Errorf("hook id after the secret rotated: %q, want the same hook %q", pc.Status.Events.HookID, id)
	}
	if diff := cmp.Diff([]fakegithub.Hook{theirs, ours(pc, rotated)}, gh.Hooks(owner, repo)); diff != "" {
		t.Errorf("GitHub's webhooks after the secret rotated: -want, +got:\n%s", diff)
	}

	registerHook(t, f.Namespace, rotated, false)
	if diff := cmp.Diff([]fakegithub.Hook{theirs}, gh.Hooks(owner, repo)); diff != "" {
		t.Errorf("GitHub's webhooks after registration was turned off: -want, +got:\n%s", diff)
	}
}

// registerHook gives ns's configuration the webhook secret and
// spec.events.register, and returns it once its status says the hook is
// registered (or, turned off, that none is).
func registerHook(t *testing.T, ns, secret string, register bool) *v1alpha1.ProviderConfig {
	t.Helper()
	return e2e.SetWebhook(t, ns, "creds", secret, e2e.Register(register), e2e.Registered(secret, register))
}
