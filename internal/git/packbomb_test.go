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

package git

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// rawEntry is one object of a hand-made pack: its type, the bytes between
// header and zlib stream (an OFS delta's base offset), and its content.
type rawEntry struct {
	typ     plumbing.ObjectType
	extra   []byte
	payload []byte
}

// hostilePack writes the entries as a version 2 pack, as a server that
// wants the indexer to run out of memory would: a few KiB on the wire.
func hostilePack(t *testing.T, entries ...rawEntry) ([]byte, []int64) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("PACK")
	_ = binary.Write(&b, binary.BigEndian, uint32(2))
	_ = binary.Write(&b, binary.BigEndian, uint32(len(entries)))
	offs := make([]int64, 0, len(entries))
	for _, e := range entries {
		offs = append(offs, int64(b.Len()))
		b.Write(objectHeader(e.typ, int64(len(e.payload))))
		b.Write(e.extra)
		zw := zlib.NewWriter(&b)
		if _, err := zw.Write(e.payload); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes(), offs
}

// ofsOffset encodes an OFS delta's distance back to its base as git does.
func ofsOffset(rel int64) []byte {
	b := []byte{byte(rel & 0x7f)}
	for rel >>= 7; rel > 0; rel >>= 7 {
		rel--
		b = append([]byte{0x80 | byte(rel&0x7f)}, b...)
	}
	return b
}

// varint is a delta header's size.
func varint(n uint64) []byte {
	var b []byte
	for ; n >= 0x80; n >>= 7 {
		b = append(b, byte(n)|0x80)
	}
	return append(b, byte(n))
}

// copies is a delta that makes dst bytes from a base of src bytes by
// copying its first 64 KiB again and again: one byte of program per 64 KiB
// of result.
func copies(src, dst uint64) []byte {
	d := append(varint(src), varint(dst)...)
	return append(d, bytes.Repeat([]byte{0x80}, int(dst/0x10000))...)
}

// bombPack is a blob of base zero bytes and one OFS delta on it that makes
// dst bytes.
func bombPack(t *testing.T, base, dst uint64) []byte {
	t.Helper()
	blob := rawEntry{typ: plumbing.BlobObject, payload: make([]byte, base)}
	alone, offs := hostilePack(t, blob)
	// The delta follows the blob: its offset is where the checksum was.
	deltaOff := int64(len(alone)) - 20
	delta := rawEntry{typ: plumbing.OFSDeltaObject, extra: ofsOffset(deltaOff - offs[0]), payload: copies(base, dst)}
	pack, _ := hostilePack(t, blob, delta)
	return pack
}

func TestIndexPackBoundsWhatItHolds(t *testing.T) {
	const limit = 1 << 20
	budget := packBudget{bases: packBaseBudget, object: limit}
	cases := map[string]struct {
		reason string
		pack   func(t *testing.T) []byte
		err    string
	}{
		"DeltaBomb": {
			reason: "A delta of a few bytes whose result is larger than the indexer may hold is refused before it is made: a 4 GiB result would take the provider down.",
			pack:   func(t *testing.T) []byte { return bombPack(t, 0x10000, 4*limit) },
			err:    errPackHeld,
		},
		"HugeBase": {
			reason: "A delta's base larger than the indexer may hold is refused before it is inflated: zeros deflate a thousand to one.",
			pack:   func(t *testing.T) []byte { return bombPack(t, 4*limit, 0x10000) },
			err:    errPackHeld,
		},
		"WithinBudget": {
			reason: "Objects within the bound are indexed.",
			pack:   func(t *testing.T) []byte { return bombPack(t, 0x10000, limit/2) },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "spool.pack"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, err = indexPack(context.Background(), f, bytes.NewReader(tc.pack(t)), budget, nil)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("%s\nindexPack(...): %v", tc.reason, err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("%s\nindexPack(...): want an error containing %q, got %v", tc.reason, tc.err, err)
			}
		})
	}
}

func TestResolveThinBoundsItsBase(t *testing.T) {
	// A REF delta on an object the clone holds: a blob larger than the
	// indexer may hold, which an earlier pack stored without holding it.
	const limit = 1 << 20
	big := plumbing.ComputeHash(plumbing.BlobObject, make([]byte, 4*limit))
	pack, _ := hostilePack(t, rawEntry{typ: plumbing.REFDeltaObject, extra: big[:], payload: copies(4*limit, 0x10000)})
	source := func(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
		if h != big {
			return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
		}
		return plumbing.BlobObject, make([]byte, 4*limit), nil
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "spool.pack"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = indexPack(context.Background(), f, bytes.NewReader(pack), packBudget{bases: packBaseBudget, object: limit}, source)
	if err == nil || !strings.Contains(err.Error(), errPackHeld) {
		t.Fatalf("A thin pack's base from the clone larger than the indexer may hold is refused.\nindexPack(...): want an error containing %q, got %v", errPackHeld, err)
	}
}
