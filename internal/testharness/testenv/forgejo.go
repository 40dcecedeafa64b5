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

package testenv

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// ForgejoRequired is the environment variable that makes a missing
// ./bin/forgejo a failure rather than a skip: `make test-forgejo` sets it.
// Plain `make test` (and so CI) builds no Forgejo, and skips it.
const ForgejoRequired = "PROVIDER_GIT_FORGEJO"

const (
	giteaMissing   = " not found: run 'make forge-tools' (make test does)"
	forgejoMissing = " not found: run 'make test-forgejo'"
	errNoTokenFmt  = "%s admin user generate-access-token printed no token:\n%s"
)

// GiteaBinary makes StartGitea run ./bin/<name> instead of ./bin/gitea:
// "forgejo" starts Forgejo, which takes Gitea's app.ini, CLI and API.
func GiteaBinary(name string) GiteaOption {
	return func(c *giteaConfig) { c.binary = name }
}

// GiteaForge is one of the real forges of Gitea's API that tests run
// against, each with the same assertions.
type GiteaForge struct {
	// Name names the subtest, and is the forge.Type the provider is told:
	// Gitea or Forgejo.
	Name string
	// Options make StartGitea start this forge.
	Options []GiteaOption
}

// GiteaForges is the table of forges a test of Gitea's API runs over:
// Gitea, and Forgejo (skipped unless ./bin/forgejo is built).
func GiteaForges() []GiteaForge {
	return []GiteaForge{
		{Name: "Gitea"},
		{Name: "Forgejo", Options: []GiteaOption{GiteaBinary("forgejo")}},
	}
}

// requireGiteaBinary tells whether a missing ./bin/<binary> fails the test:
// Gitea wherever CI is set (make test builds it), Forgejo only where
// ForgejoRequired is set.
func requireGiteaBinary(binary string) bool {
	if binary == "forgejo" {
		return os.Getenv(ForgejoRequired) != ""
	}
	return os.Getenv("CI") != ""
}

func giteaMissingFor(binary string) string {
	if binary == "forgejo" {
		return forgejoMissing
	}
	return giteaMissing
}

// createAdmin creates the admin and an API token of all scopes, in two
// commands both Gitea and Forgejo know: Forgejo's `admin user create
// --access-token` takes no scopes (the token it makes has none), and
// generate-access-token --scopes all --raw makes one of all scopes and
// prints it alone on both.
func (g *Gitea) createAdmin(ctx context.Context) (string, error) {
	if _, err := g.cli(ctx, "admin", "user", "create", "--admin",
		"--username", GiteaAdmin, "--password", GiteaAdminPassword, "--email", GiteaAdmin+"@example.com",
		"--must-change-password=false"); err != nil {
		return "", err
	}
	out, err := g.cli(ctx, "admin", "user", "generate-access-token",
		"--username", GiteaAdmin, "--token-name", "test", "--scopes", "all", "--raw")
	if err != nil {
		return "", err
	}
	if tok := rawToken(out); tok != "" {
		return tok, nil
	}
	return "", fmt.Errorf(errNoTokenFmt, g.Binary, out)
}

// rawToken is the token --raw prints on stdout: its one line that is a
// word of hexadecimal digits. Any other line (a warning) is skipped
// wherever it comes, and two such lines are no token, as no such line is.
func rawToken(out string) string {
	tok := ""
	for _, line := range strings.Split(out, "\n") {
		w := strings.TrimSpace(line)
		if w == "" || strings.Trim(w, "0123456789abcdef") != "" {
			continue
		}
		if tok != "" {
			return ""
		}
		tok = w
	}
	return tok
}
