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
	"container/list"
	"crypto/sha256"
)

// DefaultMemoBytes bounds the documents a Sealer remembers, in bytes. An
// entry lives only from the observation that asked for a write until the
// branch is seen to hold it, so the memo holds the writes in flight: 16 MiB
// is some 10,000 small Secrets (a SOPS document of a few keys is about
// 1.5 KiB) or a dozen of the largest (a 1 MiB Secret is a 1.4 MiB
// document). An entry evicted early costs one extra encryption, and an extra
// commit only when its write was still queued. Each controller has its own
// Sealer, so a process holds at most twice this.
const DefaultMemoBytes = 16 << 20

// DefaultHeld is how many file contents a Sealer remembers as holding a
// plaintext: hashes, 64 bytes each, that spare a decryption per Secret per
// observation.
const DefaultHeld = 4096

// memo maps a plaintext's digest to the document made for it, at most max
// bytes of documents; the oldest goes first. The newest entry stays even
// when it alone exceeds max: evicting it would hand its queued write new
// bytes at every observation. Its caller locks.
type memo struct {
	max, size int
	m         map[[sha256.Size]byte]*list.Element
	order     *list.List
}

type memoEntry struct {
	key [sha256.Size]byte
	doc []byte
}

func newMemo(maxBytes int) *memo {
	return &memo{max: maxBytes, m: map[[sha256.Size]byte]*list.Element{}, order: list.New()}
}

func (m *memo) get(k [sha256.Size]byte) ([]byte, bool) {
	e, ok := m.m[k]
	if !ok {
		return nil, false
	}
	return e.Value.(*memoEntry).doc, true //nolint:forcetypeassert // Only memoEntry is stored.
}

func (m *memo) put(k [sha256.Size]byte, doc []byte) {
	m.drop(k)
	m.m[k] = m.order.PushBack(&memoEntry{key: k, doc: doc})
	m.size += len(doc)
	for m.size > m.max && m.order.Len() > 1 {
		m.drop(m.order.Front().Value.(*memoEntry).key) //nolint:forcetypeassert // Only memoEntry is stored.
	}
}

func (m *memo) drop(k [sha256.Size]byte) {
	e, ok := m.m[k]
	if !ok {
		return
	}
	m.size -= len(e.Value.(*memoEntry).doc) //nolint:forcetypeassert // Only memoEntry is stored.
	m.order.Remove(e)
	delete(m.m, k)
}
