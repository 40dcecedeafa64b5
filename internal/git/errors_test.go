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
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestTypedErrors(t *testing.T) {
	t.Parallel()
	hs := httpServer(t)
	ss := sshServer(t)
	otherHost := []byte("[127.0.0.1]:1 " + strings.SplitN(string(ss.ssh.KnownHosts), " ", 2)[1])
	sshRemote := func(key, known []byte) Remote {
		return Remote{URL: ss.remote.URL, Auth: &SSHAuth{PrivateKey: key, KnownHosts: known}}
	}
	cases := map[string]struct {
		reason string
		remote Remote
		setup  func(t *testing.T)
		branch string
		want   Kind
	}{
		"WrongPassword": {reason: "HTTP basic auth refused.", want: KindAuth,
			remote: Remote{URL: hs.remote.URL, Auth: &BasicAuth{Username: testUser, Password: "wrong"}}},
		"NoCredentials": {reason: "Anonymous access to a private repository.", want: KindAuth,
			remote: Remote{URL: hs.remote.URL}},
		"WrongKey": {reason: "SSH key the server does not know.", want: KindAuth,
			remote: sshRemote(ss.ssh.OtherKeyPEM, ss.ssh.KnownHosts)},
		"UnknownHostKey": {reason: "known_hosts does not list the server.", want: KindHostKey,
			remote: sshRemote(ss.ssh.ClientKeyPEM, otherHost)},
		"MismatchedHostKey": {reason: "known_hosts lists the server with another key.", want: KindHostKey,
			remote: sshRemote(ss.ssh.ClientKeyPEM, ss.ssh.WrongKnownHosts)},
		"NoKnownHosts": {reason: "Without known_hosts we fail closed.", want: KindHostKey,
			remote: sshRemote(ss.ssh.ClientKeyPEM, nil)},
		"MissingRepositoryHTTP": {reason: "No such repository over HTTP.", want: KindRepositoryNotFound,
			remote: Remote{URL: hs.http.RepoURL("missing.git"), Auth: hs.remote.Auth}},
		"MissingRepositorySSH": {reason: "No such repository over SSH.", want: KindRepositoryNotFound,
			remote: Remote{URL: ss.ssh.RepoURL("missing.git"), Auth: ss.remote.Auth}},
		"PasswordInURL": {reason: "A secret in the URL would leak into messages.", want: KindInvalid,
			remote: Remote{URL: testenv.AuthURL(hs.remote.URL, testUser, testToken)}},
		"MissingBranch": {reason: "Writing to a branch that does not exist.", want: KindBranchNotFound,
			remote: hs.remote, branch: "nope"},
		"PushRefused": {reason: "A server hook refuses the push (like a protected branch).", want: KindRejected,
			remote: ss.remote, setup: func(t *testing.T) {
				ss.repo.SetHook(t, "pre-receive", "echo 'protected branch' >&2; exit 1")
				t.Cleanup(func() { ss.repo.SetHook(t, "pre-receive", "exit 0") })
			}},
		"ServerDown": {reason: "A 503 is transient.", want: KindTransient,
			remote: hs.remote, setup: func(t *testing.T) {
				hs.http.FailWith(http.StatusServiceUnavailable)
				t.Cleanup(func() { hs.http.FailWith(0) })
			}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup(t)
			}
			branch := tc.branch
			if branch == "" {
				branch = "main"
			}
			c, err := NewCache(t.TempDir(), WithCommitWindow(time.Millisecond), func(o *Options) {
				o.FetchTimeout, o.PushTimeout = 20*time.Second, 20*time.Second
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r, err := c.Repository(tc.remote)
			if err == nil {
				res := r.Submit(ctx(t), branch, Change{Puts: map[string]File{"typed": {Content: []byte(name)}}})
				err = res.Err
			}
			if got := KindOf(err); got != tc.want {
				t.Errorf("%s\nKindOf(%v) = %v, want %v", tc.reason, err, got, tc.want)
			}
			if IsTerminal(err) != (tc.want != KindTransient) {
				t.Errorf("%s\nIsTerminal(%v) = %v", tc.reason, err, IsTerminal(err))
			}
			for _, secret := range []string{testToken, string(ss.ssh.ClientKeyPEM)} {
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("error message leaks a secret: %v", err)
				}
			}
		})
	}
}

