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
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// manifests are the shapes a Secret reaches the encoder in: what
// internal/manifest renders, and nestings of it.
var manifests = map[string][]byte{
	"Secret": secretYAML,
	"BinaryUnicodeEmpty": []byte(`apiVersion: v1
data:
  bin: ` + base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 0xfe, 0xff, '\n', ':'}) + `
  empty: ""
kind: Secret
metadata:
  name: odd
stringData:
  "123": "123"
  "a:b": colon in the key
  multi: |
    line one
    line two
  number-like: "0x1F"
  null-like: "null"
  true-like: "true"
  unicode: "pässwörd 🔑 \u00a0"
type: Opaque
`),
	"List": []byte(`apiVersion: v1
items:
- apiVersion: v1
  data:
    password: aHVudGVyMg==
  kind: Secret
  metadata:
    name: one
- apiVersion: v1
  kind: Secret
  metadata:
    name: two
  stringData:
    token: t0ken
kind: List
`),
	"DataKeyElsewhere": []byte(`apiVersion: v1
data:
  a: YQ==
kind: Secret
metadata:
  labels:
    data: "a label named data: encrypted, by SOPS's rule"
  name: labelled
`),
	"ScalarTypes": []byte(`apiVersion: v1
data:
  bool: true
  float: 2.5
  int: 42
  list: [1, "two", false]
  "null": null
kind: Secret
metadata:
  name: typed
  generation: 3
`),
	"Empty": []byte(`apiVersion: v1
data: {}
kind: Secret
metadata:
  name: empty
stringData: {}
`),
	"TwoDocuments": []byte(`apiVersion: v1
kind: Secret
metadata:
  name: first
stringData:
  a: one
---
apiVersion: v1
kind: Secret
metadata:
  name: second
stringData:
  b: two
`),
}

// TestEncryptOracle decrypts what Encrypt writes with the SOPS library, MAC
// checked, and with Decrypt, for every shape and for the provider's identity
// and another recipient's.
func TestEncryptOracle(t *testing.T) {
	otherID, otherRecipient, err := GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	k, id := mustKeys(t, otherRecipient)
	for name, plain := range manifests {
		t.Run(name, func(t *testing.T) {
			doc, err := Encrypt(k, plain)
			if err != nil {
				t.Fatalf("Encrypt(...): %v", err)
			}
			for who, identity := range map[string]string{"provider": id, "other": otherID} {
				got, err := sopsDecrypt(t, identity, doc)
				if err != nil {
					t.Fatalf("SOPS library decrypting as %s: %v\n%s", who, err, doc)
				}
				if same, err := SameManifest(plain, got); err != nil || !same {
					t.Errorf("SOPS library decrypting as %s gave another manifest (err %v):\n%s", who, err, got)
				}
			}
			got, recipients, err := Decrypt(k, doc)
			if err != nil {
				t.Fatalf("Decrypt(Encrypt(...)): %v", err)
			}
			if same, err := SameManifest(plain, got); err != nil || !same {
				t.Errorf("Decrypt(Encrypt(...)) gave another manifest (err %v):\n%s", err, got)
			}
			if diff := cmp.Diff(k.Recipients(), recipients); diff != "" {
				t.Errorf("Decrypt(Encrypt(...)) recipients: -want, +got:\n%s", diff)
			}
		})
	}
}

// encRE matches a SOPS encrypted value; its type is kept by shape.
var encRE = regexp.MustCompile(`^ENC\[AES256_GCM,data:[^,]+,iv:[^,]+,tag:[^,]+,type:(\w+)\]$`)

