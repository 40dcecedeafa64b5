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

import "errors"

const errDelta = "malformed delta"

// applyDelta applies a git delta (a copy-and-insert program, git's
// patch-delta.c) to base. go-git's packfile.PatchDelta grows a bytes.Buffer
// from 64 KiB steps instead, and the indexer applies a delta for every
// version of every tree in the history.
//
// The target size is the delta's word: the program must write exactly that
// many bytes, and no more room than it is likely to write is taken on it.
func applyDelta(base, delta []byte) ([]byte, error) {
	srcSize, delta, ok := deltaSize(delta)
	if !ok || srcSize != uint64(len(base)) {
		return nil, errors.New(errDelta)
	}
	dstSize, delta, ok := deltaSize(delta)
	if !ok || dstSize > maxPackObjectSize {
		return nil, errors.New(errDelta)
	}
	// Room for what a delta usually makes (about its base); a larger
	// target grows as it is written.
	dst := make([]byte, 0, min(dstSize, uint64(len(base)+len(delta))))
	for len(delta) > 0 {
		cmd := delta[0]
		delta = delta[1:]
		switch {
		case cmd&0x80 != 0:
			var off, n uint64
			if off, n, delta, ok = deltaCopy(cmd, delta); !ok || off+n > uint64(len(base)) || uint64(len(dst))+n > dstSize {
				return nil, errors.New(errDelta)
			}
			dst = append(dst, base[off:off+n]...)
		case cmd != 0:
			n := uint64(cmd)
			if n > uint64(len(delta)) || uint64(len(dst))+n > dstSize {
				return nil, errors.New(errDelta)
			}
			dst = append(dst, delta[:n]...)
			delta = delta[n:]
		default:
			// Reserved by git: a delta that uses it is corrupt.
			return nil, errors.New(errDelta)
		}
	}
	if uint64(len(dst)) != dstSize {
		return nil, errors.New(errDelta)
	}
	return dst, nil
}

// deltaCopy reads a copy command's offset and size: cmd's low four bits
// say which bytes of the offset follow, the next three which of the size.
func deltaCopy(cmd byte, delta []byte) (off, n uint64, rest []byte, ok bool) {
	for i := range 7 {
		if cmd&(1<<i) == 0 {
			continue
		}
		if len(delta) == 0 {
			return 0, 0, nil, false
		}
		if i < 4 {
			off |= uint64(delta[0]) << (8 * i)
		} else {
			n |= uint64(delta[0]) << (8 * (i - 4))
		}
		delta = delta[1:]
	}
	if n == 0 {
		n = 0x10000
	}
	return off, n, delta, true
}

// deltaSize reads a delta header's little-endian base-128 size.
func deltaSize(b []byte) (uint64, []byte, bool) {
	var n uint64
	for shift := 0; len(b) > 0 && shift < 64; shift += 7 {
		c := b[0]
		b = b[1:]
		n |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return n, b, true
		}
	}
	return 0, nil, false
}
