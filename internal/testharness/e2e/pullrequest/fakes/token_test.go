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
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/github"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	fakegithub "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
)

// TestPullRequestRefusedTokenNamesItsKey: a forge that refuses the API
// token stalls the PullRequest naming the Secret key the token came from
// (apiToken), not the Git password beside it. Before, the message named
// key "password" though "apiToken" was sent.
func TestPullRequestRefusedTokenNamesItsKey(t *testing.T) {
	gh := fakegithub.NewServer(t)
	e2e.StartProvider(t, "", e2e.WithForges(map[forge.Type]forge.Opener{forge.GitHub: github.New}))
	f := forgeFixture(t, "e2e/github-token.git", forge.GitHub, gh.URL(), "not-the-token", "request/token")
	for _, b := range []string{"main", "request/token"} {
		gh.AddBranch("e2e", "github-token", b, f.Repo.Head(t, b))
	}
	pr := e2e.NewPullRequest(f.Namespace, "token", "request/token")
	e2e.CreateAll(t, pr)
	e2e.WaitFor(t, 30*time.Second, pr, e2e.StalledWith(t, pr, spec.ReasonAuthenticationFailed))
	msg := pr.GetCondition(xpv2.TypeReady).Message
	want := fmt.Sprintf(`credentials Secret %s/creds key "apiToken"`, f.Namespace)
	if !strings.Contains(msg, want) || strings.Contains(msg, `"password"`) {
		t.Errorf("the message must name %s, and no password key: %q", want, msg)
	}
}
