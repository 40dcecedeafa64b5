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
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// azureServer is an HTTP server behind a proxy that answers as Azure DevOps
// does (testenv.AzureProxy); remote goes through the proxy.
func azureServer(t testing.TB) (*server, *testenv.AzureProxy) {
	t.Helper()
	s := httpServer(t)
	p := testenv.NewAzureProxy(t, s.http.URL)
	s.remote.URL = p.RepoURL(s.repo.Name)
	return s, p
}

// TestAzureDevOpsFetch clones through a server that advertises what Azure
// DevOps advertises and refuses what it refuses, lets someone else push, and
// fetches again: the engine must see the new commit. go-git v5 never
// declares multi_ack (transport.UnsupportedCapabilities), which Azure
// requires of every upload-pack request; the engine does (multiack.go).
func TestAzureDevOpsFetch(t *testing.T) {
	t.Parallel()
	s, p := azureServer(t)
	r, _ := newRepo(t, s.remote)
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatalf("first Refresh (the clone): %v", err)
	}
	if got, want := mustHead(t, r, "main"), s.repo.Head(t, "main"); got != want {
		t.Fatalf("Head after the clone = %s, server holds %s", got, want)
	}

	want, err := s.repo.Commit("main", testenv.CommitSpec{Message: "someone else", Files: map[string]string{"apps/new.yaml": "new: 1\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatalf("Refresh after someone else pushed: %v", err)
	}
	if got := mustHead(t, r, "main"); got != want {
		t.Fatalf("Head after the fetch = %s, want the new commit %s", got, want)
	}
	b, err := r.ReadFile(ctx(t), want, "apps/new.yaml")
	if err != nil || string(b.Content) != "new: 1\n" {
		t.Errorf("ReadFile(new commit) = %q, %v", b.Content, err)
	}
	// An old file, read through the new commit: the new tree's other
	// entries were already in the clone.
	if b, err := r.ReadFile(ctx(t), want, "apps/a.yaml"); err != nil || string(b.Content) != "a: 1\n" {
		t.Errorf("ReadFile(old file at the new commit) = %q, %v", b.Content, err)
	}

	// Learned once: the clone's first request was refused (its host is no
	// Azure host), every later one declared multi_ack; the fetch sent haves.
	c := p.Counts()
	if c.Refused != 1 || c.Haves == 0 {
		t.Errorf("proxy saw %d refused requests and %d haves, want 1 and some", c.Refused, c.Haves)
	}
}

func mustHead(t testing.TB, r *Repository, branch string) string {
	t.Helper()
	h, err := r.Head(branch)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestAzureDevOpsWrite runs the engine's write path through the Azure-like
// server: changes land, another writer's commit is rebased onto (one
// rejected attempt, a fetch, a new push) and nothing is lost.
func TestAzureDevOpsWrite(t *testing.T) {
	t.Parallel()
	s, p := azureServer(t)
	r, _ := newRepo(t, s.remote)
	first := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"apps/ours-1.yaml": {Content: []byte("ours: 1\n")}}, Message: "ours 1"})
	if first.Err != nil {
		t.Fatalf("first change: %v", first.Err)
	}
	if got := s.repo.Head(t, "main"); got != first.Commit {
		t.Fatalf("server head %s, want our commit %s", got, first.Commit)
	}

	// Another writer pushes behind the engine's back; the engine builds on
	// what it knows, is told the branch moved, fetches and rebases.
	theirs, err := s.repo.Commit("main", testenv.CommitSpec{Message: "theirs", Files: map[string]string{"apps/theirs.yaml": "theirs: 1\n"}})
	if err != nil {
		t.Fatal(err)
	}
	// Enqueued, as the controllers hand changes over.
	const n = 5
	var wg sync.WaitGroup
	results := make([]Result, n)
	for i := range n {
		wg.Add(1)
		key := fmt.Sprintf("File/ns/ours-%d", i+2)
		r.Enqueue("main", key, Change{
			Puts:    map[string]File{fmt.Sprintf("apps/ours-%d.yaml", i+2): {Content: fmt.Appendf(nil, "ours: %d\n", i+2)}},
			Message: fmt.Sprintf("ours %d", i+2),
		}, func(res Result) { results[i] = res; wg.Done() })
	}
	wg.Wait()
	for i, res := range results {
		if res.Err != nil {
			t.Fatalf("change %d: %v", i+2, res.Err)
		}
	}
	files := s.repo.Files(t, "main")
	for i := 1; i <= n+1; i++ {
		p := fmt.Sprintf("apps/ours-%d.yaml", i)
		if got, want := files[p], fmt.Sprintf("ours: %d\n", i); got != want {
			t.Errorf("server's %s = %q, want %q", p, got, want)
		}
	}
	if files["apps/theirs.yaml"] != "theirs: 1\n" {
		t.Error("the other writer's commit was lost")
	}
	if !s.repo.IsAncestor(t, theirs, s.repo.Head(t, "main")) {
		t.Error("our commits are not on top of the other writer's")
	}
	for _, u := range s.repo.Reflog(t, "main") {
		if u.Old != strings.Repeat("0", 40) && !s.repo.IsAncestor(t, u.Old, u.New) {
			t.Errorf("branch moved %s → %s without a fast-forward", u.Old, u.New)
		}
	}
	// A branch is created and deleted (Azure advertises delete-refs).
	if res := r.CreateBranch(ctx(t), "feature", "main"); res.Err != nil || s.repo.Head(t, "feature") != res.Commit {
		t.Errorf("CreateBranch(feature) = %+v; server's feature at %q", res, s.repo.Head(t, "feature"))
	}
	if res := r.DeleteBranch(ctx(t), "feature"); res.Err != nil || s.repo.Head(t, "feature") != "" {
		t.Errorf("DeleteBranch(feature) = %+v; server's feature at %q", res, s.repo.Head(t, "feature"))
	}
	// At least: the first push; an attempt told the branch moved, which
	// sends nothing; the fetch after it; the push that landed.
	if c := p.Counts(); c.PushAdverts < c.ReceivePacks+1 || c.ReceivePacks < 2 || c.UploadPacks-c.Refused < 2 || c.Haves == 0 {
		t.Errorf("proxy saw %d push attempts, %d pushes, %d served fetches and %d haves; want a rejected attempt, ≥ 2 pushes, ≥ 2 fetches, some haves",
			c.PushAdverts, c.ReceivePacks, c.UploadPacks-c.Refused, c.Haves)
	}
}

