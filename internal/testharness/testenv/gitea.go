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
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/localenv"
)

// Gitea's admin, as StartGitea creates it. Not "admin": Forgejo reserves
// that name ("name is reserved").
const (
	GiteaAdmin         = "forge-admin"
	GiteaAdminPassword = "Passw0rd-test"
)

const (
	// giteaStartTimeout bounds migrate, the admin's creation and the wait
	// for the API: about a second each on an idle machine, far more on a
	// loaded one.
	giteaStartTimeout = 2 * time.Minute
)

// Gitea is a real Gitea (built into ./bin by `make forge-tools`) serving the
// API and Git over HTTP on loopback, with an admin and an API token of all
// scopes. It stops when the test ends.
type Gitea struct {
	// URL is the web root, e.g. http://127.0.0.1:40123/.
	URL string
	// APIURL is URL + "api/v1/", as forge.Config wants it.
	APIURL string
	// Token is the admin's API token of all scopes. Git over HTTP takes it
	// as the password too.
	Token string
	// Started is how long the start took: ini, migrate, admin, web up.
	Started time.Duration
	// Binary is the program's name in ./bin: gitea, or forgejo (GiteaBinary).
	Binary string

	bin, ini, dir string
	done          chan struct{}
	// phases is how long each phase of the start took, for its log line.
	phases string
}

// A GiteaOption changes the app.ini StartGitea writes.
type GiteaOption func(*giteaConfig)

type giteaConfig struct {
	pageSize int
	binary   string
}

// GiteaPageSize makes n the most items per page the API answers (Gitea's
// MAX_RESPONSE_ITEMS, 50 by default), so a test can page with few items.
func GiteaPageSize(n int) GiteaOption {
	return func(c *giteaConfig) { c.pageSize = n }
}

// StartGitea starts a fresh Gitea in a temporary directory and waits until
// its API answers. It is skipped under -short; without its binary in ./bin
// it fails where that binary is required (requireGiteaBinary) and is
// skipped elsewhere.
func StartGitea(tb testing.TB, opts ...GiteaOption) *Gitea {
	tb.Helper()
	cfg := giteaConfig{binary: "gitea"}
	for _, o := range opts {
		o(&cfg)
	}
	bin := giteaBin(tb, cfg.binary)
	g, stop, err := startGitea(bin, tb.TempDir(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
	tb.Log(g.startLine())
	return g
}

// giteaBin is ./bin/<binary>, or skips tb without it (fails it where that
// binary is required); it skips under -short.
func giteaBin(tb testing.TB, binary string) string {
	tb.Helper()
	Integration(tb)
	root, err := localenv.ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	bin := filepath.Join(root, "bin", binary)
	if _, err := os.Stat(bin); err != nil {
		if requireGiteaBinary(binary) {
			tb.Fatal(bin + giteaMissingFor(binary))
		}
		tb.Skip(bin + giteaMissingFor(binary))
	}
	return bin
}

// startGitea starts bin in dir and waits until its API answers; stop kills
// it and waits for it to exit.
func startGitea(bin, dir string, cfg giteaConfig) (*Gitea, func(), error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), giteaStartTimeout)
	defer cancel()

	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	g := &Gitea{
		URL:    fmt.Sprintf("http://127.0.0.1:%d/", port),
		Binary: cfg.binary, bin: bin, ini: filepath.Join(dir, "app.ini"), dir: dir,
		done: make(chan struct{}),
	}
	g.APIURL = g.URL + "api/v1/"
	runUser := "root"
	if u, err := user.Current(); err == nil {
		runUser = u.Username
	}
	// Gitea writes INTERNAL_TOKEN and JWT_SECRET into app.ini: it must stay
	// writable, and in place while repositories exist (their hooks name it).
	if err := os.WriteFile(g.ini, []byte(giteaINI(dir, runUser, port, cfg)), 0o600); err != nil {
		return nil, nil, err
	}
	if _, err := g.cli(ctx, "migrate"); err != nil {
		return nil, nil, err
	}
	migrated := time.Now()
	if g.Token, err = g.createAdmin(ctx); err != nil {
		return nil, nil, err
	}

	admin := time.Now()
	logf, err := os.Create(filepath.Join(dir, "web.log"))
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(bin, "--config", g.ini, "web")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, giteaEnv(dir), logf, logf
	// A group of its own: Gitea runs git for merges and patch checks in
	// its data folder, and a git left running after Gitea was killed
	// wrote there while the test removed it ("directory not empty").
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, nil, err
	}
	go func() {
		_ = cmd.Wait()
		_ = logf.Close()
		close(g.done)
	}()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-g.done
		waitGroupGone(cmd.Process.Pid)
	}
	if err := g.waitAPI(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("%w\n%s", err, g.Log())
	}
	g.Started = time.Since(start)
	g.phases = fmt.Sprintf("migrate %s, admin and token %s, web until the API answers %s",
		migrated.Sub(start).Round(time.Millisecond), admin.Sub(migrated).Round(time.Millisecond), time.Since(admin).Round(time.Millisecond))
	return g, stop, nil
}

