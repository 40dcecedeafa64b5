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

package events

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var secret = []byte("s3cret")

// Payloads trimmed to the fields read, with the forges' own names
// (GitHub and Gitea: push and pull_request; GitLab: Push Hook and Merge
// Request Hook).
const (
	hubPush = `{"ref":"refs/heads/main","before":"a","after":"b","repository":{"id":1,"full_name":"org/apps",` +
		`"clone_url":"https://git.example.org/org/apps.git","ssh_url":"git@git.example.org:org/apps.git","html_url":"https://git.example.org/org/apps"}}`
	hubTag  = `{"ref":"refs/tags/v1","repository":{"clone_url":"https://git.example.org/org/apps.git"}}`
	hubPull = `{"action":"closed","number":4,"pull_request":{"number":4,"merged":true,"head":{"ref":"env/staging"},"base":{"ref":"main"}},` +
		`"repository":{"clone_url":"https://git.example.org/org/apps.git"}}`
	labPush = `{"object_kind":"push","ref":"refs/heads/main","project":{"git_http_url":"https://gitlab.example.org/org/apps.git",` +
		`"git_ssh_url":"git@gitlab.example.org:org/apps.git","web_url":"https://gitlab.example.org/org/apps"}}`
	labMerge = `{"object_kind":"merge_request","project":{"git_http_url":"https://gitlab.example.org/org/apps.git"},` +
		`"object_attributes":{"iid":4,"source_branch":"env/staging","target_branch":"main","state":"merged"}}`
	labSystem = `{"object_kind":"push","event_name":"push","ref":"refs/heads/main","project":{"git_http_url":"https://gitlab.example.org/org/apps.git"}}`
)

func sign(body string, key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(body))
	return hex.EncodeToString(m.Sum(nil))
}

