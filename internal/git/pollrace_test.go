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
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// heldAdvert is a transport whose next advertisement, once armed, is read
// from the server and then held until the test releases it: the answer
// describes the remote as it was before whatever the test does meanwhile.
type heldAdvert struct {
	transport.Transport

	mu       sync.Mutex
	armed    bool
	read     chan struct{} // closed when the held advertisement was read
	released chan struct{} // closed by the test
}

func (h *heldAdvert) arm() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.armed, h.read, h.released = true, make(chan struct{}), make(chan struct{})
}

// take returns the channels of the armed hold, disarming it; nil when none.
func (h *heldAdvert) take() (chan struct{}, chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.armed {
		return nil, nil
	}
	h.armed = false
	return h.read, h.released
}

func (h *heldAdvert) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	s, err := h.Transport.NewUploadPackSession(ep, auth)
	if err != nil {
		return nil, err
	}
	return &heldSession{UploadPackSession: s, h: h}, nil
}

type heldSession struct {
	transport.UploadPackSession
	h *heldAdvert
}

func (s *heldSession) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	ar, err := s.UploadPackSession.AdvertisedReferencesContext(ctx)
	if read, released := s.h.take(); read != nil {
		close(read)
		<-released
	}
	return ar, err
}

// TestPollAfterOwnCreateSeesDeletion: a Poll whose ls-remote was answered
// before this process created a branch, and which compared that answer
// after the creation landed, reported the new branch as vanished and
// recorded it so; when someone then deleted the branch for real, the next
// Poll found nothing new (gone before, gone now) and nobody was woken: the
// Branch that declares it, never polled on its own once Ready, did not
// create it again (TestBranchLifecycle/RecreatedWhenDeletedInGit, once in a
// full run, when the watcher's first poll met the Branch's create). The
// race is placed with a held advertisement, not left to the scheduler.
func TestPollAfterOwnCreateSeesDeletion(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	held := &heldAdvert{Transport: r.tr}
	r.tr = held
	// The Branch reads its branch before creating it: in use, absent.
	if err := r.Refresh(ctx(t), 0, "main", "drift"); err != nil && KindOf(err) != KindBranchNotFound {
		t.Fatal(err)
	}

	// The watcher's poll reads the advertisement (no drift yet), the Branch
	// creates drift meanwhile, and the poll compares its advertisement after
	// the creation.
	var created string
	moves := pollAcross(t, r, held, func() {
		if res := r.CreateBranchAs(ctx(t), "drift", "main", Signature{Name: "bot", Email: "bot@example.com"}); res.Err != nil {
			t.Fatal(res.Err)
		}
		created = s.repo.Head(t, "drift")
	})
	if diff := cmp.Diff([]Move(nil), moves); diff != "" {
		t.Errorf("a Poll answered before our own create reports no move of the branch it created: -want, +got:\n%s", diff)
	}

	// Someone deletes the branch: the next Poll reports it gone.
	if _, err := testenv.Git(s.repo.Dir, nil, "update-ref", "-d", "refs/heads/drift"); err != nil {
		t.Fatal(err)
	}
	m, err := r.Poll(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []Move{{Branch: "drift", Old: created, All: true}}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("a branch deleted after our create is reported gone: -want, +got:\n%s", diff)
	}
}

// pollAcross runs a Poll whose advertisement is read before during runs and
// compared after it, and returns its moves.
func pollAcross(t *testing.T, r *Repository, held *heldAdvert, during func()) []Move {
	t.Helper()
	held.arm()
	type polled struct {
		moves []Move
		err   error
	}
	done := make(chan polled, 1)
	go func() {
		m, err := r.Poll(ctx(t))
		done <- polled{m, err}
	}()
	read, released := held.read, held.released
	// Released once, here or when the test fails first: the cache closes
	// after (cleanups run last first), with no poll left held.
	release := sync.OnceFunc(func() { close(released) })
	t.Cleanup(release)
	<-read
	during()
	release()
	p := <-done
	if p.err != nil {
		t.Fatal(p.err)
	}
	return p.moves
}

