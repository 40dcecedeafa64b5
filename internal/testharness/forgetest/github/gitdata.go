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

package github

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/localenv"
)

// The Git data API ("REST API endpoints for Git database"), backed by a
// real bare repository (ServeGitData) that a Git server on loopback serves
// too, so what the API creates is what a fetch brings. The objects are
// written with the git CLI, never with the provider's engine, so a tree the
// engine computes is checked against git's own. The rules GitHub applies
// and this fake enforces: a tree's base_tree and every entry's SHA must
// exist; a commit's tree and parents must exist; a ref update without
// force must be a fast-forward, else 422 "Update is not a fast forward";
// the ref moves only if it is still where the fast-forward check saw it
// (git update-ref with the old value), so a push that lands between the
// two is never overwritten. A commit created naming no author, committer
// or signature is the App's, committed and signed by GitHub, and
// Verified; naming any of them makes it unsigned, as GitHub documents for
// bots.

// GitHub's words and documentation for the Git data API.
const (
	msgNotFastForward = "Update is not a fast forward"
	msgNoRef          = "Reference does not exist"
	msgInvalidTree    = "Invalid tree info"
	msgBadBase        = "base_tree is not a valid tree oid"
	msgBadTreeSHA     = "Tree SHA does not exist"
	msgBadParent      = "Parent SHA does not exist or is not a commit object"
	msgBadObject      = "Object does not exist"
	docCreateBlob     = "https://docs.github.com/rest/git/blobs#create-a-blob"
	docCreateTree     = "https://docs.github.com/rest/git/trees#create-a-tree"
	docCreateCommit   = "https://docs.github.com/rest/git/commits#create-a-commit"
	docUpdateRef      = "https://docs.github.com/rest/git/refs#update-a-reference"

	// AppName and AppEmail are the author of a commit an App creates naming
	// no author; GitHubCommitter commits and signs it.
	AppName         = "provider-git-test[bot]"
	AppEmail        = "1+provider-git-test[bot]@users.noreply.github.com"
	GitHubCommitter = "GitHub <noreply@github.com>"

	// fakeSignature stands for GitHub's PGP signature of a commit: a
	// gpgsig header, so the commit is signed as GitHub's are, though by no
	// key a test could check.
	fakeSignature = "-----BEGIN PGP SIGNATURE-----\n\nwsBcBAABCAAQBQJmZmFrZQkQ4AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n=fake\n-----END PGP SIGNATURE-----"
)

// ServeGitData backs owner/name's Git data API with the bare repository at
// dir (localenv.BareRepo.Dir).
func (s *Server) ServeGitData(owner, name, dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(owner, name)
	rp.gitDir = dir
	if s.verified == nil {
		s.verified = map[string]bool{}
	}
}

// BeforeRefUpdate runs fn once, at the next ref update, before its
// fast-forward check: another writer pushing then is the head that moves
// while a commit is made through the API.
func (s *Server) BeforeRefUpdate(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.beforeRef = fn
}

// Verified reports whether GitHub would show the commit sha, created
// through the API, as Verified.
func (s *Server) Verified(sha string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.verified[sha]
}