// startLine says how long the start took, and in which phase.
func (g *Gitea) startLine() string {
	return fmt.Sprintf("%s %s up in %s (%s)", g.Binary, g.URL, g.Started.Round(time.Millisecond), g.phases)
}

// Log returns what `gitea web` printed so far, for a failing test.
func (g *Gitea) Log() string {
	b, _ := os.ReadFile(filepath.Join(g.dir, "web.log"))
	return string(b)
}

// cli runs one of Gitea's commands against this instance's config and
// returns what it printed on stdout. Gitea writes its log lines (the
// warning about running as root is one) to stderr from a logger goroutine
// of its own, so they can land before or after what the command prints:
// stderr is kept for the error only.
func (g *Gitea) cli(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, g.bin, append([]string{"--config", g.ini}, args...)...)
	cmd.Dir, cmd.Env = g.dir, giteaEnv(g.dir)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("gitea %s: %w\n%s%s", strings.Join(args[:1], " "), err, out.String(), stderr.String())
	}
	return out.String(), nil
}

// waitAPI polls /api/v1/version until it answers 200, the process exits or
// ctx ends.
func (g *Gitea) waitAPI(ctx context.Context) error {
	c := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, g.APIURL+"version", nil)
		if resp, err := c.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-g.done:
			return fmt.Errorf("gitea web exited before its API answered")
		case <-ctx.Done():
			return fmt.Errorf("gitea web: API not up after %s", giteaStartTimeout)
		case <-tick.C:
		}
	}
}

// giteaEnv isolates Gitea from the user's git configuration and home.
func giteaEnv(dir string) []string {
	return append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GITEA_WORK_DIR="+filepath.Join(dir, "work"))
}

// freePort returns a loopback port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	_, p, _ := net.SplitHostPort(l.Addr().String())
	return strconv.Atoi(p)
}

// giteaINI is a headless configuration: sqlite, no SSH, LFS, mail, update
// check or registration; Git over HTTP and the API on loopback only.
//
// A push's webhook passes two of Gitea's queues: push_update (the
// post-receive hook's report) and webhook_sender (the delivery). Gitea's
// default queue, level (LevelDB on disk), polls for an item with a backoff
// of 50 ms doubling to 2 s while it finds none (modules/queue/backoff.go,
// base_levelqueue_common.go), so a push on an idle Gitea waited up to 2 s
// in each. A channel queue hands an item over at once (after the 100 ms
// batch debounce every queue has, workergroup.go): the events tests and
// benchmarks then measure the provider, not Gitea's idle backoff.
// docs/guides/forge-events.md says what an operator loses with it.
func giteaINI(dir, runUser string, port int, cfg giteaConfig) string {
	root := ""
	if os.Geteuid() == 0 {
		// Gitea refuses root otherwise (CI containers run as root).
		root = "I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true\n"
	}
	api := ""
	if cfg.pageSize > 0 {
		api = fmt.Sprintf("[api]\nMAX_RESPONSE_ITEMS = %d\nDEFAULT_PAGING_NUM = %d\n", cfg.pageSize, cfg.pageSize)
	}
	return fmt.Sprintf(`APP_NAME = provider-git test forge
RUN_USER = %[2]s
%[4]sWORK_PATH = %[1]s/work
[server]
HTTP_ADDR = 127.0.0.1
HTTP_PORT = %[3]d
DOMAIN = 127.0.0.1
ROOT_URL = http://127.0.0.1:%[3]d/
DISABLE_SSH = true
START_SSH_SERVER = false
LFS_START_SERVER = false
OFFLINE_MODE = true
[database]
DB_TYPE = sqlite3
PATH = %[1]s/work/data/gitea.db
SQLITE_JOURNAL_MODE = WAL
[repository]
DEFAULT_BRANCH = main
[security]
INSTALL_LOCK = true
SECRET_KEY = test-only
[service]
DISABLE_REGISTRATION = true
[mailer]
ENABLED = false
[indexer]
ISSUE_INDEXER_TYPE = db
[cron.update_checker]
ENABLED = false
[webhook]
ALLOWED_HOST_LIST = loopback
DELIVER_TIMEOUT = 10
[queue.push_update]
TYPE = channel
[queue.webhook_sender]
TYPE = channel
[log]
MODE = console
LEVEL = Warn
%[5]s`, dir, runUser, port, root, api)
}

// waitGroupGone waits, for at most a minute, until no live process is left
// in process group pgid (a zombie writes nothing).
func waitGroupGone(pgid int) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) && groupAlive(pgid) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		time.Sleep(10 * time.Millisecond) // Polling /proc: the kernel tells no one when a killed process is gone.
	}
}

// groupAlive reports whether a process of group pgid that is not a zombie
// is listed in /proc.
func groupAlive(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so the
		// fields are read after its closing parenthesis.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		fs := strings.Fields(string(b[i+1:]))
		if len(fs) > 2 && fs[2] == strconv.Itoa(pgid) && fs[0] != "Z" {
			return true
		}
	}
	return false
}
