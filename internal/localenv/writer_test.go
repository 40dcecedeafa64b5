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
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSeedAgainContinues(t *testing.T) {
	root := t.TempDir()
	seed := func(msg, file string) *BareRepo {
		r, err := NewBareRepo(root, "repo.git", map[string][]CommitSpec{"main": {{Message: msg, Files: map[string]string{file: msg + "\n"}}}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := seed("one", "a.txt")
	h1, _ := first.Head("main")
	second := seed("two", "b.txt")
	h2, _ := second.Head("main")
	if ok, err := second.IsAncestor(h1, h2); h1 == h2 || !ok || err != nil {
		t.Errorf("a second NewBareRepo of one repository made %s, not on top of %s", h2, h1)
	}
	files, err := second.Files("main")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"a.txt": "one\n", "b.txt": "two\n"}, files); diff != "" {
		t.Errorf("Files(main): -want, +got:\n%s", diff)
	}
}

func TestWriterPushes(t *testing.T) {
	r, err := NewBareRepo(t.TempDir(), "repo.git", map[string][]CommitSpec{"main": {{Message: "seed", Files: map[string]string{"a.txt": "a\n"}}}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// The writer's commit reaches the branch through receive-pack, so the
	// server's hooks judge it as they judge anyone's push.
	if _, err := r.Commit("main", CommitSpec{Message: "someone else", Files: map[string]string{"b.txt": "b\n"}}); err != nil {
		t.Fatal(err)
	}
	moved, _ := r.Head("main")
	if err := r.SetHook("pre-receive", "exit 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit("main", CommitSpec{Message: "refused", Files: map[string]string{"c.txt": "c\n"}}); err == nil {
		t.Error("a push the server's pre-receive hook refuses succeeded: the writer did not push")
	}
	if err := r.SetHook("pre-receive", "exit 0"); err != nil {
		t.Fatal(err)
	}
	got, err := w.Commit("new", CommitSpec{Message: "  orphan  \n\n\n\nbody\n\n", Files: map[string]string{"d.txt": "d\n"}})
	if err != nil {
		t.Fatal(err)
	}
	log, err := r.Log("new")
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].SHA != got || log[0].Message != "  orphan\n\nbody" {
		t.Errorf("a new branch holds %+v, want one root commit %s with git commit -m's message", log, got)
	}
	if h, _ := r.Head("main"); h != moved {
		t.Errorf("main moved to %s, want %s", h, moved)
	}
}

func TestWriterDeletesAfterFiles(t *testing.T) {
	r, err := NewBareRepo(t.TempDir(), "repo.git", map[string][]CommitSpec{"main": {{Message: "seed", Files: map[string]string{"a.txt": "a\n", "b.txt": "b\n"}}}})
	if err != nil {
		t.Fatal(err)
	}
	// As a work tree would: the files are written, then the deletes run.
	if _, err := r.Commit("main", CommitSpec{Files: map[string]string{"b.txt": "new\n", "c.txt": "c\n"}, Deletes: []string{"a.txt", "b.txt"}}); err != nil {
		t.Fatal(err)
	}
	files, err := r.Files("main")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"c.txt": "c\n"}, files); diff != "" {
		t.Errorf("Files(main): -want, +got:\n%s", diff)
	}
}
