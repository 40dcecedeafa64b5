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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// Reasons of a configuration that cannot reach its forge's API. They appear
// on PullRequests only: Git itself works without a forge.
const (
	// ReasonForgeUnknown: the forge cannot be told from the repository's
	// host and spec.forge.type names none (or an API URL is malformed).
	ReasonForgeUnknown xpv2.ConditionReason = "ForgeUnknown"
	// ReasonForgeTokenMissing: no credential the forge's API takes (an SSH
	// configuration whose Secret has no API token key, or none at all).
	ReasonForgeTokenMissing xpv2.ConditionReason = "ForgeTokenMissing"
)

// defaultAPITokenKey is the Secret key of a forge API token; the CRD
// defaults credentials.secretRef.apiTokenKey to it.
const defaultAPITokenKey = "apiToken"

const (
	errForgeFmt         = "cannot tell the forge of %s (spec.forge.type %q)"
	errTokenSSHFmt      = "credentials Secret %s has no key %q: an SSH configuration needs an API token for the forge's pull requests there"
	errTokenNoSecret    = "the configuration has no credentials Secret: a PullRequest needs an API token for the forge (credentials.secretRef, key \"apiToken\")"
	errTokenNoneFmt     = "credentials Secret %s has no key %q, password, bearer token or GitHub App: a PullRequest needs an API token for the forge"
	errInsecureAPIFmt   = "spec.forge.apiURL %q is http://: refused unless the provider runs with --allow-insecure-remotes"
	errForgeHTTPClient  = "cannot make the forge's HTTP client"
	errAppTokenNotReady = "the repository's GitHub App token source is not open"
)

// ForgeAccess is what a configuration says about its forge's API: the
// forge named by spec.forge, and the API token its Secret holds.
type ForgeAccess struct {
	Type   forge.Type
	APIURL string

	allowInsecure bool
	ssh           bool
	// secret names the credentials Secret (namespace/name), tokenKey the
	// API token's key in it and token its value; "" when absent.
	secret, tokenKey, token string
}

// TokenFrom names where the forge's API token comes from, for messages:
// the Secret's API token key when it holds one, else gitCreds (the Git
// credentials the clone uses, which then serve the API too).
func (a ForgeAccess) TokenFrom(gitCreds string) string {
	if a.token != "" {
		return fmt.Sprintf("credentials Secret %s key %q", a.secret, a.tokenKey)
	}
	return gitCreds
}

// A tokenSource is what ForgeAccess needs of the repository's clone: its
// GitHub App installation token, shared with its Git sessions.
type tokenSource interface {
	AppToken() (func(ctx context.Context) (string, error), bool)
}

// Config returns the forge.Config of the repository at remote, and a key
// naming the forge account it reaches (its API URL, repository and
// credentials, never a secret itself) for sharing listings and pacing.
// The token is the Secret's API token key when it has one, else the HTTPS
// credentials the clone uses: a GitHub App's installation token (shared
// with the clone), a password or token, or a bearer token. An SSH
// configuration has only the API token key; without one the PullRequest is
// Stalled ForgeTokenMissing, naming the Secret and key.
func (a ForgeAccess) Config(remote git.Remote, repo tokenSource) (forge.Config, string, error) {
	c, err := forge.Resolve(remote.URL, a.Type, a.APIURL)
	if err != nil {
		return forge.Config{}, "", managed.Stalled(ReasonForgeUnknown, errors.Wrapf(err, errForgeFmt, remote.URL, a.Type))
	}
	if transportOf(c.APIURL) == transportInsecure && !a.allowInsecure {
		return forge.Config{}, "", managed.Stalled(ReasonInsecureRemote, errors.Errorf(errInsecureAPIFmt, c.APIURL))
	}
	tok, id, err := a.tokenOf(c.Type, remote, repo)
	if err != nil {
		return forge.Config{}, "", err
	}
	c.Token = tok
	hc, err := git.NewHTTPClient(remote.CABundle)
	if err != nil {
		return forge.Config{}, "", managed.Stalled(ReasonSecretMalformed, errors.Wrap(err, errForgeHTTPClient))
	}
	c.HTTPClient = hc
	h := sha256.New()
	for _, p := range []string{string(c.Type), c.APIURL, c.Owner, c.Name, id} {
		h.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
	return c, hex.EncodeToString(h.Sum(nil))[:32], nil
}

// bitbucketTokenUser is the user name Bitbucket Cloud's access tokens
// (repository, project, workspace) take for Git; their API takes them as
// bearer tokens.
const bitbucketTokenUser = "x-token-auth"

// basicToken is the API credential an HTTPS user name and password serve
// as: the password (a token), except on Bitbucket Cloud where a user name
// other than x-token-auth says the password is an app password, which
// the API takes with the user name as basic authentication ("user:secret",
// package bitbucket). A Data Center HTTP access token is a bearer token to
// its API whatever the user name.
func basicToken(t forge.Type, au *git.BasicAuth) string {
	if t == forge.BitbucketCloud && au.Username != "" && au.Username != bitbucketTokenUser {
		return au.Username + ":" + au.Password
	}
	return au.Password
}

// tokenOf returns the token source and what identifies it (a hash input,
// holding the secret only to be hashed).
func (a ForgeAccess) tokenOf(t forge.Type, remote git.Remote, repo tokenSource) (func(context.Context) (string, error), string, error) {
	static := func(t string) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { return t, nil }
	}
	if a.token != "" {
		return static(a.token), "token:" + a.token, nil
	}
	if a.ssh {
		return nil, "", managed.Stalled(ReasonForgeTokenMissing, errors.Errorf(errTokenSSHFmt, a.secret, a.tokenKey))
	}
	switch au := remote.Auth.(type) {
	case *git.AppInstallationAuth:
		if repo == nil {
			return nil, "", errors.New(errAppTokenNotReady)
		}
		src, ok := repo.AppToken()
		if !ok {
			return nil, "", errors.New(errAppTokenNotReady)
		}
		return src, "app:" + au.AppID + "/" + au.InstallationID + "/" + string(au.PrivateKey), nil
	case *git.BasicAuth:
		tok := basicToken(t, au)
		return static(tok), "basic:" + tok, nil
	case *git.BearerAuth:
		return static(au.Token), "bearer:" + au.Token, nil
	}
	if a.secret == "" {
		return nil, "", managed.Stalled(ReasonForgeTokenMissing, errors.New(errTokenNoSecret))
	}
	return nil, "", managed.Stalled(ReasonForgeTokenMissing, errors.Errorf(errTokenNoneFmt, a.secret, a.tokenKey))
}
