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

import "strings"

// bitbucketCloudAPI is Bitbucket Cloud's REST 2.0 API, whatever the Git
// URL (https://bitbucket.org/ws/repo.git, git@bitbucket.org:ws/repo.git).
const bitbucketCloudAPI = "https://api.bitbucket.org/2.0/"

// bitbucketDCPath reads a Bitbucket Data Center repository path: the
// HTTPS clone URL is [/context]/scm/PROJECT/repo.git (context: the path
// the server is served under, e.g. /bitbucket), the SSH one
// ssh://git@host:7999/project/repo.git. It returns the context and
// PROJECT/repo; a path without /scm/ is returned as it is, with no
// context.
func bitbucketDCPath(path string) (string, string) {
	p := "/" + strings.Trim(path, "/")
	i := strings.Index(p, "/scm/")
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+len("/scm/"):]
}

// bitbucketAPIURL is where each Bitbucket serves its REST API: Cloud at
// api.bitbucket.org, Data Center at [context]/rest/api/1.0/ on the
// repository's host. An SSH URL says nothing of the context (nor of the
// HTTPS port): name spec.forge.apiURL where it differs.
func bitbucketAPIURL(t Type, host, context string) string {
	switch t {
	case BitbucketCloud:
		return bitbucketCloudAPI
	case BitbucketDataCenter:
		return "https://" + host + context + "/rest/api/1.0/"
	}
	return ""
}
