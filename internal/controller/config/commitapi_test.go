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

package config

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	ghfake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// apiBed is a repository on a Git server on loopback whose fake GitHub
// creates commits in it through the Git data API, and a twin repository
// of the same seed that the engine pushes to, for comparison.
type apiBed struct {
	gh         *ghfake.Server
	repo, twin *testenv.BareRepo
	api, push  *git.Repository
}

func apiSeed() map[string][]testenv.CommitSpec {
	return map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: map[string]string{
		"README.md": "hello\n", "apps/a.yaml": "a: 1\n", "apps/old/gone.yaml": "x: 1\n", "bin/tool": "#!/bin/sh\n",
	}}}}
}

func appKey(t testing.TB) []byte {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

// newAPIBed serves the fake's API at apiURL(fake's URL), so a test can put
// a proxy in front of it.
func newAPIBed(t testing.TB, apiURL func(string) string) *apiBed {
	t.Helper()
	root := t.TempDir()
	b := &apiBed{gh: ghfake.NewServer(t)}
	b.repo = testenv.NewBareRepo(t, root, "acme/repo.git", apiSeed())
	b.twin = testenv.NewBareRepo(t, root, "acme/twin.git", apiSeed())
	b.gh.ServeGitData("acme", "repo", b.repo.Dir)
	srv := testenv.NewHTTPServer(t, root, "x-access-token", ghfake.Token)
	api := apiURL(b.gh.URL())
	cache, err := git.NewCache(t.TempDir(), git.WithCommitWindow(0), git.WithCommitAPI(NewCommitAPIOpener(forge.NewPacer(clock.RealClock{}))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cache.Close)
	auth := &git.AppInstallationAuth{AppID: "1", InstallationID: "2", PrivateKey: appKey(t), APIURL: api}
	if b.api, err = cache.Repository(git.Remote{URL: srv.RepoURL("acme/repo.git"), Auth: auth, API: &git.APITarget{URL: api}}); err != nil {
		t.Fatal(err)
	}
	if b.push, err = cache.Repository(git.Remote{URL: srv.RepoURL("acme/twin.git"), Auth: auth}); err != nil {
		t.Fatal(err)
	}
	return b
}

func apiCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// batch is a change that writes, replaces, deletes (leaving a directory
// empty), makes a file executable and writes binary content.
func batch() git.Change {
	return git.Change{
		Puts: map[string]git.File{
			"apps/a.yaml":      {Content: []byte("a: 2\n")},
			"apps/new/b.yaml":  {Content: []byte("b: 1\n")},
			"bin/tool":         {Content: []byte("#!/bin/sh\n"), Executable: true},
			"assets/logo.bin":  {Content: []byte{0x89, 'P', 'N', 'G', 0, 0xff, 0xfe}},
			"docs/ünïcode.txt": {Content: []byte("ça marche\n")},
		},
		Deletes:  []string{"apps/old/gone.yaml"},
		Message:  "Write the batch",
		Resource: git.Resource{Kind: "File", Namespace: "ns", Name: "batch", UID: "uid-batch"},
	}
}

func requestsTo(gh *ghfake.Server, method, suffix string) int {
	return gh.Count(func(r ghfake.Request) bool { return r.Method == method && strings.HasSuffix(r.Path, suffix) })
}

// TestCommitThroughAPI: a batch lands through the Git data API as one
// commit GitHub shows Verified, with the tree a push writes for the same
// batch, the trailers that make writes exactly-once, and the clone holding
// the commit so the next batch builds on it.
func TestCommitThroughAPI(t *testing.T) {
	testenv.Integration(t)
	b := newAPIBed(t, func(u string) string { return u })

	res := b.api.Submit(apiCtx(t), "main", batch())
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	pushed := b.push.Submit(apiCtx(t), "main", batch())
	if pushed.Err != nil {
		t.Fatal(pushed.Err)
	}
	head := b.repo.Head(t, "main")
	if res.Commit != head {
		t.Errorf("Result.Commit %s, the branch is at %s", res.Commit, head)
	}
	tree := func(r *testenv.BareRepo, c string) string {
		out, err := testenv.Git(r.Dir, nil, "rev-parse", c+"^{tree}")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}
	if got, want := tree(b.repo, head), tree(b.twin, pushed.Commit); got != want {
		t.Errorf("the API's tree is %s, the push path's %s", got, want)
	}
	if !b.gh.Verified(head) {
		t.Errorf("commit %s is not Verified", head)
	}
	log := b.repo.Log(t, "main")
	if diff := cmp.Diff([]string{"File/ns/batch"}, log[0].Trailers[git.TrailerResource]); diff != "" {
		t.Errorf("trailers: -want, +got:\n%s", diff)
	}
	if got, err := b.api.Head("main"); err != nil || got != head {
		t.Errorf("the clone's head is %s (%v), want the API's commit %s", got, err, head)
	}
	c, ok, err := b.api.FindCommitByUID(apiCtx(t), "main", "uid-batch", 10)
	if err != nil || !ok || c.SHA != head {
		t.Errorf("FindCommitByUID: %v %v %v, want %s", c.SHA, ok, err, head)
	}
	who, err := testenv.Git(b.repo.Dir, nil, "log", "-1", "--format=%an <%ae>|%cn <%ce>", head)
	if err != nil {
		t.Fatal(err)
	}
	if want := ghfake.AppName + " <" + ghfake.AppEmail + ">|" + ghfake.GitHubCommitter; strings.TrimSpace(who) != want {
		t.Errorf("author|committer %q, want %q: a named author would leave the commit unsigned", strings.TrimSpace(who), want)
	}
	// Per batch: one blob (the binary file; text goes inline), a tree, a
	// commit, a ref update.
	counts := map[string]int{
		"blobs": requestsTo(b.gh, http.MethodPost, "/git/blobs"), "trees": requestsTo(b.gh, http.MethodPost, "/git/trees"),
		"commits": requestsTo(b.gh, http.MethodPost, "/git/commits"), "refs": requestsTo(b.gh, http.MethodPatch, "/git/refs/heads/main"),
	}
	if diff := cmp.Diff(map[string]int{"blobs": 1, "trees": 1, "commits": 1, "refs": 1}, counts); diff != "" {
		t.Errorf("requests: -want, +got:\n%s", diff)
	}

	// The next batch builds on the API's commit.
	next := b.api.Submit(apiCtx(t), "main", git.Change{Puts: map[string]git.File{"apps/a.yaml": {Content: []byte("a: 3\n")}},
		Message: "again", Resource: git.Resource{Kind: "File", Namespace: "ns", Name: "a", UID: "uid-a"}})
	if next.Err != nil {
		t.Fatal(next.Err)
	}
	if got := requestsTo(b.gh, http.MethodPatch, "/git/refs/heads/main"); got != 2 {
		t.Errorf("%d ref updates, want 2: the second batch must not be refused as built on a stale head", got)
	}
	if !b.repo.IsAncestor(t, head, next.Commit) {
		t.Errorf("%s does not descend from %s", next.Commit, head)
	}
}

// TestCommitThroughAPIHeadMoved: someone pushes while the commit is made;
// GitHub refuses the ref update as no fast-forward; the engine fetches,
// plans again on their commit and lands; nothing is lost, nothing forced.
func TestCommitThroughAPIHeadMoved(t *testing.T) {
	testenv.Integration(t)
	b := newAPIBed(t, func(u string) string { return u })
	var theirs string
	b.gh.BeforeRefUpdate(func() {
		var err error
		theirs, err = b.repo.BareRepo.Commit("main", testenv.CommitSpec{Message: "theirs", Files: map[string]string{"theirs.txt": "t\n"}})
		if err != nil {
			t.Error(err)
		}
	})
	res := b.api.Submit(apiCtx(t), "main", batch())
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	refused := b.gh.Count(func(r ghfake.Request) bool {
		return r.Method == http.MethodPatch && r.Status == http.StatusUnprocessableEntity
	})
	if refused != 1 {
		t.Errorf("%d ref updates refused, want 1", refused)
	}
	if !b.repo.IsAncestor(t, theirs, res.Commit) {
		t.Errorf("our commit %s does not descend from theirs %s: it was lost or forced over", res.Commit, theirs)
	}
	files := b.repo.Files(t, "main")
	if files["theirs.txt"] != "t\n" || files["apps/a.yaml"] != "a: 2\n" {
		t.Errorf("files after the retry: theirs.txt %q, apps/a.yaml %q", files["theirs.txt"], files["apps/a.yaml"])
	}
	for _, u := range b.repo.Reflog(t, "main") {
		if u.Old != strings.Repeat("0", 40) && !b.repo.IsAncestor(t, u.Old, u.New) {
			t.Errorf("forced update %s → %s", u.Old, u.New)
		}
	}
}

// TestCommitThroughAPIFallsBack: a batch over APIMaxFiles is pushed, not
// sent through the API.
func TestCommitThroughAPIFallsBack(t *testing.T) {
	testenv.Integration(t)
	b := newAPIBed(t, func(u string) string { return u })
	c := git.Change{Puts: map[string]git.File{}, Message: "many", Resource: git.Resource{Kind: "File", Namespace: "ns", Name: "many", UID: "uid-many"}}
	for i := range git.APIMaxFiles + 1 {
		c.Puts[fmt.Sprintf("many/%03d.yaml", i)] = git.File{Content: []byte(fmt.Sprintf("n: %d\n", i))}
	}
	res := b.api.Submit(apiCtx(t), "main", c)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := requestsTo(b.gh, http.MethodPost, "/git/trees"); got != 0 {
		t.Errorf("%d tree requests, want none: the batch is over the API's limit", got)
	}
	if head := b.repo.Head(t, "main"); head != res.Commit || b.gh.Verified(head) {
		t.Errorf("head %s, result %s, verified %v: want the pushed commit", head, res.Commit, b.gh.Verified(head))
	}
}

// TestCommitThroughAPIRedirect: an API that redirects its Git data calls
// to another host never sends the installation token there, and nothing
// lands.
func TestCommitThroughAPIRedirect(t *testing.T) {
	testenv.Integration(t)
	var leaked, reached atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(elsewhere.Close)
	var front *httptest.Server
	b := newAPIBed(t, func(api string) string {
		u, err := url.Parse(api)
		if err != nil {
			t.Fatal(err)
		}
		proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
		front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/git/") {
				http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
				return
			}
			proxy.ServeHTTP(w, r) // the token exchange reaches the fake
		}))
		t.Cleanup(front.Close)
		return front.URL + u.Path
	})
	before := b.repo.Head(t, "main")
	res := b.api.Submit(apiCtx(t), "main", batch())
	if res.Err == nil {
		t.Fatal("the batch landed through a redirect to another host")
	}
	if n := leaked.Load(); n != 0 {
		t.Errorf("the token reached the other host %d times", n)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the other host was reached %d times: the redirect was followed", n)
	}
	if after := b.repo.Head(t, "main"); after != before {
		t.Errorf("the branch moved from %s to %s", before, after)
	}
}

