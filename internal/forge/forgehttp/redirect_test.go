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

package forgehttp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitea"
	"github.com/crossplane-contrib/provider-git/internal/forge/github"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitlab"
	"github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/trap"
)

const secret = "s3cr3t-token-never-elsewhere"

// errNoHooks says a client implements no forge.Hooks.
var errNoHooks = errors.New("no forge.Hooks")

// TestNoCredentialLeavesTheForge sends every forge client's read and write
// (and webhook list and create, where the client keeps hooks)
// to an API that redirects to another host and to plain http: the call
// fails naming the redirect, and no request carrying the token (in a
// header) or a webhook secret (in a body, for the clients that keep hooks)
// arrives anywhere but the forge. Before the one transport, GitLab's
// PRIVATE-TOKEN and Gitea's per-hop token reached both, and GitHub's
// Authorization the plain-http one (net/http keeps it when only the scheme
// and port change).
func TestNoCredentialLeavesTheForge(t *testing.T) {
	forges := map[string]struct {
		open func(forge.Config) (forge.Client, error)
		api  string
	}{
		"GitHub": {open: github.New, api: "/api/v3/"},
		"GitLab": {open: gitlab.New, api: "/api/v4/"},
		"Gitea":  {open: gitea.New, api: "/api/v1/"},
	}
	calls := map[string]func(context.Context, forge.Client) error{
		"ListOpen": func(ctx context.Context, c forge.Client) error {
			_, _, err := c.ListOpen(ctx)
			return err
		},
		"Merge": func(ctx context.Context, c forge.Client) error {
			return c.Merge(ctx, 7, forge.Merge{Method: forge.MethodMerge, HeadSHA: strings.Repeat("a", 40)})
		},
		// The webhook calls, of the clients that keep hooks.
		"ListHooks": func(ctx context.Context, c forge.Client) error {
			h, ok := c.(forge.Hooks)
			if !ok {
				return errNoHooks
			}
			_, err := h.ListHooks(ctx)
			return err
		},
		"CreateHook": func(ctx context.Context, c forge.Client) error {
			h, ok := c.(forge.Hooks)
			if !ok {
				return errNoHooks
			}
			_, err := h.CreateHook(ctx, forge.Hook{URL: "https://provider.example.com/hooks/x", Secret: secret})
			return err
		},
	}
	for fname, f := range forges {
		for target := range map[string]bool{"OtherHost": true, "PlainHTTP": true} {
			for cname, call := range calls {
				t.Run(fname+"/"+target+"/"+cname, func(t *testing.T) {
					tr := trap.New(t, secret)
					tr.To(tr.Targets()[target])
					c, err := f.open(forge.Config{
						Type: forge.Type(fname), APIURL: tr.API + f.api, Owner: "o", Name: "r",
						Token:      func(context.Context) (string, error) { return secret, nil },
						HTTPClient: tr.Client,
					})
					if err != nil {
						t.Fatalf("open: %v", err)
					}
					err = call(t.Context(), c)
					if errors.Is(err, errNoHooks) {
						t.Skipf("the %s client keeps no webhooks", fname)
					}
					if err == nil || !strings.Contains(err.Error(), "refusing the forge's redirect") {
						t.Errorf("%s after a redirect to %s: want the redirect refused, got %v", cname, target, err)
					}
					if err != nil && strings.Contains(err.Error(), secret) {
						t.Errorf("the error carries the token: %v", err)
					}
					if l := tr.Leaks(); len(l) > 0 {
						t.Errorf("the token left the forge: %v", l)
					}
				})
			}
		}
	}
}
