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

package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

const (
	errUnknownHostFmt = "cannot tell which forge hosts %q: name it in the configuration's spec.forge.type"
	errRepoPathFmt    = "cannot tell the repository's owner and name from %q"
	errAPIURLFmt      = "spec.forge.apiURL %q must be an absolute http(s) URL"
	errTypeFmt        = "unknown forge type %q: one of GitHub, GitLab, Gitea, Forgejo, BitbucketCloud, BitbucketDataCenter, AzureDevOps"
)

// Config is what a Client needs to reach one repository.
type Config struct {
	Type Type
	// APIURL is the API's base, e.g. https://api.github.com/,
	// https://gitlab.example.com/api/v4/, https://gitea.example.com/api/v1/.
	APIURL string
	// Owner is the repository's owner (on GitLab the whole namespace path,
	// group/subgroup; on Azure DevOps organization/project); Name its name.
	Owner string
	Name  string
	// Token returns a current API token. It is called per request, so a
	// GitHub App installation token is refreshed as it expires. Bitbucket
	// reads "user:secret" as basic authentication, anything else as a
	// bearer token (package bitbucket).
	Token func(ctx context.Context) (string, error)
	// HTTPClient carries the CA bundle and proxy of the configuration;
	// nil is http.DefaultClient.
	HTTPClient *http.Client
}

// An Opener returns the Client of a forge type.
type Opener func(Config) (Client, error)

// Hosts whose forge is known without configuration.
var wellKnown = map[string]struct {
	t   Type
	api string
}{
	"github.com":    {GitHub, "https://api.github.com/"},
	"gitlab.com":    {GitLab, "https://gitlab.com/api/v4/"},
	"gitea.com":     {Gitea, "https://gitea.com/api/v1/"},
	"codeberg.org":  {Forgejo, "https://codeberg.org/api/v1/"},
	"bitbucket.org": {BitbucketCloud, bitbucketCloudAPI},
}

// Resolve fills in a Config for the repository at gitURL: its forge type
// and API URL from t and apiURL when given, else from a well-known host;
// its owner and name from the URL's path.
func Resolve(gitURL string, t Type, apiURL string) (Config, error) {
	if c, ok, err := resolveAzure(gitURL, t, apiURL); ok {
		return c, err
	}
	host, path, err := hostPath(gitURL)
	if err != nil {
		return Config{}, err
	}
	dcContext := ""
	if t == BitbucketDataCenter {
		dcContext, path = bitbucketDCPath(path)
	}
	owner, name, ok := splitRepo(path)
	if !ok {
		return Config{}, fmt.Errorf(errRepoPathFmt, gitURL)
	}
	c := Config{Type: t, APIURL: apiURL, Owner: owner, Name: name}
	if c.Type == "" {
		wk, ok := wellKnown[strings.ToLower(host)]
		if !ok {
			return Config{}, fmt.Errorf(errUnknownHostFmt, host)
		}
		c.Type = wk.t
		if c.APIURL == "" {
			c.APIURL = wk.api
		}
	}
	switch c.Type {
	case GitHub, GitLab, Gitea, Forgejo:
	case BitbucketCloud, BitbucketDataCenter:
	default:
		return Config{}, fmt.Errorf(errTypeFmt, c.Type)
	}
	if c.APIURL == "" {
		c.APIURL = defaultAPIURL(c.Type, host)
	}
	if c.APIURL == "" {
		c.APIURL = bitbucketAPIURL(c.Type, host, dcContext)
	}
	u, err := url.Parse(c.APIURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Config{}, fmt.Errorf(errAPIURLFmt, c.APIURL)
	}
	if !strings.HasSuffix(c.APIURL, "/") {
		c.APIURL += "/"
	}
	return c, nil
}

// defaultAPIURL is where each self-hosted forge serves its API.
func defaultAPIURL(t Type, host string) string {
	switch t {
	case GitHub:
		if strings.EqualFold(host, "github.com") {
			return "https://api.github.com/"
		}
		return "https://" + host + "/api/v3/"
	case GitLab:
		return "https://" + host + "/api/v4/"
	case Gitea, Forgejo:
		return "https://" + host + "/api/v1/"
	}
	return ""
}

// hostPath returns the host and repository path of an https://, ssh:// or
// scp-like (git@host:owner/name.git) Git URL.
func hostPath(gitURL string) (string, string, error) {
	if !strings.Contains(gitURL, "://") {
		// scp-like: [user@]host:path
		at := strings.LastIndex(gitURL[:max(strings.Index(gitURL, ":"), 0)], "@")
		rest := gitURL[at+1:]
		host, path, ok := strings.Cut(rest, ":")
		if !ok || host == "" {
			return "", "", fmt.Errorf(errRepoPathFmt, gitURL)
		}
		return host, path, nil
	}
	u, err := url.Parse(gitURL)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf(errRepoPathFmt, gitURL)
	}
	return u.Hostname(), u.Path, nil
}

// splitRepo splits owner/…/name(.git) at its last slash.
func splitRepo(path string) (string, string, bool) {
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	i := strings.LastIndex(path, "/")
	if i <= 0 || i == len(path)-1 {
		return "", "", false
	}
	return path[:i], path[i+1:], true
}
