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
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

const errCompare = "cannot read the manifest to compare"

// A Sealer decides what an encrypted file must hold. SOPS output is
// randomized, so the same plaintext encrypted twice gives different bytes:
// comparing bytes would commit at every poll. A Sealer compares decrypted
// content instead, and remembers what it last produced for a plaintext and
// recipient set, so a write that is still queued when the file is observed
// again is asked for with the same bytes (the branch writer then sees the
// same change, not a second one).
//
// A document is remembered until the write it serves has landed: until the
// Sealer is asked about a file that holds it, which is how both File and
// Mirror observe the branch after their write. From then on the file itself
// is the record, and the memo is bounded by bytes (DefaultMemoBytes), not
// by documents: a burst of large Secrets holds no more than a burst of small ones.
//
// It also remembers which file contents it found, or made, to hold a
// plaintext for a recipient set, so observing an unchanged file again costs
// a hash, not a decryption: a Mirror compares every Secret of its folder at
// each observation.
//
// mu guards memo and held; it is never held while encrypting or decrypting.
type Sealer struct {
	mu   sync.Mutex
	memo *memo
	held *bounded[struct{}]
	// decrypt is Decrypt; tests count its calls.
	decrypt func(k *Keys, doc []byte) ([]byte, []string, error)
}

// NewSealer returns a Sealer remembering up to memoBytes bytes of documents
// whose writes have not landed (DefaultMemoBytes when memoBytes <= 0).
func NewSealer(memoBytes int) *Sealer {
	if memoBytes <= 0 {
		memoBytes = DefaultMemoBytes
	}
	return &Sealer{memo: newMemo(memoBytes), held: newBounded[struct{}](DefaultHeld), decrypt: Decrypt}
}

// Seal returns the bytes a file must hold for plain, a YAML manifest,
// encrypted to k's recipients, given the bytes it holds now (nil when it
// does not exist), and whether they differ from existing. existing is kept
// when it decrypts, with k's identity, to the same manifest and is encrypted
// to exactly k's recipients: whoever encrypted it, nothing is committed.
// Otherwise the file is encrypted again, once: a changed plaintext, a
// changed recipient set, a file the identity cannot decrypt (written for
// other keys, or by hand) or one that is not SOPS at all.
//
// A file that holds the very document remembered for plain is the write it
// served, landed: the document is forgotten.
func (s *Sealer) Seal(k *Keys, plain, existing []byte) (out []byte, changed bool, err error) {
	d := digest(k, plain)
	if existing != nil && s.holds(k, d, plain, existing) {
		s.landed(d, existing)
		return existing, false, nil
	}
	s.mu.Lock()
	out, ok := s.memo.get(d)
	s.mu.Unlock()
	if ok {
		return out, true, nil
	}
	if out, err = Encrypt(k, plain); err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	s.memo.put(d, out)
	s.held.put(heldKey(d, out), struct{}{})
	s.mu.Unlock()
	return out, true, nil
}

// landed forgets the document remembered for d when existing is it.
func (s *Sealer) landed(d [sha256.Size]byte, existing []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if doc, ok := s.memo.get(d); ok && bytes.Equal(doc, existing) {
		s.memo.drop(d)
	}
}

// holds reports whether existing already holds plain, of digest d, for k.
func (s *Sealer) holds(k *Keys, d [sha256.Size]byte, plain, existing []byte) bool {
	if !IsEncrypted(existing) {
		return false
	}
	hk := heldKey(d, existing)
	s.mu.Lock()
	_, known := s.held.get(hk)
	s.mu.Unlock()
	if known {
		return true
	}
	got, recipients, err := s.decrypt(k, existing)
	if err != nil || !slices.Equal(recipients, k.recipients) {
		return false
	}
	if same, err := SameManifest(plain, got); err != nil || !same {
		return false
	}
	s.mu.Lock()
	s.held.put(hk, struct{}{})
	s.mu.Unlock()
	return true
}

// heldKey names a file's content holding the plaintext of digest d.
func heldKey(d [sha256.Size]byte, content []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write(d[:])
	h.Write(content)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// bounded is a map of at most max entries; the oldest goes first. Its
// caller locks.
type bounded[V any] struct {
	max   int
	m     map[[sha256.Size]byte]V
	order [][sha256.Size]byte
}

func newBounded[V any](size int) *bounded[V] {
	return &bounded[V]{max: size, m: map[[sha256.Size]byte]V{}}
}

func (b *bounded[V]) get(k [sha256.Size]byte) (V, bool) {
	v, ok := b.m[k]
	return v, ok
}

func (b *bounded[V]) put(k [sha256.Size]byte, v V) {
	if _, ok := b.m[k]; ok {
		return
	}
	if len(b.order) >= b.max {
		delete(b.m, b.order[0])
		b.order = b.order[1:]
	}
	b.m[k] = v
	b.order = append(b.order, k)
}

// digest names a plaintext encrypted to a recipient set. It stays in memory.
func digest(k *Keys, plain []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(strings.Join(k.recipients, ",")))
	h.Write([]byte{0})
	h.Write(plain)
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// SameManifest reports whether two YAML documents hold the same data,
// whatever their key order, indentation or quoting: SOPS writes decrypted
// YAML in its own style. Both are held to yamledit's size and document
// bounds before they are parsed; their depth is Decrypt's to bound.
func SameManifest(a, b []byte) (bool, error) {
	for _, m := range [][]byte{a, b} {
		if err := yamledit.Check(m); err != nil {
			return false, errors.Wrap(err, errCompare)
		}
	}
	va, err := decoded(a)
	if err != nil {
		return false, err
	}
	vb, err := decoded(b)
	if err != nil {
		return false, err
	}
	return reflect.DeepEqual(va, vb), nil
}

func decoded(b []byte) (any, error) {
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		return nil, errors.Wrap(err, errCompare)
	}
	var v any
	err = json.Unmarshal(j, &v)
	return v, errors.Wrap(err, errCompare)
}
