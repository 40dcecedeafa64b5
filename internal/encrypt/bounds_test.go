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
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// TestDecryptBounds decrypts SOPS documents that anyone who can push could
// write (age recipients are public): one past yamledit's size, document or
// depth bound is refused before it is parsed, or as soon as the document
// past the depth is, whatever its MAC says.
func TestDecryptBounds(t *testing.T) {
	k, _ := mustKeys(t)
	doc, err := Encrypt(k, secretYAML)
	if err != nil {
		t.Fatal(err)
	}
	// A comment is not covered by the MAC: padding one keeps the document
	// valid, so only the bound refuses it.
	pad := func(n int) []byte {
		out := append([]byte{}, doc...)
		out = append(out, '#')
		return append(out, strings.Repeat("x", n-len(out)-1)+"\n"...)
	}
	deep := append([]byte{}, doc...)
	deep = append(deep, "deep: "+strings.Repeat("[", yamledit.MaxDepth+1)+strings.Repeat("]", yamledit.MaxDepth+1)+"\n"...)
	cases := map[string]struct {
		reason string
		doc    []byte
		want   string
	}{
		"AtMaxFileBytes": {
			reason: "A valid document of exactly MaxFileBytes is decrypted.",
			doc:    pad(yamledit.MaxFileBytes),
		},
		"PastMaxFileBytes": {
			reason: "A valid document one byte past MaxFileBytes is refused before it is parsed.",
			doc:    pad(yamledit.MaxFileBytes + 1),
			want:   fmt.Sprintf("%s: the file is %d bytes, more than the %d bytes this provider reads", errLoadEncrypted, yamledit.MaxFileBytes+1, yamledit.MaxFileBytes),
		},
		"PastMaxDocuments": {
			reason: "A file of more than MaxDocuments documents is refused before any is parsed.",
			doc:    append(append([]byte{}, doc...), strings.Repeat("---\n{}\n", yamledit.MaxDocuments)...),
			want:   fmt.Sprintf("%s: the file has more than %d documents", errLoadEncrypted, yamledit.MaxDocuments),
		},
		"PastMaxDepth": {
			reason: "A document nesting deeper than MaxDepth is refused once parsed, before it is walked.",
			doc:    deep,
			want:   fmt.Sprintf("%s: a document nests deeper than %d levels", errLoadEncrypted, yamledit.MaxDepth),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := Decrypt(k, tc.doc)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDecrypt(...): -want error, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestSameManifestBounds compares a manifest past MaxFileBytes: refused
// before either side is parsed.
func TestSameManifestBounds(t *testing.T) {
	big := append(append([]byte{}, secretYAML...), "#"+strings.Repeat("x", yamledit.MaxFileBytes)+"\n"...)
	cases := map[string]struct {
		reason string
		a, b   []byte
		want   string
	}{
		"Bounded": {
			reason: "Two manifests within the bounds are compared.",
			a:      secretYAML, b: secretYAML,
		},
		"PastMaxFileBytes": {
			reason: "A manifest past MaxFileBytes, on either side, is refused.",
			a:      secretYAML, b: big,
			want: fmt.Sprintf("%s: the file is %d bytes, more than the %d bytes this provider reads", errCompare, len(big), yamledit.MaxFileBytes),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := SameManifest(tc.a, tc.b)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nSameManifest(...): -want error, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
