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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// PushGate holds the pushes a bare repository receives over HTTP (the
// provider's) in its pre-receive hook, each until the test releases it, so
// a test acts at an exact point: after the client built its commit on the
// head it read, before the server moves the branch. What the test pushes
// then, over the file system as a person would (BareRepo.Commit), is not
// held and lands first; the held push then fails to update the branch, as
// when a person's push wins a race, and the client must rebase.
type PushGate struct {
	dir string
}

// pushGateHook numbers each HTTP push by the directory it makes (mkdir is
// atomic), writes the paths it changes, and waits for the test's release
// (or for the gate to open). A push over the file system has no
// REMOTE_USER and passes.
const pushGateHook = `[ -n "$REMOTE_USER" ] || exit 0
D=%q
[ -f "$D/open" ] && exit 0
n=1
while ! mkdir "$D/push-$n" 2>/dev/null; do n=$((n+1)); done
while read old new ref; do
  case "$old" in
  0000000000000000000000000000000000000000) git ls-tree -r --name-only "$new" ;;
  *) git diff --name-only "$old" "$new" ;;
  esac
done > "$D/push-$n/paths.tmp"
mv "$D/push-$n/paths.tmp" "$D/push-$n/paths"
# The test's release is a file: wait for it.
while [ ! -f "$D/push-$n/release" ] && [ ! -f "$D/open" ]; do sleep 0.02; done
exit 0`

// NewPushGate installs the gate as r's pre-receive hook. It opens when the
// test ends, so no push stays held.
func NewPushGate(tb testing.TB, r *BareRepo) *PushGate {
	tb.Helper()
	g := &PushGate{dir: tb.TempDir()}
	r.SetHook(tb, "pre-receive", fmt.Sprintf(pushGateHook, g.dir))
	tb.Cleanup(func() { _ = os.WriteFile(filepath.Join(g.dir, "open"), nil, 0o600) })
	return g
}

// Held waits until the n-th push (from 1) is held, and returns the paths it
// changes. It fails the test after timeout.
func (g *PushGate) Held(tb testing.TB, n int, timeout time.Duration) []string {
	tb.Helper()
	p := filepath.Join(g.dir, fmt.Sprintf("push-%d", n), "paths")
	deadline := time.Now().Add(timeout)
	for {
		b, err := os.ReadFile(p)
		if err == nil {
			return strings.Fields(string(b))
		}
		if time.Now().After(deadline) {
			tb.Fatalf("push %d was not held within %s", n, timeout)
		}
		time.Sleep(20 * time.Millisecond) // polling interval of a wait on a file the hook writes
	}
}

// Release lets the n-th push go on.
func (g *PushGate) Release(tb testing.TB, n int) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(g.dir, fmt.Sprintf("push-%d", n), "release"), nil, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// Open lets every push held now or later go on.
func (g *PushGate) Open(tb testing.TB) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(g.dir, "open"), nil, 0o600); err != nil {
		tb.Fatal(err)
	}
}
