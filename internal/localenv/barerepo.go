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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errFmtMkdir     = "cannot create %s"
	errFmtNoRef     = "cannot branch %s from %s: no such commit"
	errFmtWriteHook = "cannot write the %s hook"
	errFmtWriteFile = "cannot write %s"
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

// repoConfig is added to each bare repository's own configuration. A reflog
// lets tests prove that no update was a force push. Housekeeping is off as in
// noHousekeeping: a push over a local path reaches receive-pack without the
// pusher's GIT_CONFIG_* variables (git clears them for a local transport).
const repoConfig = `[core]
	logAllRefUpdates = always
[receive]
	autoGC = false
[gc]
	auto = 0
[maintenance]
	auto = false
`

// appendFile appends s to the file at p.
func appendFile(p, s string) error {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return errors.Wrapf(err, errFmtWriteFile, p)
	}
	if _, err := f.WriteString(s); err != nil {
		_ = f.Close()
		return errors.Wrapf(err, errFmtWriteFile, p)
	}
	return errors.Wrapf(f.Close(), errFmtWriteFile, p)
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
	_, statErr := os.Stat(filepath.Join(dir, "config"))
	if _, err := Git(dir, nil, "init", "--bare", "--initial-branch=main", "--quiet"); err != nil {
		return nil, err
	}
	if os.IsNotExist(statErr) {
		if err := appendFile(filepath.Join(dir, "config"), repoConfig); err != nil {
			return nil, err
		}
	}
	if err := seed(dir, branches); err != nil {
		return nil, err
	}
	return &BareRepo{Dir: dir, Name: name}, nil
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