func headers(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// args are a delivery's headers and body; want what Parse makes of them.
type args struct {
	h    http.Header
	body string
}

type want struct {
	e   Event
	err error
}

// parseCase is one row of the Parse tables of every forge.
type parseCase struct {
	reason string
	args   args
	want   want
}

// runParse parses each case's delivery with secret and compares.
func runParse(t *testing.T, cases map[string]parseCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e, err := Parse(tc.args.h, []byte(tc.args.body), secret)
			if !errors.Is(err, tc.want.err) || (err == nil) != (tc.want.err == nil) {
				t.Fatalf("%s\nParse error: got %v, want %v", tc.reason, err, tc.want.err)
			}
			if diff := cmp.Diff(tc.want.e, e); diff != "" {
				t.Errorf("%s\nParse: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestParse(t *testing.T) {
	apps := []string{"https://git.example.org/org/apps.git", "git@git.example.org:org/apps.git", "https://git.example.org/org/apps"}
	cases := map[string]parseCase{
		"GitHubPush": {
			reason: "A signed GitHub push names the repository's URLs and the branch it moved.",
			args:   args{h: headers("X-GitHub-Event", "push", "X-GitHub-Delivery", "d1", "X-Hub-Signature-256", "sha256="+sign(hubPush, secret)), body: hubPush},
			want:   want{e: Event{Source: SourceGitHub, Kind: KindPush, Delivery: "d1", Repositories: apps, Branches: []string{"main"}}},
		},
		"GitHubTag": {
			reason: "A tag push moves no branch.",
			args:   args{h: headers("X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256="+sign(hubTag, secret)), body: hubTag},
			want:   want{e: Event{Source: SourceGitHub, Kind: KindPush, Repositories: apps[:1]}},
		},
		"GitHubPullRequest": {
			reason: "A pull_request event names its head and base.",
			args:   args{h: headers("X-GitHub-Event", "pull_request", "X-Hub-Signature-256", "sha256="+sign(hubPull, secret)), body: hubPull},
			want:   want{e: Event{Source: SourceGitHub, Kind: KindPullRequest, Repositories: apps[:1], Branches: []string{"env/staging", "main"}}},
		},
		"GitHubPing": {
			reason: "GitHub's ping, sent when a hook is created, is verified and does nothing.",
			args:   args{h: headers("X-GitHub-Event", "ping", "X-Hub-Signature-256", "sha256="+sign(`{"zen":"x"}`, secret)), body: `{"zen":"x"}`},
			want:   want{e: Event{Source: SourceGitHub, Kind: KindPing}},
		},
		"GitHubSHA1Only": {
			reason: "GitHub's SHA-1 signature is never accepted: without SHA-256 the delivery is unsigned.",
			args:   args{h: headers("X-GitHub-Event", "push", "X-Hub-Signature", "sha1="+sha1Of(hubPush)), body: hubPush},
			want:   want{err: ErrUnsigned},
		},
		"GitHubUnsigned": {
			reason: "No signature, no event.",
			args:   args{h: headers("X-GitHub-Event", "push"), body: hubPush},
			want:   want{err: ErrUnsigned},
		},
		"GitHubOtherSecret": {
			reason: "Signed with another secret: refused.",
			args:   args{h: headers("X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256="+sign(hubPush, []byte("other"))), body: hubPush},
			want:   want{err: ErrBadSignature},
		},
		"GitHubAltered": {
			reason: "A body changed after it was signed is refused.",
			args:   args{h: headers("X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256="+sign(hubPush, secret)), body: strings.Replace(hubPush, "main", "prod", 1)},
			want:   want{err: ErrBadSignature},
		},
		"GitHubMalformed": {
			reason: "A signed body that is not JSON is malformed.",
			args:   args{h: headers("X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256="+sign("{", secret)), body: "{"},
			want:   want{err: ErrMalformed},
		},
		"GitHubNoRepository": {
			reason: "A signed push that names no repository is malformed.",
			args:   args{h: headers("X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256="+sign(`{"ref":"refs/heads/main"}`, secret)), body: `{"ref":"refs/heads/main"}`},
			want:   want{err: ErrMalformed},
		},
		"GiteaPush": {
			reason: "Gitea signs with X-Gitea-Signature and sends GitHub's event header too: read as Gitea.",
			args: args{h: headers("X-Gitea-Event", "push", "X-GitHub-Event", "push", "X-Gitea-Delivery", "g1",
				"X-Gitea-Signature", sign(hubPush, secret)), body: hubPush},
			want: want{e: Event{Source: SourceGitea, Kind: KindPush, Delivery: "g1", Repositories: apps, Branches: []string{"main"}}},
		},
		"GiteaHubSignatureOnly": {
			reason: "Gitea's X-Hub-Signature-256 serves when its own header is absent.",
			args:   args{h: headers("X-Gitea-Event", "pull_request", "X-Hub-Signature-256", "sha256="+sign(hubPull, secret)), body: hubPull},
			want:   want{e: Event{Source: SourceGitea, Kind: KindPullRequest, Repositories: apps[:1], Branches: []string{"env/staging", "main"}}},
		},
		"GiteaForgedWithGitHubHeader": {
			reason: "A Gitea delivery whose Gitea signature is wrong is refused even with a GitHub header beside it.",
			args: args{h: headers("X-Gitea-Event", "push", "X-GitHub-Event", "push", "X-Gitea-Signature", sign(hubPush, []byte("x")),
				"X-Hub-Signature-256", "sha256="+sign(hubPush, secret)), body: hubPush},
			want: want{err: ErrBadSignature},
		},
		"Forgejo": {
			reason: "Forgejo's own headers name it.",
			args: args{h: headers("X-Forgejo-Event", "push", "X-Gitea-Event", "push", "X-Forgejo-Delivery", "f1",
				"X-Forgejo-Signature", sign(hubPush, secret)), body: hubPush},
			want: want{e: Event{Source: SourceForgejo, Kind: KindPush, Delivery: "f1", Repositories: apps, Branches: []string{"main"}}},
		},
		"GitLabPush": {
			reason: "GitLab sends the secret as X-Gitlab-Token.",
			args:   args{h: headers("X-Gitlab-Event", "Push Hook", "X-Gitlab-Token", string(secret), "X-Gitlab-Event-UUID", "u1"), body: labPush},
			want: want{e: Event{Source: SourceGitLab, Kind: KindPush, Delivery: "u1", Branches: []string{"main"},
				Repositories: []string{"https://gitlab.example.org/org/apps.git", "git@gitlab.example.org:org/apps.git", "https://gitlab.example.org/org/apps"}}},
		},
		"GitLabMergeRequest": {
			reason: "A merge request event names source and target.",
			args:   args{h: headers("X-Gitlab-Event", "Merge Request Hook", "X-Gitlab-Token", string(secret)), body: labMerge},
			want:   want{e: Event{Source: SourceGitLab, Kind: KindPullRequest, Repositories: []string{"https://gitlab.example.org/org/apps.git"}, Branches: []string{"env/staging", "main"}}},
		},
		"GitLabSystemHook": {
			reason: "A system hook is read by its object_kind.",
			args:   args{h: headers("X-Gitlab-Event", "System Hook", "X-Gitlab-Token", string(secret)), body: labSystem},
			want:   want{e: Event{Source: SourceGitLab, Kind: KindPush, Repositories: []string{"https://gitlab.example.org/org/apps.git"}, Branches: []string{"main"}}},
		},
		"GitLabWrongToken": {
			reason: "Another token is refused.",
			args:   args{h: headers("X-Gitlab-Event", "Push Hook", "X-Gitlab-Token", "guess"), body: labPush},
			want:   want{err: ErrBadSignature},
		},
		"GitLabNoToken": {
			reason: "No token, no event.",
			args:   args{h: headers("X-Gitlab-Event", "Push Hook"), body: labPush},
			want:   want{err: ErrUnsigned},
		},
		"Unknown": {
			reason: "A request of no known forge is refused.",
			args:   args{h: headers("Content-Type", "application/json"), body: hubPush},
			want:   want{err: ErrUnknownSource},
		},
		"TooLarge": {
			reason: "A body past MaxBody is refused before anything else.",
			args:   args{h: headers("X-GitHub-Event", "push"), body: strings.Repeat(" ", MaxBody+1)},
			want:   want{err: ErrTooLarge},
		},
	}
	runParse(t, cases)
}

// TestParseEmptySecret: a configuration without a secret verifies nothing,
// even a delivery signed with the empty key or carrying an empty token.
func TestParseEmptySecret(t *testing.T) {
	cloud, dc, azure := payload(t, "bitbucket-cloud-push.json"), payload(t, "bitbucket-dc-refs-changed.json"), payload(t, "azure-git-push.json")
	cases := map[string]struct {
		reason string
		args   args
	}{
		"GitHub": {
			reason: "A GitHub delivery signed with the empty key is unsigned.",
			args:   args{h: headers("X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256="+sign(hubPush, nil)), body: hubPush},
		},
		"GitLab": {
			reason: "An empty GitLab token is none.",
			args:   args{h: headers("X-Gitlab-Event", "Push Hook", "X-Gitlab-Token", ""), body: labPush},
		},
		"BitbucketCloud": {
			reason: "A Bitbucket Cloud delivery signed with the empty key is unsigned.",
			args:   args{h: cloudHeaders("repo:push", cloud, nil), body: cloud},
		},
		"BitbucketDataCenter": {
			reason: "A Bitbucket Data Center delivery signed with the empty key is unsigned.",
			args:   args{h: dcHeaders("repo:refs_changed", dc, nil), body: dc},
		},
		"AzureDevOpsEmptyPassword": {
			reason: "An Azure DevOps delivery with an empty password is unsigned.",
			args:   args{h: azureHeaders("provider-git", ""), body: azure},
		},
		"AzureDevOpsAnyPassword": {
			reason: "With no secret, no password is right.",
			args:   args{h: azureHeaders("provider-git", "anything"), body: azure},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse(tc.args.h, []byte(tc.args.body), nil); !errors.Is(err, ErrUnsigned) {
				t.Errorf("%s\nParse with no secret: got %v, want %v", tc.reason, err, ErrUnsigned)
			}
		})
	}
}

func sha1Of(body string) string {
	m := hmac.New(sha1.New, secret)
	m.Write([]byte(body))
	return hex.EncodeToString(m.Sum(nil))
}

// fuzzHeaders are the headers of a delivery of forge (a Source; GitHub
// for any other value) with event and sig: a signature, or for Azure
// DevOps, which signs nothing, the password.
func fuzzHeaders(forge, event, sig string) http.Header {
	switch forge {
	case SourceBitbucketCloud:
		return headers("X-Event-Key", event, "X-Request-UUID", "u", "X-Hub-Signature", sig)
	case SourceBitbucketDataCenter:
		return headers("X-Event-Key", event, "X-Request-Id", "i", "X-Hub-Signature", sig)
	case SourceAzureDevOps:
		return azureHeaders(event, sig)
	}
	return headers("X-GitHub-Event", event, "X-Hub-Signature-256", sig)
}

// FuzzParse: no delivery makes Parse panic, and none verifies without the
// secret's signature (for Azure DevOps, the secret as password).
func FuzzParse(f *testing.F) {
	f.Add(SourceGitHub, "push", hubPush, "sha256="+sign(hubPush, secret))
	f.Add(SourceGitHub, "pull_request", hubPull, "sha256=00")
	for _, s := range []struct{ forge, event, file string }{
		{SourceBitbucketCloud, "repo:push", "bitbucket-cloud-push.json"},
		{SourceBitbucketCloud, "pullrequest:created", "bitbucket-cloud-pullrequest-fork.json"},
		{SourceBitbucketCloud, "repo:commit_status_updated", "bitbucket-cloud-commit-status.json"},
		{SourceBitbucketDataCenter, "repo:refs_changed", "bitbucket-dc-refs-changed.json"},
		{SourceBitbucketDataCenter, "pr:merged", "bitbucket-dc-pr-merged.json"},
	} {
		body := payload(f, s.file)
		f.Add(s.forge, s.event, body, "sha256="+sign(body, secret))
		f.Add(s.forge, s.event, body, "sha256="+sign(body, []byte("other")))
	}
	f.Add(SourceBitbucketDataCenter, "diagnostics:ping", `{"test": true}`, "sha256="+sign(`{"test": true}`, secret))
	for _, file := range []string{"azure-git-push.json", "azure-pullrequest-updated.json", "azure-pullrequest-comment.json"} {
		body := payload(f, file)
		f.Add(SourceAzureDevOps, "provider-git", body, string(secret))
		f.Add(SourceAzureDevOps, "provider-git", body, "guess")
	}
	f.Add(SourceAzureDevOps, "", `{"eventType":"git.push","publisherId":"tfs","resource":null}`, string(secret))
	f.Fuzz(func(t *testing.T, forge, event, body, sig string) {
		e, err := Parse(fuzzHeaders(forge, event, sig), []byte(body), secret)
		if err != nil {
			return
		}
		signed := strings.EqualFold(sig, "sha256="+sign(body, secret))
		if forge == SourceAzureDevOps && e.Source == SourceAzureDevOps {
			signed = sig == string(secret)
		}
		if !signed {
			t.Errorf("Parse accepted %+v without its signature", e)
		}
	})
}
