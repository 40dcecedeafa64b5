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

package encrypt

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"filippo.io/age"
	"filippo.io/age/armor"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"go.yaml.in/yaml/v3"
)

// The sops metadata block, appended to every document as its top-level sops
// key: the data key encrypted to each age recipient (an armored age file),
// the rule choosing what is encrypted, the time of the encryption (the MAC's
// authenticated data), the MAC, and the SOPS version whose format it is.

const (
	errMetadata      = "cannot read the sops metadata block"
	errNoMetadata    = "the document has no sops metadata block"
	errRulesFmt      = "the sops metadata sets %d encryption rules; SOPS allows one"
	errCommentRule   = "SOPS comment encryption rules are not supported"
	errRegexFmt      = "cannot compile the sops metadata's %s"
	errLastModified  = "cannot parse the sops metadata's lastmodified time"
	errMAC           = "the SOPS document's MAC does not match its content"
	errDataKeyLength = "the SOPS data key is not 32 bytes"
)

// formatVersion is the SOPS release whose document format this package
// writes, recorded in each document's metadata as the sops tool records its
// own.
const formatVersion = "3.13.3"

// ageKey is one recipient's copy of the data key.
type ageKey struct {
	Recipient string `yaml:"recipient"`
	Enc       string `yaml:"enc"`
}

// metadata is the sops block as it is read. Key sources other than age,
// and key groups, are read only to refuse them.
type metadata struct {
	Age                     []ageKey `yaml:"age"`
	KeyGroups               []any    `yaml:"key_groups"`
	KMS                     []any    `yaml:"kms"`
	GCPKMS                  []any    `yaml:"gcp_kms"`
	HCKMS                   []any    `yaml:"hckms"`
	AzureKV                 []any    `yaml:"azure_kv"`
	HCVault                 []any    `yaml:"hc_vault"`
	PGP                     []any    `yaml:"pgp"`
	ShamirThreshold         int      `yaml:"shamir_threshold"`
	LastModified            string   `yaml:"lastmodified"`
	MAC                     string   `yaml:"mac"`
	UnencryptedSuffix       string   `yaml:"unencrypted_suffix"`
	EncryptedSuffix         string   `yaml:"encrypted_suffix"`
	UnencryptedRegex        string   `yaml:"unencrypted_regex"`
	EncryptedRegex          string   `yaml:"encrypted_regex"`
	UnencryptedCommentRegex string   `yaml:"unencrypted_comment_regex"`
	EncryptedCommentRegex   string   `yaml:"encrypted_comment_regex"`
	MACOnlyEncrypted        bool     `yaml:"mac_only_encrypted"`
	Version                 string   `yaml:"version"`
}

// ageOnly reports whether the data key is encrypted to age recipients only,
// in one key group: all this package writes.
func (m metadata) ageOnly() bool {
	return len(m.Age) > 0 && len(m.KeyGroups)+len(m.KMS)+len(m.GCPKMS)+len(m.HCKMS)+len(m.AzureKV)+len(m.HCVault)+len(m.PGP) == 0
}

