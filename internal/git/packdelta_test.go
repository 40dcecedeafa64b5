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
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/google/go-cmp/cmp"
)

func TestApplyDelta(t *testing.T) {
	base := []byte("0123456789abcdef")
	type want struct {
		out string
		err bool
	}
	cases := map[string]struct {
		reason string
		delta  []byte
		want   want
	}{
		"CopyAndInsert": {
			reason: "A copy of base bytes 4..8 and an insert of two bytes make the target.",
			delta:  []byte{16, 6, 0x80 | 0x01 | 0x10, 4, 4, 2, 'x', 'y'},
			want:   want{out: "4567xy"},
		},
		"CopyOfSizeZeroIs64KiB": {
			reason: "A copy whose size bytes are all absent copies 0x10000 bytes, more than this base holds.",
			delta:  []byte{16, 16, 0x80},
			want:   want{err: true},
		},
		"CopyPastTheBase": {
			reason: "A copy that reaches past the base's end is refused.",
			delta:  []byte{16, 4, 0x80 | 0x01 | 0x10, 14, 4},
			want:   want{err: true},
		},
		"TruncatedCopy": {
			reason: "A copy command whose offset bytes are missing is refused.",
			delta:  []byte{16, 4, 0x80 | 0x01 | 0x02, 1},
			want:   want{err: true},
		},
		"ReservedCommand": {
			reason: "Command 0 is reserved by git: a delta that uses it is corrupt.",
			delta:  []byte{16, 1, 0},
			want:   want{err: true},
		},
		"WrongBaseSize": {
			reason: "A delta made for a base of another size is refused.",
			delta:  []byte{15, 1, 1, 'x'},
			want:   want{err: true},
		},
		"ShortOfItsTarget": {
			reason: "A delta that writes less than the target size it states is refused.",
			delta:  []byte{16, 3, 1, 'x'},
			want:   want{err: true},
		},
		"PastItsTarget": {
			reason: "A delta that writes more than the target size it states is refused.",
			delta:  []byte{16, 1, 2, 'x', 'y'},
			want:   want{err: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := applyDelta(base, tc.delta)
			got := want{out: string(out), err: err != nil}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\napplyDelta(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// FuzzApplyDelta holds applyDelta to go-git's packfile.PatchDelta: the same
// target, or both refuse. Run with
// `go test -fuzz FuzzApplyDelta ./internal/git/`.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), []byte{16, 6, 0x91, 4, 4, 2, 'x', 'y'})
	f.Add([]byte("0123456789abcdef"), []byte{16, 16, 0x80})
	f.Add([]byte("x"), []byte{1, 1, 0})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		if len(base) == 0 {
			return // PatchDelta refuses an empty base outright
		}
		ours, oerr := applyDelta(base, delta)
		theirs, terr := packfile.PatchDelta(base, delta)
		if (oerr != nil) != (terr != nil) {
			t.Fatalf("applyDelta: %v; PatchDelta: %v", oerr, terr)
		}
		if oerr == nil && !bytes.Equal(ours, theirs) {
			t.Fatalf("applyDelta made %q, PatchDelta %q", ours, theirs)
		}
	})
}
