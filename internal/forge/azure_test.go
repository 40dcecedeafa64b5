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
	"testing"
)

func TestResolveAzureDevOps(t *testing.T) {
	type args = resolveArgs
	type want = resolveWant
	services := Config{Type: AzureDevOps, APIURL: "https://dev.azure.com/fabrikam/", Owner: "fabrikam/Fiber Web", Name: "gitops"}
	vsts := Config{Type: AzureDevOps, APIURL: "https://fabrikam.visualstudio.com/", Owner: "fabrikam/Fiber Web", Name: "gitops"}
	cases := map[string]resolveCase{
		"HTTPS": {
			reason: "dev.azure.com/{org}/{project}/_git/{repo}: the organization's URL is the API's",
			args:   args{url: "https://dev.azure.com/fabrikam/Fiber%20Web/_git/gitops"},
			want:   want{c: services},
		},
		"HTTPSWithUser": {
			reason: "the {org}@ Azure's clone dialog puts in the URL changes nothing",
			args:   args{url: "https://fabrikam@dev.azure.com/fabrikam/Fiber%20Web/_git/gitops"},
			want:   want{c: services},
		},
		"HTTPSProjectNamedAsRepository": {
			reason: "dev.azure.com/{org}/_git/{repo} is the repository of the project named as it",
			args:   args{url: "https://dev.azure.com/fabrikam/_git/gitops"},
			want:   want{c: Config{Type: AzureDevOps, APIURL: "https://dev.azure.com/fabrikam/", Owner: "fabrikam/gitops", Name: "gitops"}},
		},
		"SSH": {
			reason: "ssh.dev.azure.com:v3/{org}/{project}/{repo}",
			args:   args{url: "git@ssh.dev.azure.com:v3/fabrikam/Fiber%20Web/gitops"},
			want:   want{c: services},
		},
		"SSHURL": {
			reason: "the ssh:// form of the same",
			args:   args{url: "ssh://git@ssh.dev.azure.com/v3/fabrikam/Fiber%20Web/gitops"},
			want:   want{c: services},
		},
		"VisualStudio": {
			reason: "{org}.visualstudio.com/{project}/_git/{repo}: the organization is the host's first label",
			args:   args{url: "https://fabrikam.visualstudio.com/Fiber%20Web/_git/gitops"},
			want:   want{c: vsts},
		},
		"VisualStudioDefaultCollection": {
			reason: "an old URL names DefaultCollection, which is the organization",
			args:   args{url: "https://user@fabrikam.visualstudio.com/DefaultCollection/Fiber%20Web/_git/gitops"},
			want:   want{c: vsts},
		},
		"VisualStudioSSH": {
			reason: "{org}@vs-ssh.visualstudio.com:v3/{org}/{project}/{repo}",
			args:   args{url: "fabrikam@vs-ssh.visualstudio.com:v3/fabrikam/Fiber%20Web/gitops"},
			want:   want{c: vsts},
		},
		"Server": {
			reason: "Azure DevOps Server on its own host, named: the collection's URL is the API's",
			args:   args{url: "https://tfs.example.com/tfs/DefaultCollection/Platform/_git/gitops", t: AzureDevOps},
			want:   want{c: Config{Type: AzureDevOps, APIURL: "https://tfs.example.com/tfs/DefaultCollection/", Owner: "tfs/DefaultCollection/Platform", Name: "gitops"}},
		},
		"ServerAPIURL": {
			reason: "an apiURL given stands",
			args:   args{url: "ssh://tfs.example.com:22/tfs/DefaultCollection/Platform/_git/gitops", t: AzureDevOps, apiURL: "https://tfs.example.com/tfs/DefaultCollection"},
			want:   want{c: Config{Type: AzureDevOps, APIURL: "https://tfs.example.com/tfs/DefaultCollection/", Owner: "tfs/DefaultCollection/Platform", Name: "gitops"}},
		},
		"NotAzure": {
			reason: "another host without the type is another forge's",
			args:   args{url: "https://github.com/acme/gitops.git"},
			want:   want{c: Config{Type: GitHub, APIURL: "https://api.github.com/", Owner: "acme", Name: "gitops"}},
		},
		"NoRepository": {
			reason: "a project URL names no repository",
			args:   args{url: "https://dev.azure.com/fabrikam/Fiber"},
			want:   want{err: true},
		},
		"SSHShort": {
			reason: "an SSH path without v3/{org}/{project}/{repo} is refused",
			args:   args{url: "git@ssh.dev.azure.com:v3/fabrikam/gitops"},
			want:   want{err: true},
		},
		"DotDot": {
			reason: "a path climbing out is no repository",
			args:   args{url: "git@ssh.dev.azure.com:v3/fabrikam/../gitops"},
			want:   want{err: true},
		},
		"BadAPIURL": {
			reason: "an apiURL that is no http(s) URL is refused",
			args:   args{url: "https://dev.azure.com/fabrikam/p/_git/r", apiURL: "ftp://x/"},
			want:   want{err: true},
		},
	}
	runResolve(t, cases)
}
