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

package pullrequest

import (
	"context"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/memory"
)

// rotatingGit is each configuration's credentials, as a Secret holds them
// now: a token per ProviderConfig name.
type rotatingGit struct{ tokens map[string]string }

func (g *rotatingGit) ConnectForge(_ context.Context, mg *v1alpha1.PullRequest) (repository, config.Connection, config.ForgeAccess, error) {
	tok := g.tokens[mg.GetProviderConfigReference().Name]
	conn := config.Connection{Remote: git.Remote{URL: "https://gitea.example.com/o/r.git", Auth: &git.BasicAuth{Username: "u", Password: tok}}}
	return fakeRepo{heads: map[string]string{}}, conn, config.ForgeAccess{Type: forge.Gitea}, nil
}

// tokenForge is a fake forge that notes the token each request carries.
type tokenForge struct {
	*memory.Forge
	token func(context.Context) (string, error)
	seen  *[]string
}

func (f tokenForge) ListOpen(ctx context.Context) ([]forge.PullRequest, bool, error) {
	tok, err := f.token(ctx)
	if err != nil {
		return nil, false, err
	}
	*f.seen = append(*f.seen, tok)
	return f.Forge.ListOpen(ctx)
}

func TestConnectorAccounts(t *testing.T) {
	// step is one reconcile of a PullRequest through configuration pc,
	// whose Secret then holds token, after the clock moved by wait.
	type step struct {
		pc, token string
		wait      time.Duration
	}
	type want struct {
		// Tokens the forge saw, one request per step; Opened clients;
		// Accounts kept after the last step.
		Tokens   []string
		Opened   int
		Accounts int
	}
	const poll = time.Minute
	cases := map[string]struct {
		reason string
		steps  []step
		want   want
	}{
		"Kept": {
			reason: "Reconciles through one configuration with the same credentials share one client.",
			steps:  []step{{pc: "a", token: "t1"}, {pc: "a", token: "t1", wait: 2 * poll}},
			want:   want{Tokens: []string{"t1", "t1"}, Opened: 1, Accounts: 1},
		},
		"Rotated": {
			reason: "A rotated token is used from the next request on, and the old client is dropped.",
			steps:  []step{{pc: "a", token: "t1"}, {pc: "a", token: "t2", wait: 2 * poll}},
			want:   want{Tokens: []string{"t1", "t2"}, Opened: 2, Accounts: 1},
		},
		"RotatedWhileShared": {
			reason: "A client another configuration still connects with stays when one configuration's token rotates.",
			steps:  []step{{pc: "a", token: "t1"}, {pc: "b", token: "t1"}, {pc: "a", token: "t2", wait: 2 * poll}},
			want:   want{Tokens: []string{"t1", "t1", "t2"}, Opened: 2, Accounts: 2},
		},
		"Idle": {
			reason: "A client unused for ten poll intervals is dropped at the next sweep.",
			steps:  []step{{pc: "a", token: "t1"}, {pc: "b", token: "t2", wait: idleAccounts*poll + time.Second}},
			want:   want{Tokens: []string{"t1", "t2"}, Opened: 2, Accounts: 1},
		},
		"InUse": {
			reason: "A client used within every ten poll intervals is kept, however long it has lived.",
			steps: []step{{pc: "a", token: "t1"}, {pc: "a", token: "t1", wait: 5 * poll}, {pc: "a", token: "t1", wait: 5 * poll},
				{pc: "a", token: "t1", wait: 5 * poll}, {pc: "b", token: "t2", wait: 5 * poll}},
			want: want{Tokens: []string{"t1", "t1", "t1", "t1", "t2"}, Opened: 2, Accounts: 2},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(t0)
			g := &rotatingGit{tokens: map[string]string{}}
			var seen []string
			opened := 0
			opener := func(cfg forge.Config) (forge.Client, error) {
				opened++
				return tokenForge{Forge: memory.New(open(1)), token: cfg.Token, seen: &seen}, nil
			}
			c := newConnector(g, nil, map[forge.Type]forge.Opener{forge.Gitea: opener}, poll, clk)
			for _, s := range tc.steps {
				clk.Step(s.wait)
				g.tokens[s.pc] = s.token
				mg := pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) {
					mg.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: v1alpha1.ProviderConfigKind, Name: s.pc})
				})
				e, err := c.Connect(context.Background(), mg)
				if err != nil {
					t.Fatal(err)
				}
				// The list is the account's: a step more than a poll
				// interval later lists again.
				clk.Step(poll)
				if _, err := e.Observe(context.Background(), mg); err != nil {
					t.Fatal(err)
				}
			}
			got := want{Tokens: seen, Opened: opened, Accounts: c.Accounts()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
