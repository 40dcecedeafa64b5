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

// Package validate checks branch names, paths and content in code, with the
// same rules the CRDs enforce with CEL. The CRD is the first line; this is the
// second, so an object stored before a CRD change (or under a CRD someone
// edited) cannot reach Git with a path that escapes the repository.
package validate

import (
	"strings"
	"unicode/utf8"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// Limits, the same as the CRD's (apis/v1alpha1/validation.go says why).
const (
	MaxBranchLength = 255
	MaxPathLength   = 1024
	MaxContentBytes = 512 * 1024
)

const (
	errBranchEmpty   = "branch must not be empty"
	errBranchLong    = "branch must be at most 255 characters"
	errBranchChars   = "branch must be a valid Git branch name: letters, digits and . _ / + -"
	errBranchShape   = "branch must be a valid Git branch name: no '..' or '//', no component starting with '.' or '-', not starting with '/', not ending in '/', '.' or '.lock'"
	errPathEmpty     = "path must not be empty"
	errPathLong      = "path must be at most 1024 characters"
	errPathUnclean   = "path must be relative and clean: no leading or trailing '/', no '//', no '.' or '..' components"
	errPathGit       = "path must not be inside a .git directory"
	errPathControl   = "path must not contain control characters"
	errContentLarge  = "content must be at most 512 KiB"
	errContentBinary = "content must be valid UTF-8 text"
)

// BranchName returns an error unless name is a branch name the provider
// accepts: a conservative subset of git check-ref-format.
func BranchName(name string) error {
	switch {
	case name == "":
		return errors.New(errBranchEmpty)
	case utf8.RuneCountInString(name) > MaxBranchLength:
		return errors.New(errBranchLong)
	}
	if strings.IndexFunc(name, notBranchRune) >= 0 {
		return errors.New(errBranchChars)
	}
	if strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") ||
		strings.HasSuffix(name, ".lock") || strings.Contains(name, "..") || strings.Contains(name, "//") ||
		strings.Contains(name, ".lock/") {
		return errors.New(errBranchShape)
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasPrefix(part, "-") {
			return errors.New(errBranchShape)
		}
	}
	return nil
}

// Path returns an error unless p is a clean path relative to the repository
// root, outside any .git directory, without control characters.
func Path(p string) error {
	switch {
	case p == "":
		return errors.New(errPathEmpty)
	case utf8.RuneCountInString(p) > MaxPathLength:
		return errors.New(errPathLong)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return errors.New(errPathControl)
		}
	}
	if strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
		return errors.New(errPathUnclean)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "." || part == ".." {
			return errors.New(errPathUnclean)
		}
		// .git in any case, with the trailing dots and spaces Windows
		// ignores, or as its 8.3 short name: git's fsck refuses them all.
		if p := strings.ToLower(strings.TrimRight(part, ". ")); p == ".git" || p == "git~1" {
			return errors.New(errPathGit)
		}
	}
	return nil
}

// Content returns an error unless c fits the size cap and is text: the CRD
// stores content as a string, so anything else was mangled on the way in.
func Content(c string) error {
	switch {
	case len(c) > MaxContentBytes:
		return errors.New(errContentLarge)
	case !utf8.ValidString(c):
		return errors.New(errContentBinary)
	}
	return nil
}

// notBranchRune reports a rune outside the branch alphabet the CRD admits:
// ASCII letters, digits and ._/+-.
func notBranchRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("._/+-", r)
}
