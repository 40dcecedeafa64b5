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
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/skeema/knownhosts"
)

// Kind tells a caller what an error asks of it: retry later (transient) or
// stop and tell a human (everything else).
type Kind int

// Kinds of errors. Only KindTransient is worth retrying without a change
// made by a human.
const (
	// KindTransient: network errors, timeouts, 5xx, a branch too contended
	// to land a push within the retry budget.
	KindTransient Kind = iota
	// KindAuth: the server refused the credentials.
	KindAuth
	// KindHostKey: the SSH host key is unknown, mismatched, or no
	// known_hosts was given (we fail closed).
	KindHostKey
	// KindRepositoryNotFound: the server has no such repository (or hides it).
	KindRepositoryNotFound
	// KindBranchNotFound: the branch does not exist on the remote.
	KindBranchNotFound
	// KindRejected: the server refused a push for a reason other than a
	// race: a protected branch, a hook, a policy.
	KindRejected
	// KindInvalid: the repository's configuration is wrong (bad URL or key).
	KindInvalid
	// KindPathConflict: a change's own path cannot be written where it
	// points: it is a directory in Git, or it runs through an existing file,
	// or someone else changed a path the change expected (Change.Expect,
	// a *PreconditionError). The resource that asked for the path must
	// change, or plan again, not its repository.
	KindPathConflict
	// KindInvalidChange: the change itself is malformed (a path Git refuses,
	// a start point that is not a commit SHA). Like KindPathConflict it is
	// the asking resource's problem, never its repository's.
	KindInvalidChange
	// KindCertificate: the HTTPS server's certificate is not trusted (a
	// private CA missing from the CA bundle, a wrong host name). Like a
	// host key mismatch it fails closed until a human acts.
	KindCertificate
)

// String names the kind; used in condition reasons and logs.
func (k Kind) String() string {
	switch k {
	case KindTransient:
		return "Transient"
	case KindAuth:
		return "AuthenticationFailed"
	case KindHostKey:
		return "HostKeyVerificationFailed"
	case KindRepositoryNotFound:
		return "RepositoryNotFound"
	case KindBranchNotFound:
		return "BranchNotFound"
	case KindRejected:
		return "PushRejected"
	case KindInvalid:
		return "Invalid"
	case KindPathConflict:
		return "PathConflict"
	case KindInvalidChange:
		return "InvalidChange"
	case KindCertificate:
		return "CertificateUntrusted"
	}
	return "Unknown"
}

// Error is an error of a known Kind.
type Error struct {
	Kind Kind
	Err  error
}

// Error returns the message of the wrapped error, with credentials in URLs
// scrubbed: go-git and servers echo URLs in errors, and the message ends up
// in conditions, Events and logs.
func (e *Error) Error() string { return Scrub(e.Err.Error()) }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

func newError(k Kind, msg string) error { return &Error{Kind: k, Err: errors.New(msg)} }

// KindOf returns the Kind of err. Errors of no known kind are transient:
// retrying is always safe because we never force-push.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindTransient
}

// IsTerminal reports whether err needs a human (wrong credentials, host key,
// missing repository or branch, refused push) rather than a retry.
func IsTerminal(err error) bool { return err != nil && KindOf(err) != KindTransient }

// ErrNotExist is returned by reads of a path that a commit does not hold.
var ErrNotExist = errors.New("path does not exist")

// ErrEmptyRepository is wrapped by the KindBranchNotFound errors that a
// repository with no branch at all causes (a forge's freshly created
// repository): such a repository has no start point to create a branch
// from, so its first write creates the first commit instead.
var ErrEmptyRepository = errors.New("repository is empty")

// classify wraps a transport error with its Kind. It is applied once, where
// go-git returns, so callers never parse messages.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	k := KindTransient
	var herr *githttp.Err
	var nerr net.Error
	msg := err.Error()
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		k = KindTransient
	case knownhosts.IsHostKeyChanged(err), knownhosts.IsHostUnknown(err),
		strings.Contains(msg, "knownhosts: key mismatch"), strings.Contains(msg, "knownhosts: key is unknown"):
		k = KindHostKey
	case untrustedCertificate(err):
		k = KindCertificate
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed),
		errors.Is(err, transport.ErrInvalidAuthMethod), strings.Contains(msg, "unable to authenticate"):
		k = KindAuth
		err = authReason(err)
	case errors.Is(err, transport.ErrRepositoryNotFound):
		k = KindRepositoryNotFound
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		k = KindBranchNotFound
	case errors.As(err, &herr):
		k = KindTransient // 5xx, 429 and other statuses not mapped above
	case errors.As(err, &nerr):
		k = KindTransient
	}
	return &Error{Kind: k, Err: err}
}

// authReason rewrites go-git's "<refusal>: <response body>" so the body is
// said once, on one line, and only when it adds something: a server whose
// body is the same words (or nothing) made "authentication required:
// authentication required".
func authReason(err error) error {
	for _, refusal := range []error{transport.ErrAuthenticationRequired, transport.ErrAuthorizationFailed} {
		body, ok := strings.CutPrefix(err.Error(), refusal.Error()+":")
		if !ok {
			continue
		}
		body = strings.Join(strings.Fields(body), " ")
		if body == "" || strings.EqualFold(body, refusal.Error()) {
			return refusal
		}
		return fmt.Errorf("%w: %s", refusal, body)
	}
	return err
}

// untrustedCertificate reports a TLS verification failure. go-git keeps the
// chain for some sessions and flattens it to text for others, so both are
// checked.
func untrustedCertificate(err error) bool {
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	if errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "tls: failed to verify certificate") || strings.Contains(msg, "x509: certificate")
}
