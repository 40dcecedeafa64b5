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

package validate

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
)

func TestBranchName(t *testing.T) {
	cases := map[string]struct {
		reason string
		name   string
		want   error
	}{
		"Main":          {reason: "The common case.", name: "main"},
		"Nested":        {reason: "Slashes make branch folders.", name: "release/v1.2_rc+1"},
		"Empty":         {reason: "A branch needs a name.", name: "", want: errors.New(errBranchEmpty)},
		"TooLong":       {reason: "Ref names are bounded.", name: strings.Repeat("a", 256), want: errors.New(errBranchLong)},
		"Space":         {reason: "git check-ref-format forbids spaces.", name: "a b", want: errors.New(errBranchChars)},
		"Star":          {reason: "git check-ref-format forbids '*'.", name: "a*", want: errors.New(errBranchChars)},
		"Colon":         {reason: "A colon would read as a refspec.", name: "a:b", want: errors.New(errBranchChars)},
		"DotDot":        {reason: "git check-ref-format forbids '..'.", name: "a..b", want: errors.New(errBranchShape)},
		"LeadingSlash":  {reason: "Not a branch.", name: "/main", want: errors.New(errBranchShape)},
		"TrailingSlash": {reason: "Not a branch.", name: "main/", want: errors.New(errBranchShape)},
		"DoubleSlash":   {reason: "Empty components.", name: "a//b", want: errors.New(errBranchShape)},
		"Lock":          {reason: "git uses .lock files for refs.", name: "main.lock", want: errors.New(errBranchShape)},
		"LockComponent": {reason: "git uses .lock files for refs.", name: "a.lock/b", want: errors.New(errBranchShape)},
		"TrailingDot":   {reason: "git check-ref-format forbids a trailing dot.", name: "a.", want: errors.New(errBranchShape)},
		"HiddenPart":    {reason: "No component may start with a dot.", name: "a/.b", want: errors.New(errBranchShape)},
		"OptionLike":    {reason: "A leading dash reads as an option.", name: "-f", want: errors.New(errBranchShape)},
		"HEAD":          {reason: "git check-ref-format --branch refuses HEAD; a branch of that name shadows the symbolic ref.", name: "HEAD", want: errors.New(errBranchRef)},
		"FullRef":       {reason: "refs/heads/x would become refs/heads/refs/heads/x, not the ref it names.", name: "refs/heads/x", want: errors.New(errBranchRef)},
		"HEADInside":    {reason: "HEAD as a component of a longer name is a plain branch.", name: "feature/HEAD"},
		"RefsLike":      {reason: "Only a refs/ prefix is refused.", name: "refsx/y"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, BranchName(tc.name), test.EquateErrors()); diff != "" {
				t.Errorf("%s\nBranchName(%q): -want, +got:\n%s", tc.reason, tc.name, diff)
			}
		})
	}
}

