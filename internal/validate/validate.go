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
	"regexp"
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
	errBranchRef     = "branch must be a branch name, not HEAD and not a full ref starting with refs/"
	errPathEmpty     = "path must not be empty"
	errPathLong      = "path must be at most 1024 characters"
	errPathUnclean   = "path must be relative and clean: no leading or trailing '/', no '//', no '.' or '..' components"
	errPathGit       = "path must not be inside a .git directory (.git or git~1 in any spelling a file system treats as it)"
	errPathControl   = "path must not contain control characters"
	errContentLarge  = "content must be at most 512 KiB"
	errContentBinary = "content must be valid UTF-8 text"
	errMessageCtl    = "commit message must not contain control characters other than newline and tab"
)

// DotGitPattern matches a path with a component some file system or Git
// itself treats as the .git directory: .git or git~1 (its 8.3 short name) in
// any case; with trailing dots and spaces, or a ":stream" suffix, which NTFS
// ignores; with the code points HFS+ ignores (U+200C-U+200F, U+202A-U+202E,
// U+206A-U+206F, U+FEFF) anywhere in it; and with a backslash as a separator,
// as on Windows. Git's own path checks refuse all of these, so a File that
// names one could never be pushed. The CRDs embed this very expression, and
// a test holds them to it.
const DotGitPattern = `(?i)(^|[/\x5c])([\x{200C}-\x{200F}\x{202A}-\x{202E}\x{206A}-\x{206F}\x{FEFF}]*[.][\x{200C}-\x{200F}\x{202A}-\x{202E}\x{206A}-\x{206F}\x{FEFF}]*g[\x{200C}-\x{200F}\x{202A}-\x{202E}\x{206A}-\x{206F}\x{FEFF}]*i[\x{200C}-\x{200F}\x{202A}-\x{202E}\x{206A}-\x{206F}\x{FEFF}]*t|git~1)[. \x{200C}-\x{200F}\x{202A}-\x{202E}\x{206A}-\x{206F}\x{FEFF}]*(:[^/\x5c]*)?([/\x5c]|$)`

var dotGit = regexp.MustCompile(DotGitPattern)

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
	// git check-ref-format --branch refuses HEAD, and a name starting with
	// refs/ would nest (refs/heads/refs/heads/x) rather than mean that ref.
	if name == "HEAD" || strings.HasPrefix(name, "refs/") {
		return errors.New(errBranchRef)
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
	}
	if dotGit.MatchString(p) {
		return errors.New(errPathGit)
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

// MessageText returns an error for a commit message with a control
// character other than newline and tab: a NUL ends a commit object's text
// for Git (fsck refuses it), and the others garble every log that shows it.
// The CRDs refuse the same in the messages they store.
func MessageText(m string) error {
	for _, r := range m {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			return errors.New(errMessageCtl)
		}
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
