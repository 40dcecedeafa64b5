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

package config

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// hookForge is a repository's webhooks as a forge keeps them, recording
// the calls made. It keeps the secrets it was given, which no forge
// returns, so a test can see what the forge would sign with.
type hookForge struct {
	forge.Client
	hooks   []forge.Hook
	secrets map[string]string
	calls   []string
	listErr error
}

func (f *hookForge) Type() forge.Type { return forge.Gitea }

func (f *hookForge) ListHooks(context.Context) ([]forge.Hook, error) {
	f.calls = append(f.calls, "list")
	return append([]forge.Hook(nil), f.hooks...), f.listErr
}

func (f *hookForge) CreateHook(_ context.Context, h forge.Hook) (forge.Hook, error) {
	f.calls = append(f.calls, "create")
	h.ID, h.Active = strconv.Itoa(100+len(f.hooks)), true
	f.secrets[h.ID], h.Secret = h.Secret, ""
	f.hooks = append(f.hooks, h)
	return h, nil
}

func (f *hookForge) UpdateHook(_ context.Context, h forge.Hook) (forge.Hook, error) {
	f.calls = append(f.calls, "update "+h.ID)
	for i := range f.hooks {
		if f.hooks[i].ID == h.ID {
			f.hooks[i] = forge.Hook{ID: h.ID, URL: h.URL, Active: true}
			f.secrets[h.ID] = h.Secret
			return f.hooks[i], nil
		}
	}
	return forge.Hook{}, forge.ErrNotFound
}

func (f *hookForge) DeleteHook(_ context.Context, id string) error {
	f.calls = append(f.calls, "delete "+id)
	for i := range f.hooks {
		if f.hooks[i].ID == id {
			f.hooks = append(f.hooks[:i], f.hooks[i+1:]...)
			return nil
		}
	}
	return forge.ErrNotFound
}

// noHooks is a forge client that cannot keep webhooks.
type noHooks struct{ forge.Client }

func (noHooks) Type() forge.Type { return forge.GitLab }

