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

// Package gitea is the forge.Client of Gitea and Forgejo (whose API is
// Gitea's), through the Gitea SDK.
//
// Draft: Gitea has no draft flag; a pull request whose title starts with a
// work-in-progress prefix ("WIP:" or "[WIP]" by default) is a draft and
// cannot be merged. A draft Spec is opened and kept with "WIP: " before its
// title, and a PullRequest read back has the prefix stripped from Title and
// Draft set, so a caller compares titles as declared.
//
// Reviewers are requested and never un-requested: a reviewer who answered
// leaves the forge's requested list, and rules such as CODEOWNERS add their
// own, so PullRequest.Reviewers lists those requested and those who
// reviewed, and a caller checks that the declared ones are among them.
//
// Gitea tells no "not computed yet" apart: Mergeable is false while it
// still checks a pushed head, and a merge then answers 405 "Please try
// again later" (ErrNotMergeable). It does not say whether an auto-merge is
// scheduled either, so AutoMerge stays false; asking again is no error.
// Gitea answers lists without ETag, so ListOpen never reports notModified.
package gitea

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	sdk "code.gitea.io/sdk/gitea"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/forgehttp"
)

const (
	errAPIURLFmt = "the Gitea API URL %q must end in /api/v1/"
	errToken     = "cannot get the forge's API token"
	errClient    = "cannot set up the Gitea client"
)

// apiSuffix is where Gitea and Forgejo serve their API; the SDK adds it to
// the server's root itself.
const apiSuffix = "/api/v1/"

// client is one repository on one Gitea or Forgejo.
type client struct {
	typ         forge.Type
	root        string
	owner, name string
	token       func(context.Context) (string, error)
	http        *http.Client
	clock       clock.PassiveClock
}

// New returns the Client of the repository cfg names. It makes no request:
// each call fetches a current token from cfg.Token and builds its SDK
// client with it, so a rotated token is used from the next call on.
func New(cfg forge.Config) (forge.Client, error) {
	return newClient(cfg, clock.RealClock{})
}

var _ forge.Opener = New

func newClient(cfg forge.Config, clk clock.PassiveClock) (*client, error) {
	api := cfg.APIURL
	if !strings.HasSuffix(api, "/") {
		api += "/"
	}
	root, ok := strings.CutSuffix(api, apiSuffix)
	if !ok || root == "" {
		return nil, fmt.Errorf(errAPIURLFmt, cfg.APIURL)
	}
	if cfg.Token == nil {
		return nil, forge.ErrNoCredentials
	}
	hc, err := forgehttp.New(cfg.HTTPClient, api)
	if err != nil {
		return nil, err
	}
	t := cfg.Type
	if t == "" {
		t = forge.Gitea
	}
	return &client{typ: t, root: root, owner: cfg.Owner, name: cfg.Name, token: cfg.Token, http: hc, clock: clk}, nil
}

func (c *client) Type() forge.Type { return c.typ }

// call is one SDK call's client and what the server refused, if anything.
type call struct {
	*sdk.Client
	rt *transport
}

// sdk returns a client for one call: ctx on every request, the token of
// now in its header, and no version probe (SetGiteaVersion("") skips the
// GET /version NewClient would otherwise make, and every version gate; all
// the calls here exist since Gitea 1.17).
func (c *client) sdk(ctx context.Context) (*call, error) {
	tok, err := c.token(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errToken, err)
	}
	if tok == "" {
		return nil, forge.ErrNoCredentials
	}
	base := c.http.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	// The token is a header of each request the SDK builds (SetToken),
	// never set per hop: c.http refuses a redirect off the API's origin.
	rt := &transport{base: base}
	hc := *c.http
	hc.Transport = rt
	s, err := sdk.NewClient(c.root, sdk.SetHTTPClient(&hc), sdk.SetToken(tok), sdk.SetContext(ctx), sdk.SetGiteaVersion(""))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errClient, err)
	}
	return &call{Client: s, rt: rt}, nil
}
