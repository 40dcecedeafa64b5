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

// Package events verifies and reads one forge webhook delivery: which
// repository it is about, whether a branch moved (push) or a pull request
// changed, and the forge's delivery id. It knows no Kubernetes types; the
// receiver (internal/reconciler/receiver) decides what an event wakes.
//
// What is verified, by source (detected from its headers in this order,
// Gitea and Forgejo first: they send GitHub's headers too):
//
//	Gitea, Forgejo         X-Gitea-Event / X-Forgejo-Event                  X-Gitea-Signature or X-Forgejo-Signature: hex HMAC-SHA256 of the body; or X-Hub-Signature-256
//	GitHub                 X-GitHub-Event                                   X-Hub-Signature-256: "sha256=" hex HMAC-SHA256 of the body (never the SHA-1 X-Hub-Signature)
//	GitLab                 X-Gitlab-Event                                   X-Gitlab-Token: the secret itself
//	Bitbucket Cloud        X-Event-Key, with X-Hook-UUID or X-Request-UUID  X-Hub-Signature: "sha256=" hex HMAC-SHA256 of the body
//	Bitbucket Data Center  X-Event-Key, with neither (X-Request-Id)         X-Hub-Signature: "sha256=" hex HMAC-SHA256 of the body
//	Azure DevOps           none: a body naming eventType and publisherId    Authorization: Basic, its password the secret itself (any user name)
//
// Both Bitbucket products send X-Event-Key and sign alike, so only the
// headers tell them apart: Cloud always sends the hook's and the request's
// UUIDs, Data Center never does. Azure DevOps signs nothing and sends no
// header of its own: a request without any forge's header whose body holds
// those two keys is taken for Azure's, found by a byte search, and its
// credentials are checked before the body is parsed.
//
// Every comparison is constant-time, and an empty secret verifies nothing.
// Telling a delivery seen before from a new one is the receiver's concern.
// A delivery one replica verified and forwards to another carries none of
// the forge's credentials, only an HMAC under the same secret
// (HeaderForwarded, forward.go).
package events

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
)

// Kind is what an event says happened.
type Kind string

// Kinds of event.
const (
	KindPush        Kind = "push"
	KindPullRequest Kind = "pull_request"
	KindPing        Kind = "ping"
	// KindOther is a verified event of no interest (an issue comment).
	KindOther Kind = "other"
)

// Sources of events.
const (
	SourceGitHub  = "GitHub"
	SourceGitLab  = "GitLab"
	SourceGitea   = "Gitea"
	SourceForgejo = "Forgejo"

	SourceBitbucketCloud      = "BitbucketCloud"
	SourceBitbucketDataCenter = "BitbucketDataCenter"
	SourceAzureDevOps         = "AzureDevOps"
)

// MaxBody is the largest body read: a push of many commits stays well
// below it, and a larger body is refused before it is verified.
const MaxBody = 4 << 20

// Errors, for the receiver to answer with the right status.
var (
	ErrUnknownSource = errors.New("the request is not a webhook delivery of a known forge")
	ErrUnsigned      = errors.New("the delivery carries no signature or token")
	ErrBadSignature  = errors.New("the delivery's signature or token does not match the webhook secret")
	ErrMalformed     = errors.New("the delivery is signed but its body is not a payload of its event")
	ErrTooLarge      = errors.New("the delivery's body is larger than the receiver reads")
	ErrStale         = errors.New("the forwarded delivery was forwarded too long ago, or names no time")
)

// An Event is one verified delivery.
type Event struct {
	Source string
	Kind   Kind
	// Delivery is the forge's id of this delivery, "" when it sends none.
	Delivery string
	// Repositories are the URLs the payload names for its repository.
	Repositories []string
	// Branches moved (push) or concerned (a pull request's head and base).
	Branches []string
}

// Parse verifies a delivery with secret and reads it.
func Parse(h http.Header, body, secret []byte) (Event, error) {
	if len(body) > MaxBody {
		return Event{}, ErrTooLarge
	}
	var (
		e   Event
		err error
	)
	switch {
	case h.Get("X-Forgejo-Event") != "" || h.Get("X-Gitea-Event") != "":
		e, err = parseGitea(h, body, secret)
	case h.Get("X-GitHub-Event") != "":
		e, err = parseGitHub(h, body, secret)
	case h.Get("X-Gitlab-Event") != "":
		e, err = parseGitLab(h, body, secret)
	case h.Get("X-Event-Key") != "":
		e, err = parseBitbucket(h, body, secret)
	case looksAzure(body):
		e, err = parseAzure(h, body, secret)
	default:
		return Event{}, ErrUnknownSource
	}
	if err != nil {
		return Event{}, err
	}
	if e.Kind != KindPing && e.Kind != KindOther && len(e.Repositories) == 0 {
		return Event{}, ErrMalformed
	}
	return e, nil
}

// verifyHMAC checks a hex HMAC-SHA256 of body, with the prefix the header
// carries ("sha256=" or none).
func verifyHMAC(sig, prefix string, body, secret []byte) error {
	if len(secret) == 0 || sig == "" {
		return ErrUnsigned
	}
	got, err := hex.DecodeString(strings.TrimPrefix(sig, prefix))
	if err != nil || !strings.HasPrefix(sig, prefix) {
		return ErrBadSignature
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return ErrBadSignature
	}
	return nil
}

// verifyToken checks a token sent as is (GitLab's, Azure DevOps's
// password). The digests are compared, not the strings, so that not even
// the secret's length shows in the time taken.
func verifyToken(tok string, secret []byte) error {
	if len(secret) == 0 || tok == "" {
		return ErrUnsigned
	}
	got, want := sha256.Sum256([]byte(tok)), sha256.Sum256(secret)
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return ErrBadSignature
	}
	return nil
}

// branchOf is the branch of a full ref, "" for a tag or anything else.
func branchOf(ref string) string {
	b, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok {
		return ""
	}
	return b
}

// distinct returns the values of vs that are set, each once and in order:
// a push that moves a branch names it as old and new ref. A map, not a
// scan of the result, so a push of thousands of refs costs no more than
// reading it.
func distinct(vs ...string) []string {
	var out []string
	seen := make(map[string]bool, len(vs))
	for _, v := range vs {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// nonEmpty returns the values of vs that are set.
func nonEmpty(vs ...string) []string {
	var out []string
	for _, v := range vs {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// trimmed is body without surrounding space, for a JSON check, nor the
// UTF-8 byte order mark a .NET sender (Azure DevOps Server) may put first:
// encoding/json refuses it.
func trimmed(body []byte) []byte {
	return bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(body), []byte("\xef\xbb\xbf")))
}