// shape is a document with its randomness masked: each encrypted value
// becomes its type, and the sops block's key copies, time and version
// placeholders (the oracle's version moves with its releases; the format
// does not). Two documents of one shape encrypt the same values, with the
// same types, under the same metadata.
func shape(t *testing.T, doc []byte) []any {
	t.Helper()
	var out []any
	for _, part := range bytes.Split(doc, []byte("\n---\n")) {
		var v any
		if err := yaml.Unmarshal(part, &v); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		m, _ := v.(map[string]any)
		if md, ok := m[metadataKey].(map[string]any); ok {
			md["lastmodified"], md["version"] = "TIME", "VERSION"
			for _, a := range md["age"].([]any) {
				a.(map[string]any)["enc"] = "AGE"
			}
		}
		out = append(out, mask(v))
	}
	return out
}

func mask(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = mask(e)
		}
	case []any:
		for i, e := range v {
			v[i] = mask(e)
		}
	case string:
		if m := encRE.FindStringSubmatch(v); m != nil {
			return "ENC:" + m[1]
		}
	}
	return v
}

// TestEncryptAsSOPS checks that Encrypt writes what the SOPS library wrote
// for the provider before: the same values encrypted, with the same types,
// the same values in clear text, the same sops block.
func TestEncryptAsSOPS(t *testing.T) {
	k, _ := mustKeys(t)
	for name, plain := range manifests {
		t.Run(name, func(t *testing.T) {
			ours, err := Encrypt(k, plain)
			if err != nil {
				t.Fatal(err)
			}
			theirs := sopsEncrypt(t, k, plain, oldProvider)
			if diff := cmp.Diff(shape(t, theirs), shape(t, ours)); diff != "" {
				t.Errorf("Encrypt(...) and the SOPS library differ: -SOPS, +Encrypt:\n%s\nEncrypt wrote:\n%s", diff, ours)
			}
		})
	}
}

// TestDecryptReadsSOPS reads documents the SOPS library wrote, with the rule
// earlier provider releases used and with the sops tool's other rules: an
// unchanged Secret written by either is kept, not committed again.
func TestDecryptReadsSOPS(t *testing.T) {
	plain := []byte(`apiVersion: v1
kind: Secret
metadata:
  name: db
stringData:
  password: hunter2
  note_unencrypted: left in clear by the default rule
  token_enc: encrypted by the suffix rule
`)
	rules := map[string]sopsRule{
		"EarlierProvider":    oldProvider,
		"DefaultSuffix":      {unencryptedSuffix: "_unencrypted"},
		"UnencryptedRegex":   {unencryptedRegex: "^(apiVersion|kind|metadata)$"},
		"EncryptedSuffix":    {encryptedSuffix: "_enc"},
		"MACOnlyEncrypted":   {encryptedRegex: EncryptedRegex, macOnlyEncrypted: true},
		"NoRuleEncryptsAll!": {},
	}
	k, _ := mustKeys(t)
	for name, r := range rules {
		t.Run(name, func(t *testing.T) {
			doc := sopsEncrypt(t, k, plain, r)
			if name == "NoRuleEncryptsAll!" {
				// With no rule SOPS encrypts everything but reads the
				// default suffix rule back: its own files of that kind
				// do not decrypt, with SOPS or here.
				if _, err := sopsDecrypt(t, k.identity.String(), doc); err == nil {
					t.Fatal("SOPS library: want an error for its rule-less document, got none")
				}
				if _, _, err := Decrypt(k, doc); err == nil {
					t.Error("Decrypt(...) of a rule-less document: want error, got none")
				}
				return
			}
			got, recipients, err := Decrypt(k, doc)
			if err != nil {
				t.Fatalf("Decrypt(...): %v\n%s", err, doc)
			}
			if same, err := SameManifest(plain, got); err != nil || !same {
				t.Errorf("Decrypt(...) gave another manifest (err %v):\n%s", err, got)
			}
			if diff := cmp.Diff(k.Recipients(), recipients); diff != "" {
				t.Errorf("Decrypt(...) recipients: -want, +got:\n%s", diff)
			}
			out, changed, err := NewSealer(0).Seal(k, plain, doc)
			if err != nil || changed || !bytes.Equal(out, doc) {
				t.Errorf("Seal(...) of a file the SOPS library wrote for the same Secret: changed %t, err %v; want it kept", changed, err)
			}
		})
	}
}

