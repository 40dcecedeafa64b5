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

// Package encrypt writes Kubernetes manifests as SOPS documents encrypted to
// age recipients, the form Flux's kustomize-controller and the sops tool
// decrypt, and reads them back with the provider's own age identity. It
// knows nothing of Git or of the API server: a caller hands it the plaintext
// manifest and the bytes a file holds now, and gets the bytes to write.
//
// The SOPS document is written here, on filippo.io/age and the standard
// library, not with the SOPS library: that library links every key service
// it supports (the AWS, Azure, GCP, Vault and Huawei Cloud SDKs, gRPC and
// more), about a third of the binary, to write a format this package needs
// a few hundred lines for. The SOPS library stays in this package's tests,
// as the oracle that decrypts, and verifies the MAC of, everything written
// here. This package chooses what to encrypt (data and stringData, so a
// Secret's name and namespace stay readable in review) and supplies
// identities without reading the process environment.
package encrypt

import (
	"bytes"
	"crypto/rand"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"filippo.io/age"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"go.yaml.in/yaml/v3"
)

// EncryptedRegex selects the keys whose values are encrypted: a Secret's
// data and stringData, the expression Flux's documentation gives for
// Secrets. Everything else (kind, metadata) stays in clear text and is
// covered by the MAC.
const EncryptedRegex = "^(data|stringData)$"

var encryptedRegex = regexp.MustCompile(EncryptedRegex)

// dataKeySize is the size of a SOPS data key: AES-256.
const dataKeySize = 32

const (
	errNoIdentity     = "an age identity is required: the provider must be able to decrypt what it writes"
	errIdentity       = "cannot parse age identity (want one AGE-SECRET-KEY-1... line)"
	errRecipientFmt   = "cannot parse age recipient %q (want age1...)"
	errLoadPlain      = "cannot read the manifest to encrypt"
	errDataKey        = "cannot generate a SOPS data key"
	errWrapKey        = "cannot encrypt the SOPS data key to an age recipient"
	errEncrypt        = "cannot encrypt the manifest"
	errEmit           = "cannot write the SOPS document"
	errLoadEncrypted  = "not a SOPS document"
	errUnwrapKey      = "cannot decrypt the SOPS data key with the provider's age identity (was the file encrypted to another recipient set?)"
	errDecrypt        = "cannot decrypt the SOPS document"
	errEmitPlain      = "cannot write the decrypted manifest"
	errNotAgeKeyGroup = "the SOPS document is not encrypted to age recipients only"
)

// Keys are one configuration's age keys: the provider's identity, which it
// decrypts with, and every recipient a written file is encrypted to (the
// identity's own recipient among them). Keys are immutable.
type Keys struct {
	identity   *age.X25519Identity
	recipients []string
	// parsed are recipients, parsed, in the same order.
	parsed []age.Recipient
}

// NewKeys parses the provider's identity and the other recipients. The
// identity's recipient is always added: without it the provider could not
// tell a file it wrote from a changed one, and would re-encrypt, and commit,
// at every poll. Recipients are deduplicated and sorted, so the same set
// always compares equal.
func NewKeys(identity string, recipients ...string) (*Keys, error) {
	identity = strings.TrimSpace(identity)
	if identity == "" {
		return nil, errors.New(errNoIdentity)
	}
	id, err := age.ParseX25519Identity(identity)
	if err != nil {
		// age's error quotes nothing of the key; ours neither.
		return nil, errors.New(errIdentity)
	}
	set := []string{id.Recipient().String()}
	for _, r := range recipients {
		r = strings.TrimSpace(r)
		if _, err := age.ParseX25519Recipient(r); err != nil {
			return nil, errors.Wrapf(err, errRecipientFmt, r)
		}
		set = append(set, r)
	}
	slices.Sort(set)
	set = slices.Compact(set)
	parsed := make([]age.Recipient, 0, len(set))
	for _, r := range set {
		p, err := age.ParseX25519Recipient(r)
		if err != nil {
			return nil, errors.Wrapf(err, errRecipientFmt, r)
		}
		parsed = append(parsed, p)
	}
	return &Keys{identity: id, recipients: set, parsed: parsed}, nil
}

// ParseRecipients splits text holding age recipients, one or more per line
// separated by commas or spaces, with # comments: the form of an age
// recipients file and of a Secret key holding several.
func ParseRecipients(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		out = append(out, strings.FieldsFunc(line, func(r rune) bool {
			return r == ',' || r == ' ' || r == '\t' || r == '\r' || r == '\n'
		})...)
	}
	return out
}

// PublicKey is the recipient of the provider's identity.
func (k *Keys) PublicKey() string { return k.identity.Recipient().String() }

// Recipients is every recipient a file is encrypted to, sorted.
func (k *Keys) Recipients() []string { return slices.Clone(k.recipients) }

// GenerateIdentity returns a new age identity (AGE-SECRET-KEY-1...) and its
// recipient (age1...).
func GenerateIdentity() (identity, recipient string, err error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return "", "", err
	}
	return id.String(), id.Recipient().String(), nil
}

