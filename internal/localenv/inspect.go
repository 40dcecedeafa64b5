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

package localenv

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errCatFile       = "cannot parse git cat-file output"
	errFmtLogRecord  = "cannot parse git log record %q"
	errFmtReadReflog = "cannot read the reflog of %s"
)

// Head returns the commit SHA ref (a branch name or any revision) resolves to,
// or "" when it resolves to no commit.
func (r *BareRepo) Head(ref string) (string, error) {
	out, err := Git(r.Dir, nil, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if exitCode(err) == 1 {
		// --verify --quiet: status 1 and no output means "no such commit".
		return "", nil
	}
	return strings.TrimSpace(out), err
}

// Files returns every file ref holds, path to content.
func (r *BareRepo) Files(ref string) (map[string]string, error) {
	ls, err := Git(r.Dir, nil, "ls-tree", "-r", "-z", ref)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	var paths, blobs []string
	for _, rec := range strings.Split(ls, "\x00") {
		if rec == "" {
			continue
		}
		meta, path, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta) // mode type sha
		if len(f) != 3 || f[1] != "blob" {
			continue
		}
		paths = append(paths, path)
		blobs = append(blobs, f[2])
	}
	if len(blobs) == 0 {
		return files, nil
	}
	// One cat-file for every blob: a process per file is slow on large trees.
	out, err := gitIn(r.Dir, strings.NewReader(strings.Join(blobs, "\n")+"\n"), nil, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(strings.NewReader(out))
	for _, p := range paths {
		var sha, typ string
		var size int
		if _, err := fmt.Fscanf(br, "%s %s %d\n", &sha, &typ, &size); err != nil {
			return nil, errors.Wrap(err, errCatFile)
		}
		buf := make([]byte, size+1) // content plus trailing newline
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, errors.Wrap(err, errCatFile)
		}
		files[p] = string(buf[:size])
	}
	return files, nil
}

// LogEntry is one commit as git log shows it.
type LogEntry struct {
	SHA     string
	Parents []string
	Message string
	// Trailers maps a trailer key to its values in order.
	Trailers map[string][]string
}

// Log returns the history of ref, newest first.
func (r *BareRepo) Log(ref string) ([]LogEntry, error) {
	out, err := Git(r.Dir, nil, "log", "--format=%H%x00%P%x00%B%x00%(trailers:only,unfold)%x1e", ref)
	if err != nil {
		return nil, err
	}
	var log []LogEntry
	for _, rec := range strings.Split(out, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x00", 4)
		if len(f) != 4 {
			return nil, errors.Errorf(errFmtLogRecord, rec)
		}
		e := LogEntry{SHA: f[0], Parents: strings.Fields(f[1]), Message: strings.TrimRight(f[2], "\n"), Trailers: map[string][]string{}}
		for _, l := range strings.Split(f[3], "\n") {
			if k, v, ok := strings.Cut(l, ": "); ok {
				e.Trailers[k] = append(e.Trailers[k], v)
			}
		}
		log = append(log, e)
	}
	return log, nil
}

// IsAncestor reports whether commit a is an ancestor of (or equal to) b.
func (r *BareRepo) IsAncestor(a, b string) (bool, error) {
	_, err := Git(r.Dir, nil, "merge-base", "--is-ancestor", a, b)
	if exitCode(err) == 1 {
		// --is-ancestor: status 1 means "no", anything else is an error.
		return false, nil
	}
	return err == nil, err
}

// RefUpdate is one entry of a branch's reflog.
type RefUpdate struct{ Old, New string }

// Reflog returns every update of branch in the order they happened, so a
// caller can prove each one was a fast-forward.
func (r *BareRepo) Reflog(branch string) ([]RefUpdate, error) {
	b, err := os.ReadFile(filepath.Join(r.Dir, "logs", "refs", "heads", filepath.FromSlash(branch)))
	if err != nil {
		return nil, errors.Wrapf(err, errFmtReadReflog, branch)
	}
	var ups []RefUpdate
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			ups = append(ups, RefUpdate{Old: f[0], New: f[1]})
		}
	}
	return ups, nil
}