// TestCommitThroughAPIElsewhere: an API that writes to another repository
// than the URL serves (an API URL of another GitHub holding a copy) is
// not taken for success: the change is not where it is read.
func TestCommitThroughAPIElsewhere(t *testing.T) {
	testenv.Integration(t)
	b := newAPIBed(t, func(u string) string { return u })
	copyDir := t.TempDir() + "/copy.git"
	if _, err := testenv.Git(t.TempDir(), nil, "clone", "-q", "--bare", b.repo.Dir, copyDir); err != nil {
		t.Fatal(err)
	}
	b.gh.ServeGitData("acme", "repo", copyDir)
	before := b.repo.Head(t, "main")
	res := b.api.Submit(apiCtx(t), "main", batch())
	if res.Err == nil || !strings.Contains(res.Err.Error(), "does not serve it") {
		t.Errorf("Submit: %v, want the commit reported missing from the repository's URL", res.Err)
	}
	if after := b.repo.Head(t, "main"); after != before {
		t.Errorf("the repository moved from %s to %s", before, after)
	}
}

// TestKindOf: GitHub's refusals of the commit path get the engine's kinds,
// so a human is asked only when one must act.
func TestKindOf(t *testing.T) {
	cases := map[string]struct {
		reason string
		err    error
		want   git.Kind
	}{
		"Unauthorized": {reason: "Credentials refused need a human.", err: &forge.APIError{Kind: forge.ErrUnauthorized, Status: 401}, want: git.KindAuth},
		"Forbidden":    {reason: "An App without Contents: write needs a human.", err: &forge.APIError{Kind: forge.ErrForbidden, Status: 403}, want: git.KindAuth},
		"Invalid":      {reason: "A 422 (a protected branch) is a refusal.", err: &forge.APIError{Kind: forge.ErrInvalidInput, Status: 422}, want: git.KindRejected},
		"RuleConflict": {reason: "A 409 (a ruleset's violations) is a refusal.", err: &forge.APIError{Status: 409, Message: "Repository rule violations found"}, want: git.KindRejected},
		"RateLimited":  {reason: "A secondary limit passes.", err: &forge.RateLimitError{At: time.Now()}, want: git.KindTransient},
		"ServerError":  {reason: "A 502 passes.", err: &forge.APIError{Status: 502}, want: git.KindTransient},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, git.KindOf(kindOf(tc.err))); diff != "" {
				t.Errorf("%s\nkind: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCommitThroughAPIWrongTree: an API that commits another tree than the
// one it built for the batch (here a proxy swaps in the parent's) is not
// taken for success: the branch does not hold the batch.
func TestCommitThroughAPIWrongTree(t *testing.T) {
	testenv.Integration(t)
	var seedTree string
	b := newAPIBed(t, func(api string) string {
		u, err := url.Parse(api)
		if err != nil {
			t.Fatal(err)
		}
		proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git/commits") {
				var in map[string]any
				if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
					t.Error(err)
				}
				in["tree"] = seedTree
				body, _ := json.Marshal(in)
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			}
			proxy.ServeHTTP(w, r)
		}))
		t.Cleanup(front.Close)
		return front.URL + u.Path
	})
	out, err := testenv.Git(b.repo.Dir, nil, "rev-parse", "main^{tree}")
	if err != nil {
		t.Fatal(err)
	}
	seedTree = strings.TrimSpace(out)
	res := b.api.Submit(apiCtx(t), "main", batch())
	if res.Err == nil || !strings.Contains(res.Err.Error(), "not the batch's") {
		t.Errorf("Submit: %v, want the API's commit reported as holding another tree", res.Err)
	}
}

