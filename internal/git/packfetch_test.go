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

package git

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// packProxy stands in front of a smart-HTTP Git server and, while answer
// is set, answers each upload-pack request (its body) itself; other
// requests are forwarded.
type packProxy struct {
	url    string
	answer atomic.Pointer[func(req []byte) []byte]
}

func newPackProxy(t *testing.T, target string) *packProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &packProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := p.answer.Load()
		if answer == nil || r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/git-upload-pack") {
			rp.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
		if bytes.Contains(body, []byte("deepen ")) {
			// A request with a depth is answered with the shallow-info
			// section first: none of these histories reaches the depth, so
			// it is empty, as git's upload-pack writes it.
			_, _ = w.Write([]byte("0000"))
		}
		_, _ = w.Write((*answer)(body))
	}))
	t.Cleanup(s.Close)
	p.url = s.URL
	return p
}

// pkt frames s as a pkt-line.
func pkt(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }

// sidebandPack answers an upload-pack request whose haves the server holds
// with "ACK <first have>" ("NAK" without haves) and pack on band 1, as git
// upload-pack does with side-band-64k and without multi_ack.
func sidebandPack(haves []string, pack []byte) []byte {
	var b bytes.Buffer
	if len(haves) > 0 {
		b.WriteString(pkt("ACK " + haves[0] + "\n"))
	} else {
		b.WriteString(pkt("NAK\n"))
	}
	for len(pack) > 0 {
		n := min(len(pack), 65515)
		b.WriteString(pkt("\x01" + string(pack[:n])))
		pack = pack[n:]
	}
	b.WriteString("0000")
	return b.Bytes()
}

// wantsAndHaves reads the object ids of an upload-pack request.
func wantsAndHaves(req []byte) (wants, haves []string) {
	for _, line := range strings.Split(string(req), "\n") {
		if i := strings.Index(line, "want "); i >= 0 && len(line) >= i+45 {
			wants = append(wants, line[i+5:i+45])
		}
		if i := strings.Index(line, "have "); i >= 0 && len(line) >= i+45 {
			haves = append(haves, line[i+5:i+45])
		}
	}
	return wants, haves
}

// packFiles lists the clone's pack directory and any spool file left.
func packFiles(t *testing.T, r *Repository) []string {
	t.Helper()
	var names []string
	for _, glob := range []string{filepath.Join(r.dir, "objects", "pack", "*"), filepath.Join(r.dir, "fetch-*")} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			names = append(names, filepath.Base(f))
		}
	}
	sort.Strings(names)
	return names
}

func TestFetchRefusesACorruptPack(t *testing.T) {
	s := httpServer(t)
	p := newPackProxy(t, s.http.URL)
	r, _ := newRepo(t, Remote{URL: p.url + "/" + s.repo.Name, Auth: s.remote.Auth})
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	before, stored := r.mustHead(t), packFiles(t, r)
	next, err := s.repo.Commit("main", testenv.CommitSpec{Message: "third", Files: map[string]string{"apps/d.yaml": "d: 1\n"}})
	if err != nil {
		t.Fatal(err)
	}
	corrupt := func(req []byte) []byte {
		wants, haves := wantsAndHaves(req)
		pack := packObjects(t, s.repo.Dir, strings.Join(wants, "\n")+"\n^"+strings.Join(haves, "\n^")+"\n", "--delta-base-offset")
		pack[len(pack)/2] ^= 0x40
		return sidebandPack(haves, pack)
	}
	p.answer.Store(&corrupt)
	err = r.Refresh(ctx(t), 0, "main")
	if err == nil || !strings.Contains(err.Error(), errStorePack) {
		t.Fatalf("Refresh of a corrupt pack: want an error containing %q, got %v", errStorePack, err)
	}
	// Nothing of it is stored, the branch has not moved, and no spool is left.
	if diff := cmp.Diff(stored, packFiles(t, r)); diff != "" {
		t.Errorf("pack files after a refused pack: -want, +got:\n%s", diff)
	}
	if got := r.mustHead(t); got != before {
		t.Errorf("head after a refused pack: want %s, got %s", before, got)
	}
	// The next, sound, fetch brings the commit.
	p.answer.Store(nil)
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	if got := r.mustHead(t); got != next {
		t.Errorf("head after a sound fetch: want %s, got %s", next, got)
	}
	if b, err := r.ReadFile(ctx(t), next, "apps/d.yaml"); err != nil || string(b.Content) != "d: 1\n" {
		t.Errorf("ReadFile(apps/d.yaml): got %q, %v", b.Content, err)
	}
}

