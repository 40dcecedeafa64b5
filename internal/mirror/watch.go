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
	"strings"
	"sync"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
)

const errInformer = "cannot set up the informer"

// watchKey names one shared informer.
type watchKey struct {
	gvr schema.GroupVersionResource
	// namespace is empty for a cluster-scoped resource.
	namespace string
}

// watchState is where a watch is in its life.
type watchState int

const (
	// idle: not started (Sources not started yet).
	idle watchState = iota
	// starting: one Ensure is checking access and starting the informer.
	starting
	// running: the informer runs (it may not have synced yet).
	running
	// failed: access was denied, or the watch failed; err says why.
	failed
)

// watch is one informer shared by every owner whose request covers its key.
//
// Sources.mu guards the watch's place in Sources.watches; mu guards every
// field below it. Lock order: Sources.mu, then watch.mu. The informer's
// handlers take only watch.mu, and nobody holds it across the network or
// while calling wake.
type watch struct {
	key  watchKey
	wake func(types.NamespacedName)
	log  logging.Logger
	now  func() time.Time

	mu      sync.RWMutex
	views   map[types.NamespacedName]view // the owners; the watch stops when it has none
	removed bool                          // left Sources.watches: must not (re)start
	state   watchState
	err     error     // why the watch failed
	errAt   time.Time // when it failed, for the re-check backoff
	feed    *feed     // the running informer, nil unless running
	// version counts changes of what a snapshot reads from w (state, feed,
	// objects), so that an unchanged watch can serve a cached snapshot.
	version uint64
}

// feed is one run of an informer and what its handler has seen. A watch
// that fails and starts again gets a new feed; a late event of the old one
// finds itself replaced and is dropped.
type feed struct {
	items  map[string]*entry // by namespace/name
	synced cache.DoneChecker
	cancel context.CancelFunc
	// listed are the versions its lists delivered (listed.go).
	listed *listedVersions
}

func newWatch(k watchKey, wake func(types.NamespacedName), log logging.Logger, now func() time.Time) *watch {
	return &watch{key: k, wake: wake, log: log, now: now, views: map[types.NamespacedName]view{}}
}

// run starts an informer for w that runs until ctx ends or w stops. The
// caller has added 2 to wg: the informer's goroutines are done with it, or
// run is when it starts none (w left Sources meanwhile, or an error).
// Resync is off: the cache is kept by the watch alone, never by a
// periodic relist.
func (w *watch) run(ctx context.Context, dyn dynamic.Interface, wg *sync.WaitGroup) error {
	launched := false
	defer func() {
		if !launched {
			wg.Add(-2)
		}
	}()
	f := &feed{items: map[string]*entry{}, listed: newListedVersions()}
	inf := informerFor(dyn, w.key, f.listed)
	if err := inf.SetTransform(slim); err != nil {
		return errors.Wrap(err, errInformer)
	}
	if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) { w.onWatchError(f, err) }); err != nil {
		return errors.Wrap(err, errInformer)
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { w.onAdd(f, obj, initial) },
		UpdateFunc: func(_, obj any) { w.onAdd(f, obj, false) },
		DeleteFunc: func(obj any) { w.onDelete(f, obj) },
	})
	if err != nil {
		return errors.Wrap(err, errInformer)
	}
	ctx, cancel := context.WithCancel(ctx)
	f.synced, f.cancel = reg.HasSyncedChecker(), cancel

	w.mu.Lock()
	if w.removed {
		w.mu.Unlock()
		cancel()
		return nil
	}
	w.state, w.err, w.feed = running, nil, f
	w.version++
	w.mu.Unlock()

	launched = true
	go func() {
		defer wg.Done()
		inf.RunWithContext(ctx)
	}()
	go func() {
		// The initial list wakes nobody object by object; every owner is
		// woken once when it is complete, so it sees Synced.
		defer wg.Done()
		select {
		case <-f.synced.Done():
			w.wakeAll(f)
		case <-ctx.Done():
		}
	}()
	return nil
}

// slim drops from an object what the rendering drops anyway and the
// informer's own cache would otherwise hold for every object: managedFields
// are often the larger part of a small object, and only their stamps are
// kept, for the ignore rule (holds.go).
func slim(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		compactManagedFields(u)
	}
	return obj, nil
}

// stop ends w's informer, if any, for good.
func (w *watch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.removed = true
	if w.feed != nil {
		w.feed.cancel()
	}
}

