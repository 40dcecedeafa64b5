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
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	linkRE     = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	schemeRE   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// A broken link is one a reader follows to nothing: a file that is not
// there, or an anchor no heading of its page has.
type brokenLink struct {
	File   string
	Line   int
	Target string
	Why    string
}

// TestLinksResolve follows every relative link of the Markdown of README.md,
// docs/ and examples/ (a path, a path#anchor or an #anchor) to its file
// and heading.
func TestLinksResolve(t *testing.T) {
	files := markdownFiles(t)
	if len(files) < 10 {
		t.Fatalf("found %d Markdown files: the walk is broken", len(files))
	}
	links := 0
	for _, f := range files {
		n, broken := checkLinks(t, root, f)
		links += n
		for _, b := range broken {
			t.Errorf("%s:%d: %s: %s", b.File, b.Line, b.Target, b.Why)
		}
	}
	if links < 50 {
		t.Errorf("followed %d links in %d files: the scan is broken", links, len(files))
	}
}

// checkLinks returns how many relative links file has, and those that do
// not resolve inside the repository at top.
func checkLinks(t *testing.T, top, file string) (int, []brokenLink) {
	t.Helper()
	absRoot, err := filepath.Abs(top)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var broken []brokenLink
	for i, l := range prose(t, file) {
		for _, m := range linkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(l, ""), -1) {
			target := m[1]
			if schemeRE.MatchString(target) {
				continue // a URL: not ours to check offline
			}
			n++
			p, anchor, _ := strings.Cut(target, "#")
			dest := file
			if p != "" {
				dest = filepath.Join(filepath.Dir(file), p)
			}
			bad := func(why string) {
				broken = append(broken, brokenLink{File: file, Line: i + 1, Target: target, Why: why})
			}
			abs, err := filepath.Abs(dest)
			if err != nil {
				t.Fatal(err)
			}
			if rel, err := filepath.Rel(absRoot, abs); err != nil || strings.HasPrefix(rel, "..") {
				bad("leaves the repository")
				continue
			}
			fi, err := os.Stat(dest)
			if err != nil {
				bad("no such file or directory")
				continue
			}
			if anchor == "" {
				continue
			}
			if fi.IsDir() || !strings.HasSuffix(dest, ".md") {
				bad("an anchor into something that is not a Markdown file")
				continue
			}
			if !anchors(t, dest)[anchor] {
				bad("no heading of " + dest + " has this anchor")
			}
		}
	}
	return n, broken
}

func TestSlug(t *testing.T) {
	cases := map[string]struct {
		reason string
		arg    string
		want   string
	}{
		"Plain":       {reason: "Words are lower-cased and spaces become hyphens.", arg: "Install into a cluster", want: "install-into-a-cluster"},
		"Punctuation": {reason: "Punctuation but hyphens and underscores goes.", arg: "Batching, drift, and the knobs: v1.2 (today)!", want: "batching-drift-and-the-knobs-v12-today"},
		"Code":        {reason: "Code marks go, the text in them stays.", arg: "`spec.forProvider` and `known_hosts`", want: "specforprovider-and-known_hosts"},
		"Link":        {reason: "A link keeps its text only.", arg: "See [Mirror](mirror.md) too", want: "see-mirror-too"},
		"Hyphens":     {reason: "Hyphens stay, also next to each other.", arg: "A - B", want: "a---b"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, slug(tc.arg)); diff != "" {
				t.Errorf("%s\nslug(%q): -want, +got:\n%s", tc.reason, tc.arg, diff)
			}
		})
	}
}

// TestCheckLinksFindsBrokenOnes holds the link check to a page with one
// link of each kind, good and bad: a check that finds nothing cannot pass.
func TestCheckLinksFindsBrokenOnes(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "docs", "guides")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"README.md": "# Top\n", "LICENSE": "text\n"} {
		if err := os.WriteFile(filepath.Join(top, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	page := "# Top\n\n## Two words\n\n## Two words\n\n" +
		"[ok](#two-words) [ok](#two-words-1) [ok](other.md#far-away) [ok](../../README.md) [ok](https://example.org/x.md#nope)\n" +
		"`[in code](missing.md)`\n```\n[in a fence](missing.md)\n```\n" +
		"[bad](#three-words) [bad](missing.md) [bad](other.md#near) [bad](../../LICENSE#x) [bad](../../../outside.md)\n"
	if err := os.WriteFile(filepath.Join(dir, "page.md"), []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.md"), []byte("# Far away\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n, broken := checkLinks(t, top, filepath.Join(dir, "page.md"))
	var got []string
	for _, b := range broken {
		got = append(got, b.Target)
	}
	want := []string{"#three-words", "missing.md", "other.md#near", "../../LICENSE#x", "../../../outside.md"}
	if n != 9 {
		t.Errorf("counted %d relative links, want 9", n)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("broken links: -want, +got:\n%s", diff)
	}
}
