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

// The engine's pack indexer, as git index-pack: a fetched pack is stored as
// it was received and its .idx is computed by reading the objects one at a
// time, so the memory it takes is bounded by budgets, not by the history.
//
// go-git's packfile.Parser, which the engine used before, keeps every
// delta base of the pack in memory while it resolves the chains (60% of the
// bytes a first open of a 20,000-file, 5,000-commit repository allocated,
// 243 MiB peak RSS against git's 32 MiB; docs/concepts/clones.md).
//
// Pass 1 (scanPack) reads the pack as it arrives: it copies it to the spool
// file, hashes each whole object, notes where each delta's base is,
// inflates each delta to check it (and drops it), and checks the pack's
// checksum. Pass 2 (packresolve.go) resolves the deltas base by base, depth
// first, each delta read again from the spool file, with the bases along
// the chain held within a budget. A pack that
// fails any check is refused and nothing of it is stored (packstore.go).

import (
	"bytes"
	"compress/zlib"
	"crypto"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"

	"github.com/go-git/go-git/v5/plumbing"
	gogithash "github.com/go-git/go-git/v5/plumbing/hash"
)

const (
	errPackHeader   = "not a version 2 pack"
	errPackObject   = "malformed object in pack"
	errPackBaseOff  = "delta base offset outside the pack"
	errPackSize     = "object size does not match its header"
	errPackChecksum = "pack checksum mismatch"
	errPackJunk     = "pack has data after its checksum"
	errPackTooBig   = "object too large"
	errPackHeld     = "object too large to resolve deltas with"
)

// maxPackObjectSize refuses an object whose header claims more than 4 GiB:
// larger than any file a resource reads or writes (a read is capped at
// 4 MiB), and a sign of a corrupt or hostile pack.
const maxPackObjectSize = 4 << 30

// Object types as a pack stores them (git's object.h).
const (
	packOFSDelta = 6
	packREFDelta = 7
)

// packEntry is one object of the pack being indexed.
type packEntry struct {
	off int64
	// base is the entry index of an OFS delta's base; -1 otherwise.
	base int32
	crc  uint32
	// typ is the object's type: for a delta, its pack type until it is
	// resolved, then the type of its base.
	typ  plumbing.ObjectType
	hash plumbing.Hash
}

func (e *packEntry) isDelta() bool {
	return e.typ == plumbing.OFSDeltaObject || e.typ == plumbing.REFDeltaObject
}

// scannedPack is what pass 1 learnt of a pack.
type scannedPack struct {
	entries []packEntry
	// refBases are the REF deltas' bases, by the index of the delta.
	refBases map[int32]plumbing.Hash
	// size is the pack's length, checksum included.
	size     int64
	checksum plumbing.Hash
}

// packStream reads a pack from src, copies every byte it reads to out, and
// keeps, of the bytes consumed so far, the offset, the pack's SHA-1 and the
// CRC-32 since the last resetCRC. It is an io.ByteReader, so zlib (flate)
// reads exactly one object's stream from it and no further.
type packStream struct {
	src  io.Reader
	out  io.Writer
	buf  []byte
	r, w int
	// mark: buf[mark:r] is consumed but not yet in sum and crc.
	mark int
	// base is the offset of buf[0].
	base int64
	sum  hash.Hash
	crc  uint32
	err  error
}

func newPackStream(src io.Reader, out io.Writer) *packStream {
	return &packStream{src: src, out: out, buf: make([]byte, 64<<10), sum: gogithash.New(crypto.SHA1)}
}

func (s *packStream) account() {
	if s.mark < s.r {
		s.sum.Write(s.buf[s.mark:s.r])
		s.crc = crc32.Update(s.crc, crc32.IEEETable, s.buf[s.mark:s.r])
		s.mark = s.r
	}
}

