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

package testenv

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/skeema/knownhosts"
)

func seedRepo(t *testing.T, root string) *BareRepo {
	t.Helper()
	return NewBareRepo(t, root, "repo.git", map[string][]CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"README.md": "hello\n", "dir/a.txt": "a\n"}}},
	})
}

// cliRoundTrip clones url, commits one file and pushes it with the git CLI.
func cliRoundTrip(t *testing.T, url string, env []string) error {
	t.Helper()
	wt := filepath.Join(t.TempDir(), "wt")
	if _, err := Git("", env, "clone", "--quiet", url, wt); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(wt, "new.txt"), []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Git(wt, env, "add", "new.txt"); err != nil {
		return err
	}
	if _, err := Git(wt, env, "commit", "--quiet", "-m", "add new.txt"); err != nil {
		return err
	}
	_, err := Git(wt, env, "push", "--quiet", "origin", "HEAD:refs/heads/main")
	return err
}

// gitSSHCommand writes key and knownHosts to files and returns a
// GIT_SSH_COMMAND value that makes the git CLI use exactly them, with strict
// host key checking.
func gitSSHCommand(t *testing.T, key, knownHosts []byte) string {
	t.Helper()
	d := t.TempDir()
	k := filepath.Join(d, "id")
	kh := filepath.Join(d, "known_hosts")
	if err := os.WriteFile(k, key, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kh, knownHosts, 0o600); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("ssh -i %s -o IdentitiesOnly=yes -o UserKnownHostsFile=%s -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -o BatchMode=yes", k, kh)
}

func TestBareRepoHelpers(t *testing.T) {
	r := seedRepo(t, t.TempDir())
	first := r.Head(t, "main")
	w, err := r.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	second, err := w.Commit("main", CommitSpec{
		Message: "change\n\nProvider-Git-UID: u1",
		Files:   map[string]string{"dir/b.txt": "b\n"},
		Deletes: []string{"README.md"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"dir/a.txt": "a\n", "dir/b.txt": "b\n"}, r.Files(t, "main")); diff != "" {
		t.Errorf("Files(main): -want, +got:\n%s", diff)
	}
	if got := r.Head(t, "main"); got != second {
		t.Errorf("Head(main) = %s, want %s", got, second)
	}
	log := r.Log(t, "main")
	want := []LogEntry{
		{SHA: second, Parents: []string{first}, Message: "change\n\nProvider-Git-UID: u1", Trailers: map[string][]string{"Provider-Git-UID": {"u1"}}},
		{SHA: first, Message: "seed", Trailers: map[string][]string{}},
	}
	if diff := cmp.Diff(want, log, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") })); diff != "" {
		t.Errorf("Log(main): -want, +got:\n%s", diff)
	}
	if !r.IsAncestor(t, first, second) || r.IsAncestor(t, second, first) {
		t.Error("IsAncestor does not follow history")
	}
	if diff := cmp.Diff([]RefUpdate{{Old: strings.Repeat("0", 40), New: first}, {Old: first, New: second}}, r.Reflog(t, "main")); diff != "" {
		t.Errorf("Reflog(main): -want, +got:\n%s", diff)
	}
	r.CreateBranch(t, "feature", "main")
	if got := r.Head(t, "feature"); got != second {
		t.Errorf("Head(feature) = %s, want %s", got, second)
	}
	if got := r.Head(t, "missing"); got != "" {
		t.Errorf("Head(missing) = %q, want empty", got)
	}
}

func TestHTTPServer(t *testing.T) {
	root := t.TempDir()
	r := seedRepo(t, root)
	s := NewHTTPServer(t, root, "alice", "s3cret")

	// Right credentials: a clone and a push succeed and land on the server.
	if err := cliRoundTrip(t, AuthURL(s.RepoURL(r.Name), "alice", "s3cret"), nil); err != nil {
		t.Fatalf("clone+push with the right credentials: %v", err)
	}
	if got := r.Files(t, "main")["new.txt"]; got != "new\n" {
		t.Errorf("pushed file on server = %q, want %q", got, "new\n")
	}
	c := s.Counts()
	if c.UploadPackAdverts < 1 || c.ReceivePackPosts != 1 {
		t.Errorf("Counts() = %+v, want >=1 upload-pack advertisement and exactly 1 receive-pack POST", c)
	}

	cases := map[string]struct {
		reason string
		user   string
		pass   string
	}{
		"WrongPassword": {reason: "A wrong password must be refused.", user: "alice", pass: "nope"},
		"WrongUsername": {reason: "The right password under another username must be refused.", user: "mallory", pass: "s3cret"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, s.RepoURL(r.Name)+"/info/refs?service=git-upload-pack", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.SetBasicAuth(tc.user, tc.pass)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = res.Body.Close()
			if res.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s\nstatus = %d, want 401", tc.reason, res.StatusCode)
			}
			err = cliRoundTrip(t, AuthURL(s.RepoURL(r.Name), tc.user, tc.pass), nil)
			if err == nil || !strings.Contains(err.Error(), "Authentication failed") {
				t.Errorf("%s\ngit clone error = %v, want Authentication failed", tc.reason, err)
			}
		})
	}
}