// TestAzureDevOpsCoalesced: concurrent Refresh calls through the Azure-like
// server still share one fetch.
func TestAzureDevOpsCoalesced(t *testing.T) {
	t.Parallel()
	s, p := azureServer(t)
	r, _ := newRepo(t, s.remote)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- r.Refresh(ctx(t), time.Minute, "main") }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, want := mustHead(t, r, "main"), s.repo.Head(t, "main"); got != want {
		t.Errorf("Head = %s, want %s", got, want)
	}
	// One fetch: its refused first request (which taught the clone that
	// the server needs multi_ack) and the one that brought the pack.
	if c := p.Counts(); c.UploadPacks-c.Refused != 1 || c.Refused != 1 {
		t.Errorf("50 Refresh calls made %d upload-pack requests (%d refused), want 1 served", c.UploadPacks, c.Refused)
	}
}

// TestAzureDevOpsEmptyRepository: a repository created empty on Azure
// DevOps (whose upload-pack advertisement is then a bare flush) takes its
// first commit, and a second writer's change lands on top of it.
func TestAzureDevOpsEmptyRepository(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "empty.git", nil)
	h := testenv.NewHTTPServer(t, root, testUser, testToken)
	p := testenv.NewAzureProxy(t, h.URL)
	remote := Remote{URL: p.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}}
	r, _ := newRepo(t, remote)
	if empty, err := r.Check(ctx(t)); err != nil || !empty {
		t.Fatalf("Check = %v, %v; want empty", empty, err)
	}
	first := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"a": {Content: []byte("a")}}})
	if first.Err != nil {
		t.Fatalf("first commit: %v", first.Err)
	}
	r2, _ := newRepo(t, remote)
	second := r2.Submit(ctx(t), "main", Change{Puts: map[string]File{"b": {Content: []byte("b")}}})
	if second.Err != nil {
		t.Fatalf("second writer: %v", second.Err)
	}
	if diff := cmp.Diff(map[string]string{"a": "a", "b": "b"}, repo.Files(t, "main")); diff != "" {
		t.Errorf("server's files: -want, +got:\n%s", diff)
	}
	if got := len(repo.Log(t, "main")); got != 2 {
		t.Errorf("server's history has %d commits, want 2", got)
	}
}