func TestFetchCompletesAThinPack(t *testing.T) {
	s := httpServer(t)
	p := newPackProxy(t, s.http.URL)
	r, _ := newRepo(t, Remote{URL: p.url + "/" + s.repo.Name, Auth: s.remote.Auth})
	big := strings.Repeat("replicas: 3 # the same words on every line, so the versions delta well\n", 100)
	if _, err := s.repo.Commit("main", testenv.CommitSpec{Message: "big", Files: map[string]string{"apps/big.yaml": big}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(big, "replicas: 3", "replicas: 4", 1)
	next, err := s.repo.Commit("main", testenv.CommitSpec{Message: "change", Files: map[string]string{"apps/big.yaml": changed}})
	if err != nil {
		t.Fatal(err)
	}
	var thin atomic.Int32
	answer := func(req []byte) []byte {
		wants, haves := wantsAndHaves(req)
		if len(haves) == 0 {
			t.Errorf("an incremental fetch sent no have")
		}
		thin.Add(1)
		return sidebandPack(haves, packObjects(t, s.repo.Dir, strings.Join(wants, "\n")+"\n^"+strings.Join(haves, "\n^")+"\n", "--thin", "--delta-base-offset"))
	}
	p.answer.Store(&answer)
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatalf("Refresh with a thin pack: %v", err)
	}
	if thin.Load() != 1 {
		t.Fatalf("the server sent %d thin packs, want 1", thin.Load())
	}
	if b, err := r.ReadFile(ctx(t), next, "apps/big.yaml"); err != nil || string(b.Content) != changed {
		t.Errorf("ReadFile(apps/big.yaml) after a thin pack: %v", err)
	}
	// Every stored pack is whole: git verifies each on its own.
	packs, err := filepath.Glob(filepath.Join(r.dir, "objects", "pack", "*.pack"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pack := range packs {
		if out, err := exec.CommandContext(ctx(t), "git", "verify-pack", pack).CombinedOutput(); err != nil {
			t.Errorf("git verify-pack %s: %v: %s", filepath.Base(pack), err, out)
		}
	}
}

func TestFetchAfterForcePush(t *testing.T) {
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	old := r.mustHead(t)
	// Someone rewrites main on the server: a new root, no common history.
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "--allow-empty", "-m", "rewritten"},
		{"push", "-q", "--force", s.repo.Dir, "main:main"},
	} {
		if out, err := testenv.Git(dir, nil, args...); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	rewritten := s.repo.Head(t, "main")
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatalf("Refresh after a force-push: %v", err)
	}
	if got := r.mustHead(t); got != rewritten {
		t.Errorf("head after a force-push: want %s, got %s", rewritten, got)
	}
	// What the clone held before is still there to read: nothing is lost.
	if b, err := r.ReadFile(ctx(t), old, "apps/c.yaml"); err != nil || string(b.Content) != "c: 1\n" {
		t.Errorf("ReadFile of the commit the force-push replaced: got %q, %v", b.Content, err)
	}
	if _, err := r.ReadFile(ctx(t), rewritten, "apps/c.yaml"); !errors.Is(err, ErrNotExist) {
		t.Errorf("ReadFile of the rewritten head: want ErrNotExist, got %v", err)
	}
}

func (r *Repository) mustHead(t *testing.T) string {
	t.Helper()
	h, err := r.Head("main")
	if err != nil {
		t.Fatal(err)
	}
	return h
}
