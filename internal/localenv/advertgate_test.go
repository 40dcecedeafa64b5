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
	"net/url"
	"testing"
	"time"
)

// TestAdvertGate: a push to a gated repository is held at its advertisement,
// sends nothing until released, then lands; a push to another repository
// is not held; after Open nothing is.
func TestAdvertGate(t *testing.T) {
	root := t.TempDir()
	seed := map[string][]CommitSpec{"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}}}
	for _, name := range []string{"held.git", "free.git"} {
		if _, err := NewBareRepo(root, name, seed); err != nil {
			t.Fatal(err)
		}
	}
	s, err := StartHTTPServer(root, "u", "p")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("u", "p")
	push := func(repo, file string) <-chan error {
		done := make(chan error, 1)
		dir := t.TempDir()
		go func() {
			if _, err := Git("", nil, "clone", "--quiet", u.String()+"/"+repo, dir); err != nil {
				done <- err
				return
			}
			for _, args := range [][]string{{"commit", "--quiet", "--allow-empty", "-m", file}, {"-c", "http.userAgent=gate-test", "push", "--quiet", "origin", "main"}} {
				if _, err := Git(dir, nil, args...); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		return done
	}
	wait := func(done <-chan error) {
		t.Helper()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Minute):
			t.Fatal("push did not end within a minute")
		}
	}

	g := s.HoldAdvertisements("held.git")
	_, arrived := g.Held()
	held := push("held.git", "a")
	select {
	case <-arrived:
	case err := <-held:
		t.Fatalf("the push ended (error %v) without being held", err)
	case <-time.After(time.Minute):
		t.Fatal("no push arrived within a minute")
	}
	hs, _ := g.Held()
	if len(hs) != 1 || hs[0].UserAgent != "gate-test" {
		t.Fatalf("held %d pushes (first by %q), want 1 by gate-test", len(hs), hs[0].UserAgent)
	}
	wait(push("free.git", "b"))
	if n := len(s.Pushes()); n != 1 {
		t.Fatalf("%d packs sent while one push is held and one is free, want 1", n)
	}
	hs[0].Release()
	wait(held)
	select {
	case <-hs[0].Served():
	case <-time.After(time.Minute):
		t.Error("a push that landed was released but its advertisement is not marked served")
	}
	if n := len(s.Pushes()); n != 2 {
		t.Fatalf("%d packs sent once the held push was released, want 2", n)
	}
	g.Open()
	wait(push("held.git", "c"))
	if hs, _ := g.Held(); len(hs) != 1 {
		t.Errorf("an opened gate held %d pushes in all, want the 1 held before it opened", len(hs))
	}
}
