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
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

const (
	errWalkTree    = "cannot walk tree"
	errFolderIsFmt = "%s is a file, not a folder"
)

// BlobSHA is the object id Git gives content, equal to `git hash-object`:
// what ListFiles reports for a file that holds exactly content. A caller
// compares it with a listing instead of reading every blob back.
func BlobSHA(content []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, content).String()
}

// ListFiles returns every file under the folder prefix in commit, by path
// from the repository root, with its blob SHA. Only trees are read, never a
// blob, so a folder of thousands of files costs a few tree reads. prefix ""
// or "." is the whole tree; a folder that does not exist is empty; a prefix
// that is a file, or runs through one, is a KindPathConflict. Symbolic links
// count as files; submodules do not. It does not touch the network.
func (r *Repository) ListFiles(commit, prefix string) (map[string]string, error) {
	if err := r.begin(); err != nil {
		return nil, err
	}
	defer r.end()
	base := strings.Trim(prefix, "/")
	if base == "." {
		base = ""
	}
	if r.partial.Load() {
		r.blobs.noteFolder(base)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t, err := r.treeAt(commit)
	if err != nil {
		return nil, err
	}
	if base != "" {
		if t, err = r.subtreeLocked(t, base); err != nil || t == nil {
			return map[string]string{}, err
		}
	}
	out := map[string]string{}
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errWalkTree, err)
		}
		if !e.Mode.IsFile() {
			continue
		}
		if base != "" {
			name = base + "/" + name
		}
		out[name] = e.Hash.String()
	}
}

// subtreeLocked returns the tree at the folder p of t, nil when there is no
// such folder. Call it with r.mu held.
func (r *Repository) subtreeLocked(t *object.Tree, p string) (*object.Tree, error) {
	for _, d := range strings.Split(p, "/") {
		e, err := t.FindEntry(d)
		if errors.Is(err, object.ErrEntryNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errReadTree, err)
		}
		if e.Mode != filemode.Dir {
			return nil, &Error{Kind: KindPathConflict, Err: fmt.Errorf(errFolderIsFmt, p)}
		}
		if t, err = object.GetTree(r.st, e.Hash); err != nil {
			return nil, fmt.Errorf("%s: %w", errReadTree, err)
		}
	}
	return t, nil
}
