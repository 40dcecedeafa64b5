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

package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// repoPathRE is a path from the repository's top as the examples' comments
// name one (docs/guides/mirror.md#secrets, examples/inplace/README.md): a
// top-level folder of the repository or README.md, and an optional anchor.
// It ends on a letter, digit, slash or hyphen, so a sentence's full stop
// is not part of it.
var repoPathRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:README\.md|(?:docs|examples|internal|apis|package|cluster|cmd)/[A-Za-z0-9_./-]*[A-Za-z0-9_/-])(?:#[A-Za-z0-9_-]+)?)`)

// TestExampleReferencesResolve follows every path the examples' comments
// (and their READMEs' text) name to its file and heading, and refuses a
// reference to a README section by its title ("README's RBAC section"),
// which no test can follow: name the page, docs/…/x.md#anchor, instead.
func TestExampleReferencesResolve(t *testing.T) {
	n := 0
	err := filepath.WalkDir(filepath.Join(root, "examples"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		var lines []string
		switch filepath.Ext(p) {
		case ".yaml", ".yml":
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			lines = yamlComments(string(data))
		case ".md":
			lines = prose(t, p)
		default:
			return nil
		}
		refs, broken := checkRefs(t, root, p, lines, true)
		n += refs
		for _, b := range broken {
			t.Errorf("%s:%d: %s: %s", b.File, b.Line, b.Target, b.Why)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Errorf("followed %d references in examples/: the scan is broken", n)
	}
}

// yamlComments returns the comment of each line of a YAML file (empty for
// a line without one), by line number: the text after a # that opens the
// line or follows a blank. Quotes are not tracked: a value holding " #"
// would read as a comment, and none of the examples has one.
func yamlComments(data string) []string {
	lines := strings.Split(data, "\n")
	for i, l := range lines {
		c := ""
		for j := 0; j < len(l); j++ {
			if l[j] == '#' && (j == 0 || l[j-1] == ' ' || l[j-1] == '\t') {
				c = l[j+1:]
				break
			}
		}
		lines[i] = c
	}
	return lines
}

// TestDocPathsResolve holds the paths README.md and docs/ name in their
// text (`examples/file.yaml`, internal/docs), links or not, to files and
// folders that exist.
func TestDocPathsResolve(t *testing.T) {
	n := 0
	for _, f := range markdownFiles(t) {
		refs, broken := checkRefs(t, root, f, prose(t, f), false)
		n += refs
		for _, b := range broken {
			t.Errorf("%s:%d: %s: %s", b.File, b.Line, b.Target, b.Why)
		}
	}
	if n < 50 {
		t.Errorf("followed %d paths in the docs: the scan is broken", n)
	}
}

// checkRefs returns how many repository paths lines (of file) name, and
// those that do not resolve from the repository's top, top; with
// bareREADME, every mention of a README by anything but its path too.
func checkRefs(t *testing.T, top, file string, lines []string, bareREADME bool) (int, []brokenLink) {
	t.Helper()
	n := 0
	var broken []brokenLink
	for i, l := range lines {
		bad := func(target, why string) {
			broken = append(broken, brokenLink{File: file, Line: i + 1, Target: target, Why: why})
		}
		if bareREADME && strings.Contains(strings.ReplaceAll(l, "README.md", ""), "README") {
			bad("README", "a README section named by its title: name the page and anchor (docs/….md#anchor) instead")
		}
		for _, m := range repoPathRE.FindAllStringSubmatch(l, -1) {
			n++
			p, anchor, _ := strings.Cut(m[1], "#")
			dest := filepath.Join(top, filepath.FromSlash(p))
			if _, err := os.Stat(dest); err != nil {
				bad(m[1], "no such file or directory")
				continue
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				bad(m[1], "an anchor into something that is not a Markdown file")
				continue
			}
			if !anchors(t, dest)[anchor] {
				bad(m[1], "no heading of "+dest+" has this anchor")
			}
		}
	}
	return n, broken
}

// TestCheckRefsFindsBrokenOnes holds the check to comments with one
// reference of each kind, good and bad.
func TestCheckRefsFindsBrokenOnes(t *testing.T) {
	top := t.TempDir()
	if err := os.MkdirAll(filepath.Join(top, "docs"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"README.md": "# Top\n", "docs/page.md": "# Page\n\n## Two words\n", "docs/x.yaml": "a: 1\n"} {
		if err := os.WriteFile(filepath.Join(top, filepath.FromSlash(name)), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	data := "# See docs/page.md#two-words and README.md.\n" +
		"a: b # (docs/page.md), docs/x.yaml\n" +
		"path: docs/missing.md\n" + // a value, not a comment
		"# docs/missing.md docs/page.md#nope docs/x.yaml#a\n" +
		"# the README's RBAC section, README \"Encrypting Secrets\"\n"
	n, broken := checkRefs(t, top, "ex.yaml", yamlComments(data), true)
	var got []string
	for _, b := range broken {
		got = append(got, b.Target)
	}
	want := []string{"docs/missing.md", "docs/page.md#nope", "docs/x.yaml#a", "README"}
	if n != 7 {
		t.Errorf("counted %d references, want 7", n)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("broken references: -want, +got:\n%s", diff)
	}
}
