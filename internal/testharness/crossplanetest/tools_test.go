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

package crossplanetest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/localenv"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// crossplaneVersion is the core the Makefile builds (cluster/tools/
// crossplane-core/go.mod); validate names its CRDs by this image tag.
const crossplaneVersion = "v2.4.0"

// tools are Crossplane's programs and files, as the Makefile leaves them.
type tools struct {
	// root is the module root.
	root string
	// cli is the Crossplane CLI (xpkg, composition render, resource validate).
	cli string
	// core is Crossplane core (core init/start, rbac start, internal render).
	core string
	// function is function-patch-and-transform.
	function string
	// coreCRDs is the folder of Crossplane's own CRDs, from core's module.
	coreCRDs string
	// garbageCollector is Kubernetes' garbage collector
	// (cluster/tools/garbage-collector): it deletes what a deleted XR
	// composed.
	garbageCollector string
}

// requireTools finds the tools under ./bin. Without them the test fails in
// CI (CI is set), where `make test` builds them first, and is skipped on a
// developer machine that ran `go test` alone.
func requireTools(t testing.TB) tools {
	t.Helper()
	testenv.Integration(t)
	root, err := localenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin")
	tl := tools{
		root:             root,
		cli:              filepath.Join(bin, "crossplane"),
		core:             filepath.Join(bin, "crossplane-core"),
		function:         filepath.Join(bin, "function-patch-and-transform"),
		coreCRDs:         filepath.Join(bin, "crossplane-crds"),
		garbageCollector: filepath.Join(bin, "garbage-collector"),
	}
	for _, p := range []string{tl.cli, tl.core, tl.function, tl.function + "-package", tl.coreCRDs} {
		requireFile(t, p)
	}
	return tl
}

// requireFile fails the test in CI, or skips it elsewhere, when a file the
// Makefile builds is missing.
func requireFile(t testing.TB, p string) {
	t.Helper()
	if _, err := os.Stat(p); err != nil {
		missing(t, p+" not found: run 'make crossplane-tools' (make test does)")
	}
}

// requireXpkgs finds the package `make test` builds for this machine's
// platform (make xpkg builds the others too; a release's cost, not a test's).
func requireXpkgs(t testing.TB, root string) map[string]string {
	t.Helper()
	p := "linux/" + runtime.GOARCH
	f := filepath.Join(root, "_output", "xpkg", "provider-git-linux_"+runtime.GOARCH+".xpkg")
	if _, err := os.Stat(f); err != nil {
		missing(t, f+" not found: run 'make test-xpkg' (make test does)")
	}
	return map[string]string{p: f}
}

func missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// process is a program the test started; it is stopped when the test ends.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// start runs bin with args and env (added to the test's environment), its
// output in a log file that is printed when the test fails.
func start(t testing.TB, name, bin string, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, args...) // Stopped by signal in cleanup, not by a context.
	cmd.Env = append(os.Environ(), env...)
	return startCmd(t, name, cmd)
}

// startCmd starts cmd, its output in a log file that is printed when the test
// fails, and stops it when the test ends.
func startCmd(t testing.TB, name string, cmd *exec.Cmd) *process {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logFile, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("--- %s log (last 60 lines) ---\n%s", name, p.tail(60))
		}
	})
	return p
}

// stop asks the process to exit and waits for it; it is killed after 20s.
func (p *process) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// exited reports an error when the process is no longer running.
func (p *process) exited() error {
	select {
	case <-p.done:
		if p.err == nil {
			return fmt.Errorf("%s exited\n%s", p.name, p.tail(30))
		}
		return fmt.Errorf("%s exited: %w\n%s", p.name, p.err, p.tail(30))
	default:
		return nil
	}
}

// tail returns the last n lines of the process' log.
func (p *process) tail(n int) string {
	b, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// run runs bin to completion and returns its standard output, standard error
// and exit error.
func run(ctx context.Context, bin string, env []string, args ...string) (string, string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// freePort returns a loopback port nothing listens on right now, for
// programs that take an address rather than a listener.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatal("not a TCP address")
	}
	return addr.Port
}

// listening is a check for eventually: something accepts connections at addr.
func listening(addr string) func() error {
	return func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	}
}

// exitCode returns the exit status of a command's error, 0 for nil.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
