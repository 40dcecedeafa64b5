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
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// deepServer serves, over smart HTTP, a repository whose main has n
// commits: the i-th from the root (0-based) carries the trailer
// Provider-Git-UID: uid-<i> and writes log/<i%10>.txt.
func deepServer(t testing.TB, n int) *server {
	t.Helper()
	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "deep.git", nil)
	var stream bytes.Buffer
	for i := range n {
		msg := fmt.Sprintf("change %d\n\n%s: uid-%d\n", i, TrailerUID, i)
		data := fmt.Sprintf("%d\n", i)
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter Seed <seed@example.org> %d +0000\ndata %d\n%s\nM 100644 inline log/%d.txt\ndata %d\n%s\n",
			1700000000+i*60, len(msg), msg, i%10, len(data), data)
	}
	cmd := exec.CommandContext(ctx(t), "git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = repo.Dir, &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v: %s", err, out)
	}
	s := testenv.NewHTTPServer(t, root, testUser, testToken)
	return &server{name: "HTTP", root: root, repo: repo, http: s,
		remote: Remote{URL: s.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}}}
}

// fastImport commits files on top of main in the server's repository, as
// someone else's push would (git fast-import: no work tree, no transport).
func (s *server) fastImport(t testing.TB, msg string, files map[string]string) {
	t.Helper()
	var stream bytes.Buffer
	fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter Other <other@example.org> 1800000000 +0000\ndata %d\n%s\nfrom %s\n", len(msg), msg, s.rev(t, "main"))
	for p, content := range files {
		fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", p, len(content), content)
	}
	cmd := exec.CommandContext(ctx(t), "git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = s.repo.Dir, &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v: %s", err, out)
	}
}

// rev resolves a revision in the server's repository.
func (s *server) rev(t testing.TB, rev string) string {
	t.Helper()
	out, err := testenv.Git(s.repo.Dir, nil, "rev-parse", rev)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// fetches is how many upload-pack requests the server answered so far.
func (s *server) fetches() int64 { return s.http.ReadsOf(s.repo.Name).Fetches }

// clonedCommits counts the commits the clone holds, and its shallow ones.
func clonedCommits(t testing.TB, r *Repository) (int, int) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	it, err := r.st.IterEncodedObjects(plumbing.CommitObject)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_ = it.ForEach(func(plumbing.EncodedObject) error { n++; return nil })
	shallow, err := r.st.Shallow()
	if err != nil {
		t.Fatal(err)
	}
	return n, len(shallow)
}

// TestFirstOpenIsBounded: the first fetch of a repository of 3,000 commits
// brings DefaultHistoryDepth of them, and records where the clone's history
// ends; the head's files read as they are on the server. Over smart HTTP,
// SSH, and from a server that answers as Azure DevOps does (every fetch one
// without haves, multiack.go).
func TestFirstOpenIsBounded(t *testing.T) {
	t.Parallel()
	h := deepServer(t, 3000)
	ssh := testenv.StartSSHServer(t, h.root)
	azure := testenv.NewAzureProxy(t, h.http.URL)
	for name, remote := range map[string]Remote{
		"HTTP":  h.remote,
		"SSH":   {URL: ssh.RepoURL(h.repo.Name), Auth: &SSHAuth{PrivateKey: ssh.ClientKeyPEM, KnownHosts: ssh.KnownHosts}},
		"Azure": {URL: azure.RepoURL(h.repo.Name), Auth: h.remote.Auth},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, _ := newRepo(t, remote)
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			commits, shallow := clonedCommits(t, r)
			if diff := cmp.Diff([2]int{DefaultHistoryDepth, 1}, [2]int{commits, shallow}); diff != "" {
				t.Errorf("commits and shallow commits in the clone: -want, +got:\n%s", diff)
			}
			head := mustHead(t, r, "main")
			if b, err := r.ReadFile(ctx(t), head, "log/9.txt"); err != nil || string(b.Content) != "2999\n" {
				t.Errorf("ReadFile(log/9.txt) = %q, %v; want 2999", b.Content, err)
			}
		})
	}
}