// TestDecryptRefuses: a document edited, rearranged or not encrypted to age
// alone is an error, never a wrong plaintext.
func TestDecryptRefuses(t *testing.T) {
	k, _ := mustKeys(t)
	doc, err := Encrypt(k, secretYAML)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	valueOf := func(key string) string {
		for _, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), key+": ENC[") {
				return strings.TrimPrefix(strings.TrimSpace(l), key+": ")
			}
		}
		t.Fatalf("no encrypted %s in\n%s", key, doc)
		return ""
	}
	password, token := valueOf("password"), valueOf("token")
	cases := map[string]struct {
		reason string
		doc    []byte
	}{
		"MovedValue": {
			reason: "A value moved to another key fails its path's authentication.",
			doc:    []byte(strings.Replace(strings.Replace(string(doc), password, "X", 1), token, password, 1)),
		},
		"DroppedValue": {
			reason: "A value removed changes the MAC.",
			doc:    []byte(strings.Replace(string(doc), "    token: "+token+"\n", "", 1)),
		},
		"EditedClearText": {
			reason: "A clear-text value edited changes the MAC.",
			doc:    bytes.Replace(doc, []byte("type: Opaque"), []byte("type: Other"), 1),
		},
		"EditedLastModified": {
			reason: "The MAC is authenticated with lastmodified.",
			doc:    regexp.MustCompile(`lastmodified: "[^"]+"`).ReplaceAll(doc, []byte(`lastmodified: "2001-01-01T00:00:00Z"`)),
		},
		"NoMetadata": {
			reason: "A document without its sops block is not SOPS.",
			doc:    secretYAML,
		},
		"OtherKeySource": {
			reason: "A document whose data key is also held by a KMS key is not this package's.",
			doc:    bytes.Replace(doc, []byte("sops:\n"), []byte("sops:\n    kms:\n        - arn: arn:aws:kms:eu-west-1:1:key/x\n          enc: x\n"), 1),
		},
		"TwoRules": {
			reason: "SOPS refuses a document with two encryption rules.",
			doc:    bytes.Replace(doc, []byte("sops:\n"), []byte("sops:\n    unencrypted_suffix: _plain\n"), 1),
		},
		"CommentRule": {
			reason: "Comment rules are not supported.",
			doc:    bytes.Replace(bytes.Replace(doc, []byte("    encrypted_regex: ^(data|stringData)$\n"), nil, 1), []byte("sops:\n"), []byte("sops:\n    encrypted_comment_regex: sops\n"), 1),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if _, _, err := Decrypt(k, tc.doc); err == nil {
				t.Errorf("%s\nDecrypt(...): want error, got none", tc.reason)
			}
		})
	}
}

// TestEncryptRefuses: input SOPS would refuse, or that would not decrypt to
// the same data, is an error.
func TestEncryptRefuses(t *testing.T) {
	k, _ := mustKeys(t)
	cases := map[string]struct {
		reason string
		plain  string
	}{
		"SopsKey":      {reason: "The top-level sops key is SOPS's.", plain: "kind: Secret\nsops: mine\n"},
		"Alias":        {reason: "Aliases are refused, not expanded.", plain: "a: &x {b: c}\nd: *x\n"},
		"IntegerKey":   {reason: "SOPS keys are strings.", plain: "data:\n  1: one\n"},
		"DuplicateKey": {reason: "A key twice in one mapping is ambiguous.", plain: "data:\n  a: one\n  a: two\n"},
		"Sequence":     {reason: "A document is a mapping.", plain: "- a\n- b\n"},
		"Timestamp":    {reason: "A timestamp has no SOPS value type here.", plain: "data:\n  t: !!timestamp 2001-01-01\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if out, err := Encrypt(k, []byte(tc.plain)); err == nil {
				t.Errorf("%s\nEncrypt(...): want error, got none:\n%s", tc.reason, out)
			}
		})
	}
}
