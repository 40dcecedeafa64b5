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
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// SSHDPath is where Debian's openssh-server installs sshd. The project's setup
// installs it (apt-get install openssh-server) for CI.
const SSHDPath = "/usr/sbin/sshd"

// sshdStartTimeout bounds how long we wait for sshd to accept connections; it
// is up in ~50 ms here, the rest is headroom for a loaded CI machine.
const sshdStartTimeout = 20 * time.Second

// RequireSSHD fails the test when sshd is missing in CI (CI is set), and skips
// it when sshd is missing on a developer machine.
func RequireSSHD(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat(SSHDPath); err == nil {
		return
	}
	msg := SSHDPath + " not found: install it with `apt-get install -y --no-install-recommends openssh-server`"
	if os.Getenv("CI") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// SSHServer is Debian's OpenSSH sshd run as a child process on a free
// loopback port, serving Git over SSH for every repository under Root.
type SSHServer struct {
	// Root is the directory whose bare repositories are served.
	Root string
	// User is the login user (the user running the tests).
	User string
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

	dir  string
	cmd  *exec.Cmd
	done chan struct{} // closed when sshd has exited
}

// StartSSHServer starts sshd serving root. It fails (or skips, see
// RequireSSHD) when sshd is not installed.
func StartSSHServer(tb testing.TB, root string) *SSHServer {
	tb.Helper()
	RequireSSHD(tb)
	u, err := user.Current()
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	hostKey, hostPEM := newKey(tb)
	clientKey, clientPEM := newKey(tb)
	wrongHost, _ := newKey(tb)
	_, otherPEM := newKey(tb)

	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			tb.Fatal(err)
		}
		return p
	}
	hostKeyFile := write("host_ed25519", hostPEM)
	authKeys := write("authorized_keys", ssh.MarshalAuthorizedKey(clientKey.PublicKey()))
	// sshd refuses to start without its privilege separation directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		tb.Fatalf("cannot create /run/sshd: %v", err)
	}

	s := &SSHServer{Root: root, User: u.Username, ClientKeyPEM: clientPEM, OtherKeyPEM: otherPEM, dir: dir}
	// The port is chosen by closing a listener and handing its port to sshd, so
	// another process can take it in between: retry a few times.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			tb.Fatal(err)
		}
		cfg := write("sshd_config", []byte(strings.Join([]string{
			"Port " + strconv.Itoa(port),
			"ListenAddress 127.0.0.1",
			"HostKey " + hostKeyFile,
			"AuthorizedKeysFile " + authKeys,
			"PubkeyAuthentication yes",
			"PasswordAuthentication no",
			"KbdInteractiveAuthentication no",
			"UsePAM no",
			"StrictModes no",
			// Tests run as root in containers; key-only root login is the
			// default, stated so a changed distro default cannot break us.
			"PermitRootLogin prohibit-password",
			"AllowUsers " + u.Username,
			"PidFile " + filepath.Join(dir, "sshd.pid"),
			"AcceptEnv GIT_PROTOCOL",
			"LogLevel VERBOSE",
		}, "\n")+"\n"))
		logFile := filepath.Join(dir, "sshd.log")
		// -D keeps sshd in the foreground so it dies with the handle we hold;
		// sshd re-execs itself and so needs an absolute path.
		cmd := exec.Command(SSHDPath, "-D", "-f", cfg, "-E", logFile) //nolint:gosec // fixed binary
		if err := cmd.Start(); err != nil {
			tb.Fatalf("cannot start sshd: %v", err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if err := waitSSH(addr, done); err != nil {
			_ = cmd.Process.Kill()
			<-done
			log, _ := os.ReadFile(logFile)
			lastErr = fmt.Errorf("%w; sshd log:\n%s", err, log)
			continue
		}
		s.cmd, s.done, s.Addr = cmd, done, addr
		known := fmt.Sprintf("[127.0.0.1]:%d", port)
		s.KnownHosts = []byte(known + " " + string(ssh.MarshalAuthorizedKey(hostKey.PublicKey())))
		s.WrongKnownHosts = []byte(known + " " + string(ssh.MarshalAuthorizedKey(wrongHost.PublicKey())))
		tb.Cleanup(s.Close)
		return s
	}
	tb.Fatalf("sshd did not start: %v", lastErr)
	return nil
}

// RepoURL returns the ssh:// clone URL of the repository at name below Root.
func (s *SSHServer) RepoURL(name string) string {
	return "ssh://" + s.User + "@" + s.Addr + filepath.ToSlash(filepath.Join(s.Root, name))
}

// GitSSHCommand writes key and knownHosts to files and returns a
// GIT_SSH_COMMAND value that makes the git CLI use exactly them, with strict
// host key checking.
func (s *SSHServer) GitSSHCommand(tb testing.TB, key, knownHosts []byte) string {
	tb.Helper()
	d := tb.TempDir()
	k := filepath.Join(d, "id")
	kh := filepath.Join(d, "known_hosts")
	if err := os.WriteFile(k, key, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(kh, knownHosts, 0o600); err != nil {
		tb.Fatal(err)
	}
	return fmt.Sprintf("ssh -i %s -o IdentitiesOnly=yes -o UserKnownHostsFile=%s -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -o BatchMode=yes", k, kh)
}

// Log returns sshd's log, for failure messages.
func (s *SSHServer) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "sshd.log"))
	return string(b)
}

// Close stops sshd. It is safe to call more than once.
func (s *SSHServer) Close() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

func newKey(tb testing.TB) (ssh.Signer, []byte) {
	tb.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	blk, err := ssh.MarshalPrivateKey(priv, "provider-git-test")
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	return signer, pem.EncodeToMemory(blk)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close() //nolint:errcheck // only used for its port
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitSSH waits until addr answers with an SSH banner, or sshd exits.
func waitSSH(addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(sshdStartTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("sshd exited before accepting connections")
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			buf := make([]byte, 4)
			n, _ := c.Read(buf)
			_ = c.Close()
			if bytes.Equal(buf[:n], []byte("SSH-")) {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("sshd not answering on %s after %s", addr, sshdStartTimeout)
}
