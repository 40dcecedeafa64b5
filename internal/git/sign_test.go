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
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func newSigner(t *testing.T) *SSHSigner {
	t.Helper()
	priv, pub, err := GenerateSSHKey("provider-git")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSSHSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pub, s.PublicKey()+" ") {
		t.Fatalf("GenerateSSHKey public key %q does not match the parsed key %q", pub, s.PublicKey())
	}
	return s
}

// TestSSHSignatureVerifiesWithSSHKeygen checks the signature format on its
// own, against OpenSSH's verifier: what git runs for gpg.format=ssh.
func TestSSHSignatureVerifiesWithSSHKeygen(t *testing.T) {
	t.Parallel()
	s := newSigner(t)
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed_signers")
	if err := os.WriteFile(allowed, []byte("bot@example.org "+s.PublicKey()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	msg := []byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nhello\n")
	sig, err := s.Sign(bytes.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	sigFile := filepath.Join(dir, "msg.sig")
	if err := os.WriteFile(sigFile, sig, 0o600); err != nil {
		t.Fatal(err)
	}
	verify := func(namespace string, data []byte) error {
		cmd := exec.CommandContext(ctx(t), "ssh-keygen", "-Y", "verify", "-f", allowed, "-I", "bot@example.org", "-n", namespace, "-s", sigFile)
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("ssh-keygen: %s", out)
		}
		return err
	}
	if err := verify("git", msg); err != nil {
		t.Errorf("ssh-keygen -Y verify of our signature: %v", err)
	}
	if err := verify("git", append(msg, 'x')); err == nil {
		t.Error("ssh-keygen accepted the signature for other data")
	}
	if err := verify("file", msg); err == nil {
		t.Error("ssh-keygen accepted the signature in another namespace")
	}
}

func TestNewSSHSignerRefusesOtherKeys(t *testing.T) {
	t.Parallel()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	ecdsaPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	cases := map[string]struct {
		reason string
		key    []byte
		want   string
	}{
		"ECDSA":   {reason: "Only ed25519 keys sign.", key: ecdsaPEM, want: errSigningKeyType},
		"Garbage": {reason: "Unreadable bytes are refused without echoing them.", key: []byte("not-a-key-SECRET"), want: errSigningKeyParse},
		"Empty":   {reason: "An empty key is unreadable.", key: nil, want: errSigningKeyParse},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewSSHSigner(tc.key)
			if err == nil {
				t.Fatalf("%s\nNewSSHSigner: no error", tc.reason)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("%s\nNewSSHSigner error: -want, +got:\n%s", tc.reason, diff)
			}
			if KindOf(err) != KindInvalid {
				t.Errorf("%s\nKindOf = %v, want KindInvalid", tc.reason, KindOf(err))
			}
		})
	}
}

