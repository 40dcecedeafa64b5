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
	"maps"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Preconditions. A caller that decides what to write from what a path holds
// (a Mirror adopts a file only when it is its own, and writes a new one only
// where none is) reads the branch at one head, and its change lands on
// another: the commit window, and any rebase onto a head someone else
// pushed meanwhile, lie between. Change.Expect carries what the decision was
// made on, and the writer checks it on the tree the commit is actually built
// on, so a file pushed by a person in between is never overwritten.

// PreconditionError is the error of a change whose Expect did not hold where
// it would have landed: Path holds Have, not Want (blob SHAs; "" for no
// file). It is wrapped in an *Error of KindPathConflict; find it with
// errors.As.
type PreconditionError struct {
	Path string
	Want string
	Have string
}

func (e *PreconditionError) Error() string {
	return fmt.Sprintf("%q changed on the branch after the change was computed: expected %s, found %s", e.Path, blobName(e.Want), blobName(e.Have))
}

// blobName names a blob SHA of a PreconditionError for a person.
func blobName(sha string) string {
	if sha == "" {
		return "no file"
	}
	return "blob " + sha
}

// expect checks c.Expect on t, path by path in order, and returns the first
// that fails as a KindPathConflict. A path that runs through a file holds no
// file; a directory holds its tree's hash, which no blob SHA equals.
func expect(st storer.EncodedObjectStorer, t *tree, c *Part) error {
	for _, p := range slices.Sorted(maps.Keys(c.Expect)) {
		parts, err := splitPath(p)
		if err != nil {
			return err
		}
		e, err := t.lookup(st, parts)
		if err != nil && KindOf(err) != KindPathConflict {
			return err
		}
		have := ""
		if e != nil {
			have = e.hash.String()
		}
		want := c.Expect[p]
		if have == want {
			continue
		}
		if f, ok := c.Puts[p]; ok && e != nil && e.mode != filemode.Dir && e.hash == plumbing.ComputeHash(plumbing.BlobObject, f.Content) {
			// Already what the change writes: the outcome is the same.
			continue
		}
		return &Error{Kind: KindPathConflict, Err: &PreconditionError{Path: p, Want: want, Have: have}}
	}
	return nil
}
