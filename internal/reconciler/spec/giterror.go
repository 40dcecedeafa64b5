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

package spec

import (
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// Reasons for Git errors that need a human, shared by configurations and
// managed resources so both name the same cause the same way.
const (
	ReasonAuthenticationFailed xpv2.ConditionReason = "AuthenticationFailed"
	ReasonHostKeyMismatch      xpv2.ConditionReason = "HostKeyMismatch"
	ReasonRepositoryNotFound   xpv2.ConditionReason = "RepositoryNotFound"
	ReasonBranchNotFound       xpv2.ConditionReason = "BranchNotFound"
	ReasonPushRejected         xpv2.ConditionReason = "PushRejected"
	// ReasonCertificateUntrusted: the HTTPS server's certificate does not
	// verify against the system's roots and the configuration's CA bundle.
	ReasonCertificateUntrusted xpv2.ConditionReason = "CertificateUntrusted"
	// ReasonInvalidConfig marks a configuration that cannot work as written
	// (a URL or key the engine refuses, a commit window out of range): the
	// ProviderConfig must change.
	ReasonInvalidConfig xpv2.ConditionReason = "InvalidProviderConfig"
	// ReasonPathConflict marks a resource whose own path cannot be written
	// where it points (a directory in Git, or a path through an existing
	// file): the resource must change, not its configuration.
	ReasonPathConflict xpv2.ConditionReason = "PathConflict"
)

// errRefusedFmt names the credentials a server refused.
const errRefusedFmt = "the server refused %s"

// hintProtected is what a push refused by branch protection asks of its
// owner: the forge takes changes to the branch only through a reviewed
// merge, so the provider must write elsewhere and ask for one.
const hintProtected = "the branch is protected on the forge: write to a branch and open a PullRequest"

// protectedWords are what each forge's refusal of a push to a protected
// branch says, in lower case; the refusal carries one of them:
//   - Gitea's and Forgejo's "Not allowed to push to protected branch main",
//     GitHub's "GH006: Protected branch update failed for refs/heads/main.",
//     GitLab's "You are not allowed to push code to protected branches on
//     this project.";
//   - Azure DevOps' ref status "TF402455: Pushes to this branch are not
//     permitted; you must use a pull request to update this branch." (its
//     number stays when the sentence is translated);
//   - Bitbucket Cloud's "remote: Permission denied to update branch main.";
//   - Bitbucket Data Center's "remote: Branch refs/heads/main can only be
//     modified through pull requests.".
var protectedWords = []string{
	"protected branch",
	"tf402455",
	"permission denied to update branch",
	"can only be modified through pull requests",
}

// isProtected is a refusal in one of the forges' words for branch
// protection.
func isProtected(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, w := range protectedWords {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// GitErrorBy is GitError for an operation that sent creds (which Secret
// and key they came from, config.Connection.Credentials; empty for none):
// an authentication refusal names them, so whoever reads the condition
// knows which Secret to fix, on a configuration and on each resource alike.
func GitErrorBy(err error, creds string) error {
	if creds != "" && git.KindOf(err) == git.KindAuth {
		err = errors.Wrapf(err, errRefusedFmt, creds)
	}
	return GitError(err)
}

// GitError classifies an error from internal/git for the managed reconciler:
// one that needs a human is marked Stalled with the reason that names what
// must change; anything else stays a plain (transient) error and is retried
// with backoff.
func GitError(err error) error {
	if err == nil || !git.IsTerminal(err) {
		return err
	}
	k := git.KindOf(err)
	if k == git.KindRejected && isProtected(err) {
		err = errors.Errorf("%w (%s)", err, hintProtected)
	}
	return managed.Stalled(reasonFor(k), err)
}

// reasonFor names what must change for an error of kind k. The repository's
// configuration and a resource's own change are told apart, so a condition
// points at the object to fix.
func reasonFor(k git.Kind) xpv2.ConditionReason {
	switch k {
	case git.KindAuth:
		return ReasonAuthenticationFailed
	case git.KindHostKey:
		return ReasonHostKeyMismatch
	case git.KindRepositoryNotFound:
		return ReasonRepositoryNotFound
	case git.KindBranchNotFound:
		return ReasonBranchNotFound
	case git.KindRejected:
		return ReasonPushRejected
	case git.KindPathConflict:
		return ReasonPathConflict
	case git.KindInvalidChange:
		return ReasonInvalidSpec
	case git.KindCertificate:
		return ReasonCertificateUntrusted
	case git.KindTransient, git.KindInvalid:
	}
	return ReasonInvalidConfig
}
