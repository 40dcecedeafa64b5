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

// The SOPS library is this package's oracle, in tests only (a _test.go
// import is not linked into the provider): it decrypts, and checks the MAC
// of, what this package writes, the way the sops tool and Flux's
// kustomize-controller do, and it writes the documents this package must
// read (those of the sops tool, and of provider releases that wrote with
// the library).

import (
	"crypto/rand"
	"errors"
	"testing"

	"github.com/getsops/sops/v3"
	sopsaes "github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/cmd/sops/common"
	"github.com/getsops/sops/v3/config"
	sopsyaml "github.com/getsops/sops/v3/stores/yaml"
	"github.com/getsops/sops/v3/version"
)

func sopsStore() *sopsyaml.Store { return sopsyaml.NewStore(&config.YAMLStoreConfig{}) }

// sopsDecrypt decrypts doc with the age identity id through the SOPS
// library, MAC checked, as kustomize-controller does: the identity is
// applied to each age master key, then the tree is decrypted.
func sopsDecrypt(t testing.TB, id string, doc []byte) ([]byte, error) {
	t.Helper()
	tree, err := sopsStore().LoadEncryptedFile(doc)
	if err != nil {
		return nil, err
	}
	var parsed sopsage.ParsedIdentities
	if err := parsed.Import(id); err != nil {
		t.Fatal(err)
	}
	// The data key from the first age master key the identity opens, as
	// kustomize-controller's key service does.
	var key []byte
	for _, g := range tree.Metadata.KeyGroups {
		for _, mk := range g {
			amk, ok := mk.(*sopsage.MasterKey)
			if !ok || key != nil {
				continue
			}
			parsed.ApplyToMasterKey(amk)
			if k, err := amk.Decrypt(); err == nil {
				key = k
			}
		}
	}
	if key == nil {
		return nil, errors.New("sops: no age master key opens with the identity")
	}
	tree.Metadata.DataKey = key
	if _, err := common.DecryptTree(common.DecryptTreeOpts{Tree: &tree, Cipher: sopsaes.NewCipher()}); err != nil {
		return nil, err
	}
	return sopsStore().EmitPlainFile(tree.Branches)
}

// sopsRule is one of the encryption rules the sops tool writes.
type sopsRule struct {
	encryptedRegex, unencryptedRegex, encryptedSuffix, unencryptedSuffix string
	macOnlyEncrypted                                                     bool
}

// sopsEncrypt encrypts plain to k's recipients through the SOPS library
// with rule r: what earlier provider releases wrote (encrypted_regex), and
// what the sops tool writes with its other rules.
func sopsEncrypt(t *testing.T, k *Keys, plain []byte, r sopsRule) []byte {
	t.Helper()
	branches, err := sopsStore().LoadPlainFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	group := make(sops.KeyGroup, 0, len(k.recipients))
	for _, rc := range k.recipients {
		group = append(group, &sopsage.MasterKey{Recipient: rc})
	}
	tree := sops.Tree{Branches: branches, Metadata: sops.Metadata{
		KeyGroups:         []sops.KeyGroup{group},
		EncryptedRegex:    r.encryptedRegex,
		UnencryptedRegex:  r.unencryptedRegex,
		EncryptedSuffix:   r.encryptedSuffix,
		UnencryptedSuffix: r.unencryptedSuffix,
		MACOnlyEncrypted:  r.macOnlyEncrypted,
		Version:           version.Version,
	}}
	dataKey := make([]byte, dataKeySize)
	if _, err := rand.Read(dataKey); err != nil {
		t.Fatal(err)
	}
	for _, mk := range group {
		if err := mk.Encrypt(dataKey); err != nil {
			t.Fatal(err)
		}
	}
	tree.Metadata.DataKey = dataKey
	if err := common.EncryptTree(common.EncryptTreeOpts{Tree: &tree, Cipher: sopsaes.NewCipher(), DataKey: dataKey}); err != nil {
		t.Fatal(err)
	}
	out, err := sopsStore().EmitEncryptedFile(tree)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// oldProvider is the rule provider releases that wrote with the SOPS
// library used, and this package still writes.
var oldProvider = sopsRule{encryptedRegex: EncryptedRegex}