// TestMultiACKEveryTransport: a clone that declares multi_ack (as one of an
// Azure DevOps host does from the start, ssh.dev.azure.com included) sends
// haves and reads the answer over SSH (where go-git ends the haves with a
// flush, so git's upload-pack answers a NAK between the ACKs) as well as
// over HTTP, after a new commit and after a force-push (two requests): git's
// upload-pack negotiates as a multi_ack server then, as Azure's.
func TestMultiACKEveryTransport(t *testing.T) {
	t.Parallel()
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			r, _ := newRepo(t, s.remote)
			r.multiACK.Store(true) // what an Azure DevOps host sets
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatalf("clone: %v", err)
			}
			want, err := s.repo.Commit("main", testenv.CommitSpec{Files: map[string]string{"apps/new.yaml": "new: 1\n"}})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatalf("fetch: %v", err)
			}
			if got := mustHead(t, r, "main"); got != want {
				t.Fatalf("Head = %s, want %s", got, want)
			}
			// A force-push the server then forgets: the second request,
			// in a session of its own, sends the ancestors.
			rewritten := forcePushPruned(t, s.repo, 1, map[string]string{"apps/rewritten.yaml": "r\n"})
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatalf("fetch after a force-push: %v", err)
			}
			readWant(t, r, rewritten, "apps/rewritten.yaml", "r\n")
			readWant(t, r, want, "apps/new.yaml", "new: 1\n") // nothing lost
			res := r.Submit(ctx(t), "main", Change{Puts: map[string]File{"apps/ours.yaml": {Content: []byte("ours\n")}}})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if got := s.repo.Files(t, "main")["apps/ours.yaml"]; got != "ours\n" {
				t.Errorf("server's apps/ours.yaml = %q", got)
			}
		})
	}
}

func TestRequiresMultiACK(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		host string
		want bool
	}{
		"AzureDevOps":          {host: "dev.azure.com", want: true},
		"AzureDevOpsSSH":       {host: "ssh.dev.azure.com", want: true},
		"AzureDevOpsUpperCase": {host: "Dev.Azure.COM", want: true},
		"VisualStudio":         {host: "contoso.visualstudio.com", want: true},
		"VisualStudioSSH":      {host: "vs-ssh.visualstudio.com", want: true},
		"GitHub":               {host: "github.com", want: false},
		"LookAlike":            {host: "dev.azure.com.example.org", want: false},
		"OtherAzure":           {host: "myapp.azurewebsites.net", want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := requiresMultiACK(tc.host); got != tc.want {
				t.Errorf("requiresMultiACK(%q) = %v, want %v", tc.host, got, tc.want)
			}
		})
	}
}

func TestRefusedForMultiACK(t *testing.T) {
	t.Parallel()
	status := func(code int, body string) error {
		req := &http.Request{URL: &url.URL{Scheme: "https", Host: "dev.azure.com", Path: "/o/p/_git/r/git-upload-pack"}}
		return plumbing.NewUnexpectedError(&githttp.Err{Response: &http.Response{StatusCode: code, Request: req}, Reason: body})
	}
	cases := map[string]struct {
		reason string
		err    error
		want   bool
	}{
		"Azure":       {reason: "Azure DevOps' 400 with TF401041", err: status(400, testenv.AzureMultiACKRefusal), want: true},
		"Wrapped":     {reason: "as fetch wraps it", err: fmt.Errorf("%s: %w", errFetch, status(400, testenv.AzureMultiACKRefusal)), want: true},
		"OtherBadReq": {reason: "a 400 about something else", err: status(400, "bad request"), want: false},
		"ServerError": {reason: "a 500 naming multi-ack is not the refusal", err: status(500, "multi-ack"), want: false},
		"NotHTTP":     {reason: "an SSH failure", err: errors.New("multi-ack"), want: false},
		"Nil":         {reason: "no error", err: nil, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := refusedForMultiACK(tc.err); got != tc.want {
				t.Errorf("%s: refusedForMultiACK(%v) = %v, want %v", tc.reason, tc.err, got, tc.want)
			}
		})
	}
}
