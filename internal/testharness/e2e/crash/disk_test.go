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

package crash_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// A size-limited file system without root: the provider binary runs in a
// user and mount namespace of its own (unshare -Urm) with a small tmpfs
// mounted on its cache directory. The test reaches that tmpfs through
// /proc/<pid>/root, fills it to the last byte, and frees it again. Nothing
// in the provider is replaced: its real clone on a real file system runs
// out of space.
const (
	diskSize   = "8m"
	mountCache = `mount -t tmpfs -o size=` + diskSize + ` tmpfs "$0" && exec "$@"`
)

// tmpfsMagic is statfs(2)'s f_type of a tmpfs (linux/magic.h).
const tmpfsMagic = 0x01021994

// requireUserNamespaces skips (or, in CI, fails) when unprivileged user
// namespaces are off: without them a size-limited mount needs root.
func requireUserNamespaces(t *testing.T) {
	t.Helper()
	out, err := exec.Command("unshare", "-Urm", "sh", "-c", `d=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs "$d" && umount "$d" && rmdir "$d"`).CombinedOutput()
	if err == nil {
		return
	}
	msg := fmt.Sprintf("cannot mount a tmpfs in a user namespace (unshare -Urm): %v: %s", err, out)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// fill writes zeros to path until the file system holding it is full.
func fill(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	var n int64
	for {
		w, err := f.Write(buf)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// The last partial page too, so not even a ref fits.
	one := []byte{0}
	for {
		if _, err := f.Write(one); err != nil {
			break
		}
		n++
	}
	return n
}

// TestFaultCacheDiskFull: the cache directory's file system fills up under a
// running provider. Files written meanwhile report the disk's error, clearly
// and as progressing (their pushes may well land: only the clone's copy
// fails); once space returns every change is in Git exactly once, the next
// write works, and the clone passes git fsck.
func TestFaultCacheDiskFull(t *testing.T) {
	requireUserNamespaces(t)
	const n = 5
	kubeconfig := e2e.KubeconfigFile(t)
	f := e2e.NewFixture(t)
	e2e.SetWindow(t, f, e2e.Window)
	cache := t.TempDir()
	p := e2e.StartBinary(t, kubeconfig, cache, "unshare", "-Urm", "sh", "-c", mountCache, cache)
	// The provider's view of its cache: the tmpfs.
	view := filepath.Join(fmt.Sprintf("/proc/%d/root", p.Cmd.Process.Pid), cache)
	first := e2e.NewFile(f, "first", "apps/first.yaml", "first\n")
	e2e.Create(t, first)
	e2e.WaitFor(t, time.Minute, first, e2e.ReadyAndCurrent(t, first))
	clone := cloneDir(t, view)
	var fs syscall.Statfs_t
	if err := syscall.Statfs(view, &fs); err != nil {
		t.Fatal(err)
	}
	if fs.Type != tmpfsMagic {
		t.Fatalf("the provider's cache is on a file system of type %#x, not on its tmpfs", fs.Type)
	}

	ballast := filepath.Join(view, "ballast")
	filled := fill(t, ballast)
	posts0 := e2e.HTTPGit.Counts().ReceivePackPosts
	files := make([]*v1alpha1.File, n)
	for i := range files {
		files[i] = e2e.NewFile(f, fmt.Sprintf("f-%d", i), fmt.Sprintf("apps/f-%d.yaml", i), fmt.Sprintf("i: %d\n", i))
		e2e.Create(t, files[i])
	}
	for _, fl := range files {
		e2e.WaitFor(t, time.Minute, fl, func() error {
			c := fl.GetCondition(xpv2.TypeSynced)
			if !strings.Contains(c.Message, "no space left on device") {
				return fmt.Errorf("Synced is %s/%s: %q, want the disk's error", c.Status, c.Reason, c.Message)
			}
			if s := e2e.KstatusOf(t, fl); s.String() != "InProgress" {
				return fmt.Errorf("kstatus is %s, want InProgress: a full disk clears without changing the File", s)
			}
			return nil
		})
	}
	msg := files[0].GetCondition(xpv2.TypeSynced).Message
	requests := e2e.HTTPGit.Counts().ReceivePackPosts - posts0

	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	for _, fl := range files {
		e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	}
	converge := time.Since(freed)
	// The next write works.
	next := e2e.NewFile(f, "next", "apps/next.yaml", "next\n")
	e2e.Create(t, next)
	e2e.WaitFor(t, time.Minute, next, e2e.ReadyAndCurrent(t, next))

	// A write cut short by the full disk leaves nothing behind.
	if tmp, _ := filepath.Glob(filepath.Join(clone, "objects", "pack", "tmp_*")); len(tmp) > 0 {
		t.Errorf("partial files left in the clone after the disk filled up: %v", tmp)
	}
	// git resolves /proc/<pid>/root to the host's root: check a copy.
	copied := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command("cp", "-a", clone, copied).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s: %v\n%s", clone, err, out)
	}
	clone = copied
	out, err := testenv.Git("", nil, "--git-dir="+clone, "fsck", "--full", "--strict")
	if err != nil {
		t.Errorf("git fsck of the clone after the disk filled up: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(mustGit(t, clone, "rev-parse", "refs/heads/main")), f.Repo.Head(t, "main"); got != want {
		t.Errorf("the clone's main is %s, the server's %s", got, want)
	}
	counts := f.CommitCounts(t, "main")
	lost, dup := 0, 0
	for _, fl := range append([]*v1alpha1.File{first, next}, files...) {
		switch got := counts[string(fl.UID)]; {
		case got == 0:
			lost++
			t.Errorf("File %s is carried by no commit", fl.Name)
		case got > 1:
			dup++
			t.Errorf("File %s is carried by %d commits, want 1", fl.Name, got)
		}
	}
	t.Logf("a File while the disk was full: %s", msg)
	e2e.Figure(t, "cache-disk-full", requests, converge, lost, dup, fmt.Sprintf(" filled=%dKiB", filled>>10))
}

// cloneDir finds the one clone under a cache directory: the directory that
// holds objects/.
func cloneDir(t *testing.T, cache string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(cache, "*", "objects"))
	if err != nil || len(m) != 1 {
		t.Fatalf("want one clone under %s, found %v (%v)", cache, m, err)
	}
	return filepath.Dir(m[0])
}

func mustGit(t *testing.T, gitDir string, args ...string) string {
	t.Helper()
	out, err := testenv.Git("", nil, append([]string{"--git-dir=" + gitDir}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
