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
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

func TestSeal(t *testing.T) {
	k, id := mustKeys(t)
	_, r2, _ := GenerateIdentity()
	moreRecipients, err := NewKeys(id, r2)
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := mustKeys(t)
	written, err := Encrypt(k, secretYAML)
	if err != nil {
		t.Fatal(err)
	}
	forStranger, err := Encrypt(stranger, secretYAML)
	if err != nil {
		t.Fatal(err)
	}
	changedPlain := bytes.Replace(secretYAML, []byte("type: Opaque"), []byte("type: kubernetes.io/basic-auth"), 1)
	reindented := bytes.Replace(secretYAML, []byte("  name: db\n  namespace: app\n"), []byte("  namespace: app\n  name: 'db'\n"), 1)

	cases := map[string]struct {
		reason      string
		keys        *Keys
		plain       []byte
		existing    []byte
		wantChanged bool
	}{
		"Missing": {
			reason:      "A file that does not exist is written.",
			keys:        k,
			plain:       secretYAML,
			wantChanged: true,
		},
		"Unchanged": {
			reason: "A file that decrypts to the same manifest for the same recipients is kept, byte for byte.",
			keys:   k,
			plain:  secretYAML,
			// A fresh encryption has other bytes than written.
			existing: written,
		},
		"SameDataOtherStyle": {
			reason:   "Key order and quoting are not content: the manifest is compared as data.",
			keys:     k,
			plain:    reindented,
			existing: written,
		},
		"PlaintextChanged": {
			reason:      "A changed manifest is encrypted again.",
			keys:        k,
			plain:       changedPlain,
			existing:    written,
			wantChanged: true,
		},
		"RecipientAdded": {
			reason:      "A changed recipient set is encrypted again, so the new recipient can decrypt.",
			keys:        moreRecipients,
			plain:       secretYAML,
			existing:    written,
			wantChanged: true,
		},
		"NotDecryptable": {
			reason:      "A file the identity cannot decrypt (encrypted for other keys) is encrypted again, once.",
			keys:        k,
			plain:       secretYAML,
			existing:    forStranger,
			wantChanged: true,
		},
		"PastTheBounds": {
			reason:      "A valid SOPS file of the same Secret grown past yamledit.MaxFileBytes (a comment the MAC does not cover) is not decrypted to compare: it is encrypted again.",
			keys:        k,
			plain:       secretYAML,
			existing:    append(append([]byte{}, written...), "#"+strings.Repeat("x", yamledit.MaxFileBytes)+"\n"...),
			wantChanged: true,
		},
		"PlainTextFile": {
			reason:      "A file holding the manifest in clear text (written by hand) is replaced by the encrypted one.",
			keys:        k,
			plain:       secretYAML,
			existing:    secretYAML,
			wantChanged: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, changed, err := NewSealer(0).Seal(tc.keys, tc.plain, tc.existing)
			if err != nil {
				t.Fatalf("%s\nSeal(...): %v", tc.reason, err)
			}
			if changed != tc.wantChanged {
				t.Errorf("%s\nSeal(...): want changed %t, got %t", tc.reason, tc.wantChanged, changed)
			}
			if !changed && !bytes.Equal(out, tc.existing) {
				t.Errorf("%s\nSeal(...): unchanged but returned other bytes than the file's", tc.reason)
			}
			if changed {
				got, recipients, err := Decrypt(tc.keys, out)
				if err != nil {
					t.Fatalf("%s\nDecrypt(Seal(...)): %v", tc.reason, err)
				}
				if same, _ := SameManifest(tc.plain, got); !same || len(recipients) != len(tc.keys.Recipients()) {
					t.Errorf("%s\nSeal(...) wrote another manifest or recipient set: %v\n%s", tc.reason, recipients, got)
				}
				assertNoPlaintext(t, out)
			}
		})
	}
}

