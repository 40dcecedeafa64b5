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
	"encoding/base64"
	"testing"

	"github.com/getsops/sops/v3/decrypt"
	"github.com/google/go-cmp/cmp"
)

const secretValue = "hunter2-correct-horse"

// secretYAML is a Secret as internal/manifest renders one.
var secretYAML = []byte(`apiVersion: v1
data:
  password: ` + base64.StdEncoding.EncodeToString([]byte(secretValue)) + `
kind: Secret
metadata:
  name: db
  namespace: app
stringData:
  token: ` + secretValue + `-token
type: Opaque
`)

func mustKeys(t testing.TB, recipients ...string) (*Keys, string) {
	t.Helper()
	id, _, err := GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKeys(id, recipients...)
	if err != nil {
		t.Fatal(err)
	}
	return k, id
}

// assertNoPlaintext fails when doc holds a secret value in any form a
// reader of the repository could use.
func assertNoPlaintext(t *testing.T, doc []byte) {
	t.Helper()
	for _, v := range []string{secretValue, base64.StdEncoding.EncodeToString([]byte(secretValue))} {
		if bytes.Contains(doc, []byte(v)) {
			t.Errorf("encrypted document holds the secret value %q in clear:\n%s", v, doc)
		}
	}
}

// TestEncryptDecryptsWithSOPS decrypts what Encrypt wrote through the SOPS
// library's own entry point, which finds the age identity the way the sops
// tool does (SOPS_AGE_KEY), for the provider's identity and for a second
// recipient (a Flux cluster's key).
func TestEncryptDecryptsWithSOPS(t *testing.T) {
	fluxID, fluxRecipient, err := GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	k, providerID := mustKeys(t, fluxRecipient)
	doc, err := Encrypt(k, secretYAML)
	if err != nil {
		t.Fatal(err)
	}
	assertNoPlaintext(t, doc)
	for _, want := range []string{"sops:", "mac: ENC[AES256_GCM,", "encrypted_regex: ^(data|stringData)$", k.PublicKey(), fluxRecipient, "name: db"} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("encrypted document lacks %q:\n%s", want, doc)
		}
	}
	for name, id := range map[string]string{"provider": providerID, "flux": fluxID} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("SOPS_AGE_KEY", id)
			got, err := decrypt.Data(doc, "yaml")
			if err != nil {
				t.Fatalf("sops decrypt: %v", err)
			}
			same, err := SameManifest(secretYAML, got)
			if err != nil || !same {
				t.Errorf("sops decrypt gave another manifest (err %v):\n%s", err, got)
			}
		})
	}
}

func TestDecrypt(t *testing.T) {
	k, _ := mustKeys(t)
	other, _ := mustKeys(t)
	doc, err := Encrypt(k, secretYAML)
	if err != nil {
		t.Fatal(err)
	}
	got, recipients, err := Decrypt(k, doc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(k.Recipients(), recipients); diff != "" {
		t.Errorf("Decrypt(...) recipients: -want, +got:\n%s", diff)
	}
	if same, _ := SameManifest(secretYAML, got); !same {
		t.Errorf("Decrypt(...) gave another manifest:\n%s", got)
	}
	if _, _, err := Decrypt(other, doc); err == nil {
		t.Error("Decrypt(...) with an identity that is not a recipient: want error, got none")
	}
	tampered := bytes.Replace(doc, []byte("name: db"), []byte("name: dc"), 1)
	if _, _, err := Decrypt(k, tampered); err == nil {
		t.Error("Decrypt(...) of a document whose clear-text metadata was edited: want MAC error, got none")
	}
}

func TestNewKeys(t *testing.T) {
	id, _, _ := GenerateIdentity()
	_, r1, _ := GenerateIdentity()
	own, _ := NewKeys(id)
	type want struct {
		recipients []string
		err        bool
	}
	cases := map[string]struct {
		reason     string
		identity   string
		recipients []string
		want       want
	}{
		"OwnOnly": {
			reason:   "The identity's recipient is always among the recipients.",
			identity: id,
			want:     want{recipients: []string{own.PublicKey()}},
		},
		"Deduplicated": {
			reason:     "The same recipient named twice, or the identity's own, is one recipient.",
			identity:   id,
			recipients: []string{r1, " " + r1 + "\n", own.PublicKey()},
			want:       want{recipients: sorted(own.PublicKey(), r1)},
		},
		"NoIdentity": {
			reason: "Without an identity the provider cannot tell a written file from a changed one.",
			want:   want{err: true},
		},
		"GarbledIdentity": {
			reason:   "An identity that is not an age X25519 key is refused.",
			identity: "AGE-SECRET-KEY-1NOTAKEY",
			want:     want{err: true},
		},
		"GarbledRecipient": {
			reason:     "A recipient that is not an age X25519 public key is refused.",
			identity:   id,
			recipients: []string{"age1notarecipient"},
			want:       want{err: true},
		},
		"SSHRecipient": {
			reason:     "SSH recipients are not supported: Flux decrypts with age keys.",
			identity:   id,
			recipients: []string{"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAn2b9kTtBrHGbBPL0nbdW9YMg2IX0l+V/3MJTTSFcpn"},
			want:       want{err: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k, err := NewKeys(tc.identity, tc.recipients...)
			if (err != nil) != tc.want.err {
				t.Fatalf("%s\nNewKeys(...): want error %t, got %v", tc.reason, tc.want.err, err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want.recipients, k.Recipients()); diff != "" {
				t.Errorf("%s\nNewKeys(...).Recipients(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func sorted(a, b string) []string {
	if a < b {
		return []string{a, b}
	}
	return []string{b, a}
}

func TestParseRecipients(t *testing.T) {
	got := ParseRecipients("# team keys\nage1aaa, age1bbb\n\nage1ccc # ci\r\n")
	if diff := cmp.Diff([]string{"age1aaa", "age1bbb", "age1ccc"}, got); diff != "" {
		t.Errorf("ParseRecipients(...): -want, +got:\n%s", diff)
	}
}