// recipients is every age recipient the data key is encrypted to, sorted.
func (m metadata) recipients() []string {
	out := make([]string, 0, len(m.Age))
	for _, a := range m.Age {
		out = append(out, a.Recipient)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rule is the metadata's encryption rule, as SOPS reads it.
func (m metadata) rule() (rule, error) {
	r := rule{macOnlyEncrypted: m.MACOnlyEncrypted}
	if m.UnencryptedCommentRegex != "" || m.EncryptedCommentRegex != "" {
		return r, errors.New(errCommentRule)
	}
	set := 0
	for _, s := range []string{m.UnencryptedSuffix, m.EncryptedSuffix, m.UnencryptedRegex, m.EncryptedRegex} {
		if s != "" {
			set++
		}
	}
	var err error
	switch {
	case set > 1:
		return r, errors.Errorf(errRulesFmt, set)
	case m.EncryptedRegex != "":
		r.encryptedRegex, err = regexp.Compile(m.EncryptedRegex)
		err = errors.Wrapf(err, errRegexFmt, "encrypted_regex")
	case m.UnencryptedRegex != "":
		r.unencryptedRegex, err = regexp.Compile(m.UnencryptedRegex)
		err = errors.Wrapf(err, errRegexFmt, "unencrypted_regex")
	case m.EncryptedSuffix != "":
		r.encryptedSuffix = m.EncryptedSuffix
	case m.UnencryptedSuffix != "":
		r.unencryptedSuffix = m.UnencryptedSuffix
	default:
		// SOPS's default.
		r.unencryptedSuffix = "_unencrypted"
	}
	return r, err
}

// macAAD is the MAC's authenticated data: lastmodified, read and written
// again as RFC 3339, as SOPS does.
func (m metadata) macAAD() (string, error) {
	t, err := time.Parse(time.RFC3339, m.LastModified)
	if err != nil {
		return "", errors.Wrap(err, errLastModified)
	}
	return t.Format(time.RFC3339), nil
}

// takeMetadata removes the sops key from every document and returns the
// first document's.
func takeMetadata(docs []*yaml.Node) (metadata, error) {
	var md metadata
	found := false
	for i, root := range docs {
		for j := 0; j+1 < len(root.Content); j += 2 {
			if k := root.Content[j]; k.Kind != yaml.ScalarNode || k.Value != metadataKey {
				continue
			}
			if i == 0 && !found {
				found = true
				if err := root.Content[j+1].Decode(&md); err != nil {
					return md, errors.Wrap(err, errMetadata)
				}
			}
			root.Content = slices.Delete(root.Content, j, j+2)
			j -= 2
		}
	}
	if !found {
		return md, errors.New(errNoMetadata)
	}
	return md, nil
}

// metadataNode is the sops block this package writes: age recipients, the
// encrypted_regex rule, lastmodified, the encrypted MAC and the version,
// keys sorted as the sops tool writes them.
func metadataNode(keys []ageKey, lastModified, mac string) (*yaml.Node, error) {
	ages := make([]map[string]string, 0, len(keys))
	for _, a := range keys {
		ages = append(ages, map[string]string{"enc": a.Enc, "recipient": a.Recipient})
	}
	n := &yaml.Node{}
	err := n.Encode(struct {
		Age            []map[string]string `yaml:"age"`
		EncryptedRegex string              `yaml:"encrypted_regex"`
		LastModified   string              `yaml:"lastmodified"`
		MAC            string              `yaml:"mac"`
		Version        string              `yaml:"version"`
	}{Age: ages, EncryptedRegex: EncryptedRegex, LastModified: lastModified, MAC: mac, Version: formatVersion})
	return n, errors.Wrap(err, errEmit)
}

// wrapDataKey encrypts the data key to each recipient, each its own armored
// age file, as the sops tool does.
func wrapDataKey(k *Keys, dataKey []byte) ([]ageKey, error) {
	out := make([]ageKey, 0, len(k.recipients))
	for i, r := range k.parsed {
		var b bytes.Buffer
		aw := armor.NewWriter(&b)
		w, err := age.Encrypt(aw, r)
		if err != nil {
			return nil, errors.Wrap(err, errWrapKey)
		}
		if _, err := w.Write(dataKey); err != nil {
			return nil, errors.Wrap(err, errWrapKey)
		}
		if err := w.Close(); err != nil {
			return nil, errors.Wrap(err, errWrapKey)
		}
		if err := aw.Close(); err != nil {
			return nil, errors.Wrap(err, errWrapKey)
		}
		out = append(out, ageKey{Recipient: k.recipients[i], Enc: b.String()})
	}
	return out, nil
}

// unwrapDataKey decrypts the data key with the identity, from the first
// copy it can open.
func unwrapDataKey(id age.Identity, keys []ageKey) ([]byte, error) {
	for _, a := range keys {
		r, err := age.Decrypt(armor.NewReader(strings.NewReader(a.Enc)), id)
		if err != nil {
			continue
		}
		// A data key is 32 bytes; anything much larger is not one.
		key, err := io.ReadAll(io.LimitReader(r, dataKeySize+1))
		if err != nil {
			continue
		}
		if len(key) != dataKeySize {
			return nil, errors.New(errDataKeyLength)
		}
		return key, nil
	}
	return nil, errors.New(errUnwrapKey)
}
