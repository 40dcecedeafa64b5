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

package git

import (
	"fmt"
	pathpkg "path"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// defaultPorts are the ports a URL may leave out, by protocol.
var defaultPorts = map[string]int{"ssh": 22, "https": 443, "http": 80}

// RepositoryKey names the repository url points at, the same for every
// spelling of one repository: scheme, user, a default port, a trailing
// slash or ".git", the case of the host and of the path, a host's trailing
// dot, and empty or "." path segments do not count, so
// ssh://git@Git.example.org/Org/repo.git, git@git.example.org.:org//repo and
// https://git.example.org/org/repo are one repository. Forges (GitHub,
// GitLab, Gitea) serve one repository under every case of its path; on a
// server that does not, two repositories differing only in case share a
// key, which costs a false conflict, never two writers of one repository.
// A port other than the protocol's default is kept: two servers on one
// host are two repositories. A local path keeps its case (file systems
// tell them apart). Credentials are never part of it.
func RepositoryKey(url string) (string, error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return "", &Error{Kind: KindInvalid, Err: fmt.Errorf("%s: %w", errParseURL, err)}
	}
	p := strings.Trim(pathpkg.Clean("/"+ep.Path), "/")
	if ep.Protocol == "file" {
		return "file:///" + strings.TrimSuffix(p, ".git"), nil
	}
	host := strings.TrimSuffix(strings.ToLower(ep.Host), ".")
	if ep.Port != 0 && ep.Port != defaultPorts[ep.Protocol] {
		host += ":" + strconv.Itoa(ep.Port)
	}
	p = strings.TrimSuffix(strings.ToLower(p), ".git")
	return host + "/" + strings.TrimRight(p, "/"), nil
}
