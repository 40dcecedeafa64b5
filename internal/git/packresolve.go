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

// Pass 2 of the pack indexer (packscan.go): every delta's object id.
//
// The deltas are resolved from their bases, depth first, as git index-pack
// does: a base is read from the spooled pack, each of its deltas is applied
// to it, hashed, and resolved in turn if something is based on it, and the
// base is dropped once its subtree is done. The bases along the chain being
// walked are held within a budget; past it the shallowest are dropped and
// rebuilt from the pack when a sibling needs them again. A REF delta whose
// base is not in the pack (a thin pack) is resolved from the clone's
// objects, and that base is appended to the pack (packstore.go), so the
// stored pack is complete, as git index-pack --fix-thin makes it.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

const (
	errPackDelta      = "cannot apply delta"
	errPackDeep       = "delta chain deeper than 4095"
	errPackUnresolved = "pack has deltas whose base is neither in it nor in the clone"
	errPackRead       = "cannot read spooled pack"
)

// maxDeltaDepth is git's own ceiling (pack-objects' OE_DEPTH_BITS), which
// go-git's parser enforces too.
const maxDeltaDepth = 4095

// baseSource returns an object the pack's thin deltas are based on, from
// outside the pack; plumbing.ErrObjectNotFound when there is none.
type baseSource func(h plumbing.Hash) (plumbing.ObjectType, []byte, error)

// thinBase is an object a thin pack's deltas were resolved from.
type thinBase struct {
	typ  plumbing.ObjectType
	hash plumbing.Hash
	data []byte
}

// baseFrame is a base on the chain being walked.
type baseFrame struct {
	idx int32 // entry index; -1 for a base from outside the pack
	ext *thinBase
	// data is the base's content; nil once dropped for the budget.
	data   []byte
	parent *baseFrame
}

type packResolver struct {
	pack   io.ReaderAt
	p      *scannedPack
	budget int64
	// object is the largest object held whole (packBudget.object).
	object int64
	source baseSource

	// ofsStart/ofsKids: the OFS deltas based on entry i are
	// ofsKids[ofsStart[i]:ofsStart[i+1]].
	ofsStart []int32
	ofsKids  []int32
	refKids  map[plumbing.Hash][]int32

	stack    []*baseFrame
	held     int64
	resolved int
	thin     []thinBase

	br *bufio.Reader
	zr io.ReadCloser

	// ctx ends the resolution with the fetch: a crafted chain can make it
	// long.
	ctx context.Context
}

func newPackResolver(ctx context.Context, pack io.ReaderAt, p *scannedPack, budget packBudget, source baseSource) *packResolver {
	x := &packResolver{ctx: ctx, pack: pack, p: p, budget: budget.bases, object: budget.object, source: source, refKids: map[plumbing.Hash][]int32{}}
	n := len(p.entries)
	x.ofsStart = make([]int32, n+1)
	for i := range p.entries {
		if b := p.entries[i].base; b >= 0 {
			x.ofsStart[b+1]++
		}
	}
	for i := 1; i <= n; i++ {
		x.ofsStart[i] += x.ofsStart[i-1]
	}
	x.ofsKids = make([]int32, x.ofsStart[n])
	next := append([]int32(nil), x.ofsStart[:n]...)
	for i := range p.entries {
		if b := p.entries[i].base; b >= 0 {
			x.ofsKids[next[b]] = int32(i)
			next[b]++
		}
	}
	for i, h := range p.refBases {
		x.refKids[h] = append(x.refKids[h], i)
	}
	return x
}

// resolve finds every delta's type and id, and returns the bases from
// outside the pack that thin deltas used.
func (x *packResolver) resolve() ([]thinBase, error) {
	deltas := 0
	for i := range x.p.entries {
		e := &x.p.entries[i]
		if e.isDelta() {
			deltas++
			continue
		}
		if err := x.walk(&baseFrame{idx: int32(i)}, e.typ, e.hash, 0); err != nil {
			return nil, err
		}
	}
	if x.resolved < deltas {
		if err := x.resolveThin(); err != nil {
			return nil, err
		}
	}
	if x.resolved < deltas {
		return nil, fmt.Errorf("%s: %d of %d deltas unresolved", errPackUnresolved, deltas-x.resolved, deltas)
	}
	return x.thin, nil
}

// resolveThin resolves the REF deltas left, from bases outside the pack.
func (x *packResolver) resolveThin() error {
	missing := make([]plumbing.Hash, 0, len(x.refKids))
	for h, kids := range x.refKids {
		for _, c := range kids {
			if x.p.entries[c].isDelta() {
				missing = append(missing, h)
				break
			}
		}
	}
	// In a fixed order, so the same thin pack is completed the same way.
	sort.Slice(missing, func(i, j int) bool { return bytes.Compare(missing[i][:], missing[j][:]) < 0 })
	for _, h := range missing {
		if x.source == nil {
			break
		}
		typ, data, err := x.source(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			continue // reported as unresolved
		}
		if err != nil {
			return err
		}
		if err := x.holds(int64(len(data))); err != nil {
			return err
		}
		tb := &thinBase{typ: typ, hash: h, data: data}
		x.thin = append(x.thin, *tb)
		if err := x.walk(&baseFrame{idx: -1, ext: tb}, typ, h, 0); err != nil {
			return err
		}
	}
	return nil
}

// children returns the deltas based on the object at idx with id h.
func (x *packResolver) children(idx int32, h plumbing.Hash) (ofs, ref []int32) {
	if idx >= 0 {
		ofs = x.ofsKids[x.ofsStart[idx]:x.ofsStart[idx+1]]
	}
	return ofs, x.refKids[h]
}

