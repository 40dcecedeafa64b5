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
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// azureHeaders are the headers Azure DevOps's Web Hooks consumer sends
// with a subscription's basic authentication of user and password.
func azureHeaders(user, password string) http.Header {
	return headers("Content-Type", "application/json; charset=utf-8",
		"Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user+":"+password)))
}

func TestParseAzureDevOps(t *testing.T) {
	apps := []string{"https://acme@dev.azure.com/acme/Platform/_git/apps", "git@ssh.dev.azure.com:v3/acme/Platform/apps"}
	push := payload(t, "azure-git-push.json")
	updated := payload(t, "azure-pullrequest-updated.json")
	comment := payload(t, "azure-pullrequest-comment.json")
	created := strings.Replace(updated, `"git.pullrequest.updated"`, `"git.pullrequest.created"`, 1)
	merged := strings.Replace(updated, `"git.pullrequest.updated"`, `"git.pullrequest.merged"`, 1)
	// A pull request from a fork: the fork is under forkSource, the
	// resource's repository is the target's.
	fork := strings.Replace(updated, `"sourceRefName"`,
		`"forkSource": {"name": "refs/heads/main", "repository": {"name": "apps", "remoteUrl": "https://dev.azure.com/mallory/Fork/_git/apps",`+
			` "sshUrl": "git@ssh.dev.azure.com:v3/mallory/Fork/apps"}},`+"\n    "+`"sourceRefName"`, 1)
	for _, v := range []string{created, merged, fork} {
		if v == updated {
			t.Fatal("a variant of azure-pullrequest-updated.json is the file itself: its replacement found nothing")
		}
	}
	build := `{"id":"4a5d99d6-1c75-4e53-91b9-ee80057d4ce3","eventType":"build.complete","publisherId":"tfs","resource":{"id":2,"repository":"x"}}`
	release := `{"id":"b0497ad3-50c9-4722-96da-a8fa5b80d77f","eventType":"ms.vss-release.release-created-event","publisherId":"rm","resource":{}}`
	cases := map[string]parseCase{
		"Push": {
			reason: "A git.push with the secret as password names the repository's remote and SSH URLs and the branches it moved, not its tags; its id is the delivery.",
			args:   args{h: azureHeaders("provider-git", string(secret)), body: push},
			want: want{e: Event{Source: SourceAzureDevOps, Kind: KindPush, Delivery: "8d3c1b2a-4e5f-4a6b-9c7d-0e1f2a3b4c5d",
				Repositories: apps, Branches: []string{"main"}}},
		},
		"ByteOrderMark": {
			reason: "A body that starts with UTF-8's byte order mark is read as JSON.",
			args:   args{h: azureHeaders("provider-git", string(secret)), body: "\ufeff" + push},
			want: want{e: Event{Source: SourceAzureDevOps, Kind: KindPush, Delivery: "8d3c1b2a-4e5f-4a6b-9c7d-0e1f2a3b4c5d",
				Repositories: apps, Branches: []string{"main"}}},
		},
		"AnyUserName": {
			reason: "The user name is not checked: only the password carries the secret.",
			args:   args{h: azureHeaders("", string(secret)), body: push},
			want: want{e: Event{Source: SourceAzureDevOps, Kind: KindPush, Delivery: "8d3c1b2a-4e5f-4a6b-9c7d-0e1f2a3b4c5d",
				Repositories: apps, Branches: []string{"main"}}},
		},
		"PullRequestUpdated": {
			reason: "A pull request event names its source and target branches, stripped of refs/heads/.",
			args:   args{h: azureHeaders("x", string(secret)), body: updated},
			want: want{e: Event{Source: SourceAzureDevOps, Kind: KindPullRequest, Delivery: "b4e5f6a7-1c2d-4e3f-8a9b-0c1d2e3f4a5b",
				Repositories: apps, Branches: []string{"env/staging", "main"}}},
		},
		"PullRequestCreated": {
			reason: "git.pullrequest.created is a pull request event.",
			args:   args{h: azureHeaders("x", string(secret)), body: created},
			want: want{e: Event{Source: SourceAzureDevOps, Kind: KindPullRequest, Delivery: "b4e5f6a7-1c2d-4e3f-8a9b-0c1d2e3f4a5b",
				Repositories: apps, Branches: []string{"env/staging", "main"}}},
		},
		"PullRequestMerged": {
			reason: "git.pullrequest.merged is a pull request event.",
			args:   args{h: azureHeaders("x", string(secret)), body: merged},
			want: want{e: Event{Source: SourceAzureDevOps, Kind: KindPullRequest, Delivery: "b4e5f6a7-1c2d-4e3f-8a9b-0c1d2e3f4a5b",
				Repositories: apps, Branches: []string{"env/staging", "main"}}},
		},
		"PullRequestComment": {
			reason: "A comment event holds its pull request under resource.pullRequest.",
			args:   args{h: azureHeaders("x", string(secret)), body: comment},
			want: want{e: Event{Source: SourceAzureDevOps, Kind: KindPullRequest, Delivery: "c5f6a7b8-2d3e-4f40-9b0c-1d2e3f4a5b6c",
				Repositories: apps, Branches: []string{"env/staging", "main"}}},
		},
		"PullRequestFromFork": {
			reason: "An authenticated pull request from a fork names the target repository, never the fork.",
			args:   args{h: azureHeaders("x", string(secret)), body: fork},
			want: want{e: Event{Source: SourceAzureDevOps, Kind: KindPullRequest, Delivery: "b4e5f6a7-1c2d-4e3f-8a9b-0c1d2e3f4a5b",
				Repositories: apps, Branches: []string{"env/staging", "main"}}},
		},
		"OtherEvent": {
			reason: "An authenticated event of no interest is KindOther: its resource, of another shape, is not read.",
			args:   args{h: azureHeaders("x", string(secret)), body: build},
			want:   want{e: Event{Source: SourceAzureDevOps, Kind: KindOther, Delivery: "4a5d99d6-1c75-4e53-91b9-ee80057d4ce3"}},
		},
		"OtherPublisher": {
			reason: "Another publisher's events (releases, pipelines) are KindOther.",
			args:   args{h: azureHeaders("x", string(secret)), body: release},
			want:   want{e: Event{Source: SourceAzureDevOps, Kind: KindOther, Delivery: "b0497ad3-50c9-4722-96da-a8fa5b80d77f"}},
		},
		"WrongPassword": {
			reason: "Another password is refused.",
			args:   args{h: azureHeaders("provider-git", "guess"), body: push},
			want:   want{err: ErrBadSignature},
		},
		"SecretAsUserName": {
			reason: "The secret as user name, with another password, is refused.",
			args:   args{h: azureHeaders(string(secret), "guess"), body: push},
			want:   want{err: ErrBadSignature},
		},
		"NoAuthorization": {
			reason: "A subscription without basic authentication sends no credentials: refused.",
			args:   args{h: headers("Content-Type", "application/json"), body: push},
			want:   want{err: ErrUnsigned},
		},
		"EmptyPassword": {
			reason: "Basic credentials without a password carry no secret.",
			args:   args{h: azureHeaders("provider-git", ""), body: push},
			want:   want{err: ErrUnsigned},
		},
		"BearerToken": {
			reason: "Credentials of another scheme are refused.",
			args:   args{h: headers("Authorization", "Bearer "+string(secret)), body: push},
			want:   want{err: ErrBadSignature},
		},
		"NotBase64": {
			reason: "Basic credentials that do not decode are refused.",
			args:   args{h: headers("Authorization", "Basic !!!"), body: push},
			want:   want{err: ErrBadSignature},
		},
		"NoColon": {
			reason: "Basic credentials without a user:password pair are refused.",
			args:   args{h: headers("Authorization", "Basic "+base64.StdEncoding.EncodeToString(secret)), body: push},
			want:   want{err: ErrBadSignature},
		},
		"VerifiedBeforeParsed": {
			reason: "A body that is not JSON, with the wrong password, is refused for its credentials: nothing of it is parsed first.",
			args:   args{h: azureHeaders("x", "guess"), body: `{"eventType":"git.push","publisherId":"tfs",`},
			want:   want{err: ErrBadSignature},
		},
		"Malformed": {
			reason: "An authenticated body that is not JSON is malformed.",
			args:   args{h: azureHeaders("x", string(secret)), body: `{"eventType":"git.push","publisherId":"tfs",`},
			want:   want{err: ErrMalformed},
		},
		"NoEventType": {
			reason: "An authenticated body whose top level has no eventType is not an event.",
			args:   args{h: azureHeaders("x", string(secret)), body: `{"resource":{"eventType":"git.push","publisherId":"tfs"}}`},
			want:   want{err: ErrMalformed},
		},
		"NoRepository": {
			reason: "An authenticated push that names no repository is malformed.",
			args: args{h: azureHeaders("x", string(secret)),
				body: `{"id":"1","eventType":"git.push","publisherId":"tfs","resource":{"refUpdates":[{"name":"refs/heads/main"}]}}`},
			want: want{err: ErrMalformed},
		},
		"NoResource": {
			reason: "An authenticated push without a resource is malformed.",
			args:   args{h: azureHeaders("x", string(secret)), body: `{"id":"1","eventType":"git.push","publisherId":"tfs"}`},
			want:   want{err: ErrMalformed},
		},
		"NotAzure": {
			reason: "Basic credentials alone do not make a delivery: a body without Azure's keys is of no known forge.",
			args:   args{h: azureHeaders("x", string(secret)), body: `{"ref":"refs/heads/main"}`},
			want:   want{err: ErrUnknownSource},
		},
		"TooLarge": {
			reason: "A body past MaxBody is refused before its credentials are looked at.",
			args:   args{h: azureHeaders("x", string(secret)), body: `{"eventType":"git.push","publisherId":"tfs"}` + strings.Repeat(" ", MaxBody)},
			want:   want{err: ErrTooLarge},
		},
	}
	runParse(t, cases)
}
