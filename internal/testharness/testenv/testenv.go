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

// Package testenv is the test bed every integration test imports: thin
// wrappers over internal/localenv (a real kube-apiserver + etcd, bare
// repositories, Git servers on loopback) that fail the test on error and stop
// what they started when it ends.
package testenv

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/localenv"
)

// Integration skips a test under -short (`make unit`, the edit-and-test loop):
// it needs a control plane, a Git server or a program built into ./bin.
// Every harness here that starts one calls it, so a test needs no check of
// its own.
func Integration(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("needs a control plane, a Git server or ./bin: not run by -short (make unit)")
	}
}

// ControlPlane is a running kube-apiserver + etcd.
type ControlPlane = localenv.ControlPlane

// ControlPlaneOptions configures StartControlPlane.
type ControlPlaneOptions = localenv.ControlPlaneOptions

// StartControlPlane starts kube-apiserver and etcd from ./bin (or
// KUBEBUILDER_ASSETS) and installs CRDs. It returns an error rather than
// failing a test because TestMain, which has no test, calls it; the caller
// must Stop it.
func StartControlPlane(o ControlPlaneOptions) (*ControlPlane, error) {
	return localenv.StartControlPlane(o)
}

// Git runs the git CLI in dir with an isolated configuration and returns its
// standard output. extraEnv is appended to the environment.
func Git(dir string, extraEnv []string, args ...string) (string, error) {
	return localenv.Git(dir, extraEnv, args...)
}

// AuthURL returns url with username and password embedded, for the git CLI.
func AuthURL(url, username, password string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return url
	}
	return scheme + "://" + username + ":" + password + "@" + rest
}

// HTTPServer is a smart-HTTP Git server on loopback with basic auth.
type HTTPServer = localenv.HTTPServer

// Push is one receive-pack POST an HTTPServer answered (HTTPServer.Pushes).
type Push = localenv.Push

// AdvertGate holds the pushes to one repository at their first request,
// the receive-pack advertisement, until released
// (HTTPServer.HoldAdvertisements); PushGate holds them after the pack.
type AdvertGate = localenv.AdvertGate

// HeldAdvert is one push an AdvertGate holds.
type HeldAdvert = localenv.HeldAdvert

// Overlaps returns the pairs of pushes to one repository by two different
// User-Agents at overlapping times.
func Overlaps(pushes []Push) [][2]Push { return localenv.Overlaps(pushes) }

// NewHTTPServer serves the bare repositories under root on a free loopback
// port until the test ends. Requests must carry basic auth with username and
// password (a token works the same way).
func NewHTTPServer(tb testing.TB, root, username, password string) *HTTPServer {
	tb.Helper()
	Integration(tb)
	s, err := localenv.StartHTTPServer(root, username, password)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// StartHTTPServer is NewHTTPServer for TestMain, which has no test to fail
// or clean up after: it returns an error, and the caller must Close the server.
func StartHTTPServer(root, username, password string) (*HTTPServer, error) {
	return localenv.StartHTTPServer(root, username, password)
}

// SSHServer is OpenSSH's sshd serving Git over SSH on loopback.
type SSHServer = localenv.SSHServer

// RequireSSHD fails the test when sshd is missing in CI (CI is set), and skips
// it when sshd is missing on a developer machine.
func RequireSSHD(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat(localenv.SSHDPath); err == nil {
		return
	}
	msg := localenv.SSHDPath + " not found: install it with `apt-get install -y --no-install-recommends openssh-server`"
	if os.Getenv("CI") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// StartSSHServer serves the bare repositories under root over SSH on a free
// loopback port until the test ends. It fails (or skips, see RequireSSHD)
// when sshd is not installed.
func StartSSHServer(tb testing.TB, root string) *SSHServer {
	tb.Helper()
	Integration(tb)
	RequireSSHD(tb)
	s, err := localenv.StartSSHServer(root)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// NewHTTPSServer is NewHTTPServer over TLS with a certificate from a private
// CA; it returns the server and that CA's certificate in PEM.
func NewHTTPSServer(tb testing.TB, root, username, password string) (*HTTPServer, []byte) {
	tb.Helper()
	Integration(tb)
	s, ca, err := localenv.StartHTTPSServer(root, username, password)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s, ca
}

// ListeningPorts returns the IPv4 TCP ports process pid listens on, for a
// process told to bind port 0 (localenv.ListeningPorts).
func ListeningPorts(pid int) ([]int, error) { return localenv.ListeningPorts(pid) }

// Eventually calls check every 100ms until it returns nil, and fails the
// test with its last error after timeout. Every wait of the integration
// tests is one of these: on a condition, never on time alone.
func Eventually(tb testing.TB, timeout time.Duration, check func() error) {
	tb.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return
		}
		select {
		case <-deadline.C:
			tb.Fatalf("gave up after %s: %v", timeout, err)
		case <-tick.C:
		}
	}
}
