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
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// gitTimeout bounds every git CLI call made here, so a wedged server fails
// the caller instead of hanging it until the test binary's timeout.
const gitTimeout = 2 * time.Minute

// The identity of commits made by BareRepo.Commit: a writer that is not the
// provider.
const (
	writerName  = "External Writer"
	writerEmail = "external@example.com"
)

const errFmtGit = "git %s: %s"

// gitEnv isolates the git CLI from the machine's and user's configuration so
// that it behaves the same on a laptop and in CI.
func gitEnv() []string {
	return append(append(os.Environ(), noHousekeeping()...),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME="+writerName,
		"GIT_AUTHOR_EMAIL="+writerEmail,
		"GIT_COMMITTER_NAME="+writerName,
		"GIT_COMMITTER_EMAIL="+writerEmail,
	)
}

// noHousekeeping is configuration, in the environment so every git process a
// test starts inherits it (hooks, http-backend's upload-pack, receive-pack),
// that keeps git from starting housekeeping after a command: after each fetch,
// commit or push git would start `git maintenance run --auto` or `git gc
// --auto`, about 1,100 processes in internal/git's tests alone, a third of the
// CPU of its git processes, for repositories that live a few seconds.
func noHousekeeping() []string {
	return []string{
		"GIT_CONFIG_COUNT=3",
		"GIT_CONFIG_KEY_0=maintenance.auto", "GIT_CONFIG_VALUE_0=false",
		"GIT_CONFIG_KEY_1=gc.auto", "GIT_CONFIG_VALUE_1=0",
		"GIT_CONFIG_KEY_2=receive.autoGC", "GIT_CONFIG_VALUE_2=false",
	}
}

// Git runs the git CLI in dir with an isolated configuration and returns its
// standard output. extraEnv is appended to the environment. A failure carries
// git's standard error.
func Git(dir string, extraEnv []string, args ...string) (string, error) {
	return gitIn(dir, nil, extraEnv, args...)
}

// GitInput is Git with stdin as git's standard input (hash-object --stdin,
// mktree).
func GitInput(dir string, stdin io.Reader, args ...string) (string, error) {
	return gitIn(dir, stdin, nil, args...)
}

// gitIn is Git with stdin as git's standard input.
func gitIn(dir string, stdin io.Reader, extraEnv []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), extraEnv...)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), errors.Wrapf(err, errFmtGit, strings.Join(args, " "), strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// exitCode is the exit status of the git process behind err, or -1 when git
// did not run to an exit (not found, killed by the timeout).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
