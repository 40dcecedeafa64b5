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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// VerifyCommit runs the git CLI's verify-commit on sha with SSH signatures
// trusted for publicKey (an authorized_keys line) under any identity, as a
// user does after registering the provider's key. It returns git's error
// and output when the signature is missing, bad or made by another key.
func (r *BareRepo) VerifyCommit(tb testing.TB, sha, publicKey string) error {
	tb.Helper()
	f := filepath.Join(tb.TempDir(), "allowed_signers")
	if err := os.WriteFile(f, []byte(`* namespaces="git" `+publicKey+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.CommandContext(tb.Context(), "git", "-c", "gpg.format=ssh", "-c", "gpg.ssh.allowedSignersFile="+f, "verify-commit", "--raw", sha)
	cmd.Dir = r.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return errors.Wrap(err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Tamper stores a copy of commit sha whose message is replaced and whose
// signature header is kept, and returns the copy's SHA: what an attacker
// who rewrote a signed commit would push.
func (r *BareRepo) Tamper(tb testing.TB, sha, message string) string {
	tb.Helper()
	raw, err := Git(r.Dir, nil, "cat-file", "commit", sha)
	if err != nil {
		tb.Fatal(err)
	}
	head, _, ok := strings.Cut(raw, "\n\n")
	if !ok || !strings.Contains(head, "\ngpgsig ") {
		tb.Fatalf("commit %s has no signature to keep", sha)
	}
	cmd := exec.CommandContext(tb.Context(), "git", "hash-object", "-t", "commit", "-w", "--stdin")
	cmd.Dir = r.Dir
	cmd.Stdin = strings.NewReader(head + "\n\n" + message + "\n")
	out, err := cmd.Output()
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