// TestTrailerSearchOnBoundedHistory: the trailer search reads the clone
// while it can, deepens the clone where the boundary comes first, and
// never answers "not found" for history it did not read.
func TestTrailerSearchOnBoundedHistory(t *testing.T) {
	t.Parallel()
	const n = 3000
	type want struct {
		found    bool
		sha      string // rev of the commit found, on the server
		commits  int    // in the clone afterwards
		fetches  int64  // upload-pack requests the search made
		errorful bool
	}
	cases := map[string]struct {
		reason  string
		depth   int
		uid     string
		maxWalk int
		want    want
	}{
		"WithinTheBound": {
			reason: "A commit 900 below the head is in a clone of the default depth: found without a fetch.",
			uid:    fmt.Sprintf("uid-%d", n-900), maxWalk: searchWalk,
			want: want{found: true, sha: "main~899", commits: DefaultHistoryDepth},
		},
		"NothingFoundStaysBounded": {
			reason: "A search that finds nothing reads its 1,000 commits and fetches nothing more.",
			uid:    "uid-none", maxWalk: searchWalk,
			want: want{commits: DefaultHistoryDepth},
		},
		"DeeperThanTheBound": {
			reason: "A search of 2,000 commits for one 1,500 below the head deepens the clone to 2,100 and finds it.",
			uid:    fmt.Sprintf("uid-%d", n-1500), maxWalk: 2000,
			want: want{found: true, sha: "main~1499", commits: 2000 + historySlack, fetches: 1},
		},
		"ShallowerClone": {
			reason: "A clone of 10 commits deepens for a commit 500 below the head, to the search's 1,000 and the slack.",
			depth:  10, uid: fmt.Sprintf("uid-%d", n-500), maxWalk: searchWalk,
			want: want{found: true, sha: "main~499", commits: searchWalk + historySlack, fetches: 1},
		},
		"PastTheRoot": {
			reason: "A search longer than the history deepens once, reads to the root commit and finds nothing.",
			depth:  10, uid: "uid-none", maxWalk: 5000,
			want: want{commits: n, fetches: 1},
		},
	}
	s := deepServer(t, n)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			opts := []Option{}
			if tc.depth != 0 {
				opts = append(opts, WithHistoryDepth(tc.depth))
			}
			r, _ := newRepo(t, s.remote, opts...)
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			before := s.fetches()
			c, found, err := r.FindCommitByUID(ctx(t), "main", tc.uid, tc.maxWalk)
			got := want{found: found, fetches: s.fetches() - before, errorful: err != nil}
			got.commits, _ = clonedCommits(t, r)
			if found {
				got.sha = c.SHA
			}
			w := tc.want
			if w.sha != "" {
				w.sha = s.rev(t, w.sha)
			}
			if diff := cmp.Diff(w, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nFindCommitByUID: -want, +got (err %v):\n%s", tc.reason, err, diff)
			}
		})
	}
}

// TestForcePushOnBoundedHistory: a branch rewritten on the server is
// fetched into a clone of bounded history (go-git #1443: a shallow fetch
// after a force push to an older commit fails, or points the ref at a
// commit it never fetched), in one fetch, and the clone reads its new head.
func TestForcePushOnBoundedHistory(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		// rewrite moves main on the server and returns its new head.
		rewrite func(t *testing.T, s *server) string
		// fetches is how many upload-pack requests the refresh makes.
		fetches int64
	}{
		"OlderBelowTheBoundary": {
			reason: "main reset to a commit 50 below its head, which the clone of 10 commits lacks.",
			rewrite: func(t *testing.T, s *server) string {
				return forceMain(t, s, s.rev(t, "main~50"))
			},
			fetches: 1,
		},
		"OlderWithinTheClone": {
			reason: "main reset to a commit the clone holds: the ref moves, nothing is fetched.",
			rewrite: func(t *testing.T, s *server) string {
				return forceMain(t, s, s.rev(t, "main~5"))
			},
		},
		"RewrittenBelowTheBoundary": {
			reason: "main rewritten from a commit below the boundary with commits of its own.",
			rewrite: func(t *testing.T, s *server) string {
				forceMain(t, s, s.rev(t, "main~40"))
				for i := range 3 {
					s.fastImport(t, "rewritten", map[string]string{"log/9.txt": fmt.Sprintf("rewritten %d\n", i)})
				}
				return s.rev(t, "main")
			},
			fetches: 1,
		},
	}
	for name, tc := range cases {
		for _, via := range []string{"HTTP", "Azure"} {
			t.Run(name+"/"+via, func(t *testing.T) {
				t.Parallel()
				s := deepServer(t, 200)
				if via == "Azure" {
					// Every fetch without haves (multiack.go).
					s.remote.URL = testenv.NewAzureProxy(t, s.http.URL).RepoURL(s.repo.Name)
				}
				forcePushOnBoundedHistory(t, s, tc.reason, tc.rewrite, tc.fetches)
			})
		}
	}
}

// forcePushOnBoundedHistory is one case of TestForcePushOnBoundedHistory:
// rewrite moves main on s, and a refresh of a clone of 10 commits makes
// fetches upload-pack requests and then reads the new head as s holds it.
func forcePushOnBoundedHistory(t *testing.T, s *server, reason string, rewrite func(t *testing.T, s *server) string, fetches int64) {
	t.Helper()
	r, _ := newRepo(t, s.remote, WithHistoryDepth(10))
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	head := rewrite(t, s)
	before := s.fetches()
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatalf("%s\nRefresh after the force push: %v", reason, err)
	}
	if got := s.fetches() - before; got != fetches {
		t.Errorf("%s\n%d upload-pack requests, want %d", reason, got, fetches)
	}
	if got := mustHead(t, r, "main"); got != head {
		t.Fatalf("%s\nhead %s, want %s", reason, got, head)
	}
	assertReadsLikeServer(t, r, s, head)
	if _, _, err := r.FindCommitByUID(ctx(t), "main", "uid-none", 30); err != nil {
		t.Errorf("%s\nwalking the new head's history: %v", reason, err)
	}
}

