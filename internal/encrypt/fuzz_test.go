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
	"encoding/json"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/crossplane-contrib/provider-git/internal/manifest"
)

// FuzzSealRoundTrip seals arbitrary Secrets, rendered as a File's or a
// Mirror's are, and decrypts the result with the SOPS library, MAC checked:
// it must give the same Secret, hold every data and stringData value
// encrypted, and, sealed again for the file that now holds it, be kept as
// it is (an unchanged Secret makes no commit), by the same Sealer and by a
// new one.
func FuzzSealRoundTrip(f *testing.F) {
	k, id := mustKeys(f)
	f.Add("db", "password", []byte(secretValue), "token", secretValue)
	f.Add("empty", "", []byte{}, "", "")
	f.Add("bin", "a.b-c_d", []byte{0, 0xff, 0xfe, '\n', '\r', ':', '"'}, "k:with:colons", "line\nline\n")
	f.Add("unicode", "ключ", []byte("🔑"), "日本", "pässwörd\u00a0\u2028 ")
	f.Add("yaml-like", "null", []byte("true"), "123", "- [a, b]\n{c: d}\n'quoted'\n#comment")
	f.Add("numbers", "0x1F", []byte("1e3"), "true", "1.0")
	f.Fuzz(func(t *testing.T, name, dataKey string, data []byte, stringKey, stringValue string) {
		obj, err := json.Marshal(map[string]any{
			"apiVersion": "v1",
			"kind":       "Secret",
			"metadata":   map[string]any{"name": name, "namespace": "app"},
			// encoding/json writes []byte as base64, as a Secret's data is.
			"data":       map[string][]byte{dataKey: data},
			"stringData": map[string]string{stringKey: stringValue},
			"type":       "Opaque",
		})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := manifest.RenderForEncryption(obj)
		if err != nil {
			// Not a Secret a File or Mirror would hand on.
			return
		}
		s := NewSealer(0)
		doc, changed, err := s.Seal(k, plain, nil)
		if err != nil || !changed {
			t.Fatalf("Seal(...) of a missing file: changed %t, err %v\n%s", changed, err, plain)
		}
		got, err := sopsDecrypt(t, id, doc)
		if err != nil {
			t.Fatalf("SOPS library: %v\n%s", err, doc)
		}
		if same, err := SameManifest(plain, got); err != nil || !same {
			t.Fatalf("SOPS library decrypted another Secret (err %v):\n%s\nwant:\n%s", err, got, plain)
		}
		assertValuesEncrypted(t, doc)
		for who, sealer := range map[string]*Sealer{"same Sealer": s, "new Sealer": NewSealer(0)} {
			out, changed, err := sealer.Seal(k, plain, doc)
			if err != nil || changed || !bytes.Equal(out, doc) {
				t.Fatalf("%s: Seal(...) of the file holding the Secret: changed %t, err %v; want it kept", who, changed, err)
			}
		}
	})
}

// assertValuesEncrypted fails unless every data and stringData value of doc
// is encrypted, or empty.
func assertValuesEncrypted(t *testing.T, doc []byte) {
	t.Helper()
	var v map[string]any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	for _, field := range []string{"data", "stringData"} {
		m, _ := v[field].(map[string]any)
		for key, val := range m {
			s, _ := val.(string)
			if s != "" && !encRE.MatchString(s) {
				t.Errorf("%s[%q] is not encrypted: %v\n%s", field, key, val, doc)
			}
		}
	}
}
