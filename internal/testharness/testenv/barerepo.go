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

package testenv

import (
	"testing"

	"github.com/crossplane-contrib/provider-git/internal/localenv"
)

// CommitSpec describes one commit made by a helper.
type CommitSpec = localenv.CommitSpec

// LogEntry is one commit as git log shows it.
type LogEntry = localenv.LogEntry

// RefUpdate is one entry of a branch's reflog.
type RefUpdate = localenv.RefUpdate

// BareRepo is a bare repository on disk that the test servers serve and
// tests inspect with the git CLI (never with the code under test). Its
// Commit and NewWriter return errors, so goroutines can call them.
type BareRepo struct {
	localenv.BareRepo
}

// NewBareRepo creates root/name (name should end in .git) as a bare
// repository. Each entry of branches becomes a branch holding the given
// commits in order; the first commit of every branch is a root commit unless
// the branch name is of the form "new=from", which starts the branch at the
// head of branch "from" (created earlier in sorted order). With no branches the
// repository is empty.
func NewBareRepo(tb testing.TB, root, name string, branches map[string][]CommitSpec) *BareRepo {
	tb.Helper()
	r, err := localenv.NewBareRepo(root, name, branches)
	if err != nil {
		tb.Fatal(err)
	}
	return &BareRepo{BareRepo: *r}
}

// CreateBranch points a new branch at the head of ref without a commit.
func (r *BareRepo) CreateBranch(tb testing.TB, branch, ref string) {
	tb.Helper()
	if err := r.BareRepo.CreateBranch(branch, ref); err != nil {
		tb.Fatal(err)
	}
}

// SetHook installs an executable hook (e.g. "pre-receive") with the given
// shell script body, to simulate server-side rejections.
func (r *BareRepo) SetHook(tb testing.TB, hook, script string) {
	tb.Helper()
	if err := r.BareRepo.SetHook(hook, script); err != nil {
		tb.Fatal(err)
	}
}

// Head returns the commit SHA ref (a branch name or any revision) resolves to
// in the bare repository, or "" when it resolves to no commit.
func (r *BareRepo) Head(tb testing.TB, ref string) string {
	tb.Helper()
	h, err := r.BareRepo.Head(ref)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// Files returns every file ref holds, path to content.
func (r *BareRepo) Files(tb testing.TB, ref string) map[string]string {
	tb.Helper()
	f, err := r.BareRepo.Files(ref)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// Log returns the history of ref, newest first.
func (r *BareRepo) Log(tb testing.TB, ref string) []LogEntry {
	tb.Helper()
	l, err := r.BareRepo.Log(ref)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// IsAncestor reports whether commit a is an ancestor of (or equal to) b.
func (r *BareRepo) IsAncestor(tb testing.TB, a, b string) bool {
	tb.Helper()
	ok, err := r.BareRepo.IsAncestor(a, b)
	if err != nil {
		tb.Fatal(err)
	}
	return ok
}

// Reflog returns every update of branch in the order they happened, so a test
// can prove each one was a fast-forward.
func (r *BareRepo) Reflog(tb testing.TB, branch string) []RefUpdate {
	tb.Helper()
	u, err := r.BareRepo.Reflog(branch)
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

// Branch makes each branch of heads one commit on top of the head of from,
// in one git run however many there are, and returns their heads.
func (r *BareRepo) Branch(tb testing.TB, from string, heads map[string]CommitSpec) map[string]string {
	tb.Helper()
	h, err := r.BareRepo.Branch(from, heads)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}
