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
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"sigs.k8s.io/yaml"
)

// DefaultMemo is how many encrypted documents a Sealer remembers: enough for
// every Secret written within a few commit windows; an evicted entry costs
// one extra encryption, never an extra commit unless its write is still
// queued.
const DefaultMemo = 4096

const errCompare = "cannot read the manifest to compare"

// A Sealer decides what an encrypted file must hold. SOPS output is
// randomized, so the same plaintext encrypted twice gives different bytes:
// comparing bytes would commit at every poll. A Sealer compares decrypted
// content instead, and remembers what it last produced for a plaintext and
// recipient set, so a write that is still queued when the file is observed
// again is asked for with the same bytes (the branch writer then sees the
// same change, not a second one).
//
// mu guards memo and order; it is never held while encrypting.
type Sealer struct {
	mu    sync.Mutex
	max   int
	memo  map[[sha256.Size]byte][]byte
	order [][sha256.Size]byte
}

// NewSealer returns a Sealer remembering up to size documents (DefaultMemo
// when size <= 0).
func NewSealer(size int) *Sealer {
	if size <= 0 {
		size = DefaultMemo
	}
	return &Sealer{max: size, memo: map[[sha256.Size]byte][]byte{}}
}

// Seal returns the bytes a file must hold for plain, a YAML manifest,
// encrypted to k's recipients, given the bytes it holds now (nil when it
// does not exist), and whether they differ from existing. existing is kept
// when it decrypts, with k's identity, to the same manifest and is encrypted
// to exactly k's recipients: whoever encrypted it, nothing is committed.
// Otherwise the file is encrypted again, once: a changed plaintext, a
// changed recipient set, a file the identity cannot decrypt (written for
// other keys, or by hand) or one that is not SOPS at all.
func (s *Sealer) Seal(k *Keys, plain, existing []byte) (out []byte, changed bool, err error) {
	if existing != nil && s.holds(k, plain, existing) {
		return existing, false, nil
	}
	d := digest(k, plain)
	s.mu.Lock()
	out, ok := s.memo[d]
	s.mu.Unlock()
	if ok {
		return out, true, nil
	}
	if out, err = Encrypt(k, plain); err != nil {
		return nil, false, err
	}
	s.remember(d, out)
	return out, true, nil
}

// holds reports whether existing already holds plain for k.
func (s *Sealer) holds(k *Keys, plain, existing []byte) bool {
	if !IsEncrypted(existing) {
		return false
	}
	got, recipients, err := Decrypt(k, existing)
	if err != nil || !slices.Equal(recipients, k.recipients) {
		return false
	}
	same, err := SameManifest(plain, got)
	return err == nil && same
}

func (s *Sealer) remember(d [sha256.Size]byte, out []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.memo[d]; ok {
		return
	}
	if len(s.order) >= s.max {
		delete(s.memo, s.order[0])
		s.order = s.order[1:]
	}
	s.memo[d] = out
	s.order = append(s.order, d)
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
// YAML in its own style.
func SameManifest(a, b []byte) (bool, error) {
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
