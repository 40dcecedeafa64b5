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
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Azure DevOps Services' hosts: the organization is the first path segment
// on dev.azure.com and the host's first label on {organization}.visualstudio.com;
// SSH is served by ssh.dev.azure.com and vs-ssh.visualstudio.com, whose
// paths start v3/{organization}/.
const (
	azureHost      = "dev.azure.com"
	azureSSHHost   = "ssh.dev.azure.com"
	vstsSuffix     = ".visualstudio.com"
	vstsSSHHost    = "vs-ssh.visualstudio.com"
	azureSSHPrefix = "v3/"
	// azureGit separates the project from the repository in a clone URL.
	azureGit = "_git"
	// defaultCollection is the collection an old {org}.visualstudio.com URL
	// may name: the organization itself.
	defaultCollection = "defaultcollection"
)

// resolveAzure resolves an Azure DevOps repository: ok is false when
// gitURL is not on an Azure DevOps Services host and t does not name
// AzureDevOps, and Resolve goes on as for other forges. Owner is
// organization/project (collection path/project on Azure DevOps Server),
// Name the repository, APIURL the organization's (collection's) URL.
func resolveAzure(gitURL string, t Type, apiURL string) (Config, bool, error) {
	host, p, err := hostPath(gitURL)
	if err != nil {
		return Config{}, t == AzureDevOps, err
	}
	host = strings.ToLower(host)
	if !isAzureHost(host) && t != AzureDevOps {
		return Config{}, false, nil
	}
	if t != "" && t != AzureDevOps {
		return Config{}, false, nil
	}
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	org, project, repo, ok := azureParts(host, strings.Trim(p, "/"))
	if !ok {
		return Config{}, true, fmt.Errorf(errRepoPathFmt, gitURL)
	}
	c := Config{Type: AzureDevOps, APIURL: apiURL, Owner: strings.TrimPrefix(org+"/"+project, "/"), Name: repo}
	if c.APIURL == "" {
		c.APIURL = azureAPIURL(host, org)
	}
	u, err := url.Parse(c.APIURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Config{}, true, fmt.Errorf(errAPIURLFmt, c.APIURL)
	}
	if !strings.HasSuffix(c.APIURL, "/") {
		c.APIURL += "/"
	}
	return c, true, nil
}

// isAzureHost reports whether host is one of Azure DevOps Services'.
func isAzureHost(host string) bool {
	return host == azureHost || host == azureSSHHost || host == vstsSSHHost || strings.HasSuffix(host, vstsSuffix)
}

// azureParts splits p, a repository path on host, into organization (or
// collection path), project and repository:
//
//	dev.azure.com            {org}/{project}/_git/{repo}, {org}/_git/{repo}
//	{org}.visualstudio.com   [DefaultCollection/]{project}/_git/{repo}
//	ssh.dev.azure.com,
//	vs-ssh.visualstudio.com  v3/{org}/{project}/{repo}
//	another host (Server)    {collection…}/{project}/_git/{repo}, or
//	                         {collection…}/{project}/{repo}(.git)
//
// A repository named as its project ({org}/_git/{repo}) is in the project
// of that name.
func azureParts(host, p string) (org, project, repo string, ok bool) {
	segs := strings.Split(strings.TrimSuffix(p, ".git"), "/")
	if host == azureSSHHost || host == vstsSSHHost {
		rest, found := strings.CutPrefix(p, azureSSHPrefix)
		segs = strings.Split(rest, "/")
		if !found || len(segs) != 3 {
			return "", "", "", false
		}
		return segs[0], segs[1], segs[2], nonEmpty(segs...)
	}
	if strings.HasSuffix(host, vstsSuffix) {
		org = strings.TrimSuffix(host, vstsSuffix)
		if len(segs) > 0 && strings.EqualFold(segs[0], defaultCollection) {
			segs = segs[1:]
		}
		segs = append([]string{org}, segs...)
	}
	i := indexOf(segs, azureGit)
	switch {
	case i < 0 && host != azureHost && !strings.HasSuffix(host, vstsSuffix) && len(segs) >= 2:
		// Azure DevOps Server without _git (or a look-alike in tests).
		n := len(segs)
		return strings.Join(segs[:n-2], "/"), segs[n-2], segs[n-1], nonEmpty(segs[n-2:]...)
	case i < 1 || i != len(segs)-2:
		return "", "", "", false
	case i == 1:
		// {org}/_git/{repo}: the project is named as the repository.
		return segs[0], segs[2], segs[2], nonEmpty(segs[0], segs[2])
	}
	return strings.Join(segs[:i-1], "/"), segs[i-1], segs[i+1], nonEmpty(segs[i-1], segs[i+1])
}

// azureAPIURL is the organization's (collection's) URL on host: where
// every REST call of the repository starts.
func azureAPIURL(host, org string) string {
	switch {
	case host == azureHost || host == azureSSHHost:
		return "https://" + azureHost + "/" + url.PathEscape(org) + "/"
	case host == vstsSSHHost || strings.HasSuffix(host, vstsSuffix):
		return "https://" + org + vstsSuffix + "/"
	}
	var b strings.Builder
	b.WriteString("https://" + host + "/")
	for s := range strings.SplitSeq(org, "/") {
		if s != "" {
			b.WriteString(url.PathEscape(s) + "/")
		}
	}
	return b.String()
}

func indexOf(segs []string, s string) int {
	for i, x := range segs {
		if strings.EqualFold(x, s) {
			return i
		}
	}
	return -1
}

func nonEmpty(ss ...string) bool {
	for _, s := range ss {
		if s == "" || s == "." || s == ".." || path.Clean(s) != s {
			return false
		}
	}
	return true
}
