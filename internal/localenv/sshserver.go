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
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"golang.org/x/crypto/ssh"
)

// SSHDPath is where Debian's openssh-server installs sshd ('make test'
// installs it when missing and run as root).
const SSHDPath = "/usr/sbin/sshd"

const (
	errNoSSHD      = SSHDPath + " not found: install it with `apt-get install -y --no-install-recommends openssh-server`"
	errUser        = "cannot look up the current user"
	errSSHDir      = "cannot create the sshd directory"
	errFmtWriteSSH = "cannot write sshd's %s"
	errPrivsepDir  = "cannot create sshd's privilege separation directory"
	errFmtConfig   = "sshd refuses its configuration: %s"
	errKey         = "cannot generate an ed25519 key"
)

// SSHServer is Debian's OpenSSH sshd serving Git over SSH on a loopback port
// for every repository under Root.
//
// The server holds the listening socket itself and runs one 'sshd -i' (inetd
// mode) per accepted connection, rather than a daemon on a port of its own:
// the port is the kernel's pick and never closed before use, so no other
// process can take it, and the server accepts connections as soon as
// StartSSHServer returns, with no waiting for a daemon to come up.
type SSHServer struct {
	// Root is the directory whose bare repositories are served.
	Root string
	// User is the login user (the user running the server).
	User string
	// Home is HOME in every session: an empty directory of the server's own,
	// not the login user's home (see writeConfig).
	Home string
	// Addr is host:port of the server.
	Addr string
	// ClientKeyPEM is an OpenSSH private key (ed25519) the server accepts.
	ClientKeyPEM []byte
	// OtherKeyPEM is a valid private key the server does NOT accept.
	OtherKeyPEM []byte
	// KnownHosts is a known_hosts line naming the server's real host key.
	KnownHosts []byte
	// WrongKnownHosts is a known_hosts line naming this server's address with
	// a different key, for mismatch tests.
	WrongKnownHosts []byte

	dir    string // sshd's configuration, keys and log
	config string
	l      net.Listener
	wg     sync.WaitGroup // the accept loop and one goroutine per connection

	// mu guards closed and sessions: Close kills every session, and none may
	// start after it did.
	mu       sync.Mutex
	closed   bool
	sessions map[*exec.Cmd]struct{}
}

// StartSSHServer starts an SSH server for root on a free loopback port. The
// caller must Close it.
func StartSSHServer(root string) (*SSHServer, error) {
	if _, err := os.Stat(SSHDPath); err != nil {
		return nil, errors.Wrap(err, errNoSSHD)
	}
	u, err := user.Current()
	if err != nil {
		return nil, errors.Wrap(err, errUser)
	}
	var keys [4]ssh.Signer // host, client, another client, another host
	var pems [4][]byte
	for i := range keys {
		if keys[i], pems[i], err = newKey(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "sshd-")
	if err != nil {
		return nil, errors.Wrap(err, errSSHDir)
	}
	s := &SSHServer{Root: root, User: u.Username, Home: filepath.Join(dir, "home"), ClientKeyPEM: pems[1], OtherKeyPEM: pems[2], dir: dir, sessions: map[*exec.Cmd]struct{}{}}
	if s.config, err = writeConfig(dir, u.Username, s.Home, pems[0], keys[1]); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	// Port 0: the kernel picks a free port and the listener holds it.
	if s.l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		_ = os.RemoveAll(dir)
		return nil, errors.Wrap(err, errListen)
	}
	s.Addr = s.l.Addr().String()
	known := fmt.Sprintf("[127.0.0.1]:%d", s.l.Addr().(*net.TCPAddr).Port)
	s.KnownHosts = []byte(known + " " + string(ssh.MarshalAuthorizedKey(keys[0].PublicKey())))
	s.WrongKnownHosts = []byte(known + " " + string(ssh.MarshalAuthorizedKey(keys[3].PublicKey())))
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// writeConfig writes sshd's host key, the authorised client key and a
// configuration naming them into dir, and has sshd check them, so that a
// configuration sshd refuses fails here rather than on the first connection.
// It returns the configuration's path.
//
// sshd runs every Git command as `$SHELL -c 'git-upload-pack ...'` with the
// login user's shell from the password database, and no option of sshd
// changes that shell. Debian's bash reads /etc/bash.bashrc and ~/.bashrc when
// SSH_CLIENT is set, that is under every sshd, interactive or not: root's
// ~/.bashrc running `pyenv init` made each Git command take seconds on a busy
// machine (TestSecretsNeverLeak, TestProviderConfigStatus). So the sessions
// get an environment in which no start-up file of the host runs, whoever the
// user and whatever their shell: HOME is home, an empty directory of the
// server's own, so no shell finds a dotfile of the user's; SHLVL=1 makes
// bash a nested shell, which reads neither bashrc (bash(1), INVOCATION, and
// shell.c: `shell_level < 2`); sshd's own ~/.ssh/rc and ~/.ssh/environment
// are off. This needs no root, unlike a user whose shell is git-shell.
func writeConfig(dir, login, home string, hostPEM []byte, client ssh.Signer) (string, error) {
	write := func(name string, b []byte) (string, error) {
		p := filepath.Join(dir, name)
		return p, errors.Wrapf(os.WriteFile(p, b, 0o600), errFmtWriteSSH, name)
	}
	hostKey, err := write("host_ed25519", hostPEM)
	if err != nil {
		return "", err
	}
	authKeys, err := write("authorized_keys", ssh.MarshalAuthorizedKey(client.PublicKey()))
	if err != nil {
		return "", err
	}
	if err := os.Mkdir(home, 0o700); err != nil {
		return "", errors.Wrap(err, errSSHDir)
	}
	// sshd refuses to start without its privilege separation directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return "", errors.Wrap(err, errPrivsepDir)
	}
	config, err := write("sshd_config", []byte(strings.Join([]string{
		"HostKey " + hostKey,
		"AuthorizedKeysFile " + authKeys,
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		"StrictModes no",
		// Tests run as root in containers; key-only root login is the
		// default, stated so a changed distro default cannot break us.
		"PermitRootLogin prohibit-password",
		"AllowUsers " + login,
		"AcceptEnv GIT_PROTOCOL",
		// Quoted: sshd splits SetEnv's arguments at spaces, which TMPDIR
		// may hold.
		`SetEnv "HOME=` + home + `" SHLVL=1 ` + strings.Join(noHousekeeping(), " "),
		"PermitUserRC no",
		"PermitUserEnvironment no",
		"LogLevel VERBOSE",
	}, "\n")+"\n"))
	if err != nil {
		return "", err
	}
	out, err := exec.Command(SSHDPath, "-t", "-f", config).CombinedOutput()
	return config, errors.Wrapf(err, errFmtConfig, strings.TrimSpace(string(out)))
}

