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
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// payload is testdata/name: a delivery shaped as the forge's documented
// example of its event, with a repository of our own.
func payload(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cloudHeaders are the headers Bitbucket Cloud sends with a delivery of
// event, signed with key.
func cloudHeaders(event, body string, key []byte) http.Header {
	return headers("X-Event-Key", event, "X-Hook-UUID", "{3f1c2b5d-6a7e-4f80-9b1c-2d3e4f5a6b7c}",
		"X-Request-UUID", "9d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6", "X-Attempt-Number", "1",
		"User-Agent", "Bitbucket-Webhooks/2.0", "Content-Type", "application/json",
		"X-Hub-Signature", "sha256="+sign(body, key))
}

// dcHeaders are the headers Bitbucket Data Center sends with a delivery
// of event, signed with key.
func dcHeaders(event, body string, key []byte) http.Header {
	return headers("X-Event-Key", event, "X-Request-Id", "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
		"User-Agent", "Atlassian HttpClient 4.2.0 / Bitbucket-9.4.1 (9004001) / Default", "Content-Type", "application/json; charset=utf-8",
		"X-Hub-Signature", "sha256="+sign(body, key))
}

// without is h without the named headers.
func without(h http.Header, names ...string) http.Header {
	for _, n := range names {
		h.Del(n)
	}
	return h
}

func TestParseBitbucketCloud(t *testing.T) {
	apps := []string{"https://bitbucket.org/acme/apps.git", "https://bitbucket.org/acme/apps"}
	push := payload(t, "bitbucket-cloud-push.json")
	merged := payload(t, "bitbucket-cloud-pullrequest-fulfilled.json")
	fork := payload(t, "bitbucket-cloud-pullrequest-fork.json")
	status := payload(t, "bitbucket-cloud-commit-status.json")
	delivery := "9d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"
	cases := map[string]parseCase{
		"Push": {
			reason: "A signed repo:push names the repository (clone URL derived from its full name, and web link) and the branches it moved or deleted, not its tags.",
			args:   args{h: cloudHeaders("repo:push", push, secret), body: push},
			want:   want{e: Event{Source: SourceBitbucketCloud, Kind: KindPush, Delivery: delivery, Repositories: apps, Branches: []string{"main", "env/old"}}},
		},
		"PullRequestFulfilled": {
			reason: "A merged pull request names its source and destination branches.",
			args:   args{h: cloudHeaders("pullrequest:fulfilled", merged, secret), body: merged},
			want:   want{e: Event{Source: SourceBitbucketCloud, Kind: KindPullRequest, Delivery: delivery, Repositories: apps, Branches: []string{"env/staging", "main"}}},
		},
		"PullRequestApproved": {
			reason: "A review is a pull request event: a PullRequest waiting for approval follows it.",
			args:   args{h: cloudHeaders("pullrequest:approved", merged, secret), body: merged},
			want:   want{e: Event{Source: SourceBitbucketCloud, Kind: KindPullRequest, Delivery: delivery, Repositories: apps, Branches: []string{"env/staging", "main"}}},
		},
		"PullRequestFromFork": {
			reason: "A correctly signed pull request from a fork names the destination repository, never the fork: an event only causes a fetch and a listing of the configuration's own repository.",
			args:   args{h: cloudHeaders("pullrequest:created", fork, secret), body: fork},
			want:   want{e: Event{Source: SourceBitbucketCloud, Kind: KindPullRequest, Delivery: delivery, Repositories: apps, Branches: []string{"main"}}},
		},
		"CommitStatus": {
			reason: "A build status names the branch it was reported for.",
			args:   args{h: cloudHeaders("repo:commit_status_updated", status, secret), body: status},
			want:   want{e: Event{Source: SourceBitbucketCloud, Kind: KindPullRequest, Delivery: delivery, Repositories: apps, Branches: []string{"env/staging"}}},
		},
		"CommitStatusWithoutRefname": {
			reason: "A build status reported for a commit alone names no branch.",
			args: args{h: cloudHeaders("repo:commit_status_created", strings.Replace(status, `"refname": "env/staging",`, "", 1), secret),
				body: strings.Replace(status, `"refname": "env/staging",`, "", 1)},
			want: want{e: Event{Source: SourceBitbucketCloud, Kind: KindPullRequest, Delivery: delivery, Repositories: apps}},
		},
		"OnlyHookUUID": {
			reason: "X-Hook-UUID alone is enough to tell Cloud from Data Center; the delivery id is then unknown.",
			args:   args{h: without(cloudHeaders("repo:push", push, secret), "X-Request-UUID"), body: push},
			want:   want{e: Event{Source: SourceBitbucketCloud, Kind: KindPush, Repositories: apps, Branches: []string{"main", "env/old"}}},
		},
		"OtherEvent": {
			reason: "A verified event of no interest is KindOther, its body unread.",
			args:   args{h: cloudHeaders("issue:created", `{"issue":`, secret), body: `{"issue":`},
			want:   want{e: Event{Source: SourceBitbucketCloud, Kind: KindOther, Delivery: delivery}},
		},
		"WrongSecret": {
			reason: "Signed with another secret: refused.",
			args:   args{h: cloudHeaders("repo:push", push, []byte("other")), body: push},
			want:   want{err: ErrBadSignature},
		},
		"Unsigned": {
			reason: "A hook without a secret sends no signature: refused.",
			args:   args{h: without(cloudHeaders("repo:push", push, secret), "X-Hub-Signature"), body: push},
			want:   want{err: ErrUnsigned},
		},
		"SignatureOfAnotherBody": {
			reason: "A valid signature of another delivery does not carry over to this body.",
			args:   args{h: cloudHeaders("repo:push", merged, secret), body: push},
			want:   want{err: ErrBadSignature},
		},
		"SHA1Prefix": {
			reason: "Only the sha256= form is read.",
			args:   args{h: headers("X-Event-Key", "repo:push", "X-Hook-UUID", "h", "X-Hub-Signature", "sha1="+sign(push, secret)), body: push},
			want:   want{err: ErrBadSignature},
		},
		"VerifiedBeforeParsed": {
			reason: "A body that is not JSON, badly signed, is refused for its signature: nothing of it is read first.",
			args:   args{h: cloudHeaders("repo:push", "{", []byte("other")), body: "{"},
			want:   want{err: ErrBadSignature},
		},
		"Malformed": {
			reason: "A signed push whose body is not JSON is malformed.",
			args:   args{h: cloudHeaders("repo:push", `{"push":`, secret), body: `{"push":`},
			want:   want{err: ErrMalformed},
		},
		"NoRepository": {
			reason: "A signed push that names no repository is malformed.",
			args:   args{h: cloudHeaders("repo:push", `{"push":{"changes":[]}}`, secret), body: `{"push":{"changes":[]}}`},
			want:   want{err: ErrMalformed},
		},
		"TooLarge": {
			reason: "A body past MaxBody is refused before it is verified.",
			args:   args{h: cloudHeaders("repo:push", "", secret), body: strings.Repeat(" ", MaxBody+1)},
			want:   want{err: ErrTooLarge},
		},
	}
	runParse(t, cases)
}

func TestParseBitbucketDataCenter(t *testing.T) {
	apps := []string{"ssh://git@bitbucket.acme.example:7999/plat/apps.git", "https://bitbucket.acme.example/scm/plat/apps.git",
		"https://bitbucket.acme.example/projects/PLAT/repos/apps/browse"}
	push := payload(t, "bitbucket-dc-refs-changed.json")
	merged := payload(t, "bitbucket-dc-pr-merged.json")
	fork := payload(t, "bitbucket-dc-pr-fork.json")
	refIDOnly := `{"eventKey":"repo:refs_changed","repository":{"links":{"clone":[{"href":"https://bitbucket.acme.example/scm/plat/apps.git","name":"http"}]}},` +
		`"changes":[{"refId":"refs/heads/env/prod","fromHash":"a","toHash":"b","type":"UPDATE"},{"refId":"refs/tags/v2","type":"ADD"}]}`
	ping := `{"test": true}`
	delivery := "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9"
	cases := map[string]parseCase{
		"Push": {
			reason: "A signed repo:refs_changed names the repository's clone and web links and the branches it moved, not its tags.",
			args:   args{h: dcHeaders("repo:refs_changed", push, secret), body: push},
			want:   want{e: Event{Source: SourceBitbucketDataCenter, Kind: KindPush, Delivery: delivery, Repositories: apps, Branches: []string{"main", "env/staging"}}},
		},
		"PushRefIDOnly": {
			reason: "A change without its ref object is read from refId.",
			args:   args{h: dcHeaders("repo:refs_changed", refIDOnly, secret), body: refIDOnly},
			want: want{e: Event{Source: SourceBitbucketDataCenter, Kind: KindPush, Delivery: delivery,
				Repositories: []string{"https://bitbucket.acme.example/scm/plat/apps.git"}, Branches: []string{"env/prod"}}},
		},
		"PullRequestMerged": {
			reason: "A merged pull request names its target's repository and both branches.",
			args:   args{h: dcHeaders("pr:merged", merged, secret), body: merged},
			want:   want{e: Event{Source: SourceBitbucketDataCenter, Kind: KindPullRequest, Delivery: delivery, Repositories: apps, Branches: []string{"env/staging", "main"}}},
		},
		"PullRequestNeedsWork": {
			reason: "A reviewer's verdict is a pull request event.",
			args:   args{h: dcHeaders("pr:reviewer:needs_work", merged, secret), body: merged},
			want:   want{e: Event{Source: SourceBitbucketDataCenter, Kind: KindPullRequest, Delivery: delivery, Repositories: apps, Branches: []string{"env/staging", "main"}}},
		},
		"PullRequestFromFork": {
			reason: "A correctly signed pull request from a personal fork names the target repository (toRef), never the fork.",
			args:   args{h: dcHeaders("pr:opened", fork, secret), body: fork},
			want:   want{e: Event{Source: SourceBitbucketDataCenter, Kind: KindPullRequest, Delivery: delivery, Repositories: apps, Branches: []string{"main"}}},
		},
		"Ping": {
			reason: "Test connection's diagnostics:ping is verified and does nothing.",
			args:   args{h: dcHeaders("diagnostics:ping", ping, secret), body: ping},
			want:   want{e: Event{Source: SourceBitbucketDataCenter, Kind: KindPing, Delivery: delivery}},
		},
		"PingUnsigned": {
			reason: "Even a ping is verified.",
			args:   args{h: without(dcHeaders("diagnostics:ping", ping, secret), "X-Hub-Signature"), body: ping},
			want:   want{err: ErrUnsigned},
		},
		"OtherEvent": {
			reason: "A verified event of no interest is KindOther.",
			args:   args{h: dcHeaders("repo:modified", `{}`, secret), body: `{}`},
			want:   want{e: Event{Source: SourceBitbucketDataCenter, Kind: KindOther, Delivery: delivery}},
		},
		"CloudKeyFromDataCenter": {
			reason: "The headers, not the key, name the product: a Cloud key sent as Data Center's is of no interest.",
			args:   args{h: dcHeaders("repo:push", push, secret), body: push},
			want:   want{e: Event{Source: SourceBitbucketDataCenter, Kind: KindOther, Delivery: delivery}},
		},
		"WrongSecret": {
			reason: "Signed with another secret: refused.",
			args:   args{h: dcHeaders("repo:refs_changed", push, []byte("other")), body: push},
			want:   want{err: ErrBadSignature},
		},
		"Unsigned": {
			reason: "No signature, no event.",
			args:   args{h: without(dcHeaders("repo:refs_changed", push, secret), "X-Hub-Signature"), body: push},
			want:   want{err: ErrUnsigned},
		},
		"SignatureOfAnotherBody": {
			reason: "A body changed after it was signed is refused.",
			args:   args{h: dcHeaders("pr:merged", merged, secret), body: strings.Replace(merged, `"displayId": "main"`, `"displayId": "prod"`, 1)},
			want:   want{err: ErrBadSignature},
		},
		"VerifiedBeforeParsed": {
			reason: "A body that is not JSON, badly signed, is refused for its signature.",
			args:   args{h: dcHeaders("pr:opened", "{", []byte("other")), body: "{"},
			want:   want{err: ErrBadSignature},
		},
		"Malformed": {
			reason: "A signed pull request event whose body is not JSON is malformed.",
			args:   args{h: dcHeaders("pr:opened", "{", secret), body: "{"},
			want:   want{err: ErrMalformed},
		},
		"NoRepository": {
			reason: "A signed pull request whose target names no repository is malformed.",
			args: args{h: dcHeaders("pr:opened", `{"pullRequest":{"fromRef":{"displayId":"a"},"toRef":{"displayId":"main"}}}`, secret),
				body: `{"pullRequest":{"fromRef":{"displayId":"a"},"toRef":{"displayId":"main"}}}`},
			want: want{err: ErrMalformed},
		},
		"TooLarge": {
			reason: "A body past MaxBody is refused before it is verified.",
			args:   args{h: dcHeaders("repo:refs_changed", "", secret), body: strings.Repeat(" ", MaxBody+1)},
			want:   want{err: ErrTooLarge},
		},
	}
	runParse(t, cases)
}
