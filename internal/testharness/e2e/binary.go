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

package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// The provider's real binary, built once per test process: the kill and
// disk faults need a process of their own to kill or to confine.
var providerBinary = struct {
	once sync.Once
	path string
	err  error
}{}

// BuildProvider builds ./cmd/provider, once per test process, into a
// temporary directory of its own (the binary outlives any one test).
func BuildProvider(t testing.TB) string {
	t.Helper()
	providerBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "provider-git-bin-")
		if err != nil {
			providerBinary.err = err
			return
		}
		providerBinary.path = filepath.Join(dir, "provider")
		providerBinary.err = testenv.BuildProvider(providerBinary.path)
	})
	if providerBinary.err != nil {
		t.Fatal(providerBinary.err)
	}
	return providerBinary.path
}

// removeProviderBinary removes the binary's directory at the end of the
// test process (TestMain).
func removeProviderBinary() {
	if providerBinary.path != "" {
		_ = os.RemoveAll(filepath.Dir(providerBinary.path))
	}
}

// BinaryProvider is one run of the provider binary.
type BinaryProvider struct {
	Cmd *exec.Cmd
	Log string
	// Exited is closed once the process is gone.
	Exited chan struct{}
}

// KubeconfigFile writes a kubeconfig for the control plane.
func KubeconfigFile(t testing.TB) string {
	t.Helper()
	kc, err := CP.KubeconfigFor("provider-binary")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// StartBinary runs the provider binary with its cache in cacheDir; wrap,
// when given, prefixes the command (to confine it). Its log goes to a file
// that a failing test prints.
func StartBinary(t *testing.T, kubeconfig, cacheDir string, wrap ...string) *BinaryProvider {
	t.Helper()
	return RunBinary(t, kubeconfig, wrap, "--poll=2s", "--allow-insecure-remotes", "--cache-dir="+cacheDir, "--max-reconcile-rate=50",
		"--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0")
}

// RunBinary runs the provider binary on the control plane of kubeconfig
// with args, prefixed by wrap when given. Its log goes to a file that a
// failing test prints.
func RunBinary(t testing.TB, kubeconfig string, wrap []string, args ...string) *BinaryProvider {
	t.Helper()
	argv := append(append([]string(nil), wrap...), BuildProvider(t))
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	logf, err := os.CreateTemp(t.TempDir(), "provider-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = logf.Close() // the child holds its own descriptor
	p := &BinaryProvider{Cmd: cmd, Log: logf.Name(), Exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // killed: the exit status says nothing
		close(p.Exited)
	}()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			if b, err := os.ReadFile(p.Log); err == nil && len(b) > 0 {
				tail := b[max(0, len(b)-4096):]
				t.Logf("provider log (tail) %s:\n%s", p.Log, tail)
			}
		}
	})
	return p
}

// ListenAddrs waits until the process listens on n ports and returns them
// as loopback addresses, in no particular order: the ports of servers it
// was told to bind on port 0, where the kernel's pick is theirs from the
// bind on (a port found free here and closed before the process bound it
// can be taken in between). It fails the test after a minute.
func (p *BinaryProvider) ListenAddrs(t testing.TB, n int) []string {
	t.Helper()
	var addrs []string
	testenv.Eventually(t, time.Minute, func() error {
		ports, err := testenv.ListeningPorts(p.Cmd.Process.Pid)
		if err != nil {
			return err
		}
		if len(ports) != n {
			return fmt.Errorf("the provider listens on ports %v, want %d", ports, n)
		}
		addrs = nil
		for _, port := range ports {
			addrs = append(addrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		}
		return nil
	})
	return addrs
}

// Kill sends SIGKILL and waits until the process is gone.
func (p *BinaryProvider) Kill() {
	_ = p.Cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.Exited:
	case <-time.After(30 * time.Second):
	}
}
