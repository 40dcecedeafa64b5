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
	"net/http"
	"net/url"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/github"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

const (
	errViaAPIForgeFmt = "spec.commit.via API needs a GitHub repository: the forge of %s is %q (spec.forge.type GitHub, or a github.com URL)"
	errViaAPIApp      = "spec.commit.via API needs GitHub App credentials (appID, installationID, privateKey in the credentials Secret): GitHub signs only the commits an App creates through its API"
	errViaAPIInsecure = "spec.commit.via API: the API URL %q is http://: refused unless the provider runs with --allow-insecure-remotes"
	errViaAPIHostsFmt = "spec.commit.via API: the GitHub App's API is on %q and the forge's API on %q: they must be the same GitHub (githubAppBaseURL and spec.forge.apiURL)"
)

// viaAPI sets c.Remote.API when the configuration commits through the
// forge's API (spec.commit.via API), after the same checks as its CRD
// rule and those the CRD cannot make: the forge is GitHub, the URL is
// HTTPS and the credentials are a GitHub App's. Call it once the
// credentials are read.
func (r *Resolver) viaAPI(v view, c *Connection) error {
	if v.commit.Via != v1alpha1.CommitViaAPI {
		return nil
	}
	t, apiURL := forge.Type(""), ""
	if v.forge != nil {
		t, apiURL = forge.Type(v.forge.Type), v.forge.APIURL
	}
	fc, err := forge.Resolve(v.url, t, apiURL)
	if err != nil {
		return managed.Stalled(spec.ReasonInvalidConfig, errors.Wrapf(err, errForgeFmt, v.url, t))
	}
	if fc.Type != forge.GitHub {
		return managed.Stalled(spec.ReasonInvalidConfig, errors.Errorf(errViaAPIForgeFmt, v.url, fc.Type))
	}
	app, ok := c.Remote.Auth.(*git.AppInstallationAuth)
	if !ok {
		return managed.Stalled(spec.ReasonInvalidConfig, errors.New(errViaAPIApp))
	}
	if transportOf(fc.APIURL) == transportInsecure && !r.allowInsecure {
		return managed.Stalled(ReasonInsecureRemote, errors.Errorf(errViaAPIInsecure, fc.APIURL))
	}
	if a, f := hostOf(app.APIURL, git.DefaultGitHubAPIURL), hostOf(fc.APIURL, ""); a != f {
		// The installation token GitHub minted at the App's API goes to
		// the commit API: never to another host than the one that minted it.
		return managed.Stalled(spec.ReasonInvalidConfig, errors.Errorf(errViaAPIHostsFmt, a, f))
	}
	c.Remote.API = &git.APITarget{URL: fc.APIURL}
	return nil
}

// NewCommitAPIOpener returns the git.CommitAPIOpener of GitHub: the
// repository's client on forgehttp's hardened client (github.NewClient),
// so the token never follows a redirect off the API's origin, with
// refusals mapped to the engine's kinds. Its content-creating requests are
// paced on p per App installation, as GitHub counts its secondary limit,
// whatever the number of repositories the installation writes.
func NewCommitAPIOpener(p *forge.Pacer) git.CommitAPIOpener {
	return func(r git.Remote, token func(context.Context) (string, error), hc *http.Client) (git.CommitAPI, error) {
		app, ok := r.Auth.(*git.AppInstallationAuth)
		if r.API == nil || !ok {
			return nil, errors.New(errViaAPIApp)
		}
		fc, err := forge.Resolve(r.URL, forge.GitHub, r.API.URL)
		if err != nil {
			return nil, err
		}
		fc.Token, fc.HTTPClient = token, hc
		key := paceKey(fc.APIURL, app.AppID, app.InstallationID)
		cl, err := github.NewClient(fc, github.WithPacer(p, key))
		if err != nil {
			return nil, err
		}
		return gitHubCommits{c: cl}, nil
	}
}

// hostOf is u's host in lower case, or def's when u is empty.
func hostOf(u, def string) string {
	if u == "" {
		u = def
	}
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return strings.ToLower(p.Host)
}

// gitHubCommits is git.CommitAPI on a GitHub client.
type gitHubCommits struct{ c *github.Client }

func (g gitHubCommits) CreateBlob(ctx context.Context, content []byte) (string, error) {
	sha, err := g.c.CreateBlob(ctx, content)
	return sha, kindOf(err)
}

func (g gitHubCommits) CreateTree(ctx context.Context, base string, entries []git.APIEntry) (string, error) {
	es := make([]github.TreeEntry, len(entries))
	for i, e := range entries {
		es[i] = github.TreeEntry{Path: e.Path, Executable: e.Executable, Delete: e.Delete, SHA: e.Blob, Content: e.Content}
	}
	sha, err := g.c.CreateTree(ctx, base, es)
	return sha, kindOf(err)
}

func (g gitHubCommits) CreateCommit(ctx context.Context, c git.APICommit) (string, error) {
	// No author: GitHub signs an App's commit only when the request names
	// none (github.CreateCommit); the App is author and committer.
	sha, err := g.c.CreateCommit(ctx, github.NewCommit{Message: c.Message, Tree: c.Tree, Parent: c.Parent})
	return sha, kindOf(err)
}

func (g gitHubCommits) UpdateRef(ctx context.Context, branch, sha string) (bool, error) {
	moved, err := g.c.UpdateBranch(ctx, branch, sha)
	return moved, kindOf(err)
}

// kindOf gives a forge refusal the engine's kind: credentials refused or
// short of a permission need a human (KindAuth), a request GitHub refused
// as invalid or in conflict with a rule (a protected branch, a ruleset) is
// KindRejected, the rest (rate limits, the network, 5xx) transient.
func kindOf(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, forge.ErrUnauthorized), errors.Is(err, forge.ErrForbidden), errors.Is(err, forge.ErrNotFound):
		return &git.Error{Kind: git.KindAuth, Err: err}
	case errors.Is(err, forge.ErrInvalidInput):
		return &git.Error{Kind: git.KindRejected, Err: err}
	}
	var ae *forge.APIError
	if errors.As(err, &ae) && ae.Status == http.StatusConflict {
		// 409: a repository rule refused the update ("Repository rule
		// violations found"), or the repository is empty.
		return &git.Error{Kind: git.KindRejected, Err: err}
	}
	return err
}

// paceKey names whose content-creating requests share one pace: GitHub
// counts its secondary limit per installation on a host, so two
// configurations that spell the API URL differently (a trailing slash, the
// host's case) share it.
func paceKey(apiURL, appID, installationID string) string {
	host := apiURL
	if u, err := url.Parse(apiURL); err == nil && u.Host != "" {
		host = strings.ToLower(u.Host)
	}
	return host + " app " + appID + "/" + installationID
}