// RepoURL returns the ssh:// clone URL of the repository at name below Root.
func (s *SSHServer) RepoURL(name string) string {
	return "ssh://" + s.User + "@" + s.Addr + filepath.ToSlash(filepath.Join(s.Root, name))
}

// Log returns what sshd logged, for failure messages.
func (s *SSHServer) Log() string {
	b, _ := os.ReadFile(s.logFile())
	return string(b)
}

// Close stops accepting connections, ends every session and removes sshd's
// files. It is safe to call more than once.
func (s *SSHServer) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for cmd := range s.sessions {
		_ = cmd.Process.Kill()
	}
	s.mu.Unlock()
	if s.l != nil {
		_ = s.l.Close()
	}
	s.wg.Wait()
	_ = os.RemoveAll(s.dir)
}

func (s *SSHServer) logFile() string { return filepath.Join(s.dir, "sshd.log") }

// accept hands each connection to a session until Close closes the listener.
func (s *SSHServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go s.session(c)
	}
}

// session runs 'sshd -i' on the connection's socket until either side ends it.
func (s *SSHServer) session(c net.Conn) {
	defer s.wg.Done()
	// sshd -i speaks SSH on its standard input and output: give it a copy of
	// the socket, and close ours so that the connection ends when sshd exits.
	f, err := c.(*net.TCPConn).File()
	_ = c.Close()
	if err != nil {
		return
	}
	cmd := exec.Command(SSHDPath, "-i", "-f", s.config, "-E", s.logFile())
	cmd.Stdin, cmd.Stdout = f, f
	started := s.start(cmd)
	_ = f.Close()
	if !started {
		return
	}
	_ = cmd.Wait()
	s.mu.Lock()
	delete(s.sessions, cmd)
	s.mu.Unlock()
}

// start starts cmd and records it for Close, unless Close has begun.
func (s *SSHServer) start(cmd *exec.Cmd) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || cmd.Start() != nil {
		return false
	}
	s.sessions[cmd] = struct{}{}
	return true
}

// newKey returns a fresh ed25519 key as a signer and as an OpenSSH PEM block.
func newKey() (ssh.Signer, []byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, errors.Wrap(err, errKey)
	}
	blk, err := ssh.MarshalPrivateKey(priv, "provider-git-test")
	if err != nil {
		return nil, nil, errors.Wrap(err, errKey)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, nil, errors.Wrap(err, errKey)
	}
	return signer, pem.EncodeToMemory(blk), nil
}
