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

package mirror

import (
	"crypto/sha256"
	"strings"
	"sync"

	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/mirror/inplace"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
)

// sealedFiles remembers, for each Mirror, what the blobs of its folder were
// found to hold, so that a steady poll reads none of them: the folder's
// listing already gives every blob's SHA, and a blob never changes.
//
//   - A Secret's file: the blob SHA that holds a plaintext for a key set
//     (what the Sealer decided, after a decryption or an encryption of its
//     own). The same SHA and the same plaintext and keys are the same
//     verdict; anything else is read and decided again.
//   - The marker: the blob SHA and what it parsed to.
//
// It holds one entry per file a Mirror mirrors, replaced at each Observe
// that planned the folder, and nothing of a Mirror that is gone (forget).
// Digests stay in memory and never reach a log.
//
// mu guards byMirror; nothing else is done under it.
type sealedFiles struct {
	mu       sync.Mutex
	byMirror map[string]*mirrorFiles
}

// mirrorFiles is what one Mirror's folder was found to hold.
type mirrorFiles struct {
	secrets   map[string]sealedFile // by full path
	markerSHA string
	marker    plan.Marker
	markerOK  bool
	// index is the folder's YAML documents (layout InPlace).
	index *inplace.Index
}

// sealedFile is a blob known to hold a plaintext for a key set.
type sealedFile struct {
	blob   string
	digest [sha256.Size]byte
}

func newSealedFiles() *sealedFiles {
	return &sealedFiles{byMirror: map[string]*mirrorFiles{}}
}

// sealedDigest names plain encrypted for k: the provider's identity, every
// recipient, and the plaintext.
func sealedDigest(k *encrypt.Keys, plain []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(k.PublicKey()))
	h.Write([]byte{0})
	h.Write([]byte(strings.Join(k.Recipients(), ",")))
	h.Write([]byte{0})
	h.Write(plain)
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// holds reports whether blob, at path in mirror's folder, is known to hold
// the plaintext and keys of digest.
func (s *sealedFiles) holds(mirror, path, blob string, digest [sha256.Size]byte) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byMirror[mirror]
	if m == nil {
		return false
	}
	f, ok := m.secrets[path]
	return ok && f.blob == blob && f.digest == digest
}

// keepSecrets replaces what is known of mirror's Secrets' files with
// files: what one Observe found or made.
func (s *sealedFiles) keepSecrets(mirror string, files map[string]sealedFile) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.of(mirror).secrets = files
}

// markerAt returns the marker blob sha parsed to, if it is the one known.
func (s *sealedFiles) markerAt(mirror, sha string) (m plan.Marker, ok, known bool) {
	if s == nil {
		return plan.Marker{}, false, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.byMirror[mirror]
	if f == nil || f.markerSHA == "" || f.markerSHA != sha {
		return plan.Marker{}, false, false
	}
	return f.marker, f.markerOK, true
}

// keepMarker remembers what the marker blob sha parsed to.
func (s *sealedFiles) keepMarker(mirror, sha string, m plan.Marker, ok bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.of(mirror)
	f.markerSHA, f.marker, f.markerOK = sha, m, ok
}

// index returns mirror's document index, made if missing. One reconcile
// of a Mirror runs at a time, so the index itself needs no lock.
func (s *sealedFiles) index(mirror string) *inplace.Index {
	if s == nil {
		return inplace.NewIndex()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.of(mirror)
	if f.index == nil {
		f.index = inplace.NewIndex()
	}
	return f.index
}

// forget drops everything known of mirror's folder.
func (s *sealedFiles) forget(mirror string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byMirror, mirror)
}

// of returns mirror's entry, made if missing. Call with mu held.
func (s *sealedFiles) of(mirror string) *mirrorFiles {
	f := s.byMirror[mirror]
	if f == nil {
		f = &mirrorFiles{}
		s.byMirror[mirror] = f
	}
	return f
}
