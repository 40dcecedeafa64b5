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

// Storing an indexed pack (packscan.go, packresolve.go): a thin pack is
// completed with the bases it lacks, its .idx is written, and both are
// moved into objects/pack, the index first: go-git's storage lists packs by
// their .pack file, so a pack is visible only once it is whole. Until then
// everything lives in files outside objects/pack, removed on any failure,
// so a refused pack leaves nothing behind.

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"crypto"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	gogithash "github.com/go-git/go-git/v5/plumbing/hash"
)

const (
	errPackThin  = "cannot complete thin pack"
	errPackIndex = "cannot write pack index"
	errPackMove  = "cannot move pack into the clone"
)

// indexedPack is a spooled pack whose objects are all known.
type indexedPack struct {
	*scannedPack
	f *os.File
	// thin is how many bases were appended to complete a thin pack.
	thin int
}

// indexPack reads a pack from src into the file f (empty, opened for
// reading and writing), checks and indexes it, and completes it when it is
// thin, with bases from source.
func indexPack(ctx context.Context, f *os.File, src io.Reader, budget packBudget, source baseSource) (*indexedPack, error) {
	w := bufio.NewWriterSize(f, 64<<10)
	p, err := scanPack(src, w)
	if err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, fmt.Errorf("%s: %w", errSpool, err)
	}
	thin, err := newPackResolver(ctx, f, p, budget, source).resolve()
	if err != nil {
		return nil, err
	}
	ip := &indexedPack{scannedPack: p, f: f, thin: len(thin)}
	if len(thin) > 0 {
		if err := ip.complete(thin); err != nil {
			return nil, fmt.Errorf("%s: %w", errPackThin, err)
		}
	}
	return ip, nil
}

// complete appends the thin bases to the pack as whole objects, and
// rewrites its object count and checksum.
func (p *indexedPack) complete(thin []thinBase) error {
	end := p.size - int64(len(plumbing.ZeroHash))
	if err := p.f.Truncate(end); err != nil {
		return err
	}
	w := bufio.NewWriter(io.NewOffsetWriter(p.f, end))
	zw := zlib.NewWriter(nil)
	for _, b := range thin {
		var obj bytes.Buffer
		obj.Write(objectHeader(b.typ, int64(len(b.data))))
		zw.Reset(&obj)
		if _, err := zw.Write(b.data); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		p.entries = append(p.entries, packEntry{off: end, base: -1, crc: crc32.ChecksumIEEE(obj.Bytes()), typ: b.typ, hash: b.hash})
		if _, err := w.Write(obj.Bytes()); err != nil {
			return err
		}
		end += int64(obj.Len())
	}
	if err := w.Flush(); err != nil {
		return err
	}
	var count [4]byte
	binary.BigEndian.PutUint32(count[:], uint32(len(p.entries))) //nolint:gosec // at most the header's count, which fits an int32, plus the bases appended
	if _, err := p.f.WriteAt(count[:], 8); err != nil {
		return err
	}
	sum := gogithash.New(crypto.SHA1)
	if _, err := io.Copy(sum, io.NewSectionReader(p.f, 0, end)); err != nil {
		return err
	}
	copy(p.checksum[:], sum.Sum(nil))
	if _, err := p.f.WriteAt(p.checksum[:], end); err != nil {
		return err
	}
	p.size = end + int64(len(p.checksum))
	return nil
}

// objectHeader encodes a whole object's type and size as a pack does.
func objectHeader(t plumbing.ObjectType, size int64) []byte {
	b := []byte{byte(t)<<4 | byte(size&0x0f)} //nolint:gosec // a whole object's type: 1 to 4
	for size >>= 4; size > 0; size >>= 7 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
	}
	return b
}

// writeIndex writes the pack's version 2 .idx to w (git's
// Documentation/gitformat-pack.txt), byte for byte what git index-pack
// writes. It sorts an index of the entries, not a copy of them: go-git's
// idxfile.Writer keeps a map and two copies of every entry, which were the
// largest thing live at the end of a first clone's indexing.
func (p *indexedPack) writeIndex(out io.Writer) error {
	order := make([]int32, 0, len(p.entries))
	for i := range p.entries {
		order = append(order, int32(i))
	}
	e := p.entries
	sort.Slice(order, func(a, b int) bool { return bytes.Compare(e[order[a]].hash[:], e[order[b]].hash[:]) < 0 })
	// A pack may hold an object twice; the index names it once.
	uniq := order[:0]
	for i, o := range order {
		if i == 0 || e[o].hash != e[uniq[len(uniq)-1]].hash {
			uniq = append(uniq, o)
		}
	}
	order = uniq
	sum := gogithash.New(crypto.SHA1)
	w := bufio.NewWriter(io.MultiWriter(out, sum))
	var b4 [4]byte
	u32 := func(v uint32) {
		binary.BigEndian.PutUint32(b4[:], v)
		_, _ = w.Write(b4[:])
	}
	_, _ = w.Write([]byte{0xff, 't', 'O', 'c'})
	u32(2)
	n := 0
	for first := range 256 {
		for n < len(order) && int(e[order[n]].hash[0]) == first {
			n++
		}
		u32(uint32(n))
	}
	for _, o := range order {
		_, _ = w.Write(e[o].hash[:])
	}
	for _, o := range order {
		u32(e[o].crc)
	}
	var large []uint64
	for _, o := range order {
		off := uint64(e[o].off) //nolint:gosec // an offset in a file: never negative
		if off < 1<<31 {
			u32(uint32(off))
			continue
		}
		u32(1<<31 | uint32(len(large))) //nolint:gosec // fewer than the entries, which fit an int32
		large = append(large, off)
	}
	var b8 [8]byte
	for _, off := range large {
		binary.BigEndian.PutUint64(b8[:], off)
		_, _ = w.Write(b8[:])
	}
	_, _ = w.Write(p.checksum[:])
	if err := w.Flush(); err != nil {
		return err
	}
	_, err := out.Write(sum.Sum(nil))
	return err
}

// install moves the pack and its index into the objects/pack directory
// under gitDir, the index first, and returns whether it added anything: a
// pack of no objects, or one the clone holds already (same checksum), is
// not stored. The spool file is moved, or left to its owner to remove.
func (p *indexedPack) install(gitDir string) (bool, error) {
	if len(p.entries) == 0 {
		return false, nil
	}
	dir := filepath.Join(gitDir, "objects", "pack")
	name := filepath.Join(dir, "pack-"+p.checksum.String())
	if _, err := os.Stat(name + ".pack"); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil { //nolint:gosec // the mode go-git gives the clone's directories
		return false, fmt.Errorf("%s: %w", errPackMove, err)
	}
	idx, err := os.CreateTemp(dir, "tmp_idx_")
	if err != nil {
		return false, fmt.Errorf("%s: %w", errPackIndex, err)
	}
	defer os.Remove(idx.Name()) //nolint:errcheck // gone already once renamed
	w := bufio.NewWriter(idx)
	err = p.writeIndex(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", errPackIndex, err)
	}
	if err := os.Rename(idx.Name(), name+".idx"); err != nil {
		return false, fmt.Errorf("%s: %w", errPackMove, err)
	}
	if err := os.Rename(p.f.Name(), name+".pack"); err != nil {
		_ = os.Remove(name + ".idx")
		return false, fmt.Errorf("%s: %w", errPackMove, err)
	}
	return true, nil
}