// TestChangeErrorKinds: a change whose own path or start point is wrong
// fails with a kind that blames the change (KindPathConflict,
// KindInvalidChange), never KindInvalid, which blames the repository's
// configuration and so would point a human at the wrong object.
func TestChangeErrorKinds(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote, WithCommitWindow(time.Millisecond))
	main := s.repo.Head(t, "main")
	put := func(p string) func() Result {
		return func() Result {
			return r.Submit(ctx(t), "main", Change{Puts: map[string]File{p: {Content: []byte("x")}}})
		}
	}
	del := func(p string) func() Result {
		return func() Result { return r.Submit(ctx(t), "main", Change{Deletes: []string{p}}) }
	}
	create := func(branch, from string) func() Result {
		return func() Result { return r.CreateBranch(ctx(t), branch, from) }
	}
	type want struct {
		Failed   bool
		Kind     Kind
		UpToDate bool
	}
	cases := map[string]struct {
		reason string
		do     func() Result
		want   want
	}{
		"PutOnDirectory": {
			reason: "A file cannot be written where Git holds a directory (apps/ in the seed).",
			do:     put("apps"),
			want:   want{Failed: true, Kind: KindPathConflict},
		},
		"PutThroughFile": {
			reason: "A path cannot run through an existing file (README.md).",
			do:     put("README.md/x"),
			want:   want{Failed: true, Kind: KindPathConflict},
		},
		"DeleteDirectory": {
			reason: "A change owns files, never a tree: deleting a directory is a conflict.",
			do:     del("apps"),
			want:   want{Failed: true, Kind: KindPathConflict},
		},
		"DeleteThroughFile": {
			reason: "A path through a file cannot exist, so its deletion is already done.",
			do:     del("README.md/x"),
			want:   want{UpToDate: true},
		},
		"PathEscapes": {
			reason: "A path Git refuses is the change's own mistake.",
			do:     put("../escape"),
			want:   want{Failed: true, Kind: KindInvalidChange},
		},
		"PathInGitDir": {
			reason: "A path inside .git is refused by git's fsck on any server.",
			do:     put(".git/hooks/post-checkout"),
			want:   want{Failed: true, Kind: KindInvalidChange},
		},
		"BranchFromAbbreviatedSHA": {
			reason: "A start point that looks like a commit SHA but is not a full one is the Branch's mistake, not a missing branch.",
			do:     create("from-short", main[:7]),
			want:   want{Failed: true, Kind: KindInvalidChange},
		},
		"BranchFromSHA256": {
			reason: "A 64-digit SHA is not a SHA-1 commit id this repository can hold.",
			do:     create("from-long", strings.Repeat("ab", 32)),
			want:   want{Failed: true, Kind: KindInvalidChange},
		},
		"BranchFromMissingBranch": {
			reason: "A start point that is a name and no branch stays BranchNotFound.",
			do:     create("from-missing", "no-such-branch"),
			want:   want{Failed: true, Kind: KindBranchNotFound},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := tc.do()
			got := want{Failed: res.Err != nil, UpToDate: res.UpToDate}
			if res.Err != nil {
				got.Kind = KindOf(res.Err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nerr %v: -want, +got:\n%s", tc.reason, res.Err, diff)
			}
		})
	}
	if got := s.repo.Head(t, "main"); got != main {
		t.Errorf("a failed or satisfied change moved main from %s to %s", main[:7], got[:7])
	}
}

// TestAuthMessage: a refusal reads once what the server said. go-git adds
// the response body to its own "authentication required", and a server
// (Gitea, git-http-backend behind a proxy) whose body is those same words,
// or nothing, made "authentication required: authentication required".
func TestAuthMessage(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		status int
		body   string
		want   string
	}{
		"SameWords": {reason: "A body repeating go-git's words is said once.", status: http.StatusUnauthorized,
			body: "authentication required\n", want: "cannot list the remote's references: authentication required"},
		"SameWordsOtherCase": {reason: "Case and spaces do not make it news.", status: http.StatusUnauthorized,
			body: "  Authentication Required  ", want: "cannot list the remote's references: authentication required"},
		"Empty": {reason: "No body leaves no dangling colon.", status: http.StatusUnauthorized,
			want: "cannot list the remote's references: authentication required"},
		"ServerExplains": {reason: "What the server adds is kept.", status: http.StatusUnauthorized,
			body: "Invalid username or token.\n", want: "cannot list the remote's references: authentication required: Invalid username or token."},
		"ForbiddenSameWords": {reason: "A 403 is treated alike.", status: http.StatusForbidden,
			body: "authorization failed", want: "cannot list the remote's references: authorization failed"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			t.Cleanup(srv.Close)
			r, _ := newRepo(t, Remote{URL: srv.URL + "/repo.git", Auth: &BasicAuth{Username: "u", Password: "p"}})
			_, err := r.Check(ctx(t))
			if diff := cmp.Diff(KindAuth.String(), KindOf(err).String()); diff != "" {
				t.Fatalf("%s\nkind: -want, +got:\n%s\nerror: %v", tc.reason, diff, err)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("%s\nmessage: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