// installationToken answers POST /app/installations/{id}/access_tokens,
// GitHub's exchange of an App's JWT for an installation token: a bearer
// JWT (three dot-separated parts; its signature is githubapp_test's to
// check) gets the server's token for an hour.
func (s *Server) installationToken(w *buffered, r *http.Request) bool {
	p, ok := strings.CutPrefix(r.URL.Path, "/api/v3/app/installations/")
	if !ok || r.Method != http.MethodPost || !strings.HasSuffix(p, "/access_tokens") {
		return false
	}
	jwt, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.Count(jwt, ".") != 2 {
		w.json(http.StatusUnauthorized, errBody("A JSON web token could not be decoded", docRoot))
		return true
	}
	w.json(http.StatusCreated, map[string]any{"token": s.token, "expires_at": s.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	return true
}

// gitData routes /repos/{o}/{r}/git/… of a repository ServeGitData backs.
func (s *Server) gitData(w *buffered, r *http.Request, rp *repo, rest []string) bool {
	if rp.gitDir == "" || len(rest) == 0 {
		return false
	}
	switch {
	case r.Method == http.MethodPost && len(rest) == 1 && rest[0] == "blobs":
		s.createBlob(w, r, rp)
	case r.Method == http.MethodPost && len(rest) == 1 && rest[0] == "trees":
		s.createTree(w, r, rp)
	case r.Method == http.MethodPost && len(rest) == 1 && rest[0] == "commits":
		s.createCommit(w, r, rp)
	case r.Method == http.MethodPatch && len(rest) >= 3 && rest[0] == "refs" && rest[1] == "heads":
		s.updateRef(w, r, rp, strings.Join(rest[2:], "/"))
	default:
		return false
	}
	return true
}

func (s *Server) createBlob(w *buffered, r *http.Request, rp *repo) {
	var in struct {
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
	}
	if !decode(w, r, &in) {
		return
	}
	content := []byte(in.Content)
	if in.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(in.Content)
		if err != nil {
			w.json(http.StatusUnprocessableEntity, validation(docCreateBlob, map[string]any{"resource": "Blob", "field": "content", "code": "invalid"}))
			return
		}
		content = b
	}
	sha, err := writeObject(rp.gitDir, "blob", string(content))
	if err != nil {
		w.json(http.StatusInternalServerError, errBody(err.Error(), docCreateBlob))
		return
	}
	w.json(http.StatusCreated, map[string]any{"sha": sha, "url": s.srv.URL + "/api/v3/repos/" + rp.owner + "/" + rp.name + "/git/blobs/" + sha})
}

// treeIn is one entry of a create-a-tree request; SHA is nil for a JSON
// null (delete) and absent alike, told apart by Content.
type treeIn struct {
	Path    string  `json:"path"`
	Mode    string  `json:"mode"`
	Type    string  `json:"type"`
	SHA     *string `json:"sha"`
	Content *string `json:"content"`
}

func (s *Server) createTree(w *buffered, r *http.Request, rp *repo) {
	var in struct {
		BaseTree string   `json:"base_tree"`
		Tree     []treeIn `json:"tree"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.BaseTree != "" && objectType(rp.gitDir, in.BaseTree) != "tree" {
		w.json(http.StatusUnprocessableEntity, errBody(msgBadBase, docCreateTree))
		return
	}
	if err := writeContents(rp.gitDir, in.Tree); err != nil {
		w.json(http.StatusInternalServerError, errBody(err.Error(), docCreateTree))
		return
	}
	changes := map[string]*treeIn{}
	for i := range in.Tree {
		e := &in.Tree[i]
		switch {
		case e.Content != nil:
		case e.SHA != nil && objectType(rp.gitDir, *e.SHA) != e.Type:
			w.json(http.StatusUnprocessableEntity, errBody(msgInvalidTree, docCreateTree))
			return
		case e.SHA == nil && in.BaseTree == "":
			w.json(http.StatusUnprocessableEntity, errBody(msgInvalidTree, docCreateTree))
			return
		}
		changes[e.Path] = e
	}
	sha, err := applyTree(rp.gitDir, in.BaseTree, changes)
	if err == nil && sha == "" {
		sha, err = localenv.GitInput(rp.gitDir, strings.NewReader(""), "mktree") // the empty tree
		sha = strings.TrimSpace(sha)
	}
	if err != nil {
		w.json(http.StatusUnprocessableEntity, errBody(msgInvalidTree+": "+err.Error(), docCreateTree))
		return
	}
	w.json(http.StatusCreated, map[string]any{"sha": sha, "url": s.srv.URL + "/api/v3/repos/" + rp.owner + "/" + rp.name + "/git/trees/" + sha, "truncated": false})
}

func (s *Server) createCommit(w *buffered, r *http.Request, rp *repo) {
	var in struct {
		Message   string         `json:"message"`
		Tree      string         `json:"tree"`
		Parents   []string       `json:"parents"`
		Author    map[string]any `json:"author"`
		Committer map[string]any `json:"committer"`
		Signature string         `json:"signature"`
	}
	if !decode(w, r, &in) {
		return
	}
	if objectType(rp.gitDir, in.Tree) != "tree" {
		w.json(http.StatusUnprocessableEntity, errBody(msgBadTreeSHA, docCreateCommit))
		return
	}
	for _, p := range in.Parents {
		if objectType(rp.gitDir, p) != "commit" {
			w.json(http.StatusUnprocessableEntity, errBody(msgBadParent, docCreateCommit))
			return
		}
	}
	when := fmt.Sprintf("%d +0000", s.clock.Now().Unix())
	author := fmt.Sprintf("%s <%s>", AppName, AppEmail)
	committer := GitHubCommitter
	verified := in.Author == nil && in.Committer == nil && in.Signature == ""
	if in.Author != nil {
		author = fmt.Sprintf("%v <%v>", in.Author["name"], in.Author["email"])
		committer = author
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", in.Tree)
	for _, p := range in.Parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s %s\ncommitter %s %s\n", author, when, committer, when)
	if verified {
		b.WriteString("gpgsig " + strings.ReplaceAll(fakeSignature, "\n", "\n ") + "\n")
	}
	b.WriteString("\n" + in.Message)
	sha, err := writeObject(rp.gitDir, "commit", b.String())
	if err != nil {
		w.json(http.StatusInternalServerError, errBody(err.Error(), docCreateCommit))
		return
	}
	s.verified[sha] = verified
	reason := "unsigned"
	if verified {
		reason = "valid"
	}
	parents := make([]map[string]any, 0, len(in.Parents))
	for _, p := range in.Parents {
		parents = append(parents, map[string]any{"sha": p})
	}
	w.json(http.StatusCreated, map[string]any{
		"sha": sha, "message": in.Message, "tree": map[string]any{"sha": in.Tree}, "parents": parents,
		"verification": map[string]any{"verified": verified, "reason": reason},
	})
}

func (s *Server) updateRef(w *buffered, r *http.Request, rp *repo, branch string) {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if !decode(w, r, &in) {
		return
	}
	if fn := s.beforeRef; fn != nil {
		s.beforeRef = nil
		fn()
	}
	ref := "refs/heads/" + branch
	cur, err := localenv.Git(rp.gitDir, nil, "rev-parse", "--verify", "--quiet", ref)
	cur = strings.TrimSpace(cur)
	if err != nil || cur == "" {
		w.json(http.StatusUnprocessableEntity, errBody(msgNoRef, docUpdateRef))
		return
	}
	if objectType(rp.gitDir, in.SHA) != "commit" {
		w.json(http.StatusUnprocessableEntity, errBody(msgBadObject, docUpdateRef))
		return
	}
	notFF := map[string]any{"message": msgNotFastForward, "documentation_url": docUpdateRef, "status": "422"}
	if _, err := localenv.Git(rp.gitDir, nil, "merge-base", "--is-ancestor", cur, in.SHA); err != nil && !in.Force {
		w.json(http.StatusUnprocessableEntity, notFF)
		return
	}
	// Compare and swap: a push that landed since rev-parse wins.
	if _, err := localenv.Git(rp.gitDir, nil, "update-ref", ref, in.SHA, cur); err != nil {
		w.json(http.StatusUnprocessableEntity, notFF)
		return
	}
	w.json(http.StatusOK, map[string]any{"ref": ref, "object": map[string]any{"type": "commit", "sha": in.SHA}})
}

// objectType is git's type of sha in dir, "" when it holds none.
func objectType(dir, sha string) string {
	if len(sha) != 40 {
		return ""
	}
	t, err := localenv.Git(dir, nil, "cat-file", "-t", sha)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(t)
}

// writeContents stores the blobs of the entries that carry content, with
// one git process for them all, and sets their SHAs.
func writeContents(dir string, entries []treeIn) error {
	tmp, err := os.MkdirTemp("", "fake-github-tree-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) //nolint:errcheck // a temporary directory
	var paths []string
	var which []int
	for i, e := range entries {
		if e.Content == nil {
			continue
		}
		p := filepath.Join(tmp, strconv.Itoa(i))
		if err := os.WriteFile(p, []byte(*e.Content), 0o600); err != nil {
			return err
		}
		paths, which = append(paths, p), append(which, i)
	}
	if len(paths) == 0 {
		return nil
	}
	out, err := localenv.GitInput(dir, strings.NewReader(strings.Join(paths, "\n")+"\n"), "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return err
	}
	shas := strings.Fields(out)
	if len(shas) != len(which) {
		return fmt.Errorf("hash-object answered %d SHAs for %d blobs", len(shas), len(which))
	}
	for k, i := range which {
		entries[i].SHA = &shas[k]
	}
	return nil
}

// writeObject stores an object of type typ and returns its SHA.
func writeObject(dir, typ, content string) (string, error) {
	out, err := localenv.GitInput(dir, strings.NewReader(content), "hash-object", "-w", "-t", typ, "--stdin")
	return strings.TrimSpace(out), err
}

// applyTree writes changes (paths from base's root) on tree base and
// returns the new tree's SHA, "" when it is empty; a directory left empty
// is dropped, as Git keeps no empty tree.
func applyTree(dir, base string, changes map[string]*treeIn) (string, error) {
	entries := map[string]string{} // name → "mode type sha"
	if base != "" {
		out, err := localenv.Git(dir, nil, "ls-tree", "-z", base)
		if err != nil {
			return "", err
		}
		for _, l := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
			if meta, name, ok := strings.Cut(l, "\t"); ok {
				entries[name] = meta
			}
		}
	}
	sub := map[string]map[string]*treeIn{}
	for p, e := range changes {
		if d, rest, ok := strings.Cut(p, "/"); ok {
			if sub[d] == nil {
				sub[d] = map[string]*treeIn{}
			}
			sub[d][rest] = e
			continue
		}
		if e.SHA == nil {
			delete(entries, p)
			continue
		}
		entries[p] = fmt.Sprintf("%s %s %s", e.Mode, e.Type, *e.SHA)
	}
	for d, ch := range sub {
		subBase := ""
		if meta, ok := entries[d]; ok {
			f := strings.Fields(meta)
			if f[1] != "tree" {
				return "", fmt.Errorf("%s is a file", d)
			}
			subBase = f[2]
		}
		sha, err := applyTree(dir, subBase, ch)
		if err != nil {
			return "", err
		}
		if sha == "" {
			delete(entries, d)
			continue
		}
		entries[d] = "040000 tree " + sha
	}
	if len(entries) == 0 {
		return "", nil
	}
	var in strings.Builder
	for name, meta := range entries {
		in.WriteString(meta + "\t" + name + "\x00")
	}
	out, err := localenv.GitInput(dir, strings.NewReader(in.String()), "mktree", "-z")
	return strings.TrimSpace(out), err
}