func (s *packStream) fill() error {
	if s.r < s.w {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	s.account()
	s.base += int64(s.w)
	s.r, s.w, s.mark = 0, 0, 0
	for s.w == 0 && s.err == nil {
		n, err := s.src.Read(s.buf)
		if n > 0 {
			if _, werr := s.out.Write(s.buf[:n]); werr != nil {
				return werr
			}
		}
		s.w, s.err = n, err
	}
	if s.w > 0 {
		return nil
	}
	return s.err
}

func (s *packStream) ReadByte() (byte, error) {
	if err := s.fill(); err != nil {
		return 0, err
	}
	b := s.buf[s.r]
	s.r++
	return b, nil
}

func (s *packStream) Read(p []byte) (int, error) {
	if err := s.fill(); err != nil {
		return 0, err
	}
	n := copy(p, s.buf[s.r:s.w])
	s.r += n
	return n, nil
}

func (s *packStream) offset() int64 { return s.base + int64(s.r) }

func (s *packStream) resetCRC() { s.account(); s.crc = 0 }

func (s *packStream) objectCRC() uint32 { s.account(); return s.crc }

func (s *packStream) checksum() plumbing.Hash {
	s.account()
	var h plumbing.Hash
	copy(h[:], s.sum.Sum(nil))
	return h
}

// atEOF reports whether src has nothing after what was consumed.
func (s *packStream) atEOF() bool {
	_, err := s.ReadByte()
	return errors.Is(err, io.EOF)
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// packBudget bounds the memory of indexing one pack.
type packBudget struct {
	// bases is how many bytes of resolved bases pass 2 holds along the
	// delta chain it is walking; past it, the shallowest are dropped and
	// rebuilt from the pack when needed again.
	bases int64
	// object is the largest object pass 2 holds whole: a delta's base
	// (from the pack or, for a thin pack, the clone), its payload read
	// again, or its result. A pass 1 object that is no delta's base is
	// hashed as it streams and is bounded by maxPackObjectSize alone.
	object int64
}

// scanPack is pass 1: it reads a whole pack from src, copying it to out.
func scanPack(src io.Reader, out io.Writer) (*scannedPack, error) {
	s := newPackStream(src, out)
	var hdr [12]byte
	if _, err := io.ReadFull(s, hdr[:]); err != nil {
		return nil, fmt.Errorf("%s: %w", errPackHeader, unexpectedEOF(err))
	}
	if !bytes.Equal(hdr[:4], []byte("PACK")) || binary.BigEndian.Uint32(hdr[4:8]) != 2 {
		return nil, errors.New(errPackHeader)
	}
	count := binary.BigEndian.Uint32(hdr[8:12])
	if count > math.MaxInt32 {
		// Entry indexes are int32; git's own packs stop at 2^32-1.
		return nil, errors.New(errPackTooBig)
	}
	p := &scannedPack{
		// The count is the sender's word: no more room than 64Ki entries
		// is taken on it before the objects are there.
		entries: make([]packEntry, 0, min(count, 1<<16)), refBases: map[int32]plumbing.Hash{},
	}
	var zr io.ReadCloser
	for i := uint32(0); i < count; i++ {
		s.resetCRC()
		e := packEntry{off: s.offset(), base: -1}
		typ, size, err := readObjectHeader(s)
		if err != nil {
			return nil, fmt.Errorf("%s at offset %d: %w", errPackObject, e.off, err)
		}
		idx := int32(len(p.entries)) //nolint:gosec // fewer than count, which fits an int32 (checked above)
		switch typ {
		case packOFSDelta:
			if e.base, err = readOFSBase(s, p.entries, e.off); err != nil {
				return nil, err
			}
		case packREFDelta:
			var h plumbing.Hash
			if _, err := io.ReadFull(s, h[:]); err != nil {
				return nil, fmt.Errorf("%s: %w", errPackObject, unexpectedEOF(err))
			}
			p.refBases[idx] = h
		}
		e.typ = plumbing.ObjectType(typ) //nolint:gosec // three bits of the header: 1 to 7
		if zr, err = resetZlib(zr, s); err != nil {
			return nil, fmt.Errorf("%s at offset %d: %w", errPackObject, e.off, err)
		}
		if e.isDelta() {
			// Checked, then dropped: pass 2 reads it again from the spool
			// file when it applies it.
			if err := inflateExactly(io.Discard, zr, size); err != nil {
				return nil, fmt.Errorf("%s at offset %d: %w", errPackObject, e.off, err)
			}
		} else {
			h := plumbing.NewHasher(e.typ, size)
			if err := inflateExactly(&h, zr, size); err != nil {
				return nil, fmt.Errorf("%s at offset %d: %w", errPackObject, e.off, err)
			}
			e.hash = h.Sum()
		}
		e.crc = s.objectCRC()
		p.entries = append(p.entries, e)
	}
	p.checksum = s.checksum()
	var trailer plumbing.Hash
	if _, err := io.ReadFull(s, trailer[:]); err != nil {
		return nil, fmt.Errorf("%s: %w", errPackChecksum, unexpectedEOF(err))
	}
	if trailer != p.checksum {
		return nil, errors.New(errPackChecksum)
	}
	p.size = s.offset()
	if !s.atEOF() {
		return nil, errors.New(errPackJunk)
	}
	return p, nil
}

// readObjectHeader reads an object's type and inflated size.
func readObjectHeader(r io.ByteReader) (int, int64, error) {
	b, err := r.ReadByte()
	if err != nil {
		return 0, 0, unexpectedEOF(err)
	}
	typ := int(b>>4) & 7
	size := int64(b & 0x0f)
	for shift := 4; b&0x80 != 0; shift += 7 {
		if shift > 35 {
			return 0, 0, errors.New(errPackTooBig)
		}
		if b, err = r.ReadByte(); err != nil {
			return 0, 0, unexpectedEOF(err)
		}
		size |= int64(b&0x7f) << shift
	}
	if size > maxPackObjectSize {
		return 0, 0, errors.New(errPackTooBig)
	}
	switch typ {
	case int(plumbing.CommitObject), int(plumbing.TreeObject), int(plumbing.BlobObject), int(plumbing.TagObject), packOFSDelta, packREFDelta:
		return typ, size, nil
	}
	return 0, 0, fmt.Errorf("unknown object type %d", typ)
}

// readOFSBase reads an OFS delta's base offset and returns the index of the
// entry that starts there: an object before this one, never itself.
func readOFSBase(r io.ByteReader, entries []packEntry, off int64) (int32, error) {
	b, err := r.ReadByte()
	if err != nil {
		return 0, unexpectedEOF(err)
	}
	rel := int64(b & 0x7f)
	for b&0x80 != 0 {
		if rel >= 1<<48 {
			return 0, errors.New(errPackBaseOff)
		}
		if b, err = r.ReadByte(); err != nil {
			return 0, unexpectedEOF(err)
		}
		rel = ((rel + 1) << 7) | int64(b&0x7f)
	}
	want := off - rel
	// entries are in offset order: binary search for the base.
	lo, hi := 0, len(entries)
	for lo < hi {
		m := (lo + hi) / 2
		if entries[m].off < want {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if rel <= 0 || lo == len(entries) || entries[lo].off != want {
		return 0, fmt.Errorf("%s: %d bytes before offset %d", errPackBaseOff, rel, off)
	}
	return int32(lo), nil
}

// resetZlib returns a zlib reader of the stream starting at r, reusing zr.
func resetZlib(zr io.ReadCloser, r io.Reader) (io.ReadCloser, error) {
	if zr == nil {
		return zlib.NewReader(r)
	}
	return zr, zr.(zlib.Resetter).Reset(r, nil)
}

// inflateExactly copies exactly size inflated bytes to w and checks that
// the stream ends there (which checks its Adler-32 too).
func inflateExactly(w io.Writer, zr io.Reader, size int64) error {
	if n, err := io.CopyN(w, zr, size); err != nil {
		return fmt.Errorf("%s: %d of %d bytes: %w", errPackSize, n, size, unexpectedEOF(err))
	}
	return inflateEnd(zr)
}

// inflateEnd checks that zr has no byte left.
func inflateEnd(zr io.Reader) error {
	var one [1]byte
	for {
		n, err := zr.Read(one[:])
		if n > 0 {
			return errors.New(errPackSize)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// inflateAll inflates exactly size bytes into a slice of that size. size
// is the header's; a caller that cannot trust it has checked it against
// a budget, or the pass that inflated the same bytes before.
func inflateAll(zr io.Reader, size int64) ([]byte, error) {
	b := make([]byte, size)
	if n, err := io.ReadFull(zr, b); err != nil {
		return nil, fmt.Errorf("%s: %d of %d bytes: %w", errPackSize, n, size, unexpectedEOF(err))
	}
	return b, inflateEnd(zr)
}
