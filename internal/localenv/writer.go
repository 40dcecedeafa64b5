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
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errWriterWorkdir = "cannot create the writer's repository"
	errFmtNoMark     = "git fast-import recorded no commit in %s"
)

// Writer writes to a bare repository as a person pushing from elsewhere
// would: git makes each commit in a repository of the writer's own, which
// borrows the bare repository's objects (objects/info/alternates) instead of
// fetching them, and pushes it without force, so the bare repository's
// receive-pack and hooks judge it. It pushes over the file system, so the HTTP
// server does not count its requests. A commit costs git fast-import and a
// push: a work tree, a fetch, a checkout and an add per commit made external
// writes a large share of the tests' process starts.
type Writer struct {
	repo string
	dir  string
}

// NewWriter makes the writer's temporary repository. Close removes it.
func (r *BareRepo) NewWriter() (*Writer, error) {
	dir, err := os.MkdirTemp("", "gitwriter-")
	if err != nil {
		return nil, errors.Wrap(err, errWriterWorkdir)
	}
	w := &Writer{repo: r.Dir, dir: dir}
	if _, err := Git(dir, nil, "init", "--bare", "--quiet"); err != nil {
		w.Close()
		return nil, err
	}
	alt := filepath.Join(dir, "objects", "info", "alternates")
	if err := os.WriteFile(alt, []byte(filepath.Join(r.Dir, "objects")+"\n"), 0o644); err != nil {
		w.Close()
		return nil, errors.Wrap(err, errWriterWorkdir)
	}
	return w, nil
}

// Close removes the writer's repository.
func (w *Writer) Close() { _ = os.RemoveAll(w.dir) }

// Commit applies c on top of branch's head (or makes a root commit holding
// only c's files when the branch does not exist), commits and pushes without
// force. It returns the pushed head, or an error when the push was rejected.
func (w *Writer) Commit(branch string, c CommitSpec) (string, error) {
	head, err := (&BareRepo{Dir: w.repo}).Head("refs/heads/" + branch)
	if err != nil {
		return "", err
	}
	// reset: each commit starts from the branch's head as read above (or
	// from nothing), never from the writer's previous commit.
	in := bytes.NewBufferString("reset refs/heads/writer\n\n")
	writeCommit(in, "refs/heads/writer", 1, head, c, time.Now())
	// --force: the writer's own ref may go anywhere; the push is judged.
	marks, err := fastImport(w.dir, in.Bytes(), "--force")
	if err != nil {
		return "", err
	}
	sha := marks[":1"]
	if sha == "" {
		return "", errors.Errorf(errFmtNoMark, w.dir)
	}
	if _, err := Git(w.dir, nil, "push", "--quiet", w.repo, sha+":refs/heads/"+branch); err != nil {
		return "", err
	}
	return sha, nil
}

// seed writes the commits of branches straight into the bare repository
// dir in one git fast-import, before anything serves it: no push, so no hook
// runs. Each commit is its own checkpoint, so the reflog holds one update per
// commit as it would after a push each. A name "new=from" starts branch new
// at the head of from, which sorts before it.
func seed(dir string, branches map[string][]CommitSpec) error {
	names := make([]string, 0, len(branches))
	for b := range branches {
		names = append(names, b)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil
	}
	// A repository made before keeps its branches: commits go on top.
	heads, err := (&BareRepo{Dir: dir}).Heads()
	if err != nil {
		return err
	}
	in := &bytes.Buffer{}
	now := time.Now()
	for _, n := range names {
		branch, from, _ := strings.Cut(n, "=")
		ref := "refs/heads/" + branch
		switch {
		case from != "":
			fmt.Fprintf(in, "reset %s\nfrom refs/heads/%s\n\ncheckpoint\n\n", ref, from)
		case heads[branch] != "":
			fmt.Fprintf(in, "reset %s\nfrom %s\n\n", ref, heads[branch])
		}
		for _, c := range branches[n] {
			writeCommit(in, ref, 0, "", c, now)
			in.WriteString("checkpoint\n\n")
		}
	}
	if in.Len() == 0 {
		return nil
	}
	_, err = fastImport(dir, in.Bytes())
	return err
}

// writeCommit writes one commit of c on ref to a fast-import stream, marked
// mark unless 0. from is its parent; "" continues ref as the stream left it
// (a root commit on a ref it has not seen or has reset). Its tree is the
// parent's with c applied.
func writeCommit(in *bytes.Buffer, ref string, mark int, from string, c CommitSpec, now time.Time) {
	msg := c.Message
	if msg == "" {
		msg = "external commit"
	}
	msg = cleanMessage(msg)
	who := fmt.Sprintf("%s <%s> %d +0000", writerName, writerEmail, now.Unix())
	fmt.Fprintf(in, "commit %s\n", ref)
	if mark != 0 {
		fmt.Fprintf(in, "mark :%d\n", mark)
	}
	fmt.Fprintf(in, "author %s\ncommitter %s\ndata %d\n%s", who, who, len(msg), msg)
	if from != "" {
		fmt.Fprintf(in, "from %s\n", from)
	}
	paths := make([]string, 0, len(c.Files))
	for p := range c.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(in, "M 100644 inline %s\ndata %d\n%s\n", quotePath(p), len(c.Files[p]), c.Files[p])
	}
	// After the files, as the work tree did: a path in both is deleted.
	for _, p := range c.Deletes {
		fmt.Fprintf(in, "D %s\n", quotePath(p))
	}
	in.WriteString("\n")
}

// cleanMessage is what `git commit -m` stores of msg (its "whitespace"
// clean-up): no trailing space on a line, no leading or trailing blank line,
// no run of blank lines, and a final newline.
func cleanMessage(msg string) string {
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n") + "\n"
}

// quotePath quotes p as fast-import reads a path: as is, unless it starts
// with a quote or holds a newline, then C-style.
func quotePath(p string) string {
	if !strings.HasPrefix(p, `"`) && !strings.ContainsAny(p, "\n") {
		return p
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(p) + `"`
}

// fastImport runs git fast-import in the repository dir on stream in and
// returns the commits it marked, by mark (":1").
func fastImport(dir string, in []byte, args ...string) (map[string]string, error) {
	marks := filepath.Join(dir, "fast-import-marks")
	args = append([]string{"fast-import", "--quiet", "--done", "--export-marks=" + marks}, args...)
	if _, err := gitIn(dir, bytes.NewReader(append(in, "done\n"...)), nil, args...); err != nil {
		return nil, err
	}
	f, err := os.Open(marks)
	if err != nil {
		return nil, errors.Wrapf(err, errFmtNoMark, dir)
	}
	defer func() { _ = f.Close() }()
	got := map[string]string{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if m, sha, ok := strings.Cut(sc.Text(), " "); ok {
			got[m] = sha
		}
	}
	return got, os.Remove(marks)
}
