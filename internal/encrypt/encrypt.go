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
// The format is the SOPS library's own (its YAML store, AES-GCM cipher, age
// master keys and MAC); this package only chooses what to encrypt (data and
// stringData, so a Secret's name and namespace stay readable in review) and
// supplies identities without reading the process environment.
package encrypt

import (
	"bytes"
	"crypto/rand"
	"slices"
	"strings"

	"filippo.io/age"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/getsops/sops/v3"
	sopsaes "github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/cmd/sops/common"
	"github.com/getsops/sops/v3/config"
	sopsyaml "github.com/getsops/sops/v3/stores/yaml"
	"github.com/getsops/sops/v3/version"
)

// EncryptedRegex selects the keys whose values are encrypted: a Secret's
// data and stringData, the expression Flux's documentation gives for
// Secrets. Everything else (kind, metadata) stays in clear text and is
// covered by the MAC.
const EncryptedRegex = "^(data|stringData)$"

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
	return &Keys{identity: id, recipients: slices.Compact(set)}, nil
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

// store is the SOPS YAML store with its default indentation.
func store() *sopsyaml.Store { return sopsyaml.NewStore(&config.YAMLStoreConfig{}) }

// Encrypt returns plain, a YAML manifest, as a SOPS document whose data and
// stringData values are encrypted to every recipient of k. The output is
// randomized (a fresh data key and nonces): use a Sealer to write a file
// only when its plaintext changed.
func Encrypt(k *Keys, plain []byte) ([]byte, error) {
	branches, err := store().LoadPlainFile(plain)
	if err != nil {
		return nil, errors.Wrap(err, errLoadPlain)
	}
	group := make(sops.KeyGroup, 0, len(k.recipients))
	for _, r := range k.recipients {
		group = append(group, &sopsage.MasterKey{Recipient: r})
	}
	tree := sops.Tree{Branches: branches, Metadata: sops.Metadata{
		KeyGroups:      []sops.KeyGroup{group},
		EncryptedRegex: EncryptedRegex,
		Version:        version.Version,
	}}
	dataKey := make([]byte, dataKeySize)
	if _, err := rand.Read(dataKey); err != nil {
		return nil, errors.Wrap(err, errDataKey)
	}
	// Each age master key wraps the data key itself: the SOPS key services
	// would do the same for age, through a process-wide identity lookup this
	// package does not need for encrypting.
	for _, mk := range group {
		if err := mk.Encrypt(dataKey); err != nil {
			return nil, errors.Wrap(err, errWrapKey)
		}
	}
	tree.Metadata.DataKey = dataKey
	if err := common.EncryptTree(common.EncryptTreeOpts{Tree: &tree, Cipher: sopsaes.NewCipher(), DataKey: dataKey}); err != nil {
		return nil, errors.Wrap(err, errEncrypt)
	}
	out, err := store().EmitEncryptedFile(tree)
	return out, errors.Wrap(err, errEmit)
}

// Decrypt returns the manifest doc holds, decrypted with k's identity after
// the MAC was checked, and the age recipients doc is encrypted to, sorted.
func Decrypt(k *Keys, doc []byte) (plain []byte, recipients []string, err error) {
	tree, err := store().LoadEncryptedFile(doc)
	if err != nil {
		return nil, nil, errors.Wrap(err, errLoadEncrypted)
	}
	if recipients, err = ageRecipients(tree.Metadata); err != nil {
		return nil, nil, err
	}
	ids := sopsage.ParsedIdentities{k.identity}
	var dataKey []byte
	for _, mk := range tree.Metadata.KeyGroups[0] {
		amk := mk.(*sopsage.MasterKey) //nolint:forcetypeassert // ageRecipients checked every key.
		ids.ApplyToMasterKey(amk)
		if dataKey, err = amk.Decrypt(); err == nil {
			break
		}
	}
	if dataKey == nil {
		return nil, recipients, errors.New(errUnwrapKey)
	}
	tree.Metadata.DataKey = dataKey
	if _, err := common.DecryptTree(common.DecryptTreeOpts{Tree: &tree, Cipher: sopsaes.NewCipher()}); err != nil {
		return nil, recipients, errors.Wrap(err, errDecrypt)
	}
	plain, err = store().EmitPlainFile(tree.Branches)
	return plain, recipients, errors.Wrap(err, errEmitPlain)
}

// ageRecipients returns the recipients of a document encrypted to one key
// group of age keys, which is all this package writes; anything else is an
// error, so the caller re-encrypts it.
func ageRecipients(m sops.Metadata) ([]string, error) {
	if len(m.KeyGroups) != 1 || len(m.KeyGroups[0]) == 0 {
		return nil, errors.New(errNotAgeKeyGroup)
	}
	out := make([]string, 0, len(m.KeyGroups[0]))
	for _, mk := range m.KeyGroups[0] {
		amk, ok := mk.(*sopsage.MasterKey)
		if !ok {
			return nil, errors.New(errNotAgeKeyGroup)
		}
		out = append(out, amk.Recipient)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// IsEncrypted reports whether b looks like a SOPS YAML document: a
// top-level sops key. It does not decrypt.
func IsEncrypted(b []byte) bool {
	return bytes.Contains(b, []byte("\nsops:")) || bytes.HasPrefix(b, []byte("sops:"))
}
