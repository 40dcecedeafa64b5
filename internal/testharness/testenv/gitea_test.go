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
	"strings"
	"testing"
)

// TestGitea: the harness's Gitea (and Forgejo) takes a clone, a push and a merge over
// HTTP with its token, refuses a push to a protected branch, and stops when
// the test ends.
func TestGitea(t *testing.T) {
	for _, f := range GiteaForges() {
		t.Run(f.Name, func(t *testing.T) { testGitea(t, f) })
	}
}

func testGitea(t *testing.T, f GiteaForge) {
	g := StartGitea(t, f.Options...)
	repo := g.CreateRepo(t, "harness")
	dir := t.TempDir()
	url := AuthURL(repo.CloneURL, GiteaAdmin, g.Token)
	if _, err := Git(dir, nil, "clone", "-q", url, "."); err != nil {
		t.Fatal(err)
	}
	if _, err := Git(dir, nil, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "direct"); err != nil {
		t.Fatal(err)
	}
	if out, err := Git(dir, nil, "push", "-q", "origin", "HEAD:main"); err != nil {
		t.Fatalf("a push to an unprotected main: %v\n%s", err, out)
	}
	g.ProtectBranch(t, repo.Name, "main")
	if _, err := Git(dir, nil, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "refused"); err != nil {
		t.Fatal(err)
	}
	_, err := Git(dir, nil, "push", "-q", "origin", "HEAD:main")
	if err == nil || !strings.Contains(err.Error(), "Not allowed to push to protected branch main") {
		t.Fatalf("a push to a protected main must be refused in Gitea's words (Forgejo's are the same), got %v", err)
	}
	sha := g.CommitFile(t, repo.Name, "feature", "main", "f.yaml", "f: 1\n")
	if sha == "" {
		t.Fatal("CommitFile returned no SHA")
	}
	u := g.CreateUser(t, "reviewer", repo.Name)
	if u.Token == "" {
		t.Fatal("CreateUser made no token")
	}
}
