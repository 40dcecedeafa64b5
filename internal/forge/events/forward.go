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
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HeaderForwarded marks a delivery one replica verified and forwards to
// the replica that holds its repository: "sha256=" and a hex HMAC-SHA256,
// under the hook's webhook secret, of forwardLabel, the hook's path, the
// headers forwardedHeaders keeps and the body. A delivery that carries it
// is verified by it alone (ParseForwarded), and is never forwarded again.
const HeaderForwarded = "X-Provider-Git-Forwarded"

// HeaderForwardedAt is when a delivery was forwarded, in Unix seconds,
// under the forward's HMAC: a forward captured on the pod network is
// refused once MaxForwardAge has passed, so it cannot be sent again for
// ever.
const HeaderForwardedAt = "X-Provider-Git-Forwarded-At"

// MaxForwardAge is how far a forward's time may be from the receiving
// replica's clock, either way: a forward takes milliseconds, and the
// replicas' clocks are the nodes', kept by NTP within far less.
const MaxForwardAge = 5 * time.Minute

// forwardLabel separates the forward's HMAC from the signatures a forge
// makes with the same secret: a forward is never a forge's signature, nor
// one a forge's signature.
const forwardLabel = "provider-git forwarded delivery v1\x00"

// forwardedHeaders are the headers a forwarded delivery keeps: those that
// name its forge, event and delivery. No credential is among them: GitLab
// and Azure DevOps send the secret itself, which must not travel between
// pods in plain HTTP, nor reach an address a Lease names.
var forwardedHeaders = []string{
	"Content-Type",
	"X-Gitea-Event", "X-Gitea-Delivery", "X-Forgejo-Event", "X-Forgejo-Delivery",
	"X-GitHub-Event", "X-GitHub-Delivery",
	"X-Gitlab-Event", "X-Gitlab-Event-UUID",
	"X-Event-Key", "X-Hook-UUID", "X-Request-UUID", "X-Request-Id",
	HeaderForwardedAt,
}

// Forward returns the headers of a delivery, verified already with secret
// (Parse), that another replica receives at path, forwarded at at: those
// forwardedHeaders keeps, HeaderForwardedAt and HeaderForwarded.
func Forward(h http.Header, path string, body, secret []byte, at time.Time) http.Header {
	k := kept(h)
	k.Set(HeaderForwardedAt, strconv.FormatInt(at.Unix(), 10))
	k.Set(HeaderForwarded, "sha256="+hex.EncodeToString(forwardMAC(k, path, body, secret)))
	return k
}

// Forwarded reports whether h is a forwarded delivery's.
func Forwarded(h http.Header) bool { return len(h.Values(HeaderForwarded)) > 0 }

// ParseForwarded verifies a delivery another replica forwarded to path
// (HeaderForwarded) with secret and reads it as Parse does. The forge's
// own credentials did not travel: they are made here from the secret, for
// Parse, once the forward is verified. Unsigned, badly signed, oversized
// and malformed forwards are refused with Parse's errors; one forwarded
// further than MaxForwardAge from now, or at no time, with ErrStale.
func ParseForwarded(h http.Header, path string, body, secret []byte, now time.Time) (Event, error) {
	if len(body) > MaxBody {
		return Event{}, ErrTooLarge
	}
	k := kept(h)
	if err := verifyHMAC(h.Get(HeaderForwarded), "sha256=", forwardMessage(k, path, body), secret); err != nil {
		return Event{}, err
	}
	at, err := strconv.ParseInt(k.Get(HeaderForwardedAt), 10, 64)
	if err != nil {
		return Event{}, ErrStale
	}
	if d := now.Sub(time.Unix(at, 0)); d > MaxForwardAge || d < -MaxForwardAge {
		return Event{}, ErrStale
	}
	k.Del(HeaderForwardedAt)
	credit(k, body, secret)
	return Parse(k, body, secret)
}

// kept is h with only the headers forwardedHeaders names.
func kept(h http.Header) http.Header {
	k := http.Header{}
	for _, n := range forwardedHeaders {
		if vs := h.Values(n); len(vs) > 0 {
			k[http.CanonicalHeaderKey(n)] = append([]string(nil), vs...)
		}
	}
	return k
}

// forwardMAC is the HMAC of a forward (HeaderForwarded).
func forwardMAC(k http.Header, path string, body, secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(forwardMessage(k, path, body))
	return m.Sum(nil)
}

// forwardMessage is what a forward's HMAC covers: the label, the path,
// each kept header as one line (a header value holds no newline: net/http
// refuses one) and the body. The header names are a fixed list in a fixed
// order, so the encoding is unambiguous.
func forwardMessage(k http.Header, path string, body []byte) []byte {
	var b strings.Builder
	b.WriteString(forwardLabel)
	b.WriteString(path)
	b.WriteByte(0)
	for _, n := range forwardedHeaders {
		b.WriteString(n)
		b.WriteByte(':')
		b.WriteString(strings.Join(k.Values(n), ","))
		b.WriteByte('\n')
	}
	b.WriteByte(0)
	return append([]byte(b.String()), body...)
}

// credit sets on k what each forge would send to prove it knows secret,
// so that Parse verifies a forward its HMAC verified already.
func credit(k http.Header, body, secret []byte) {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	sig := hex.EncodeToString(m.Sum(nil))
	k.Set("X-Hub-Signature-256", "sha256="+sig)
	k.Set("X-Gitea-Signature", sig)
	k.Set("X-Forgejo-Signature", sig)
	k.Set("X-Hub-Signature", "sha256="+sig)
	k.Set("X-Gitlab-Token", string(secret))
	k.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString(append([]byte("forwarded:"), secret...)))
}
