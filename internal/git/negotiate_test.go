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
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// multiACKServer is a repository of azureFiles manifests and commits
// commits behind a proxy that answers as a server requiring multi_ack: as
// Azure DevOps (both modes advertised), or, with only, advertising
// multi_ack alone and refusing multi_ack_detailed.
func multiACKServer(t testing.TB, commits int, only bool) (*testenv.BareRepo, Remote, *testenv.AzureProxy) {
	t.Helper()
	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "big.git", nil)
	importHistory(t, repo.Dir, commits)
	h := testenv.NewHTTPServer(t, root, testUser, testToken)
	p := testenv.NewAzureProxy(t, h.URL)
	p.SetMultiACKOnly(only)
	return repo, Remote{URL: p.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}}, p
}

// TestMultiACKIncremental: through a server that requires multi_ack, a
// fetch after one new commit, and one after a force-push that rewrote the
// last commits (the old head pruned on the server, so a second request
// sends ancestors), each transfer a small fraction of the clone (counted at
// the proxy: a structural bound), refs and objects are right, nothing the
// clone held is lost, and a write lands.
func TestMultiACKIncremental(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		only   bool
	}{
		"AzureDevOps":  {reason: "multi_ack and multi_ack_detailed advertised, as Azure DevOps does"},
		"MultiACKOnly": {reason: "multi_ack alone advertised: a request declaring multi_ack_detailed is refused", only: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			repo, remote, p := multiACKServer(t, 300, tc.only)
			r, _ := newRepo(t, remote)
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatalf("%s: clone: %v", tc.reason, err)
			}
			clone := p.Counts()
			if clone.Refused != 1 || !r.multiACK.Load() {
				t.Fatalf("%s: clone: %d refused requests, multi_ack learned %v; want 1 and true", tc.reason, clone.Refused, r.multiACK.Load())
			}

			// Someone else's commit.
			want, err := repo.Commit("main", testenv.CommitSpec{Files: map[string]string{"apps/new.yaml": "new: 1\n"}})
			if err != nil {
				t.Fatal(err)
			}
			fetched := fetchCounted(t, r, p, want)
			if fetched.UploadPacks != 1 || fetched.Haves != 1 || fetched.PackBytes*10 >= clone.PackBytes {
				t.Errorf("%s: fetch of one commit: %d requests, %d haves, %d bytes; want 1, 1 (the head), and under a tenth of the clone's %d",
					tc.reason, fetched.UploadPacks, fetched.Haves, fetched.PackBytes, clone.PackBytes)
			}
			readWant(t, r, want, "apps/new.yaml", "new: 1\n")
			readWant(t, r, want, "apps/f150.yaml", manifest(150))

			// A force-push replaces the last three commits, and the server
			// forgets them: the heads alone have nothing in common with it.
			old := want
			rewritten := forcePushPruned(t, repo, 3, map[string]string{"apps/rewritten.yaml": "r: 1\n"})
			// The first request, with the old head, finds nothing in common;
			// the second, with its ancestors, finds the commit under the three.
			fetched = fetchCounted(t, r, p, rewritten)
			if len(fetched.PackSizes) != 2 || fetched.PackSizes[1]*10 >= clone.PackBytes {
				t.Errorf("%s: fetch after a force-push: answers of %v bytes, want two, the second under a tenth of the clone's %d", tc.reason, fetched.PackSizes, clone.PackBytes)
			}
			readWant(t, r, rewritten, "apps/rewritten.yaml", "r: 1\n")
			readWant(t, r, old, "apps/new.yaml", "new: 1\n") // nothing lost

			res := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"apps/ours.yaml": {Content: []byte("ours\n")}}})
			if res.Err != nil {
				t.Fatalf("%s: write: %v", tc.reason, res.Err)
			}
			if got := repo.Files(t, "main")["apps/ours.yaml"]; got != "ours\n" || !repo.IsAncestor(t, rewritten, res.Commit) {
				t.Errorf("%s: server's apps/ours.yaml = %q, on top of the rewritten head: %v", tc.reason, got, repo.IsAncestor(t, rewritten, res.Commit))
			}
		})
	}
}

