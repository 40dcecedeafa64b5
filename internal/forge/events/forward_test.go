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
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const hookPath = "/hooks/0123456789abcdef0123456789abcdef01234567"

// forwardedAt is when the tests' forwards are made.
var forwardedAt = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

// credentials are the headers by which a forge proves it knows the secret.
var credentials = []string{"X-Hub-Signature-256", "X-Hub-Signature", "X-Gitea-Signature", "X-Forgejo-Signature", "X-Gitlab-Token", "Authorization"}

func TestForwardRoundTrip(t *testing.T) {
	cases := map[string]struct {
		reason string
		args   args
	}{
		"GitHub": {
			reason: "A GitHub push forwarded reads as the push the forge sent.",
			args:   args{h: headers("X-GitHub-Event", "push", "X-GitHub-Delivery", "d1", "X-Hub-Signature-256", "sha256="+sign(hubPush, secret)), body: hubPush},
		},
		"Gitea": {
			reason: "Gitea's own signature is not forwarded, its event and delivery are.",
			args:   args{h: headers("X-Gitea-Event", "pull_request", "X-Gitea-Delivery", "g1", "X-Gitea-Signature", sign(hubPull, secret)), body: hubPull},
		},
		"Forgejo": {
			reason: "Forgejo's headers name Forgejo on the holder too.",
			args:   args{h: headers("X-Forgejo-Event", "push", "X-Gitea-Event", "push", "X-Forgejo-Delivery", "f1", "X-Forgejo-Signature", sign(hubPush, secret)), body: hubPush},
		},
		"GitLab": {
			reason: "GitLab sends the secret itself: it does not travel, the event does.",
			args:   args{h: headers("X-Gitlab-Event", "Push Hook", "X-Gitlab-Event-UUID", "u1", "X-Gitlab-Token", string(secret)), body: labPush},
		},
		"BitbucketCloud": {
			reason: "Bitbucket Cloud is told from Data Center by its UUID headers, which are forwarded.",
			args:   args{h: cloudHeaders("repo:push", payload(t, "bitbucket-cloud-push.json"), secret), body: payload(t, "bitbucket-cloud-push.json")},
		},
		"BitbucketDataCenter": {
			reason: "Bitbucket Data Center's request id is its delivery.",
			args:   args{h: dcHeaders("repo:refs_changed", payload(t, "bitbucket-dc-refs-changed.json"), secret), body: payload(t, "bitbucket-dc-refs-changed.json")},
		},
		"AzureDevOps": {
			reason: "Azure DevOps's password is the secret: it does not travel, the body is found Azure's again.",
			args:   args{h: azureHeaders("provider-git", string(secret)), body: payload(t, "azure-git-push.json")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := Parse(tc.args.h, []byte(tc.args.body), secret)
			if err != nil || want.Kind == KindOther {
				t.Fatalf("%s\nthe delivery itself does not parse: %+v, %v", tc.reason, want, err)
			}
			fh := Forward(tc.args.h, hookPath, []byte(tc.args.body), secret, forwardedAt)
			for _, c := range credentials {
				if v := fh.Get(c); v != "" {
					t.Errorf("%s\nthe forward carries the credential %s: %q", tc.reason, c, v)
				}
			}
			if !Forwarded(fh) || Forwarded(tc.args.h) {
				t.Errorf("%s\nForwarded: forward %t, delivery %t; want true, false", tc.reason, Forwarded(fh), Forwarded(tc.args.h))
			}
			got, err := ParseForwarded(fh, hookPath, []byte(tc.args.body), secret, forwardedAt.Add(time.Second))
			if err != nil {
				t.Fatalf("%s\nParseForwarded: %v", tc.reason, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nParseForwarded: -want (Parse of the delivery), +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestParseForwardedRefused(t *testing.T) {
	body := []byte(hubPush)
	good := func() http.Header {
		return Forward(headers("X-GitHub-Event", "push", "X-GitHub-Delivery", "d1"), hookPath, body, secret, forwardedAt)
	}
	type fargs struct {
		h    http.Header
		path string
		body []byte
		// now is the receiver's clock; zero: a second after forwardedAt.
		now time.Time
	}
	cases := map[string]struct {
		reason string
		args   fargs
		want   error
	}{
		"Unsigned": {
			reason: "A delivery marked forwarded with an empty HMAC is unsigned.",
			args:   fargs{h: headers("X-GitHub-Event", "push", HeaderForwarded, ""), path: hookPath, body: body},
			want:   ErrUnsigned,
		},
		"OtherSecret": {
			reason: "A forward made with another secret is refused like a forged event.",
			args:   fargs{h: Forward(headers("X-GitHub-Event", "push"), hookPath, body, []byte("other"), forwardedAt), path: hookPath, body: body},
			want:   ErrBadSignature,
		},
		"ForgeSignatureOnly": {
			reason: "A forge's own valid signature does not make a forward: only the forward's HMAC counts.",
			args: fargs{h: headers("X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256="+sign(hubPush, secret),
				HeaderForwarded, "sha256="+sign(hubPush, secret)), path: hookPath, body: body},
			want: ErrBadSignature,
		},
		"BodyChanged": {
			reason: "A forward's body changed on the way is refused.",
			args:   fargs{h: good(), path: hookPath, body: []byte(strings.Replace(hubPush, "main", "prod", 1))},
			want:   ErrBadSignature,
		},
		"EventChanged": {
			reason: "The event type is covered: a push made a pull request on the way is refused.",
			args: fargs{h: func() http.Header {
				h := good()
				h.Set("X-GitHub-Event", "pull_request")
				return h
			}(), path: hookPath, body: body},
			want: ErrBadSignature,
		},
		"SourceAdded": {
			reason: "A forge header added on the way (a GitHub push made Gitea's) is covered too.",
			args: fargs{h: func() http.Header {
				h := good()
				h.Set("X-Gitea-Event", "push")
				return h
			}(), path: hookPath, body: body},
			want: ErrBadSignature,
		},
		"OtherPath": {
			reason: "A forward to one hook's path is not one to another's.",
			args:   fargs{h: good(), path: "/hooks/other", body: body},
			want:   ErrBadSignature,
		},
		"Replayed": {
			reason: "A forward recorded on the pod network and sent again later than MaxForwardAge is refused.",
			args:   fargs{h: good(), path: hookPath, body: body, now: forwardedAt.Add(MaxForwardAge + time.Second)},
			want:   ErrStale,
		},
		"FromTheFuture": {
			reason: "A forward dated further ahead than MaxForwardAge is refused too: nothing could keep it for later.",
			args:   fargs{h: good(), path: hookPath, body: body, now: forwardedAt.Add(-MaxForwardAge - time.Second)},
			want:   ErrStale,
		},
		"DateChanged": {
			reason: "The time is covered by the HMAC: a replay made fresh on the way is refused.",
			args: fargs{h: func() http.Header {
				h := good()
				h.Set(HeaderForwardedAt, strconv.FormatInt(forwardedAt.Add(time.Hour).Unix(), 10))
				return h
			}(), path: hookPath, body: body, now: forwardedAt.Add(time.Hour)},
			want: ErrBadSignature,
		},
		"TooLarge": {
			reason: "An oversized forward is refused before its HMAC is computed.",
			args:   fargs{h: good(), path: hookPath, body: make([]byte, MaxBody+1)},
			want:   ErrTooLarge,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			now := tc.args.now
			if now.IsZero() {
				now = forwardedAt.Add(time.Second)
			}
			_, err := ParseForwarded(tc.args.h, tc.args.path, tc.args.body, secret, now)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s\nParseForwarded: got %v, want %v", tc.reason, err, tc.want)
			}
		})
	}
}

func TestParseForwardedEmptySecret(t *testing.T) {
	h := Forward(headers("X-GitHub-Event", "push"), hookPath, []byte(hubPush), nil, forwardedAt)
	if _, err := ParseForwarded(h, hookPath, []byte(hubPush), nil, forwardedAt); !errors.Is(err, ErrUnsigned) {
		t.Errorf("an empty secret verifies no forward: got %v, want %v", err, ErrUnsigned)
	}
}