// TestPollOverlappedKeepsForeignMove: a branch never announced whose Polls
// our own pushes overlap, twice, with someone else's commit between them.
// The first skipped Poll left no baseline, so the next compared Poll took
// the clone's head then, which our writer's fetch and push had moved past
// that commit: the move was lost, and the File whose path it changed,
// never polled on its own, kept the foreign content.
func TestPollOverlappedKeepsForeignMove(t *testing.T) {
	t.Parallel()
	s, r, held := heldMain(t)
	ours := func(path string) { t.Helper(); submitOurs(t, r, path) }
	if m := pollAcross(t, r, held, func() { ours("apps/ours-1.yaml") }); len(m) != 0 {
		t.Errorf("a Poll our own push overlaps = %+v, want none", m)
	}
	if _, err := s.repo.Commit("main", testenv.CommitSpec{Message: "hand edit", Files: map[string]string{"apps/theirs.yaml": "theirs\n"}}); err != nil {
		t.Fatal(err)
	}
	if m := pollAcross(t, r, held, func() { ours("apps/ours-2.yaml") }); len(m) != 0 {
		t.Errorf("a Poll our own push overlaps = %+v, want none", m)
	}
	m, err := r.Poll(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, mv := range m {
		if mv.Branch == "main" {
			paths = append(paths, mv.Paths...)
		}
	}
	if !slices.Contains(paths, "apps/theirs.yaml") {
		t.Errorf("the Poll after two overlapped ones reports main's paths %q, want someone else's apps/theirs.yaml among them", paths)
	}
}

// TestOwnMovesForgotten: the numbers of our own moves were kept for every
// branch this clone ever wrote, though a Poll needs only those made while
// it runs. Forgotten once no running Poll began before them, and not while
// one still does: a Poll our push overlapped still skips that branch after
// a second, whole Poll ended meanwhile.
func TestOwnMovesForgotten(t *testing.T) {
	t.Parallel()
	_, r, held := heldMain(t)
	ours := func(path string) { t.Helper(); submitOurs(t, r, path) }
	remembered := func() int {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.ownMoved)
	}

	ours("apps/ours-1.yaml")
	if n := remembered(); n != 0 {
		t.Errorf("after our write with no Poll running, %d own moves remembered, want 0", n)
	}
	if _, err := r.Poll(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if n := remembered(); n != 0 {
		t.Errorf("after a Poll with none running beside it, %d own moves remembered, want 0", n)
	}

	var during int
	moves := pollAcross(t, r, held, func() {
		ours("apps/ours-2.yaml")
		if _, err := r.Poll(ctx(t)); err != nil {
			t.Fatal(err)
		}
		during = remembered()
	})
	if during != 1 {
		t.Errorf("while a Poll our push overlapped still ran, %d own moves remembered, want 1 (main's)", during)
	}
	if len(moves) != 0 {
		t.Errorf("a Poll our own push overlapped = %+v, want none", moves)
	}
	if n := remembered(); n != 0 {
		t.Errorf("after the overlapped Poll ended, %d own moves remembered, want 0", n)
	}
}

// heldMain returns a repository whose advertisements pollAcross can hold,
// with main in use and read.
func heldMain(t *testing.T) (*server, *Repository, *heldAdvert) {
	t.Helper()
	s := httpServer(t)
	r, _ := newRepo(t, s.remote)
	held := &heldAdvert{Transport: r.tr}
	r.tr = held
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	return s, r, held
}

// submitOurs lands our own write of path on main.
func submitOurs(t *testing.T, r *Repository, path string) {
	t.Helper()
	if res := r.Submit(ctx(t), "main", putChange(path, "ours\n")); res.Err != nil {
		t.Fatal(res.Err)
	}
}