// forcePushPruned replaces the last back commits of main on the server with
// one writing files, and makes the server forget the commits it replaced,
// as a server whose garbage collection ran does. It returns the new head.
func forcePushPruned(t *testing.T, repo *testenv.BareRepo, back int, files map[string]string) string {
	t.Helper()
	old := repo.Head(t, "main")
	if _, err := testenv.Git(repo.Dir, nil, "update-ref", "refs/heads/main", fmt.Sprintf("main~%d", back)); err != nil {
		t.Fatal(err)
	}
	head, err := repo.Commit("main", testenv.CommitSpec{Message: "rewritten", Files: files})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"reflog", "expire", "--expire=now", "--all"}, {"gc", "--quiet", "--prune=now"}} {
		if out, err := testenv.Git(repo.Dir, nil, args...); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	if _, err := testenv.Git(repo.Dir, nil, "cat-file", "-e", old); err == nil {
		t.Fatal("the server still holds the replaced head")
	}
	return head
}

// fetchCounted refreshes main, checks it arrived at want, and returns what
// the proxy saw of that fetch.
func fetchCounted(t *testing.T, r *Repository, p *testenv.AzureProxy, want string) testenv.AzureCounts {
	t.Helper()
	p.ResetCounts()
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	if got := mustHead(t, r, "main"); got != want {
		t.Fatalf("Head = %s, want %s", got, want)
	}
	return p.Counts()
}

func readWant(t *testing.T, r *Repository, commit, path, want string) {
	t.Helper()
	b, err := r.ReadFile(ctx(t), commit, path)
	if err != nil || string(b.Content) != want {
		t.Errorf("ReadFile(%.8s, %s) = %q, %v; want %q", commit, path, b.Content, err, want)
	}
}