// TestEveryCommitIsSigned pushes each kind of commit the engine makes from a
// repository with a signer and verifies each with git verify-commit: a
// batch, an own commit, the first commit of an empty repository, and a
// batch rebuilt after a foreign push won the race. A commit whose message
// was rewritten under the same signature fails.
func TestEveryCommitIsSigned(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	signer := newSigner(t)
	remote := s.remote
	remote.Signer = signer
	r, _ := newRepo(t, remote, WithCommitWindow(50*time.Millisecond))
	start := s.repo.Head(t, "main")

	res := submitInOrder(t, r, "main", []Change{
		putChange("batch/a", "a"), putChange("batch/b", "b"),
		{Puts: map[string]File{"own/c": {Content: []byte("c")}}, Message: "own commit", OwnCommit: true,
			Resource: Resource{Kind: "CommitRequest", Namespace: "ns", Name: "c", UID: "uid-c"}},
	})
	for i, x := range res {
		if x.Err != nil {
			t.Fatalf("change %d: %v", i, x.Err)
		}
	}

	// A foreign commit lands after the clone last looked: the next batch is
	// built on a stale head, refused, and rebuilt on the foreign commit.
	foreign, err := s.repo.Commit("main", testenv.CommitSpec{Message: "foreign", Files: map[string]string{"foreign": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	rebased := r.Submit(ctx(t), "main", putChange("after/race", "r"))
	if rebased.Err != nil {
		t.Fatal(rebased.Err)
	}
	log := s.repo.Log(t, "main")
	if log[0].SHA != rebased.Commit || len(log[0].Parents) != 1 || log[0].Parents[0] != foreign {
		t.Fatalf("the change after the race is %s with parents %v, want a commit on the foreign %s", log[0].SHA, log[0].Parents, foreign)
	}

	var ours int
	for _, e := range log {
		if e.SHA == start {
			break
		}
		err := s.repo.VerifyCommit(t, e.SHA, signer.PublicKey())
		switch {
		case e.SHA == foreign && err == nil:
			t.Errorf("the unsigned foreign commit %s verified", e.SHA[:7])
		case e.SHA != foreign && err != nil:
			t.Errorf("commit %s (%q): verify-commit: %v", e.SHA[:7], e.Message, err)
		case e.SHA != foreign:
			ours++
		}
	}
	if ours < 3 {
		t.Errorf("verified %d commits of ours, want at least 3 (batch, own commit, rebased)", ours)
	}

	tampered := s.repo.Tamper(t, rebased.Commit, "a message the provider never signed")
	if err := s.repo.VerifyCommit(t, tampered, signer.PublicKey()); err == nil {
		t.Error("verify-commit accepted a commit whose message was rewritten")
	}
	other := newSigner(t)
	if err := s.repo.VerifyCommit(t, rebased.Commit, other.PublicKey()); err == nil {
		t.Error("verify-commit accepted our commit for another key")
	}
}

func TestFirstCommitOfEmptyRepositoryIsSigned(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	h := testenv.NewHTTPServer(t, root, testUser, testToken)
	signer := newSigner(t)
	for name, do := range map[string]func(r *Repository) Result{
		"Branch": func(r *Repository) Result { return r.CreateBranch(ctx(t), "main", "") },
		"Change": func(r *Repository) Result { return r.Submit(ctx(t), "first", putChange("a", "a")) },
	} {
		t.Run(name, func(t *testing.T) {
			sub := testenv.NewBareRepo(t, root, strings.ToLower(name)+".git", nil)
			remote := Remote{URL: h.RepoURL(sub.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}, Signer: signer}
			r, _ := newRepo(t, remote)
			res := do(r)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			log := sub.Log(t, res.Commit)
			if len(log) != 1 || len(log[0].Parents) != 0 {
				t.Fatalf("want one root commit, got %+v", log)
			}
			if err := sub.VerifyCommit(t, res.Commit, signer.PublicKey()); err != nil {
				t.Errorf("first commit: verify-commit: %v", err)
			}
		})
	}
}

func TestSignerIsPartOfTheCloneIdentity(t *testing.T) {
	t.Parallel()
	priv, _, err := GenerateSSHKey("")
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewSSHSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	again, err := NewSSHSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("k")
	plain := Remote{URL: "https://h/r.git"}
	withA, withA2, withB := plain, plain, plain
	withA.Signer, withA2.Signer, withB.Signer = a, again, newSigner(t)
	if plain.identity(key) == withA.identity(key) {
		t.Error("a signing remote shares the clone of an unsigned one")
	}
	if withA.identity(key) == withB.identity(key) {
		t.Error("remotes signing with different keys share a clone")
	}
	if withA.identity(key) != withA2.identity(key) {
		t.Error("the same key parsed twice gives two clones")
	}
}

// BenchmarkCommitSigning is the cost signing adds to building a commit: the
// unsigned encoding is the baseline, measured in the same run.
func BenchmarkCommitSigning(b *testing.B) {
	priv, _, err := GenerateSSHKey("")
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSSHSigner(priv)
	if err != nil {
		b.Fatal(err)
	}
	c := &object.Commit{Message: "Apply 100 changes\n\n" + strings.Repeat("- File/ns/name: Update apps/x.yaml\n", 100),
		Author: object.Signature{Name: "Bot", Email: "bot@example.org", When: time.Now()}}
	c.Committer = c.Author
	for name, signer := range map[string]Signer{"Unsigned": nil, "SSHEd25519": s} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				c.PGPSignature = ""
				if err := signCommit(signer, c); err != nil {
					b.Fatal(err)
				}
				if _, err := storeObject(newOverlay(nil), c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
