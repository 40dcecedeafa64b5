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
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

const (
	errBadPath    = "invalid path"
	errFileIsDir  = "path is a directory"
	errParentFile = "a parent of the path is a file"
)

// tree is a mutable view of a Git tree, loaded lazily from the object store
// so that changing k files costs O(k · depth), not O(files in the branch):
// no index, no worktree, no Status(). go-git's Worktree.Add runs a full
// Status() per path, which on a 10,000-file tree costs over 100 ms for each
// file added.
type tree struct {
	hash    plumbing.Hash // of the stored tree; zero when new or changed
	entries map[string]*treeEntry
}

type treeEntry struct {
	mode filemode.FileMode
	hash plumbing.Hash
	sub  *tree // loaded subtree of a directory, nil until needed
}

func newTree(h plumbing.Hash) *tree { return &tree{hash: h} }

func (t *tree) load(s storer.EncodedObjectStorer) error {
	if t.entries != nil {
		return nil
	}
	t.entries = map[string]*treeEntry{}
	if t.hash.IsZero() {
		return nil
	}
	ot, err := object.GetTree(s, t.hash)
	if err != nil {
		return fmt.Errorf("%s: %w", errReadTree, err)
	}
	for _, e := range ot.Entries {
		t.entries[e.Name] = &treeEntry{mode: e.Mode, hash: e.Hash}
	}
	return nil
}

func (e *treeEntry) subtree() *tree {
	if e.sub == nil {
		e.sub = newTree(e.hash)
	}
	return e.sub
}

// splitPath validates a slash-separated path inside the repository. A path
// Git refuses is the change's own fault: KindInvalidChange.
func splitPath(p string) ([]string, error) {
	parts := strings.Split(p, "/")
	for _, s := range parts {
		if s == "" || s == "." || s == ".." || isGitDir(s) || strings.ContainsRune(s, 0) {
			return nil, &Error{Kind: KindInvalidChange, Err: fmt.Errorf("%s: %q", errBadPath, p)}
		}
	}
	return parts, nil
}

// isGitDir reports whether a path component names the .git directory on
// some file system: case-insensitively (macOS, Windows), with the trailing
// dots and spaces Windows ignores, or as its 8.3 short name. git's fsck (and
// so GitHub and any server with receive.fsckObjects) refuses such trees, and
// a client checking one out could be overwriting its own .git.
func isGitDir(s string) bool {
	s = strings.ToLower(strings.TrimRight(s, ". "))
	return s == ".git" || s == "git~1"
}

// lookup returns the entry at parts, or nil when absent. A path that runs
// through a file is a KindPathConflict.
func (t *tree) lookup(s storer.EncodedObjectStorer, parts []string) (*treeEntry, error) {
	if err := t.load(s); err != nil {
		return nil, err
	}
	e := t.entries[parts[0]]
	if len(parts) == 1 || e == nil {
		return e, nil
	}
	if e.mode != filemode.Dir {
		return nil, &Error{Kind: KindPathConflict, Err: fmt.Errorf("%s: %s", errParentFile, strings.Join(parts, "/"))}
	}
	return e.subtree().lookup(s, parts[1:])
}

// put sets the file at parts, creating directories.
func (t *tree) put(s storer.EncodedObjectStorer, parts []string, mode filemode.FileMode, blob plumbing.Hash) error {
	if err := t.load(s); err != nil {
		return err
	}
	t.hash = plumbing.ZeroHash
	if len(parts) == 1 {
		t.entries[parts[0]] = &treeEntry{mode: mode, hash: blob}
		return nil
	}
	e := t.entries[parts[0]]
	if e == nil {
		e = &treeEntry{mode: filemode.Dir, sub: &tree{entries: map[string]*treeEntry{}}}
		t.entries[parts[0]] = e
	}
	return e.subtree().put(s, parts[1:], mode, blob)
}

// remove deletes the file at parts; directories left empty go too, as Git
// cannot store them.
func (t *tree) remove(s storer.EncodedObjectStorer, parts []string) error {
	if err := t.load(s); err != nil {
		return err
	}
	e := t.entries[parts[0]]
	if e == nil {
		return nil
	}
	t.hash = plumbing.ZeroHash
	if len(parts) == 1 {
		delete(t.entries, parts[0])
		return nil
	}
	sub := e.subtree()
	if err := sub.remove(s, parts[1:]); err != nil {
		return err
	}
	if len(sub.entries) == 0 {
		delete(t.entries, parts[0])
	}
	return nil
}

// write stores every changed tree bottom-up and returns the root hash; new
// object ids are appended to written (the objects a push must send).
func (t *tree) write(s storer.EncodedObjectStorer, written *[]plumbing.Hash) (plumbing.Hash, error) {
	if !t.hash.IsZero() || t.entries == nil {
		return t.hash, nil
	}
	names := make([]string, 0, len(t.entries))
	for n, e := range t.entries {
		if e.sub != nil {
			h, err := e.sub.write(s, written)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			e.hash = h
		}
		names = append(names, n)
	}
	// Git orders entries by name with "/" appended to directory names.
	key := func(n string) string {
		if t.entries[n].mode == filemode.Dir {
			return n + "/"
		}
		return n
	}
	sort.Slice(names, func(i, j int) bool { return key(names[i]) < key(names[j]) })
	ot := &object.Tree{Entries: make([]object.TreeEntry, 0, len(names))}
	for _, n := range names {
		e := t.entries[n]
		ot.Entries = append(ot.Entries, object.TreeEntry{Name: n, Mode: e.mode, Hash: e.hash})
	}
	h, err := storeObject(s, ot)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	t.hash = h
	*written = append(*written, h)
	return h, nil
}

type encoder interface {
	Encode(plumbing.EncodedObject) error
}

func storeObject(s storer.EncodedObjectStorer, o encoder) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

func storeBlob(s storer.EncodedObjectStorer, content []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(content); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// overlay stages a batch's new objects in memory over the clone's storage:
// nothing reaches the disk unless the push lands, and then as one pack
// rather than one loose file per object (which cost ~1 ms each here).
type overlay struct {
	storer.EncodedObjectStorer
	mem map[plumbing.Hash]plumbing.EncodedObject
}

func newOverlay(base storer.EncodedObjectStorer) *overlay {
	return &overlay{EncodedObjectStorer: base, mem: map[plumbing.Hash]plumbing.EncodedObject{}}
}

func (o *overlay) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (o *overlay) SetEncodedObject(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	h := obj.Hash()
	o.mem[h] = obj
	return h, nil
}

func (o *overlay) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if obj, ok := o.mem[h]; ok {
		if t != plumbing.AnyObject && obj.Type() != t {
			return nil, plumbing.ErrObjectNotFound
		}
		return obj, nil
	}
	return o.EncodedObjectStorer.EncodedObject(t, h)
}

func (o *overlay) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := o.mem[h]; ok {
		return nil
	}
	return o.EncodedObjectStorer.HasEncodedObject(h)
}

func (o *overlay) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if obj, ok := o.mem[h]; ok {
		return obj.Size(), nil
	}
	return o.EncodedObjectStorer.EncodedObjectSize(h)
}
