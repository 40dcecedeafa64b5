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

// Package watch glues the Git engine's events to the controllers: it wakes
// a resource when the write it handed to a branch writer landed or failed,
// and polls each repository in use once per interval (one ls-remote, a
// fetch and a tree diff only when a head moved), waking only the resources
// at the paths that changed. Resources that nothing touched cost nothing.
//
// The engine (internal/git) knows no Kubernetes types and the managed
// reconciler (internal/reconciler/managed) knows nothing of Git; this package maps one
// to the other with an Index of (repository, branch, path) → resources.
package watch

import (
	"context"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/git"
)

// A Repository is what the Watcher needs of a shared clone.
type Repository interface {
	ID() string
	Poll(ctx context.Context) ([]git.Move, error)
}

// A Watcher wakes resources on Git events. Add it to the manager (it is a
// manager.Runnable): poll loops run while the manager does.
type Watcher struct {
	interval time.Duration
	log      logging.Logger
	idx      *Index
	clock    clock.WithTicker
	// relaxed, when positive, is the interval between polls of a
	// repository whose forge events arrive (Heard).
	relaxed time.Duration

	mu      sync.Mutex
	ctx     context.Context // nil until Start
	repos   map[string]Repository
	polling map[string]bool
	sources map[string]*Source
	// nudges holds, per polled repository, one pending request to poll
	// before the next tick (Nudge).
	nudges map[string]chan struct{}
	// heard is when a verified forge event last named each repository
	// (by git.RepositoryKey).
	heard map[string]time.Time
	// onTick, in tests, hears each tick of a clone's loop and whether it
	// polled.
	onTick func(id string, polled bool)
	// nudgedAt is when the first pending nudge of each clone came;
	// eventPolled hears how long after it the poll it caused ended.
	nudgedAt    map[string]time.Time
	eventPolled func(time.Duration)
}

// NudgeSpacing is the least time between two polls of one repository that
// events asked for: a burst of pushes costs one ls-remote and one fetch a
// second, not one each.
const NudgeSpacing = time.Second

// An Option configures a Watcher.
type Option func(*Watcher)

// WithClock makes the Watcher tell time and tick by c.
func WithClock(c clock.WithTicker) Option { return func(w *Watcher) { w.clock = c } }

// WithRelaxedPoll polls a repository whose forge events arrive every d
// rather than every interval (Heard); 0 never relaxes.
func WithRelaxedPoll(d time.Duration) Option { return func(w *Watcher) { w.relaxed = d } }

// New returns a Watcher that polls each repository in use every interval.
func New(interval time.Duration, log logging.Logger, opts ...Option) *Watcher {
	w := &Watcher{
		interval: interval, log: log, idx: NewIndex(), clock: clock.RealClock{},
		repos: map[string]Repository{}, polling: map[string]bool{}, sources: map[string]*Source{},
		nudges: map[string]chan struct{}{}, heard: map[string]time.Time{}, nudgedAt: map[string]time.Time{},
	}
	for _, o := range opts {
		o(w)
	}
	return w
}

// Source returns the source that wakes resources of kind; give it to that
// kind's controller (managed.WithEventSource).
func (w *Watcher) Source(kind string) *Source {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.sources[kind]
	if !ok {
		s = NewSource()
		w.sources[kind] = s
	}
	return s
}

// Wake enqueues r in its kind's controller.
func (w *Watcher) Wake(r Ref) { w.Source(r.Kind).Wake(r.NamespacedName) }

// Waker returns a function that wakes r, for a branch writer's callback.
func (w *Watcher) Waker(kind string, nn types.NamespacedName) func(git.Result) {
	s := w.Source(kind)
	return func(git.Result) { s.Wake(nn) }
}

// Track records that r lives at path on branch of repo (path "" for the
// branch head) and makes sure repo is polled. (Lock order: w.mu, then the
// index's; Track takes them one after the other.)
func (w *Watcher) Track(repo Repository, r Ref, branch, path string) {
	id := repo.ID()
	w.idx.Track(r, Loc{Repo: id, Branch: branch, Path: path})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.repos[id] = repo
	w.startLocked(id)
}

// TrackFolder records that r lives at every path under folder ("." for the
// root) on branch of repo, so a poll that finds any of them changed wakes r
// once, and starts polling repo.
func (w *Watcher) TrackFolder(repo Repository, r Ref, branch, folder string) {
	id := repo.ID()
	w.idx.Track(r, Loc{Repo: id, Branch: branch, Path: folder, Folder: true})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.repos[id] = repo
	w.startLocked(id)
}

// TrackHeads records that r follows the heads of branches of repo: it is
// woken whenever one of them moves in the clone (HeadMoved), by a push of
// this provider or by a fetch, a poll's included, and repo is polled while
// it does, so a push by someone else reaches it within a poll interval.
func (w *Watcher) TrackHeads(repo Repository, r Ref, branches ...string) {
	id := repo.ID()
	w.idx.TrackHeads(r, id, branches)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.repos[id] = repo
	w.startLocked(id)
}

// HeadMoved wakes the resources following the branch m moved. Give it to
// the clone cache (git.Cache.OnHeadMove); it never blocks.
func (w *Watcher) HeadMoved(m git.HeadMove) {
	refs := w.idx.Following(m.Repo, m.Branch)
	if len(refs) == 0 {
		return
	}
	w.log.Debug("Branch head moved", "repository", m.Repo, "branch", m.Branch, "old", m.Old, "new", m.New, "resources", len(refs))
	for _, r := range refs {
		w.Wake(r)
	}
}