func TestPath(t *testing.T) {
	cases := map[string]struct {
		reason string
		path   string
		want   error
	}{
		"Plain":         {reason: "The common case.", path: "apps/demo/config.yaml"},
		"DotFile":       {reason: "Dot files are not .git.", path: ".github/workflows/ci.yaml"},
		"GitLike":       {reason: "Only a .git component is refused.", path: "docs/.gitignore"},
		"Unicode":       {reason: "Non-ASCII names are fine.", path: "docs/über.md"},
		"Empty":         {reason: "A file needs a path.", path: "", want: errors.New(errPathEmpty)},
		"TooLong":       {reason: "Paths are bounded.", path: strings.Repeat("a", 1025), want: errors.New(errPathLong)},
		"Absolute":      {reason: "Paths are relative to the root.", path: "/etc/passwd", want: errors.New(errPathUnclean)},
		"Escape":        {reason: "No escaping the repository.", path: "a/../../x", want: errors.New(errPathUnclean)},
		"Dot":           {reason: "Unclean paths name a file two ways.", path: "a/./b", want: errors.New(errPathUnclean)},
		"DoubleSlash":   {reason: "Unclean paths name a file two ways.", path: "a//b", want: errors.New(errPathUnclean)},
		"TrailingSlash": {reason: "A folder is not a file.", path: "a/", want: errors.New(errPathUnclean)},
		"GitDir":        {reason: "Writing into .git corrupts clones.", path: ".git/config", want: errors.New(errPathGit)},
		"NestedGitDir":  {reason: "So does a nested one.", path: "x/.git/hooks/post-checkout", want: errors.New(errPathGit)},
		"UpperGitDir":   {reason: "Case-insensitive file systems see .GIT as .git.", path: ".GIT/config", want: errors.New(errPathGit)},
		"DottedGitDir":  {reason: "Windows ignores trailing dots and spaces.", path: ".git. /config", want: errors.New(errPathGit)},
		"ShortGitDir":   {reason: "GIT~1 is .git's 8.3 short name.", path: "git~1/config", want: errors.New(errPathGit)},
		"GitLikeFile":   {reason: "Only the .git directory is refused.", path: "a/.gitkeep"},
		"HFSIgnorable":  {reason: "HFS+ ignores U+200C: .git\u200c is .git there.", path: ".git\u200c/config", want: errors.New(errPathGit)},
		"HFSLeading":    {reason: "Ignorable code points may come first.", path: "\ufeff.git/config", want: errors.New(errPathGit)},
		"HFSInside":     {reason: "Or between the letters.", path: "a/.g\u206ait/config", want: errors.New(errPathGit)},
		"NTFSStream":    {reason: "NTFS reads .git::$INDEX_ALLOCATION as the .git directory.", path: ".git::$INDEX_ALLOCATION/config", want: errors.New(errPathGit)},
		"Backslash":     {reason: "Windows reads a backslash as a separator.", path: "a\\.git\\config", want: errors.New(errPathGit)},
		"HFSOtherName":  {reason: "An ignorable code point before other letters makes another name.", path: ".git\u200cx/y"},
		"OtherShort":    {reason: "git~2 is some other directory's short name.", path: "git~2/x"},
		"NUL":           {reason: "Git cannot store NUL in a path.", path: "a\x00b", want: errors.New(errPathControl)},
		"Newline":       {reason: "Newlines in paths break every log.", path: "a\nb", want: errors.New(errPathControl)},
		"DEL":           {reason: "DEL is a control character.", path: "a\x7fb", want: errors.New(errPathControl)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Path(tc.path), test.EquateErrors()); diff != "" {
				t.Errorf("%s\nPath(%q): -want, +got:\n%s", tc.reason, tc.path, diff)
			}
		})
	}
}

func TestContent(t *testing.T) {
	cases := map[string]struct {
		reason  string
		content string
		want    error
	}{
		"Text":    {reason: "The common case.", content: "a: 1\n"},
		"AtLimit": {reason: "The cap is inclusive.", content: strings.Repeat("x", MaxContentBytes)},
		"Large":   {reason: "Content is capped.", content: strings.Repeat("x", MaxContentBytes+1), want: errors.New(errContentLarge)},
		"Binary":  {reason: "Invalid UTF-8 was mangled on the way in.", content: "\xff\xfe", want: errors.New(errContentBinary)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Content(tc.content), test.EquateErrors()); diff != "" {
				t.Errorf("%s\nContent: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPathAgreesWithGit asks git itself, with the checks for HFS+ and NTFS on
// (as a server running fsck does), whether it would store each path: Path
// must refuse exactly what git refuses, or a File could pass admission and
// then never be pushed.
func TestPathAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed (make test installs it): %v", err)
	}
	dir := t.TempDir()
	gitIn := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-c", "core.protectHFS=true", "-c", "core.protectNTFS=true"}, args...)...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	if _, err := gitIn("", "init", "-q"); err != nil {
		t.Fatal(err)
	}
	blob, err := gitIn("x\n", "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{
		"a/b.txt", ".github/ci.yaml", "docs/.gitignore", "a/.gitkeep", "a:b", "a\\b", "git~2/x", ".gitx/y",
		".git\u200cx/y", ".git/config", "x/.GIT./y", ".git /x", ".git:/x", "GIT~1/x", "git~1./x",
		".git\u200c/config", "\u200c.git/x", ".g\u200cit/x", "a/.gi\u202et/x", ".git\ufeff/x",
		".git::$INDEX_ALLOCATION/x", "a\\.git\\config", "a\\git~1\\config",
	}
	for _, p := range paths {
		_, gitErr := gitIn("", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+p)
		if codeErr := Path(p); (codeErr == nil) != (gitErr == nil) {
			t.Errorf("Path(%q) = %v, but git update-index says %v", p, codeErr, gitErr)
		}
	}
}