// walk resolves every delta based on f, an object of type typ and id h,
// and theirs in turn.
func (x *packResolver) walk(f *baseFrame, typ plumbing.ObjectType, h plumbing.Hash, depth int) error {
	ofs, ref := x.children(f.idx, h)
	if len(ofs)+len(ref) == 0 {
		return nil
	}
	if depth >= maxDeltaDepth {
		return errors.New(errPackDeep)
	}
	x.push(f)
	defer x.pop()
	for _, kids := range [][]int32{ofs, ref} {
		for _, c := range kids {
			if err := x.ctx.Err(); err != nil {
				return err
			}
			e := &x.p.entries[c]
			if !e.isDelta() {
				continue // resolved already: a duplicate in the pack
			}
			base, err := x.load(f)
			if err != nil {
				return err
			}
			out, err := x.apply(base, c)
			if err != nil {
				return err
			}
			e.typ, e.hash = typ, plumbing.ComputeHash(typ, out)
			x.resolved++
			if err := x.walk(&baseFrame{idx: c, data: out, parent: f}, typ, e.hash, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// push puts f on the chain, holding its data if it has any.
func (x *packResolver) push(f *baseFrame) {
	x.stack = append(x.stack, f)
	x.held += int64(len(f.data))
	x.trim()
}

func (x *packResolver) pop() {
	f := x.stack[len(x.stack)-1]
	x.stack = x.stack[:len(x.stack)-1]
	x.held -= int64(len(f.data))
	f.data = nil
}

// trim drops the data of the shallowest frames, never the deepest one,
// until what is held fits the budget.
func (x *packResolver) trim() {
	for i := 0; x.held > x.budget && i < len(x.stack)-1; i++ {
		f := x.stack[i]
		x.held -= int64(len(f.data))
		f.data = nil
	}
}

// load returns f's data, rebuilding and holding it if it was dropped.
func (x *packResolver) load(f *baseFrame) ([]byte, error) {
	if f.data != nil {
		return f.data, nil
	}
	data, err := x.build(f)
	if err != nil {
		return nil, err
	}
	f.data = data
	x.held += int64(len(data))
	x.trim()
	return data, nil
}

// build returns f's data without holding it: from the pack or the thin
// base for a root, else from its nearest held ancestor.
func (x *packResolver) build(f *baseFrame) ([]byte, error) {
	switch {
	case f.data != nil:
		return f.data, nil
	case f.ext != nil:
		return f.ext.data, nil
	case f.parent == nil:
		return x.read(f.idx)
	}
	base, err := x.build(f.parent)
	if err != nil {
		return nil, err
	}
	return x.apply(base, f.idx)
}

// apply applies the delta at idx to base.
func (x *packResolver) apply(base []byte, idx int32) ([]byte, error) {
	delta, err := x.read(idx)
	if err != nil {
		return nil, err
	}
	if dst, ok := deltaTarget(delta); ok {
		if err := x.holds(dst); err != nil {
			return nil, fmt.Errorf("%s at offset %d: %w", errPackDelta, x.p.entries[idx].off, err)
		}
	}
	out, err := applyDelta(base, delta)
	if err != nil {
		return nil, fmt.Errorf("%s at offset %d: %w", errPackDelta, x.p.entries[idx].off, err)
	}
	return out, nil
}

// read inflates the object (or delta payload) stored at entry idx.
func (x *packResolver) read(idx int32) ([]byte, error) {
	e := &x.p.entries[idx]
	sr := io.NewSectionReader(x.pack, e.off, x.p.size-e.off)
	if x.br == nil {
		x.br = bufio.NewReaderSize(sr, 16<<10)
	} else {
		x.br.Reset(sr)
	}
	typ, size, err := readObjectHeader(x.br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errPackRead, err)
	}
	if err := x.holds(size); err != nil {
		return nil, fmt.Errorf("%s at offset %d: %w", errPackRead, e.off, err)
	}
	switch typ {
	case packOFSDelta:
		for {
			b, err := x.br.ReadByte()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", errPackRead, unexpectedEOF(err))
			}
			if b&0x80 == 0 {
				break
			}
		}
	case packREFDelta:
		if _, err := x.br.Discard(len(plumbing.ZeroHash)); err != nil {
			return nil, fmt.Errorf("%s: %w", errPackRead, unexpectedEOF(err))
		}
	}
	if x.zr, err = resetZlib(x.zr, x.br); err != nil {
		return nil, fmt.Errorf("%s: %w", errPackRead, err)
	}
	b, err := inflateAll(x.zr, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errPackRead, err)
	}
	return b, nil
}

// holds refuses an object of size bytes larger than the resolver may hold
// whole: a few KiB of hostile pack (zeros deflate a thousand to one, a
// delta's copy of its base costs a byte per 64 KiB) would otherwise make it
// take gigabytes, and the provider serves every tenant from one process.
func (x *packResolver) holds(size int64) error {
	if size > x.object {
		return fmt.Errorf("%s: %d bytes, more than %d", errPackHeld, size, x.object)
	}
	return nil
}

// deltaTarget is the size of the object delta makes, from its header.
func deltaTarget(delta []byte) (int64, bool) {
	_, rest, ok := deltaSize(delta)
	if !ok {
		return 0, false
	}
	dst, _, ok := deltaSize(rest)
	if !ok || dst > maxPackObjectSize {
		return maxPackObjectSize + 1, ok
	}
	return int64(dst), true
}