func TestSSHServer(t *testing.T) {
	root := t.TempDir()
	r := seedRepo(t, root)
	s := StartSSHServer(t, root)
	url := s.RepoURL(r.Name)

	// git CLI with the right key and known_hosts: clone and push.
	env := []string{"GIT_SSH_COMMAND=" + gitSSHCommand(t, s.ClientKeyPEM, s.KnownHosts)}
	if err := cliRoundTrip(t, url, env); err != nil {
		t.Fatalf("git CLI clone+push over SSH: %v\nsshd log:\n%s", err, s.Log())
	}
	if got := r.Files(t, "main")["new.txt"]; got != "new\n" {
		t.Errorf("pushed file on server = %q, want %q", got, "new\n")
	}
	// git CLI with a mismatched host key is refused by the client.
	env = []string{"GIT_SSH_COMMAND=" + gitSSHCommand(t, s.ClientKeyPEM, s.WrongKnownHosts)}
	if _, err := Git("", env, "ls-remote", url); err == nil || !strings.Contains(err.Error(), "HOST IDENTIFICATION HAS CHANGED") {
		t.Errorf("git CLI with a wrong host key: error = %v, want HOST IDENTIFICATION HAS CHANGED", err)
	}

	// go-git with x/crypto knownhosts, as the engine connects.
	otherHost := []byte("[127.0.0.1]:1 " + strings.SplitN(string(s.KnownHosts), " ", 2)[1])
	cases := map[string]struct {
		reason     string
		key        []byte
		knownHosts []byte
		wantErr    string
	}{
		"RightKeyMatchingHost": {reason: "The right key and known_hosts list the remote.", key: s.ClientKeyPEM, knownHosts: s.KnownHosts},
		"MismatchedHostKey":    {reason: "A known_hosts entry for this host with another key must be refused.", key: s.ClientKeyPEM, knownHosts: s.WrongKnownHosts, wantErr: "key mismatch"},
		"UnknownHost":          {reason: "A host absent from known_hosts must be refused.", key: s.ClientKeyPEM, knownHosts: otherHost, wantErr: "key is unknown"},
		"WrongClientKey":       {reason: "A key the server does not authorise must be refused.", key: s.OtherKeyPEM, knownHosts: s.KnownHosts, wantErr: "unable to authenticate"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kh := filepath.Join(t.TempDir(), "known_hosts")
			if err := os.WriteFile(kh, tc.knownHosts, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := knownhosts.NewDB(kh)
			if err != nil {
				t.Fatal(err)
			}
			auth, err := gitssh.NewPublicKeys(s.User, tc.key, "")
			if err != nil {
				t.Fatal(err)
			}
			auth.HostKeyCallback = db.HostKeyCallback()
			auth.HostKeyAlgorithms = db.HostKeyAlgorithms(s.Addr)
			rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{url}})
			refs, err := rem.List(&git.ListOptions{Auth: auth})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("%s\nList: %v\nsshd log:\n%s", tc.reason, err, s.Log())
				}
				if len(refs) == 0 {
					t.Errorf("%s\nList returned no refs", tc.reason)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s\nList error = %v, want one containing %q", tc.reason, err, tc.wantErr)
			}
		})
	}
}

// TestSSHServerRunsNoStartupFile proves that a Git command over the test SSH
// server runs no start-up file of the login user's shell. sshd runs each
// command through that shell, and Debian's bash reads ~/.bashrc under sshd
// even for `bash -c`: root's ~/.bashrc running `pyenv init` made Branches
// over SSH miss their deadline on a busy machine. The home the sessions see
// gets a .bashrc that marks and fails every command it runs before; a
// pre-receive hook records the HOME receive-pack ran with.
func TestSSHServerRunsNoStartupFile(t *testing.T) {
	root := t.TempDir()
	r := seedRepo(t, root)
	s := StartSSHServer(t, root)
	out := t.TempDir()
	marker := filepath.Join(out, "bashrc-ran")
	rc := fmt.Sprintf("echo ran >> '%s'\nexit 1\n", marker)
	if err := os.WriteFile(filepath.Join(s.Home, ".bashrc"), []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(out, "home")
	r.SetHook(t, "pre-receive", fmt.Sprintf(`printf %%s "$HOME" > '%s'`, home))

	env := []string{"GIT_SSH_COMMAND=" + gitSSHCommand(t, s.ClientKeyPEM, s.KnownHosts)}
	if err := cliRoundTrip(t, s.RepoURL(r.Name), env); err != nil {
		t.Fatalf("git CLI clone+push over SSH: %v\nsshd log:\n%s", err, s.Log())
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("a session's shell read the .bashrc of its home: Stat(marker) = %v, want it absent", err)
	}
	got, err := os.ReadFile(home)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.Home, string(got)); diff != "" {
		t.Errorf("HOME of receive-pack, not the login user's home but the server's own: -want, +got:\n%s", diff)
	}
}