// Encrypt returns plain, a YAML manifest, as a SOPS document whose data and
// stringData values are encrypted to every recipient of k. The output is
// randomized (a fresh data key and nonces): use a Sealer to write a file
// only when its plaintext changed.
func Encrypt(k *Keys, plain []byte) ([]byte, error) {
	return encryptAt(k, plain, time.Now(), rand.Reader)
}

// encryptAt is Encrypt at the time now, with the randomness of random.
func encryptAt(k *Keys, plain []byte, now time.Time, random io.Reader) ([]byte, error) {
	docs, err := parseDocuments(plain)
	if err != nil {
		return nil, errors.Wrap(err, errLoadPlain)
	}
	dataKey := make([]byte, dataKeySize)
	if _, err := io.ReadFull(random, dataKey); err != nil {
		return nil, errors.Wrap(err, errDataKey)
	}
	c := valueCipher{key: dataKey, rand: random}
	r := rule{encryptedRegex: encryptedRegex}
	h := r.newMAC()
	seal := func(n *yaml.Node, path []string) (*yaml.Node, any, error) {
		v, err := scalarValue(n)
		if err != nil || v == nil || !r.encrypts(path) {
			// A null is neither encrypted nor covered by the MAC.
			return n, v, err
		}
		if _, err := macBytes(v, path); err != nil {
			return nil, nil, err
		}
		enc, err := c.encrypt(v, strings.Join(path, ":")+":")
		if err != nil {
			return nil, nil, err
		}
		out, err := valueNode(enc)
		return out, v, err
	}
	for _, root := range docs {
		if hasKey(root, metadataKey) {
			return nil, errors.New(errReserved)
		}
		if err := walk(root, nil, h, seal); err != nil {
			return nil, errors.Wrap(err, errEncrypt)
		}
	}
	keys, err := wrapDataKey(k, dataKey)
	if err != nil {
		return nil, err
	}
	lastModified := now.UTC().Format(time.RFC3339)
	mac, err := c.encrypt(macString(h), lastModified)
	if err != nil {
		return nil, errors.Wrap(err, errEncrypt)
	}
	md, err := metadataNode(keys, lastModified, mac)
	if err != nil {
		return nil, err
	}
	for _, root := range docs {
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: metadataKey}, md)
	}
	out, err := emit(docs)
	return out, errors.Wrap(err, errEmit)
}

// Decrypt returns the manifest doc holds, decrypted with k's identity after
// the MAC was checked, and the age recipients doc is encrypted to, sorted.
// It reads any SOPS YAML document encrypted to age recipients only, whoever
// wrote it, with any of SOPS's suffix and regex rules.
func Decrypt(k *Keys, doc []byte) (plain []byte, recipients []string, err error) {
	docs, err := parseDocuments(doc)
	if err != nil {
		return nil, nil, errors.Wrap(err, errLoadEncrypted)
	}
	md, err := takeMetadata(docs)
	if err != nil {
		return nil, nil, errors.Wrap(err, errLoadEncrypted)
	}
	if !md.ageOnly() {
		return nil, nil, errors.New(errNotAgeKeyGroup)
	}
	recipients = md.recipients()
	r, err := md.rule()
	if err != nil {
		return nil, recipients, errors.Wrap(err, errLoadEncrypted)
	}
	aad, err := md.macAAD()
	if err != nil {
		return nil, recipients, errors.Wrap(err, errLoadEncrypted)
	}
	dataKey, err := unwrapDataKey(k.identity, md.Age)
	if err != nil {
		return nil, recipients, err
	}
	c := valueCipher{key: dataKey}
	h := r.newMAC()
	open := func(n *yaml.Node, path []string) (*yaml.Node, any, error) {
		v, err := scalarValue(n)
		if err != nil || v == nil {
			return n, nil, err
		}
		if !r.encrypts(path) {
			if r.macOnlyEncrypted {
				return n, nil, nil
			}
			return n, v, nil
		}
		s, ok := v.(string)
		if !ok {
			return nil, nil, errors.New(errValueFmt)
		}
		if v, err = c.decrypt(s, strings.Join(path, ":")+":"); err != nil {
			return nil, nil, err
		}
		out, err := valueNode(v)
		return out, v, err
	}
	for _, root := range docs {
		if err := walk(root, nil, h, open); err != nil {
			return nil, recipients, errors.Wrap(err, errDecrypt)
		}
	}
	mac, err := c.decrypt(md.MAC, aad)
	if err != nil {
		return nil, recipients, errors.Wrap(err, errDecrypt)
	}
	if want, ok := mac.(string); !ok || want != macString(h) {
		return nil, recipients, errors.New(errMAC)
	}
	plain, err = emit(docs)
	return plain, recipients, errors.Wrap(err, errEmitPlain)
}

// hasKey reports whether the mapping m has the key k.
func hasKey(m *yaml.Node, k string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == k {
			return true
		}
	}
	return false
}

// IsEncrypted reports whether b looks like a SOPS YAML document: a
// top-level sops key. It does not decrypt.
func IsEncrypted(b []byte) bool {
	return bytes.Contains(b, []byte("\nsops:")) || bytes.HasPrefix(b, []byte("sops:"))
}