// Forget stops waking r on drift (it is gone, or being deleted); the
// repository is polled no more once nobody lives in it.
func (w *Watcher) Forget(r Ref) { w.idx.Forget(r) }

// Tracks reports whether r is woken on drift: whether something keeps its
// repository polled.
func (w *Watcher) Tracks(r Ref) bool { return w.idx.Tracks(r) }

// Polling returns how many repositories have a poll loop running. A loop
// ends at its first tick after the last resource living in its repository
// was forgotten; until then it polls nothing.
func (w *Watcher) Polling() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.polling)
}

// Start runs the poll loops until ctx ends.
func (w *Watcher) Start(ctx context.Context) error {
	w.mu.Lock()
	w.ctx = ctx
	for id := range w.repos {
		w.startLocked(id)
	}
	w.mu.Unlock()
	<-ctx.Done()
	return nil
}

func (w *Watcher) startLocked(id string) {
	if w.nudges[id] == nil {
		// Before the loop starts, so an event that comes first is not
		// lost: the loop polls at once when it starts.
		w.nudges[id] = make(chan struct{}, 1)
	}
	if w.ctx == nil || w.polling[id] || w.interval <= 0 {
		return
	}
	w.polling[id] = true
	go w.loop(w.ctx, id, w.nudges[id])
}

// Nudge polls the clone id now, rather than at the next tick (its forge
// said the repository moved), at most once per NudgeSpacing. It returns
// false when no resource lives in that clone, which then costs nothing
// more. Events act on one clone, never on every clone of a repository: a
// configuration's hook reaches only the clone its own credentials open.
func (w *Watcher) Nudge(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch, ok := w.nudges[id]
	if !ok {
		return false
	}
	select {
	case ch <- struct{}{}:
		if _, ok := w.nudgedAt[id]; !ok {
			w.nudgedAt[id] = w.clock.Now()
		}
	default: // One is pending already: the poll it causes covers this.
	}
	return true
}

// OnEventPolled makes f hear, for each poll an event asked for (Nudge),
// how long after the event that poll ended: the fetch that brings the
// event's commits, before the resources it wakes reconcile.
func (w *Watcher) OnEventPolled(f func(time.Duration)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.eventPolled = f
}

// WakeFollowing wakes the resources that follow the heads of branches in
// the clone id (PullRequests: a forge said one of their pull requests
// changed), every one that follows a head there when branches is empty (a
// check's state changed, naming no branch), and returns how many it woke.
func (w *Watcher) WakeFollowing(id string, branches []string) int {
	var refs []Ref
	if len(branches) == 0 {
		refs = w.idx.FollowingAny(id)
	}
	for _, b := range branches {
		refs = append(refs, w.idx.Following(id, b)...)
	}
	woken := map[Ref]bool{}
	for _, r := range refs {
		if !woken[r] {
			woken[r] = true
			w.Wake(r)
		}
	}
	return len(woken)
}

// loop polls repository id every interval while resources live in it, and
// when nudged, no sooner than NudgeSpacing after its previous poll.
func (w *Watcher) loop(ctx context.Context, id string, nudge <-chan struct{}) {
	t := w.clock.NewTicker(w.interval)
	defer t.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			skip := w.skips(id, last)
			if w.onTick != nil {
				w.onTick(id, !skip)
			}
			if skip {
				continue
			}
		case <-nudge:
			if !w.spaced(ctx, last) {
				return
			}
		}
		// Checked under w.mu, so a Track that races the exit either sees
		// the loop running or starts a new one.
		w.mu.Lock()
		_, used := w.idx.Repos()[id]
		repo := w.repos[id]
		if !used {
			// Nobody lives here any more (the last resource went, or the
			// credentials rotated to another clone).
			delete(w.repos, id)
			delete(w.polling, id)
			delete(w.nudges, id)
			delete(w.nudgedAt, id)
			w.mu.Unlock()
			return
		}
		at, nudged := w.nudgedAt[id]
		delete(w.nudgedAt, id)
		observe := w.eventPolled
		w.mu.Unlock()
		last = w.clock.Now()
		w.poll(ctx, id, repo)
		if nudged && observe != nil {
			observe(w.clock.Since(at))
		}
	}
}

// spaced waits out what is left of NudgeSpacing since last; false when ctx
// ended first.
func (w *Watcher) spaced(ctx context.Context, last time.Time) bool {
	d := NudgeSpacing - w.clock.Since(last)
	if d <= 0 {
		return true
	}
	t := w.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// poll checks repo once and wakes the resources at what moved.
func (w *Watcher) poll(ctx context.Context, id string, repo Repository) {
	pctx, cancel := context.WithTimeout(ctx, w.interval)
	defer cancel()
	moves, err := repo.Poll(pctx)
	if err != nil {
		// Resources notice on their own next reconcile; the next interval
		// tries again.
		w.log.Debug("Cannot poll repository", "repository", id, "error", err)
		return
	}
	for _, m := range moves {
		refs := w.idx.Moved(id, m.Branch, m.Paths, m.All)
		w.log.Debug("Branch moved", "repository", id, "branch", m.Branch, "old", m.Old, "new", m.New,
			"paths", len(m.Paths), "resources", len(refs))
		for _, r := range refs {
			w.Wake(r)
		}
	}
}