// TestRegistrarKeep: the hook is created once, found again by id or URL,
// pointed at a new path and secret, and at rest costs no request until
// hookRecheck has passed.
func TestRegistrarKeep(t *testing.T) {
	const base = "https://hooks.example.com"
	secret := []byte("0123456789abcdef")
	nn := types.NamespacedName{Namespace: "team", Name: "git"}
	type step struct {
		id, path string
		secret   []byte
		advance  time.Duration
	}
	type want struct {
		IDs     []string
		Status  []string
		Calls   []string
		Hooks   []forge.Hook
		Secrets map[string]string
	}
	cases := map[string]struct {
		reason string
		have   []forge.Hook
		// owners receive at hook paths (the receiver's Registry).
		owners map[string]string
		steps  []step
		want   want
	}{
		"Create": {
			reason: "A repository without the hook gets it, once: the second reconcile asks nothing.",
			steps:  []step{{path: "/hooks/a", secret: secret}, {id: "100", path: "/hooks/a", secret: secret}},
			want: want{IDs: []string{"100", "100"}, Status: []string{"True", "True"}, Calls: []string{"list", "create"},
				Hooks: []forge.Hook{{ID: "100", URL: base + "/hooks/a", Active: true}}, Secrets: map[string]string{"100": string(secret)}},
		},
		"FoundByURL": {
			reason: "A hook with the URL (a lost status write, a restart) is adopted and given the secret once, not doubled.",
			have:   []forge.Hook{{ID: "7", URL: base + "/hooks/a", Active: true}},
			steps:  []step{{path: "/hooks/a", secret: secret}},
			want: want{IDs: []string{"7"}, Status: []string{"True"}, Calls: []string{"list", "update 7"},
				Hooks: []forge.Hook{{ID: "7", URL: base + "/hooks/a", Active: true}}, Secrets: map[string]string{"7": string(secret)}},
		},
		"SecretRotated": {
			reason: "A new secret derives a new path: the hook of the status's id is pointed at it with the new secret, not duplicated.",
			have:   []forge.Hook{{ID: "7", URL: base + "/hooks/old", Active: true}},
			steps:  []step{{id: "7", path: "/hooks/new", secret: []byte("fedcba9876543210")}},
			want: want{IDs: []string{"7"}, Status: []string{"True"}, Calls: []string{"list", "update 7"},
				Hooks: []forge.Hook{{ID: "7", URL: base + "/hooks/new", Active: true}}, Secrets: map[string]string{"7": "fedcba9876543210"}},
		},
		"DeletedOnTheForge": {
			reason: "A hook someone deleted is created again once hookRecheck has passed.",
			steps:  []step{{path: "/hooks/a", secret: secret}, {id: "100", path: "/hooks/a", secret: secret, advance: hookRecheck}},
			want: want{IDs: []string{"100", "100"}, Status: []string{"True", "True"}, Calls: []string{"list", "create", "list"},
				Hooks: []forge.Hook{{ID: "100", URL: base + "/hooks/a", Active: true}}, Secrets: map[string]string{"100": string(secret)}},
		},
		"Disabled": {
			reason: "A hook the forge turned off is turned on again.",
			have:   []forge.Hook{{ID: "7", URL: base + "/hooks/a"}},
			steps:  []step{{id: "7", path: "/hooks/a", secret: secret}},
			want: want{IDs: []string{"7"}, Status: []string{"True"}, Calls: []string{"list", "update 7"},
				Hooks: []forge.Hook{{ID: "7", URL: base + "/hooks/a", Active: true}}, Secrets: map[string]string{"7": string(secret)}},
		},
		"ForeignID": {
			reason: "An id in status naming someone else's hook (status written by hand) is not repointed: the provider's own hook is created.",
			have:   []forge.Hook{{ID: "9", URL: "https://ci.example.com/build", Active: true}},
			steps:  []step{{id: "9", path: "/hooks/a", secret: secret}},
			want: want{IDs: []string{"101"}, Status: []string{"True"}, Calls: []string{"list", "create"},
				Hooks:   []forge.Hook{{ID: "9", URL: "https://ci.example.com/build", Active: true}, {ID: "101", URL: base + "/hooks/a", Active: true}},
				Secrets: map[string]string{"101": string(secret)}},
		},
		"Restart": {
			reason: "After a restart (no memory of what was set), the hook the status names at the secret's URL holds that secret: it is left alone, not replaced (Gitea's edit cannot set a secret: a new hook and a deletion per restart).",
			have:   []forge.Hook{{ID: "7", URL: base + "/hooks/a", Active: true}},
			steps:  []step{{id: "7", path: "/hooks/a", secret: secret}},
			want: want{IDs: []string{"7"}, Status: []string{"True"}, Calls: []string{"list"},
				Hooks: []forge.Hook{{ID: "7", URL: base + "/hooks/a", Active: true}}, Secrets: map[string]string{}},
		},
		"EventsURLChanged": {
			reason: "A hook registered under an earlier --events-url is pointed at the new one, not left behind beside a new hook.",
			have:   []forge.Hook{{ID: "7", URL: "https://old-hooks.example.com/git/hooks/a", Active: true}},
			owners: map[string]string{"/hooks/a": "ProviderConfig/team/git"},
			steps:  []step{{id: "7", path: "/hooks/a", secret: secret}},
			want: want{IDs: []string{"7"}, Status: []string{"True"}, Calls: []string{"list", "update 7"},
				Hooks: []forge.Hook{{ID: "7", URL: base + "/hooks/a", Active: true}}, Secrets: map[string]string{"7": string(secret)}},
		},
		"OtherConfigurationsID": {
			reason: "An id in status naming the hook another configuration receives from (status written by hand) is not repointed: its own hook is created.",
			have:   []forge.Hook{{ID: "3", URL: base + "/hooks/b", Active: true}},
			owners: map[string]string{"/hooks/b": "ProviderConfig/other/git", "/hooks/a": "ProviderConfig/team/git"},
			steps:  []step{{id: "3", path: "/hooks/a", secret: secret}},
			want: want{IDs: []string{"101"}, Status: []string{"True"}, Calls: []string{"list", "create"},
				Hooks:   []forge.Hook{{ID: "3", URL: base + "/hooks/b", Active: true}, {ID: "101", URL: base + "/hooks/a", Active: true}},
				Secrets: map[string]string{"101": string(secret)}},
		},
		"OthersLeftAlone": {
			reason: "Another hook on the repository (a person's, another configuration's) is neither taken nor changed.",
			have:   []forge.Hook{{ID: "3", URL: base + "/hooks/other", Active: true}},
			steps:  []step{{path: "/hooks/a", secret: secret}},
			want: want{IDs: []string{"101"}, Status: []string{"True"}, Calls: []string{"list", "create"},
				Hooks:   []forge.Hook{{ID: "3", URL: base + "/hooks/other", Active: true}, {ID: "101", URL: base + "/hooks/a", Active: true}},
				Secrets: map[string]string{"101": string(secret)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(time.Unix(1_800_000_000, 0))
			f := &hookForge{hooks: tc.have, secrets: map[string]string{}}
			g := newRegistrar(base+"/", nil, clk)
			if tc.owners != nil {
				g.owners = func(p string) string { return tc.owners[p] }
			}
			got := want{Secrets: f.secrets}
			for _, s := range tc.steps {
				clk.SetTime(clk.Now().Add(s.advance))
				id, c := g.keep(context.Background(), nn, s.id, s.path, s.secret, func() (forge.Client, error) { return f, nil })
				got.IDs, got.Status = append(got.IDs, id), append(got.Status, string(c.Status))
			}
			got.Calls, got.Hooks = f.calls, f.hooks
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRegistrarRefusals: a forge that refuses, or a client that cannot
// keep hooks, is said in the condition and the id in status is kept.
func TestRegistrarRefusals(t *testing.T) {
	nn := types.NamespacedName{Name: "git"}
	type want struct {
		ID     string
		Reason xpv2.ConditionReason
		Msg    string
	}
	cases := map[string]struct {
		reason string
		open   hookClient
		want   want
	}{
		"Forbidden": {
			reason: "A token without the right to manage hooks: the forge's refusal, the id kept.",
			open: func() (forge.Client, error) {
				return &hookForge{listErr: &forge.APIError{Status: 403, Message: "must be admin", Kind: forge.ErrForbidden}}, nil
			},
			want: want{ID: "7", Reason: ReasonHookFailed, Msg: errHookKeep + ": " + forge.ErrForbidden.Error() + " (HTTP 403: must be admin)"},
		},
		"NoHooks": {
			reason: "A forge client without hooks says to add the hook by hand.",
			open:   func() (forge.Client, error) { return noHooks{}, nil },
			want:   want{ID: "7", Reason: ReasonHookUnavailable, Msg: "the GitLab client cannot keep webhooks: add the hook by hand (docs/guides/forge-events.md)"},
		},
		"OpenFails": {
			reason: "A configuration whose forge cannot be told.",
			open:   func() (forge.Client, error) { return nil, errors.New("no forge") },
			want:   want{ID: "7", Reason: ReasonHookFailed, Msg: errHookOpen + ": no forge"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := newRegistrar("https://hooks.example.com", nil, nil)
			id, c := g.keep(context.Background(), nn, "7", "/hooks/a", []byte("0123456789abcdef"), tc.open)
			got := want{ID: id, Reason: c.Reason, Msg: c.Message}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRegistrarRemove: the registered hook is deleted, one already gone is
// no error, nothing is asked of the forge when none was registered, and a
// hook that does not point at the provider's endpoint is never deleted.
func TestRegistrarRemove(t *testing.T) {
	const ours = "https://hooks.example.com/hooks/abc"
	cases := map[string]struct {
		reason string
		have   []forge.Hook
		id     string
		want   []string
	}{
		"OldEndpoint": {reason: "A hook registered under an earlier --events-url goes too.", have: []forge.Hook{{ID: "7", URL: "https://old.example.com/hooks/abc"}}, id: "7", want: []string{"list", "delete 7"}},
		"OtherConfigurations": {reason: "An id in status that names another configuration's hook deletes nothing.",
			have: []forge.Hook{{ID: "8", URL: "https://hooks.example.com/hooks/other"}}, id: "8", want: []string{"list"}},
		"Registered": {reason: "The hook of the status's id goes.", have: []forge.Hook{{ID: "7", URL: ours}, {ID: "8", URL: ours + "x"}}, id: "7", want: []string{"list", "delete 7"}},
		"Gone":       {reason: "A hook deleted by hand is no error, and nothing is deleted.", have: []forge.Hook{{ID: "8", URL: ours}}, id: "7", want: []string{"list"}},
		"None":       {reason: "Nothing registered: no request.", have: []forge.Hook{{ID: "8", URL: ours}}, id: "", want: nil},
		"NotOurs": {reason: "An id in status that names someone else's hook (status written by hand) deletes nothing.",
			have: []forge.Hook{{ID: "9", URL: "https://ci.example.com/build"}}, id: "9", want: []string{"list"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := &hookForge{hooks: tc.have, secrets: map[string]string{}}
			g := newRegistrar("https://hooks.example.com", nil, nil)
			g.owners = func(p string) string {
				if p == "/hooks/other" {
					return "ProviderConfig/other/git"
				}
				return ""
			}
			if err := g.remove(context.Background(), types.NamespacedName{Name: "git"}, tc.id, func() (forge.Client, error) { return f, nil }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, f.calls); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestSetEventsKeepsHookID: a configuration that stops receiving events (its
// webhook secret removed, its Secret missing for a while) still names the
// hook it registered, so turning registration off or deleting it can remove
// the hook; one that registered none publishes nothing.
func TestSetEventsKeepsHookID(t *testing.T) {
	cases := map[string]struct {
		reason string
		before *v1alpha1.EventsStatus
		want   *v1alpha1.EventsStatus
	}{
		"Registered": {reason: "The hook's id stays.", before: &v1alpha1.EventsStatus{Path: "/hooks/a", HookID: "7"}, want: &v1alpha1.EventsStatus{HookID: "7"}},
		"None":       {reason: "Nothing registered: nothing published.", before: &v1alpha1.EventsStatus{Path: "/hooks/a"}, want: nil},
		"Never":      {reason: "No events before: none after.", before: nil, want: nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pc := &v1alpha1.ProviderConfig{}
			pc.Status.Events = tc.before
			setEvents(pc, nil)
			if diff := cmp.Diff(tc.want, pc.Status.Events); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRegistrarBackoff: a forge that refuses (a token without the right to
// manage hooks) is asked again after a minute, then two, ..., not at every
// check; a change of the configuration asks at once.
func TestRegistrarBackoff(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1_800_000_000, 0))
	f := &hookForge{secrets: map[string]string{}, listErr: &forge.APIError{Status: 403, Message: "must be admin", Kind: forge.ErrForbidden}}
	g := newRegistrar("https://hooks.example.com", nil, clk)
	nn := types.NamespacedName{Name: "git"}
	secret := []byte("0123456789abcdef")
	keep := func(after time.Duration, path string) string {
		clk.SetTime(clk.Now().Add(after))
		_, c := g.keep(context.Background(), nn, "", path, secret, func() (forge.Client, error) { return f, nil })
		return string(c.Reason)
	}
	var got []string
	got = append(got, keep(0, "/hooks/a"), keep(30*time.Second, "/hooks/a"), keep(31*time.Second, "/hooks/a"),
		keep(90*time.Second, "/hooks/a"), keep(31*time.Second, "/hooks/a"))
	f.listErr = nil
	got = append(got, keep(time.Second, "/hooks/b"))
	want := []string{"RegisterFailed", "RegisterFailed", "RegisterFailed", "RegisterFailed", "RegisterFailed", "Registered"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conditions: -want +got:\n%s", diff)
	}
	// Asked at 0, at 61 s (a minute after), at 182 s (two minutes after),
	// and at once for the new path.
	if diff := cmp.Diff([]string{"list", "list", "list", "list", "create"}, f.calls); diff != "" {
		t.Errorf("requests to the forge: -want +got:\n%s", diff)
	}
}