// TestSealRemembers: while a write is queued the file still holds the old
// content, and every observation asks for the change again; it must ask with
// the same bytes, or the branch writer sees a second change and commits
// twice.
func TestSealRemembers(t *testing.T) {
	k, _ := mustKeys(t)
	s := NewSealer(1)
	first, _, err := s.Seal(k, secretYAML, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := s.Seal(k, secretYAML, nil)
	if !bytes.Equal(first, again) {
		t.Error("Seal(...) of the same plaintext twice: want the same bytes, got new ones")
	}
	other := bytes.Replace(secretYAML, []byte("name: db"), []byte("name: dc"), 1)
	if _, _, err := s.Seal(k, other, nil); err != nil {
		t.Fatal(err)
	}
	// The memo holds one byte, so only the newest document: the first was
	// evicted.
	evicted, _, _ := s.Seal(k, secretYAML, nil)
	if bytes.Equal(first, evicted) {
		t.Error("Seal(...) after eviction: want a fresh encryption, got the evicted bytes")
	}
}

// TestSealRemembersWhatHolds checks that a file found, or made, to hold a
// plaintext is not decrypted again when it is observed again, and that the
// memory never hides a change of the plaintext or of the file.
func TestSealRemembersWhatHolds(t *testing.T) {
	k, _ := mustKeys(t)
	s := NewSealer(0)
	decrypts := 0
	s.decrypt = func(k *Keys, doc []byte) ([]byte, []string, error) {
		decrypts++
		return Decrypt(k, doc)
	}
	byHand, err := Encrypt(k, secretYAML)
	if err != nil {
		t.Fatal(err)
	}
	changedPlain := bytes.Replace(secretYAML, []byte("type: Opaque"), []byte("type: kubernetes.io/basic-auth"), 1)

	steps := []struct {
		reason       string
		plain        []byte
		existing     func(made []byte) []byte
		wantChanged  bool
		wantDecrypts int
	}{
		{reason: "A missing file is encrypted.", plain: secretYAML, existing: func([]byte) []byte { return nil }, wantChanged: true},
		{reason: "The file the Sealer made is known to hold its plaintext.", plain: secretYAML, existing: func(made []byte) []byte { return made }},
		{reason: "Another encryption of the same plaintext is decrypted once.", plain: secretYAML, existing: func([]byte) []byte { return byHand }, wantDecrypts: 1},
		{reason: "and then known.", plain: secretYAML, existing: func([]byte) []byte { return byHand }},
		{reason: "A changed plaintext is not held by a file known to hold the old one.", plain: changedPlain, existing: func([]byte) []byte { return byHand }, wantChanged: true, wantDecrypts: 1},
	}
	var made []byte
	for i, st := range steps {
		before := decrypts
		out, changed, err := s.Seal(k, st.plain, st.existing(made))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if changed != st.wantChanged || decrypts-before != st.wantDecrypts {
			t.Errorf("step %d: %s\nSeal: changed %t, %d decryptions; want changed %t, %d decryptions", i, st.reason, changed, decrypts-before, st.wantChanged, st.wantDecrypts)
		}
		if changed && made == nil {
			made = out
		}
	}
}

// TestSealForgetsLanded: once the branch holds the document the Sealer made,
// the write has landed and the document is forgotten; the file is the
// record from then on, and an unchanged file is still kept.
func TestSealForgetsLanded(t *testing.T) {
	k, _ := mustKeys(t)
	s := NewSealer(0)
	queued, _, err := s.Seal(k, secretYAML, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Observed while queued: the file still does not exist.
	if again, _, _ := s.Seal(k, secretYAML, nil); !bytes.Equal(queued, again) {
		t.Fatal("Seal(...) while the write is queued: want the same bytes, got new ones")
	}
	// Observed once landed: the file holds the document.
	out, changed, err := s.Seal(k, secretYAML, queued)
	if err != nil || changed || !bytes.Equal(out, queued) {
		t.Fatalf("Seal(...) of the landed file: changed %t, err %v; want it kept", changed, err)
	}
	// Forgotten: asked again for a missing file (removed since), the Sealer
	// encrypts anew.
	if fresh, _, _ := s.Seal(k, secretYAML, nil); bytes.Equal(fresh, queued) {
		t.Error("Seal(...) after the write landed: want the document forgotten, got it again")
	}
	// The landed file is still known to hold the plaintext.
	if _, changed, _ := s.Seal(k, secretYAML, queued); changed {
		t.Error("Seal(...) of the landed file observed again: want it kept, got a change")
	}
}

// TestSealMemoBytes: the memo is bounded by the bytes of its documents, not
// by their number.
func TestSealMemoBytes(t *testing.T) {
	k, _ := mustKeys(t)
	plain := func(i int) []byte {
		return bytes.Replace(secretYAML, []byte("name: db"), []byte("name: db"+strings.Repeat("x", i)), 1)
	}
	doc, err := Encrypt(k, plain(0))
	if err != nil {
		t.Fatal(err)
	}
	// Room for two documents and a half.
	s := NewSealer(len(doc)*5/2 + 16)
	var first [3][]byte
	for i := range first {
		if first[i], _, err = s.Seal(k, plain(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Newest first: asking for an evicted one encrypts, and evicts, again.
	for _, i := range []int{2, 1, 0} {
		wantKept := i > 0
		again, _, _ := s.Seal(k, plain(i), nil)
		if kept := bytes.Equal(first[i], again); kept != wantKept {
			t.Errorf("document %d of 3, room for 2: kept %t, want %t", i, kept, wantKept)
		}
	}
}
