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
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func putChange(path, content string) Change {
	return Change{Puts: map[string]File{path: {Content: []byte(content)}}, Message: "set " + path,
		Resource: Resource{Kind: "File", Namespace: "ns", Name: path, UID: "uid-" + path}}
}

// TestEnqueueDedupsAndReplaces: a change queued again with the same content
// is not queued twice, a newer content replaces the queued one, and only the
// change that is pushed calls back, once, with its result kept for
// TakeResult.
func TestEnqueueDedupsAndReplaces(t *testing.T) {
	s := httpServer(t)
	// The window stays open while the test queues (microseconds).
	r, c := newRepo(t, s.remote, WithCommitWindow(2*time.Second))
	before := s.repo.Head(t, "main")
	done := make(chan string, 4)
	cb := func(what string) func(Result) { return func(Result) { done <- what } }

	r.Enqueue("main", "File/ns/x", putChange("x", "1"), cb("first"))
	r.Enqueue("main", "File/ns/x", putChange("x", "1"), cb("duplicate"))
	if got := c.Pending(); got != 1 {
		t.Fatalf("Pending() = %d after the same change twice, want 1", got)
	}
	if !r.Queued("main", "File/ns/x", putChange("x", "1")) || r.Queued("main", "File/ns/x", putChange("x", "2")) {
		t.Errorf("Queued must find the queued content and only it")
	}
	r.Enqueue("main", "File/ns/x", putChange("x", "2"), cb("newer"))
	r.Enqueue("main", "File/ns/y", putChange("y", "1"), cb("other"))
	if got := c.Pending(); got != 2 {
		t.Fatalf("Pending() = %d, want 2 (x replaced, y)", got)
	}
	r.Enqueue("main", "File/ns/z", putChange("z", "1"), cb("z"))

	got := map[string]bool{}
	for range 3 {
		got[<-done] = true
	}
	if diff := cmp.Diff(map[string]bool{"newer": true, "other": true, "z": true}, got); diff != "" {
		t.Errorf("callbacks: -want, +got:\n%s", diff)
	}
	if c.Pending() != 0 {
		t.Errorf("Pending() = %d after every callback, want 0", c.Pending())
	}
	res, ok := r.TakeResult("File/ns/x")
	if !ok || res.Err != nil || res.Commit == "" {
		t.Fatalf("TakeResult(x) = %+v, %t; want the commit", res, ok)
	}
	if _, ok := r.TakeResult("File/ns/x"); ok {
		t.Errorf("a result is taken once")
	}
	// A result nobody will take (its resource is gone) is dropped.
	c.DropResult("File/ns/y")
	if _, ok := r.TakeResult("File/ns/y"); ok {
		t.Errorf("a dropped result must not be taken")
	}
	if _, ok := r.TakeResult("File/ns/z"); !ok {
		t.Errorf("dropping one result must keep the others")
	}
	if got := s.repo.Files(t, res.Commit)["x"]; got != "2" {
		t.Errorf("x = %q at %s, want the newer content 2", got, res.Commit[:7])
	}
	n := 0
	for _, e := range s.repo.Log(t, "main") {
		if e.SHA == before {
			break
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d commits for three changes queued in one window, want 1", n)
	}
	select {
	case extra := <-done:
		t.Errorf("unexpected callback %q", extra)
	default:
	}
}

// TestEnqueueFailureIsKept: a change that cannot land calls back and keeps
// its error for the resource's next Observe.
func TestEnqueueFailureIsKept(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	done := make(chan Result, 1)
	// apps is a directory: a File cannot own it.
	r.Enqueue("main", "File/ns/apps", putChange("apps", "x"), func(res Result) { done <- res })
	got := <-done
	if KindOf(got.Err) != KindPathConflict {
		t.Fatalf("callback got %+v, want a path conflict", got)
	}
	kept, ok := r.TakeResult("File/ns/apps")
	if !ok || KindOf(kept.Err) != KindPathConflict {
		t.Errorf("TakeResult = %+v, %t; want the path conflict", kept, ok)
	}
}

// TestPollReportsForeignMovesOnly: one ls-remote per Poll; a commit someone
// else pushed is reported with exactly the paths it changed, our own pushes
// are not, and nothing is fetched while nothing moved.
func TestPollReportsForeignMovesOnly(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	poll := func() []Move {
		t.Helper()
		m, err := r.Poll(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := poll(); len(m) != 0 {
		t.Errorf("first Poll with nothing moved = %+v, want none", m)
	}

	old := s.repo.Head(t, "main")
	if _, err := s.repo.Commit("main", testenv.CommitSpec{Message: "hand edit", Files: map[string]string{"apps/a.yaml": "a: 2\n", "new.txt": "n"}}); err != nil {
		t.Fatal(err)
	}
	want := []Move{{Branch: "main", Old: old, New: s.repo.Head(t, "main"), Paths: []string{"apps/a.yaml", "new.txt"}}}
	if diff := cmp.Diff(want, poll(), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("Poll after a foreign commit: -want, +got:\n%s", diff)
	}
	if b, err := r.ReadFile(ctx(t), s.repo.Head(t, "main"), "apps/a.yaml"); err != nil || string(b.Content) != "a: 2\n" {
		t.Errorf("the clone must hold the moved head after Poll: %q, %v", b.Content, err)
	}

	done := make(chan Result, 1)
	r.Enqueue("main", "File/ns/b", putChange("apps/b.yaml", "b: 9\n"), func(res Result) { done <- res })
	if res := <-done; res.Err != nil {
		t.Fatal(res.Err)
	}
	s.http.ResetCounts()
	if m := poll(); len(m) != 0 {
		t.Errorf("Poll after our own push = %+v, want none", m)
	}
	if c := s.http.Counts(); c.UploadPackAdverts != 1 {
		t.Errorf("a Poll with nothing moved cost %d advertisements, want 1 (no fetch)", c.UploadPackAdverts)
	}
	// A Poll with nothing moved counts as a fresh fetch.
	s.http.ResetCounts()
	if err := r.Refresh(ctx(t), time.Minute, "main"); err != nil {
		t.Fatal(err)
	}
	if c := s.http.Counts(); c.UploadPackAdverts != 0 {
		t.Errorf("Refresh right after a Poll fetched again: %+v", c)
	}
}

// TestInFlight: a change is in flight from when its batch is taken until
// its result is in; queued before that, and not after.
func TestInFlight(t *testing.T) {
	s := httpServer(t)
	// The server holds the push until the test lets it go.
	release := filepath.Join(t.TempDir(), "release")
	s.repo.SetHook(t, "pre-receive", fmt.Sprintf("while [ ! -f %q ]; do sleep 0.05; done", release))
	r, _ := newRepo(t, s.remote, WithCommitWindow(time.Hour))
	if err := r.Refresh(ctx(t), time.Minute, "main"); err != nil {
		t.Fatal(err)
	}
	done := make(chan Result, 1)
	r.Enqueue("main", "Mirror/ns/m", putChange("live/x", "1"), func(res Result) { done <- res })
	if r.InFlight("main", "Mirror/ns/m") {
		t.Errorf("a queued change is not in flight: a newer one may still replace it")
	}
	// A window of its own closes the batch at once.
	now := time.Duration(0)
	c := putChange("live/y", "1")
	c.Window = &now
	r.Enqueue("main", "Mirror/ns/m", c, func(res Result) { done <- res })
	deadline := time.Now().Add(30 * time.Second)
	for !r.InFlight("main", "Mirror/ns/m") {
		if time.Now().After(deadline) {
			t.Fatal("the change was never taken into a push")
		}
		time.Sleep(10 * time.Millisecond) // polling interval of a wait on a condition
	}
	if r.InFlight("main", "Mirror/ns/other") || r.InFlight("dev", "Mirror/ns/m") {
		t.Errorf("InFlight must name the key and branch only")
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.Err != nil {
		t.Fatalf("push: %v", res.Err)
	}
	if r.InFlight("main", "Mirror/ns/m") {
		t.Errorf("a change whose result is in is no longer in flight")
	}
}

// TestFinishedKeepsResultBeforeLeavingInFlight: a change's result is kept
// before it leaves the in-flight batch, so a caller asking InFlight and
// then TakeResult never finds it neither under way nor finished (a Mirror
// would plan on the head that shows the push without its result). The test
// holds the writer's lock, which finished needs to take the change out of
// the batch: the result must be kept meanwhile, the change still in flight.
func TestFinishedKeepsResultBeforeLeavingInFlight(t *testing.T) {
	s := httpServer(t)
	r, c := newRepo(t, s.remote)
	const key = "Mirror/ns/m"
	done := make(chan Result, 1)
	w := r.writerFor("main")
	o := &op{kind: opChange, change: &Change{}, key: key, callback: func(res Result) { done <- res }, w: w}
	// As Enqueue and the batch would have left it: begun, pending, in flight.
	if err := r.begin(); err != nil {
		t.Fatal(err)
	}
	c.pending.Add(1)
	w.mu.Lock()
	w.inflight[key] = o
	locked := true
	defer func() {
		if locked {
			w.mu.Unlock()
		}
	}()
	go w.finished(o, Result{Commit: "c1"})
	testenv.Eventually(t, 30*time.Second, func() error {
		r.wmu.Lock()
		defer r.wmu.Unlock()
		if _, ok := r.results[key]; !ok {
			return fmt.Errorf("the result of the finishing change is not kept while it is in flight")
		}
		return nil
	})
	if w.inflight[key] != o {
		t.Errorf("the change left the in-flight batch before the writer's lock was free")
	}
	w.mu.Unlock()
	locked = false
	if res := <-done; res.Commit != "c1" {
		t.Errorf("done got %+v, want commit c1", res)
	}
	if r.InFlight("main", key) {
		t.Errorf("a change whose done was called is still in flight")
	}
	if res, ok := r.TakeResult(key); !ok || res.Commit != "c1" {
		t.Errorf("TakeResult() = %+v, %v; want commit c1", res, ok)
	}
}