// TestCommitThroughAPIBranchSetBack: someone sets the branch back (drops a
// commit) while the batch is committed through the API. GitHub's ref
// update would take the batch, a fast-forward of the older head, and with
// it the dropped commit back; the engine sees the branch is no longer
// where it planned, plans again on the older head, and the dropped commit
// stays dropped, as a push's compare-and-swap would keep it.
func TestCommitThroughAPIBranchSetBack(t *testing.T) {
	testenv.Integration(t)
	var seed string
	var setBack atomic.Bool
	var b *apiBed
	b = newAPIBed(t, func(api string) string {
		u, err := url.Parse(api)
		if err != nil {
			t.Fatal(err)
		}
		proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git/commits") && setBack.CompareAndSwap(false, true) {
				if _, err := testenv.Git(b.repo.Dir, nil, "update-ref", "refs/heads/main", seed); err != nil {
					t.Error(err)
				}
			}
			proxy.ServeHTTP(w, r)
		}))
		t.Cleanup(front.Close)
		return front.URL + u.Path
	})
	seed = b.repo.Head(t, "main")
	dropped, err := b.repo.BareRepo.Commit("main", testenv.CommitSpec{Message: "to be dropped", Files: map[string]string{"dropped.txt": "x\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.api.Refresh(apiCtx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	res := b.api.Submit(apiCtx(t), "main", batch())
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if !setBack.Load() {
		t.Fatal("the branch was never set back")
	}
	if b.repo.IsAncestor(t, dropped, res.Commit) {
		t.Errorf("the batch %s brought back the dropped commit %s", res.Commit, dropped)
	}
	if !b.repo.IsAncestor(t, seed, res.Commit) || b.repo.Head(t, "main") != res.Commit {
		t.Errorf("the batch %s is not on the set-back branch (head %s)", res.Commit, b.repo.Head(t, "main"))
	}
}

func TestPaceKey(t *testing.T) {
	cases := map[string]struct {
		reason string
		a, b   string
		same   bool
	}{
		"TrailingSlash": {reason: "One installation on one host shares one pace however its URL is spelled.", a: "https://api.github.com/", b: "https://api.github.com", same: true},
		"HostCase":      {reason: "A host's case names the same host.", a: "https://API.GitHub.com", b: "https://api.github.com", same: true},
		"OtherHost":     {reason: "GitHub Enterprise Server counts its own limits.", a: "https://ghe.example.com/api/v3", b: "https://api.github.com"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a, b := paceKey(tc.a, "1", "2"), paceKey(tc.b, "1", "2")
			if (a == b) != tc.same {
				t.Errorf("\n%s\npaceKey(%q) = %q, paceKey(%q) = %q, want same %t", tc.reason, tc.a, a, tc.b, b, tc.same)
			}
		})
	}
	if paceKey("https://api.github.com", "1", "2") == paceKey("https://api.github.com", "1", "3") {
		t.Errorf("two installations share one pace, want one each")
	}
}
