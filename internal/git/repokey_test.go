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
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRepositoryKey(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		urls   []string
		want   string
	}{
		"OneRepositoryManySpellings": {
			reason: "Scheme, user, default port, host case, trailing slash and .git do not make another repository.",
			urls: []string{
				"https://git.example.org/org/repo.git",
				"https://Git.Example.org:443/org/repo/",
				"ssh://git@git.example.org/org/repo.git",
				"ssh://deploy@git.example.org:22/org/repo",
				"git@git.example.org:org/repo.git",
				"http://user@git.example.org/org/repo",
			},
			want: "git.example.org/org/repo",
		},
		"PathCaseAndDots": {
			reason: "Forges serve one repository under every case of its path, a host's trailing dot is the same host, and empty or dot segments name no other folder: each spelling is one claim and one lease.",
			urls: []string{
				"https://git.example.org/Org/Repo.git",
				"https://git.example.org./org/repo",
				"https://git.example.org/org//repo/",
				"https://git.example.org//org/./repo.GIT",
				"git@GIT.example.org.:ORG/repo.git",
			},
			want: "git.example.org/org/repo",
		},
		"OtherPort": {
			reason: "Two servers on one host are two repositories.",
			urls:   []string{"http://127.0.0.1:8080/repo.git", "ssh://git@127.0.0.1:8080/repo"},
			want:   "127.0.0.1:8080/repo",
		},
		"File": {
			reason: "A local path is its own repository.",
			urls:   []string{"file:///srv/git/repo.git", "/srv/git/repo", "file:///srv//git/./repo/"},
			want:   "file:///srv/git/repo",
		},
		"FileKeepsCase": {
			reason: "A file system tells Repo from repo.",
			urls:   []string{"file:///srv/git/Repo.git"},
			want:   "file:///srv/git/Repo",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, u := range tc.urls {
				got, err := RepositoryKey(u)
				if err != nil {
					t.Fatalf("RepositoryKey(%q): %v", u, err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s\nRepositoryKey(%q): -want, +got:\n%s", tc.reason, u, diff)
				}
			}
		})
	}
	if _, err := RepositoryKey("https://[::1"); err == nil {
		t.Errorf("RepositoryKey of an unparsable URL must fail")
	} else if diff := cmp.Diff(KindInvalid, KindOf(err)); diff != "" {
		t.Errorf("an unparsable URL is the configuration's problem: -want, +got:\n%s", diff)
	}
}

// TestProtocol: the scheme is read from the parsed URL, case-insensitively,
// so HTTP:// is http wherever a scheme is decided.
func TestProtocol(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		url    string
		want   string
	}{
		"HTTPS":      {reason: "https:// is https.", url: "https://git.example.org/r.git", want: "https"},
		"MixedHTTPS": {reason: "hTTps:// is https.", url: "hTTps://git.example.org/r.git", want: "https"},
		"UpperHTTP":  {reason: "HTTP:// is http, not a path or https.", url: "HTTP://git.example.org/r.git", want: "http"},
		"MixedHTTP":  {reason: "Http:// is http.", url: "Http://git.example.org/r.git", want: "http"},
		"UpperSSH":   {reason: "SSH:// is ssh.", url: "SSH://git@git.example.org/r.git", want: "ssh"},
		"SCPLike":    {reason: "user@host:path is ssh.", url: "git@git.example.org:r.git", want: "ssh"},
		"UpperFile":  {reason: "FILE:// is file.", url: "FILE:///srv/r.git", want: "file"},
		"GitDaemon":  {reason: "GIT:// is git.", url: "GIT://git.example.org/r.git", want: "git"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Protocol(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nProtocol(%q): -want, +got:\n%s", tc.reason, tc.url, diff)
			}
		})
	}
}
