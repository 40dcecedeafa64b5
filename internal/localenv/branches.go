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
	"bytes"
	"sort"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errFmtBranchExists = "cannot branch %s from %s: it exists"
	errFmtBadRefLine   = "cannot read the heads: %q"
)

// Branch makes each branch of heads one commit, heads[branch], on top of
// the head of from, straight into the bare repository as a writer that is
// not the provider would, and returns each new branch's head. It is Commit
// for many branches at once: one git fast-import for all of them instead
// of a work tree, a fetch and a push per commit (a hundred branches cost
// a hundred times what one does through Commit). None of heads may exist.
func (r *BareRepo) Branch(from string, heads map[string]CommitSpec) (map[string]string, error) {
	base, err := r.Head(from)
	if err != nil {
		return nil, err
	}
	if base == "" {
		return nil, errors.Errorf(errFmtNoRef, "", from)
	}
	before, err := r.Heads()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(heads))
	for b := range heads {
		if _, ok := before[b]; ok {
			return nil, errors.Errorf(errFmtBranchExists, b, from)
		}
		names = append(names, b)
	}
	sort.Strings(names)
	var in bytes.Buffer
	now := time.Now()
	for _, b := range names {
		writeCommit(&in, "refs/heads/"+b, 0, base, heads[b], now)
	}
	if _, err := gitIn(r.Dir, &in, nil, "fast-import", "--quiet"); err != nil {
		return nil, err
	}
	after, err := r.Heads()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(names))
	for _, b := range names {
		out[b] = after[b]
	}
	return out, nil
}

// Heads returns the head commit of every branch, by name.
func (r *BareRepo) Heads() (map[string]string, error) {
	ls, err := Git(r.Dir, nil, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for line := range strings.Lines(ls) {
		sha, ref, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			return nil, errors.Errorf(errFmtBadRefLine, line)
		}
		out[strings.TrimPrefix(ref, "refs/heads/")] = sha
	}
	return out, nil
}
