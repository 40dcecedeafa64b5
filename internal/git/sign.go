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
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/crypto/ssh"
)

const (
	errSigningKeyParse = "cannot parse the signing key: it must be an unencrypted ed25519 private key in OpenSSH format"
	errSigningKeyType  = "the signing key must be an ed25519 key"
	errSign            = "cannot sign commit"
	errGenerateKey     = "cannot generate signing key"
)

// Signer signs the commits the engine makes. Sign has the shape of go-git's
// own commit signing hook (CommitOptions.Signer): message is the commit
// encoded without its signature header, the result is the armored signature
// git stores in the commit's gpgsig header.
type Signer interface {
	Sign(message io.Reader) ([]byte, error)
	// PublicKey names the key, as an authorized_keys line. It is part of a
	// Remote's cache identity: configurations that sign with different keys,
	// or one signing and one not, never share a clone and so never a commit.
	PublicKey() string
}

// The SSH signature format (OpenSSH's PROTOCOL.sshsig), as git writes and
// verifies it with gpg.format=ssh.
const (
	sshsigMagic     = "SSHSIG"
	sshsigVersion   = 1
	sshsigNamespace = "git" // what git passes to ssh-keygen -Y sign -n
	sshsigHash      = "sha512"
	sshsigArmorHead = "-----BEGIN SSH SIGNATURE-----"
	sshsigArmorTail = "-----END SSH SIGNATURE-----"
	// sshsigLineLen is the armor's line length, as ssh-keygen writes it.
	sshsigLineLen = 70
)

// SSHSigner signs commits with an ed25519 key in the SSH signature format.
type SSHSigner struct {
	key ssh.Signer
	pub string
}

// NewSSHSigner parses an unencrypted ed25519 private key in OpenSSH (or
// PKCS#8 PEM) format. Other key types are refused: ed25519 is the one type
// every forge accepts for SSH signing and whose signatures need no choice of
// hash. Errors never include key material.
func NewSSHSigner(privateKey []byte) (*SSHSigner, error) {
	k, err := ssh.ParseRawPrivateKey(privateKey)
	if err != nil {
		return nil, newError(KindInvalid, errSigningKeyParse)
	}
	var ed ed25519.PrivateKey
	switch v := k.(type) {
	case ed25519.PrivateKey:
		ed = v
	case *ed25519.PrivateKey:
		ed = *v
	default:
		return nil, newError(KindInvalid, errSigningKeyType)
	}
	s, err := ssh.NewSignerFromKey(ed)
	if err != nil {
		return nil, newError(KindInvalid, errSigningKeyParse)
	}
	pub := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.PublicKey())))
	return &SSHSigner{key: s, pub: pub}, nil
}

// GenerateSSHKey returns a fresh ed25519 private key in OpenSSH format and
// its public key as an authorized_keys line ending in comment.
func GenerateSSHKey(comment string) (privateKey []byte, publicKey string, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", errGenerateKey, err)
	}
	block, err := ssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", errGenerateKey, err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", errGenerateKey, err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sp)))
	if comment != "" {
		line += " " + comment
	}
	return pem.EncodeToMemory(block), line, nil
}

// PublicKey returns the signer's public key as an authorized_keys line
// (without comment): what a user registers on their forge.
func (s *SSHSigner) PublicKey() string { return s.pub }

// Sign returns the armored SSH signature of message in namespace "git".
func (s *SSHSigner) Sign(message io.Reader) ([]byte, error) {
	h := sha512.New()
	if _, err := io.Copy(h, message); err != nil {
		return nil, fmt.Errorf("%s: %w", errSign, err)
	}
	// The signed data: magic, then the namespace, reserved, hash algorithm
	// and digest as SSH strings.
	signed := append([]byte(sshsigMagic), ssh.Marshal(struct {
		Namespace string
		Reserved  string
		Hash      string
		Digest    []byte
	}{sshsigNamespace, "", sshsigHash, h.Sum(nil)})...)
	sig, err := s.key.Sign(rand.Reader, signed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errSign, err)
	}
	blob := append([]byte(sshsigMagic), ssh.Marshal(struct {
		Version   uint32
		PublicKey []byte
		Namespace string
		Reserved  string
		Hash      string
		Signature []byte
	}{sshsigVersion, s.key.PublicKey().Marshal(), sshsigNamespace, "", sshsigHash, ssh.Marshal(sig)})...)
	return armor(blob), nil
}

// armor wraps blob in the SSH signature armor, base64 in lines of
// sshsigLineLen.
func armor(blob []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(blob)
	var b bytes.Buffer
	b.WriteString(sshsigArmorHead + "\n")
	for len(enc) > sshsigLineLen {
		b.WriteString(enc[:sshsigLineLen] + "\n")
		enc = enc[sshsigLineLen:]
	}
	b.WriteString(enc + "\n")
	b.WriteString(sshsigArmorTail + "\n")
	return b.Bytes()
}

// signCommit sets c's signature when s is not nil. Every commit the engine
// builds goes through here before it is stored, so none can leave unsigned
// from a repository that has a signer.
func signCommit(s Signer, c *object.Commit) error {
	if s == nil {
		return nil
	}
	enc := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(enc); err != nil {
		return fmt.Errorf("%s: %w", errSign, err)
	}
	rd, err := enc.Reader()
	if err != nil {
		return fmt.Errorf("%s: %w", errSign, err)
	}
	sig, err := s.Sign(rd)
	if err != nil {
		return err
	}
	c.PGPSignature = string(sig)
	return nil
}