// fail records err as why w cannot serve its owners.
func (w *watch) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.state, w.err, w.errAt = failed, err, w.now()
	w.version++
}

// onAdd handles an added or updated object: render it, and wake the owners
// that see it now or saw it before, unless nothing they see changed.
func (w *watch) onAdd(f *feed, obj any, initial bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	key := u.GetNamespace() + "/" + u.GetName()
	listed := f.listed.take(key, u.GetResourceVersion())
	w.mu.RLock()
	old := f.items[key]
	w.mu.RUnlock()
	if old != nil && old.rv == u.GetResourceVersion() {
		// A relist delivers every object again; its rendering is known.
		return
	}
	// Rendering happens outside the lock: only this informer's handler
	// writes f.items, so old is still current when we store e.
	e := newEntry(u)
	if listed {
		// A relist after an expired watch may skip versions: old is no
		// predecessor then (listed.go).
		e.followListed(old)
	} else {
		e.follow(old)
	}
	w.mu.Lock()
	if w.feed != f {
		w.mu.Unlock()
		return
	}
	f.items[key] = e
	var owners []types.NamespacedName
	if old == nil || !old.same(e) {
		w.version++
		if !initial {
			owners = w.seeing(old, e)
		}
	}
	w.mu.Unlock()
	if len(owners) > 0 {
		w.log.Debug("Object changed; waking the Mirrors that see it", "resource", resourceName(w.key.gvr), "object", key,
			"resourceVersion", u.GetResourceVersion(), "mirrors", len(owners))
	}
	w.wakeEach(owners)
}

func (w *watch) onDelete(f *feed, obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	key := u.GetNamespace() + "/" + u.GetName()
	w.mu.Lock()
	if w.feed != f {
		w.mu.Unlock()
		return
	}
	old := f.items[key]
	delete(f.items, key)
	w.version++
	owners := w.seeing(old, nil)
	w.mu.Unlock()
	w.wakeEach(owners)
}

// onWatchError turns a Forbidden LIST or WATCH (a grant revoked while the
// informer runs) into a NotPermittedError for every owner, and a NotFound
// (the CRD deleted) into a KindNotFoundError. It stops the informer rather
// than let it retry a request that cannot succeed; a later Ensure starts it
// again after the backoff. Other errors the informer retries by itself.
func (w *watch) onWatchError(f *feed, err error) {
	var failure error
	switch {
	case kerrors.IsForbidden(err):
		verb := "list"
		if strings.Contains(err.Error(), "cannot watch") {
			verb = "watch"
		}
		failure = &NotPermittedError{GVR: w.key.gvr, Namespace: w.key.namespace, Verb: verb}
	case kerrors.IsNotFound(err):
		failure = &KindNotFoundError{Kind: Kind{Group: w.key.gvr.Group, Resource: w.key.gvr.Resource}}
	default:
		w.log.Debug("Watch failed; the informer retries", "resource", resourceName(w.key.gvr), "namespace", w.key.namespace, "error", err)
		return
	}
	w.mu.Lock()
	if w.feed != f {
		w.mu.Unlock()
		return
	}
	f.cancel()
	w.feed = nil
	w.state, w.err, w.errAt = failed, failure, w.now()
	w.version++
	owners := w.ownersLocked()
	w.mu.Unlock()
	w.wakeEach(owners)
}

// seeing returns the owners that see old or e. Call with mu held.
func (w *watch) seeing(old, e *entry) []types.NamespacedName {
	var owners []types.NamespacedName
	for o, v := range w.views {
		if v.sees(old) || v.sees(e) {
			owners = append(owners, o)
		}
	}
	return owners
}

// wakeAll wakes every owner, unless f is no longer w's feed.
func (w *watch) wakeAll(f *feed) {
	w.mu.RLock()
	if w.feed != f {
		w.mu.RUnlock()
		return
	}
	owners := w.ownersLocked()
	w.mu.RUnlock()
	w.wakeEach(owners)
}

// owners returns w's owners.
func (w *watch) owners() []types.NamespacedName {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.ownersLocked()
}

// ownersLocked returns w's owners. Call with mu held.
func (w *watch) ownersLocked() []types.NamespacedName {
	owners := make([]types.NamespacedName, 0, len(w.views))
	for o := range w.views {
		owners = append(owners, o)
	}
	return owners
}

func (w *watch) wakeEach(owners []types.NamespacedName) {
	for _, o := range owners {
		w.wake(o)
	}
}
