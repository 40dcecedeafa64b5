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
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errFmtMkdir      = "cannot create %s"
	errFmtNoRef      = "cannot branch %s from %s: no such commit"
	errFmtWriteHook  = "cannot write the %s hook"
	errFmtWriteFile  = "cannot write %s"
	errWriterWorkdir = "cannot create the writer's work tree"
)

// BareRepo is a bare repository on disk that the Git servers serve, written
// and read with the git CLI (never with provider-git's own Git engine).
type BareRepo struct {
	// Dir is the absolute path of the bare repository (ends in .git).
	Dir string
	// Name is Dir relative to the server root, e.g. "repo.git".
	Name string
}

// CommitSpec describes one commit made by BareRepo.Commit.
type CommitSpec struct {
	Message string
	// Files maps a slash-separated path to its new content.
	Files map[string]string
	// Deletes lists paths to remove.
	Deletes []string
}

// NewBareRepo creates root/name (name should end in .git) as a bare
// repository. Each entry of branches becomes a branch holding the given
// commits in order; the first commit of every branch is a root commit unless
// the branch name is of the form "new=from", which starts the branch at the
// head of branch "from" (created earlier in sorted order). With no branches the
// repository is empty.
func NewBareRepo(root, name string, branches map[string][]CommitSpec) (*BareRepo, error) {
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errors.Wrapf(err, errFmtMkdir, dir)
	}
	if _, err := Git(dir, nil, "init", "--bare", "--initial-branch=main", "--quiet"); err != nil {
		return nil, err
	}
	// A reflog on the bare repository lets tests prove that no update was a
	// force push.
	if _, err := Git(dir, nil, "config", "core.logAllRefUpdates", "always"); err != nil {
		return nil, err
	}
	r := &BareRepo{Dir: dir, Name: name}

	names := make([]string, 0, len(branches))
	for b := range branches {
		names = append(names, b)
	}
	sort.Strings(names)
	for _, n := range names {
		branch, from, _ := strings.Cut(n, "=")
		if from != "" {
			if err := r.CreateBranch(branch, from); err != nil {
				return nil, err
			}
		}
		for _, c := range branches[n] {
			if _, err := r.Commit(branch, c); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// CreateBranch points a new branch at the head of ref without a commit.
func (r *BareRepo) CreateBranch(branch, ref string) error {
	head, err := r.Head(ref)
	if err != nil {
		return err
	}
	if head == "" {
		return errors.Errorf(errFmtNoRef, branch, ref)
	}
	_, err = Git(r.Dir, nil, "update-ref", "refs/heads/"+branch, head, "")
	return err
}

// SetHook installs an executable hook (e.g. "pre-receive") with the given
// shell script body, so the server rejects what the script rejects.
func (r *BareRepo) SetHook(hook, script string) error {
	p := filepath.Join(r.Dir, "hooks", hook)
	err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755)
	return errors.Wrapf(err, errFmtWriteHook, hook)
}

// Commit makes one commit on branch (creating it as a root commit when it
// does not exist) straight into the bare repository, as a writer that is not
// the provider would, through a throw-away work tree. It returns the new head;
// a push rejected because another writer moved the branch is an error.
func (r *BareRepo) Commit(branch string, c CommitSpec) (string, error) {
	w, err := r.NewWriter()
	if err != nil {
		return "", err
	}
	defer w.Close()
	return w.Commit(branch, c)
}

// Writer is a writer with its own clone of a bare repository. It pushes over
// the file system, so the HTTP server does not count its requests.
type Writer struct {
	dir string
}

// NewWriter makes a temporary work tree whose origin is the repository.
// Close removes it.
func (r *BareRepo) NewWriter() (*Writer, error) {
	dir, err := os.MkdirTemp("", "gitwriter-")
	if err != nil {
		return nil, errors.Wrap(err, errWriterWorkdir)
	}
	w := &Writer{dir: dir}
	if _, err := Git(dir, nil, "init", "--quiet", "--initial-branch=main"); err != nil {
		w.Close()
		return nil, err
	}
	if _, err := Git(dir, nil, "remote", "add", "origin", r.Dir); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Close removes the writer's work tree.
func (w *Writer) Close() { _ = os.RemoveAll(w.dir) }

// Commit fetches branch, applies c on top of its head (or as a root commit
// when the branch does not exist), commits and pushes without force. It
// returns the pushed head, or an error when the push was rejected.
func (w *Writer) Commit(branch string, c CommitSpec) (string, error) {
	exists := true
	if _, err := Git(w.dir, nil, "fetch", "--quiet", "origin", "+refs/heads/"+branch+":refs/remotes/origin/"+branch); err != nil {
		if !strings.Contains(err.Error(), "couldn't find remote ref") {
			return "", err
		}
		exists = false
	}
	if exists {
		if _, err := Git(w.dir, nil, "checkout", "--quiet", "-B", branch, "refs/remotes/origin/"+branch); err != nil {
			return "", err
		}
	} else {
		if _, err := Git(w.dir, nil, "checkout", "--quiet", "--orphan", branch); err != nil {
			return "", err
		}
		// An orphan checkout keeps the previous branch's files staged.
		_, _ = Git(w.dir, nil, "rm", "-rfq", "--ignore-unmatch", ".")
	}
	for p, content := range c.Files {
		full := filepath.Join(w.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return "", errors.Wrapf(err, errFmtWriteFile, p)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return "", errors.Wrapf(err, errFmtWriteFile, p)
		}
	}
	for _, p := range c.Deletes {
		if _, err := Git(w.dir, nil, "rm", "-q", "--ignore-unmatch", p); err != nil {
			return "", err
		}
	}
	if _, err := Git(w.dir, nil, "add", "-A"); err != nil {
		return "", err
	}
	msg := c.Message
	if msg == "" {
		msg = "external commit"
	}
	if _, err := Git(w.dir, nil, "commit", "--quiet", "--allow-empty", "-m", msg); err != nil {
		return "", err
	}
	if _, err := Git(w.dir, nil, "push", "--quiet", "origin", "HEAD:refs/heads/"+branch); err != nil {
		return "", err
	}
	out, err := Git(w.dir, nil, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}