// TestAncestorHaves: the second request's haves are each head's first
// haveRun first-parent ancestors and those at powers of two up to haveDepth,
// each once.
func TestAncestorHaves(t *testing.T) {
	t.Parallel()
	run := make([]int, 0, haveRun)
	for d := 1; d <= haveRun; d++ {
		run = append(run, d)
	}
	cases := map[string]struct {
		reason  string
		commits int
		want    []int // distances from main's head, in order
	}{
		"Short": {reason: "a history shorter than haveRun: every ancestor", commits: 6, want: []int{1, 2, 3, 4, 5}},
		"Long": {reason: "haveRun ancestors, then powers of two up to haveDepth", commits: 300,
			want: append(append([]int{}, run...), 32, 64, 128, 256)},
		"Between": {reason: "a history that ends between two powers of two", commits: 100,
			want: append(append([]int{}, run...), 32, 64)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			repo := testenv.NewBareRepo(t, root, "h.git", nil)
			importHistory(t, repo.Dir, tc.commits)
			s := testenv.NewHTTPServer(t, root, testUser, testToken)
			r, _ := newRepo(t, Remote{URL: s.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}})
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			log := firstParents(t, repo.Dir, "main")
			want := make([]plumbing.Hash, 0, len(tc.want))
			for _, d := range tc.want {
				want = append(want, plumbing.NewHash(log[d]))
			}
			if diff := cmp.Diff(want, r.ancestorHaves()); diff != "" {
				t.Errorf("%s: ancestorHaves: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestAncestorHavesBranches: two branches sharing history send the
// ancestors of each, and none twice.
func TestAncestorHavesBranches(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	for i := range 3 {
		if _, err := s.repo.Commit("main", testenv.CommitSpec{Files: map[string]string{"m.txt": fmt.Sprint(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	s.repo.CreateBranch(t, "feature", "main~2")
	if _, err := s.repo.Commit("feature", testenv.CommitSpec{Files: map[string]string{"f.txt": "f"}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Refresh(ctx(t), 0, "main", "feature"); err != nil {
		t.Fatal(err)
	}
	// Each branch's whole history is short: every commit of both but
	// the heads, once.
	want := map[string]bool{}
	for _, b := range []string{"main", "feature"} {
		for _, h := range firstParents(t, s.repo.Dir, b)[1:] {
			want[h] = true
		}
	}
	got := r.ancestorHaves()
	gotSet := map[string]bool{}
	for _, h := range got {
		gotSet[h.String()] = true
	}
	if len(gotSet) != len(got) {
		t.Errorf("ancestorHaves repeats a have: %v", got)
	}
	if diff := cmp.Diff(want, gotSet, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("ancestorHaves: -want, +got:\n%s", diff)
	}
}

// firstParents returns the first-parent history of ref in dir, newest
// first.
func firstParents(t *testing.T, dir, ref string) []string {
	t.Helper()
	out, err := testenv.Git(dir, nil, "rev-list", "--first-parent", ref)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(out)
}

// TestMultiACKResponse pins the seam the engine relies on (multiack.go):
// go-git v5's response decoder reads the acknowledgement section git's
// upload-pack writes in each mode, and leaves the reader at the pack.
func TestMultiACKResponse(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	log := firstParents(t, s.repo.Dir, "main")
	head, parent := log[0], log[1]
	const unknown = "1234567890123456789012345678901234567890"
	cases := map[string]struct {
		reason string
		mode   capability.Capability // "" for none
		haves  []string
		want   []plumbing.Hash // the ACKed oids
	}{
		"MultiACK": {reason: "one ACK continue per common have, then ACK of the last",
			mode: capability.MultiACK, haves: []string{parent, unknown}, want: []plumbing.Hash{plumbing.NewHash(parent), plumbing.NewHash(unknown), plumbing.NewHash(parent)}},
		"MultiACKDetailed": {reason: "ACK common, ACK ready, then ACK of the last",
			mode: capability.MultiACKDetailed, haves: []string{parent, unknown}, want: []plumbing.Hash{plumbing.NewHash(parent), plumbing.NewHash(unknown), plumbing.NewHash(parent)}},
		"MultiACKNothingCommon": {reason: "NAK alone",
			mode: capability.MultiACK, haves: []string{unknown}},
		"Plain": {reason: "without multi_ack: one ACK",
			haves: []string{parent}, want: []plumbing.Hash{plumbing.NewHash(parent)}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req := packp.NewUploadPackRequest()
			caps := "side-band-64k no-progress"
			if tc.mode != "" {
				caps += " " + tc.mode.String()
				_ = req.Capabilities.Set(tc.mode)
			}
			var body strings.Builder
			body.WriteString(pkt("want " + head + " " + caps + "\n"))
			body.WriteString("0000")
			for _, h := range tc.haves {
				body.WriteString(pkt("have " + h + "\n"))
			}
			body.WriteString(pkt("done\n"))
			cmd := exec.CommandContext(ctx(t), "git", "upload-pack", "--stateless-rpc", s.repo.Dir)
			cmd.Stdin = strings.NewReader(body.String())
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("git upload-pack: %v", err)
			}
			resp := packp.NewUploadPackResponse(req)
			if err := resp.Decode(io.NopCloser(bytes.NewReader(out))); err != nil {
				t.Fatalf("%s: Decode(%.200q): %v", tc.reason, out, err)
			}
			if diff := cmp.Diff(tc.want, resp.ACKs, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: ACKs: -want, +got:\n%s", tc.reason, diff)
			}
			pack, err := io.ReadAll(sideband.NewDemuxer(sideband.Sideband64k, resp))
			if err != nil || !bytes.HasPrefix(pack, []byte("PACK")) {
				t.Errorf("%s: after the acknowledgements: %.12q, %v; want the pack", tc.reason, pack, err)
			}
		})
	}
}