// forceMain points main on the server at sha, as a force push does.
func forceMain(t *testing.T, s *server, sha string) string {
	t.Helper()
	if _, err := testenv.Git(s.repo.Dir, nil, "update-ref", "refs/heads/main", sha); err != nil {
		t.Fatal(err)
	}
	return sha
}

// assertReadsLikeServer checks that every file of commit reads in the clone
// as the server holds it.
func assertReadsLikeServer(t *testing.T, r *Repository, s *server, commit string) {
	t.Helper()
	for p, want := range s.repo.Files(t, commit) {
		b, err := r.ReadFile(ctx(t), commit, p)
		if err != nil || string(b.Content) != want {
			t.Errorf("ReadFile(%s, %s) = %q, %v; want %q", commit, p, b.Content, err, want)
		}
	}
}

// droppedServer is a deepServer of 200 commits behind a shallowDropper.
func droppedServer(t *testing.T) (*server, *shallowDropper) {
	t.Helper()
	s := deepServer(t, 200)
	p := newShallowDropper(t, s.http.URL)
	s.remote.URL = p.URL + "/" + s.repo.Name
	return s, p
}

// TestForcePushServerIgnoresShallow: a server that takes the clone for
// whole (it drops the clone's shallow lines) leaves out a head below the
// clone's boundary; the engine fetches the branch again as a fresh clone,
// and nothing is lost.
func TestForcePushServerIgnoresShallow(t *testing.T) {
	t.Parallel()
	s, p := droppedServer(t)
	r := boundedClone(t, s)
	head := forceMain(t, s, s.rev(t, "main~50"))
	before := s.fetches()
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatalf("Refresh after the force push: %v", err)
	}
	if got := s.fetches() - before; got != 2 {
		t.Errorf("%d upload-pack requests, want 2 (the fetch, and the fresh one)", got)
	}
	if p.dropped() == 0 {
		t.Error("the proxy dropped no shallow line: the test tests nothing")
	}
	if n := receivingOf(r); n != 0 {
		t.Errorf("%d fetches counted as receiving after the refresh: compaction would wait for ever", n)
	}
	if got := mustHead(t, r, "main"); got != head {
		t.Fatalf("head %s, want %s", got, head)
	}
	assertReadsLikeServer(t, r, s, head)
	if _, _, err := r.FindCommitByUID(ctx(t), "main", "uid-none", 10); err != nil {
		t.Errorf("walking the new head's history: %v", err)
	}
}

// TestServerStopsOfferingShallow: a bounded clone of a server that stops
// offering shallow fetches (a server moved behind another implementation)
// cannot tell it where its history ends; it fetches without haves, as a
// fresh clone, in one request, for a search that needs more history than
// the clone holds; and then fetches a rewritten branch.
func TestServerStopsOfferingShallow(t *testing.T) {
	t.Parallel()
	s, p := droppedServer(t)
	r := boundedClone(t, s)
	p.unoffered.Store(true)

	before := s.fetches()
	c, found, err := r.FindCommitByUID(ctx(t), "main", "uid-100", searchWalk)
	if err != nil || !found || c.SHA != s.rev(t, "main~99") {
		t.Errorf("FindCommitByUID(uid-100) = %v, %v, %v; want main~99", c.SHA, found, err)
	}
	if got := s.fetches() - before; got != 1 {
		t.Errorf("the search made %d upload-pack requests, want 1", got)
	}

	forceMain(t, s, s.rev(t, "main~50"))
	s.fastImport(t, "rewritten", map[string]string{"log/9.txt": "rewritten\n"})
	head := s.rev(t, "main")
	before = s.fetches()
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatalf("Refresh after the force push: %v", err)
	}
	if got := s.fetches() - before; got != 1 {
		t.Errorf("the refresh made %d upload-pack requests, want 1", got)
	}
	if got := mustHead(t, r, "main"); got != head {
		t.Fatalf("head %s, want %s", got, head)
	}
	assertReadsLikeServer(t, r, s, head)
}

// TestSearchRecordsAnUnnamedCut: a clone whose shallow file does not name
// its boundary (a crash between a pack's install and the file's write)
// still deepens when a search meets that boundary, and finds the commit.
func TestSearchRecordsAnUnnamedCut(t *testing.T) {
	t.Parallel()
	s := deepServer(t, 50)
	r, _ := newRepo(t, s.remote, WithHistoryDepth(10))
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	err := r.writeShallowLocked(nil)
	r.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, sh := clonedCommits(t, r); sh != 0 {
		t.Fatalf("%d shallow commits named after the file was emptied, want 0", sh)
	}
	c, found, err := r.FindCommitByUID(ctx(t), "main", "uid-5", 100)
	if err != nil || !found || c.SHA != s.rev(t, "main~44") {
		t.Errorf("FindCommitByUID(uid-5) = %v, %v, %v; want main~44", c.SHA, found, err)
	}
}
