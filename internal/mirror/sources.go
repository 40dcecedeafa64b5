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

package mirror

import (
	"context"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
)

const (
	errStarted    = "sources are already started"
	errStopped    = "sources are stopped"
	errStartWatch = "cannot start watching"
)

// Defaults, each overridable with an Option.
const (
	// defaultRecheck is how long a denied access stays denied before an
	// Ensure asks again: granting RBAC later recovers within it, and a
	// Mirror that stays denied costs two access reviews per interval.
	defaultRecheck = 30 * time.Second
	// defaultRefresh bounds discovery refreshes on an unknown kind: a CRD
	// installed later resolves within it.
	defaultRefresh = 10 * time.Second
	// accessTimeout bounds one access review.
	accessTimeout = 10 * time.Second
)

// An Option configures Sources.
type Option func(*Sources)

// WithRecheckInterval sets how long a denied list or watch stays denied
// before an Ensure asks the API server again.
func WithRecheckInterval(d time.Duration) Option {
	return func(s *Sources) { s.recheck = d }
}

// WithDiscoveryRefreshInterval sets how often, at most, an unknown kind
// makes discovery refresh.
func WithDiscoveryRefreshInterval(d time.Duration) Option {
	return func(s *Sources) { s.resolver.refresh = d }
}

// Sources keeps the shared watches of every owner (Mirror) and answers what
// each owner's folder should hold. It is a manager.Runnable: Start runs the
// informers until its context ends.
type Sources struct {
	dyn      dynamic.Interface
	resolver *resolver
	authz    AccessReviewer
	wake     func(types.NamespacedName)
	log      logging.Logger
	recheck  time.Duration
	now      func() time.Time

	// mu guards ctx, stopped, owners and watches. It is never held across
	// the network: access reviews run after it is released.
	mu      sync.Mutex
	ctx     context.Context // Start's; nil until then
	stopped bool
	owners  map[types.NamespacedName]*registration
	watches map[watchKey]*watch

	wg sync.WaitGroup // every informer goroutine
}

// NewSources returns Sources that list and watch with dyn, resolve kinds
// through disco, check access with authz, and call wake(owner) when what an
// owner's folder should hold may have changed. wake must not block for
// long: informer handlers call it.
func NewSources(dyn dynamic.Interface, disco discovery.DiscoveryInterface, authz AccessReviewer, wake func(owner types.NamespacedName), log logging.Logger, o ...Option) *Sources {
	s := &Sources{
		dyn:      dyn,
		resolver: newResolver(disco, defaultRefresh),
		authz:    authz,
		wake:     wake,
		log:      log,
		recheck:  defaultRecheck,
		now:      time.Now,
		owners:   map[types.NamespacedName]*registration{},
		watches:  map[watchKey]*watch{},
	}
	for _, fn := range o {
		fn(s)
	}
	return s
}

