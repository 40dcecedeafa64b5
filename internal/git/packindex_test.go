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
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// deltaRepo is a repository whose history packs into deltas: a file of 200
// lines of which each of 12 commits changes one, and a tree per commit.
func deltaRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		if out, err := testenv.Git(dir, []string{"GIT_AUTHOR_DATE=1700000000 +0000", "GIT_COMMITTER_DATE=1700000000 +0000"}, args...); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	lines := make([]string, 200)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %03d: the same words on every line, so the versions delta well", i)
	}
	for c := range 12 {
		lines[(c*37)%len(lines)] = fmt.Sprintf("line changed by commit %d", c)
		if err := os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(strings.Join(lines, "\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		run("add", "app.yaml")
		run("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", fmt.Sprintf("commit %d", c))
	}
	return dir
}

// packObjects runs git pack-objects --revs in dir with revs on stdin.
func packObjects(t *testing.T, dir, revs string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(ctx(t), "git", append([]string{"pack-objects", "--revs", "--stdout", "-q"}, args...)...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(revs)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pack-objects %v: %v", args, err)
	}
	return out
}

// repoObjects reads objects from dir's repository, as a clone would give
// a thin pack's bases.
func repoObjects(t *testing.T, dir string) baseSource {
	return func(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
		typ, err := testenv.Git(dir, nil, "cat-file", "-t", h.String())
		if err != nil {
			return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
		}
		cmd := exec.CommandContext(ctx(t), "git", "cat-file", strings.TrimSpace(typ), h.String())
		cmd.Dir = dir
		data, err := cmd.Output()
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		ot, err := plumbing.ParseObjectType(strings.TrimSpace(typ))
		return ot, data, err
	}
}

func TestIndexPack(t *testing.T) {
	repo := deltaRepo(t)
	all := "main\n"
	tip := "main\n^main~1\n"
	full := packBudget{bases: packBaseBudget, object: packObjectBudget}
	corrupt := func(f func([]byte) []byte) func(t *testing.T) []byte {
		return func(t *testing.T) []byte { return f(packObjects(t, repo, all, "--delta-base-offset")) }
	}
	type want struct {
		ofs, ref bool // the pack has deltas of that kind
		thin     int  // bases appended
		err      string
	}
	cases := map[string]struct {
		reason string
		pack   func(t *testing.T) []byte
		budget packBudget
		source baseSource
		want   want
	}{
		"OFSDeltas": {
			reason: "A pack whose deltas name their bases by offset, as servers send them, is indexed as git index-pack indexes it.",
			pack:   func(t *testing.T) []byte { return packObjects(t, repo, all, "--delta-base-offset") },
			budget: full,
			want:   want{ofs: true},
		},
		"REFDeltas": {
			reason: "A pack whose deltas name their bases by object id is indexed as git index-pack indexes it.",
			pack:   func(t *testing.T) []byte { return packObjects(t, repo, all) },
			budget: full,
			want:   want{ref: true},
		},
		"NothingHeld": {
			reason: "With no budget for bases, every base is rebuilt from its chain: the same index.",
			pack:   func(t *testing.T) []byte { return packObjects(t, repo, all, "--delta-base-offset") },
			budget: packBudget{bases: 1, object: packObjectBudget},
			want:   want{ofs: true},
		},
		"ThinPack": {
			reason: "A thin pack's deltas are resolved from the clone's objects, and the bases are appended so the stored pack is whole.",
			pack:   func(t *testing.T) []byte { return packObjects(t, repo, tip, "--thin", "--delta-base-offset") },
			budget: full,
			source: repoObjects(t, repo),
			want:   want{ref: true, thin: 1},
		},
		"ThinPackWithoutBases": {
			reason: "A thin pack whose bases the clone does not hold is refused.",
			pack:   func(t *testing.T) []byte { return packObjects(t, repo, tip, "--thin", "--delta-base-offset") },
			budget: full,
			source: func(plumbing.Hash) (plumbing.ObjectType, []byte, error) {
				return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
			},
			want: want{err: errPackUnresolved},
		},
		"FlippedByte": {
			reason: "A pack altered in transit fails its checksum (or its zlib stream) and is refused.",
			pack:   corrupt(func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }),
			budget: full,
			want:   want{err: errPackObject},
		},
		"WrongChecksum": {
			reason: "A pack whose objects read well but whose checksum does not match is refused.",
			pack:   corrupt(func(b []byte) []byte { b[len(b)-1] ^= 0x01; return b }),
			budget: full,
			want:   want{err: errPackChecksum},
		},
		"Truncated": {
			reason: "A pack cut short is refused.",
			pack:   corrupt(func(b []byte) []byte { return b[:len(b)-25] }),
			budget: full,
			want:   want{err: "unexpected EOF"},
		},
		"JunkAfterChecksum": {
			reason: "A pack followed by more bytes is refused, as git index-pack refuses it.",
			pack:   corrupt(func(b []byte) []byte { return append(b, 'x') }),
			budget: full,
			want:   want{err: errPackJunk},
		},
		"NotAPack": {
			reason: "Something other than a version 2 pack is refused.",
			pack:   func(*testing.T) []byte { return []byte("PACK\x00\x00\x00\x03\x00\x00\x00\x00") },
			budget: full,
			want:   want{err: errPackHeader},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			f, err := os.Create(filepath.Join(dir, "spool.pack"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p, err := indexPack(context.Background(), f, bytes.NewReader(tc.pack(t)), tc.budget, tc.source)
			if tc.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("%s\nindexPack(...): want an error containing %q, got %v", tc.reason, tc.want.err, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nindexPack(...): %v", tc.reason, err)
			}
			got := want{ofs: hasOFS(p), ref: len(p.refBases) > 0, thin: p.thin}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nindexPack(...): -want, +got:\n%s", tc.reason, diff)
			}
			var ours bytes.Buffer
			if err := p.writeIndex(&ours); err != nil {
				t.Fatal(err)
			}
			// git index-pack of the pack as stored is the oracle: the
			// same objects, offsets, CRCs and checksums, byte for byte.
			if out, err := testenv.Git(dir, nil, "index-pack", "-o", "git.idx", "spool.pack"); err != nil {
				t.Fatalf("%s\ngit index-pack of the stored pack: %v: %s", tc.reason, err, out)
			}
			theirs, err := os.ReadFile(filepath.Join(dir, "git.idx"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ours.Bytes(), theirs) {
				t.Errorf("%s\nwriteIndex: not the index git index-pack writes for the same pack", tc.reason)
			}
		})
	}
}

func hasOFS(p *indexedPack) bool {
	for i := range p.entries {
		if p.entries[i].base >= 0 {
			return true
		}
	}
	return false
}

// TestIndexPackCancelled: resolving deltas ends with the fetch's context,
// so a crafted chain cannot outlive the fetch's timeout.
func TestIndexPackCancelled(t *testing.T) {
	repo := deltaRepo(t)
	f, err := os.Create(filepath.Join(t.TempDir(), "spool.pack"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	full := packBudget{bases: packBaseBudget, object: packObjectBudget}
	if _, err := indexPack(ctx, f, bytes.NewReader(packObjects(t, repo, "main\n", "--delta-base-offset")), full, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("indexPack with its context cancelled: %v, want %v", err, context.Canceled)
	}
}