// Start starts the watches Ensure asked for before, and runs every informer
// until ctx ends; then it stops them all and returns.
func (s *Sources) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.ctx != nil {
		s.mu.Unlock()
		return errors.New(errStarted)
	}
	s.ctx = ctx
	var pending []*watch
	for _, w := range s.watches {
		if s.startable(w) {
			pending = append(pending, w)
		}
	}
	s.mu.Unlock()

	for _, w := range pending {
		if err := s.start(ctx, w); err != nil {
			// Nobody asked in this call: wake the owners, so that their
			// next Ensure reports it.
			w.wakeEach(w.owners())
		}
	}
	<-ctx.Done()

	s.mu.Lock()
	s.stopped = true
	for _, w := range s.watches {
		w.stop()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// Ensure registers what r asks for, replacing the owner's previous request,
// starts the watches nobody had yet, and returns what is cached now. Watches
// the previous request needed and nobody needs any more stop.
//
// It returns a *KindNotFoundError, *ClusterScopedError or *NotPermittedError
// (test with errors.As) for a kind it cannot mirror; the kinds it can are
// still watched, so they are ready when the others are.
func (s *Sources) Ensure(ctx context.Context, r Request) (Snapshot, error) {
	res, keys, skipped, firstErr := s.plan(ctx, r)
	v := view{selector: r.Selector, skipControlled: r.SkipControlled, skipGenerated: r.SkipGenerated}
	if v.selector == nil {
		v.selector = labels.Everything()
	}
	ignore := slices.Sorted(slices.Values(r.IgnoreManagers))
	ignore = slices.Compact(ignore)
	fp := fingerprint(res, v, skipped, ignore)

	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return Snapshot{}, errors.New(errStopped)
	}
	ws := make([]*watch, len(keys))
	var pending []*watch
	for i, k := range keys {
		w := s.watches[k]
		if w == nil {
			w = newWatch(k, s.wake, s.log, func() time.Time { return s.now() })
			s.watches[k] = w
		}
		w.mu.Lock()
		w.views[r.Owner] = v
		w.mu.Unlock()
		ws[i] = w
		if s.startable(w) {
			pending = append(pending, w)
		}
	}
	s.release(r.Owner, ws)
	reg := s.owners[r.Owner]
	if reg == nil || !slices.Equal(reg.watches, ws) || reg.fingerprint != fp {
		next := &registration{watches: ws, fingerprint: fp}
		switch {
		case len(ignore) == 0:
		case reg != nil && reg.holds != nil && slices.Equal(reg.holds.managers, ignore):
			// What the owner took stays taken across a new request.
			next.holds = reg.holds
		default:
			next.holds = newHolds(ignore)
		}
		reg = next
		s.owners[r.Owner] = reg
	}
	sctx := s.ctx
	s.mu.Unlock()

	if sctx != nil {
		for _, w := range pending {
			// An error is recorded on w and reported below.
			_ = s.start(ctx, w)
		}
	}
	if firstErr != nil {
		return Snapshot{}, firstErr
	}
	if snap, ok := reg.cached(); ok {
		return snap, nil
	}
	snap, versions, err := snapshot(res, ws, v, skipped, reg.holds)
	if err == nil && snap.Synced {
		reg.keep(snap, versions)
	}
	return snap, err
}

// Release drops the owner's interest; watches nobody needs any more stop.
func (s *Sources) Release(owner types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release(owner, nil)
	delete(s.owners, owner)
}

// Informers returns how many informers run now, for tests and metrics.
func (s *Sources) Informers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.watches {
		w.mu.RLock()
		if w.state == running {
			n++
		}
		w.mu.RUnlock()
	}
	return n
}

// release drops owner from the watches it had that are not in keep, and
// stops those left without owners. Call with s.mu held.
func (s *Sources) release(owner types.NamespacedName, keep []*watch) {
	reg := s.owners[owner]
	if reg == nil {
		return
	}
	for _, w := range reg.watches {
		if slices.Contains(keep, w) {
			continue
		}
		w.mu.Lock()
		delete(w.views, owner)
		empty := len(w.views) == 0
		w.mu.Unlock()
		if empty {
			delete(s.watches, w.key)
			w.stop()
		}
	}
}

// startable reports whether w should start now, and if so marks it
// starting, so that exactly one caller starts it. Call with s.mu held.
func (s *Sources) startable(w *watch) bool {
	if s.ctx == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.state == idle, w.state == failed && s.now().Sub(w.errAt) >= s.recheck:
		w.state = starting
		return true
	}
	return false
}

// start checks access and starts w's informer; an error is recorded on w.
func (s *Sources) start(ctx context.Context, w *watch) error {
	actx, cancel := context.WithTimeout(ctx, accessTimeout)
	err := checkAccess(actx, s.authz, w.key)
	cancel()
	if err == nil {
		err = s.run(w)
	}
	if err != nil {
		s.log.Debug(errStartWatch, "resource", resourceName(w.key.gvr), "namespace", w.key.namespace, "error", err)
		w.fail(err)
	}
	return err
}

// run starts w's informer on Start's context: it outlives the Ensure that
// asked for it.
func (s *Sources) run(w *watch) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return errors.New(errStopped)
	}
	// Added under mu, so that Start's Wait never races an Add.
	s.wg.Add(2)
	ctx := s.ctx
	s.mu.Unlock()
	return w.run(ctx, s.dyn, &s.wg)
}

// Resolve names the resource k is served as and whether it is
// cluster-scoped, through the same cached discovery Ensure uses; a kind the
// API server does not serve is a KindNotFoundError.
func (s *Sources) Resolve(ctx context.Context, k Kind) (schema.GroupVersionResource, bool, error) {
	r, err := s.resolver.resolve(ctx, k)
	return r.gvr, r.cluster, err
}
