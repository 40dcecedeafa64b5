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
	"bytes"
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kwatch "k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
)

// Versions a list delivered. The watch knows the version an object's
// content was made against (Object.Prev) because it delivers every version
// in order. A list does not: the informer lists again when its watch
// expired (410 Gone, after etcd compacted the versions it was behind), and
// that list may skip any number of versions, so the version the feed held
// before it is no predecessor of the listed one. An admission fact of the
// update that made the listed content names the real predecessor, so a
// join against the stale one found no write and authored the change
// unresolved, though its fact was there. A listed version's predecessor is
// unknown (""): the join then falls back to the object's UID and
// fingerprint (internal/attribution's admitted.go).
//
// The informer lists by a LIST, or, with client-go's WatchListClient (on
// by default since 1.35), by a WATCH that sends the initial events first;
// listedVersions records what either returned before the reflector hands
// it to the handler, and the handler takes a version out as it delivers it.

// listedVersions are the versions the feed's lists delivered and the
// handler has not seen yet, by namespace/name.
//
// mu guards m; nobody holds it across the network or while calling out.
type listedVersions struct {
	mu sync.Mutex
	m  map[string]string
}

func newListedVersions() *listedVersions { return &listedVersions{m: map[string]string{}} }

// note records obj's version as listed.
func (l *listedVersions) note(obj runtime.Object) {
	a, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[a.GetNamespace()+"/"+a.GetName()] = a.GetResourceVersion()
}

// reset forgets every version: a new list starts.
func (l *listedVersions) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m = map[string]string{}
}

// take reports whether rv of key is the version a list delivered, and
// forgets it then; another version (a watch event queued before the list)
// leaves it.
func (l *listedVersions) take(key, rv string) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if got, ok := l.m[key]; !ok || got != rv {
		return false
	}
	delete(l.m, key)
	return true
}

// informerFor is the informer of k's objects through dyn, as
// dynamicinformer.NewFilteredDynamicInformer makes it (no resync), with
// what each list delivers recorded in l.
func informerFor(dyn dynamic.Interface, k watchKey, l *listedVersions) cache.SharedIndexInformer {
	res := dyn.Resource(k.gvr).Namespace(k.namespace)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			list, err := res.List(ctx, o)
			if err == nil {
				l.reset()
				for i := range list.Items {
					l.note(&list.Items[i])
				}
			}
			return list, err
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (kwatch.Interface, error) {
			w, err := res.Watch(ctx, o)
			if err != nil || o.SendInitialEvents == nil || !*o.SendInitialEvents {
				return w, err
			}
			l.reset()
			return recording(w, l), nil
		},
	}
	return cache.NewSharedIndexInformerWithOptions(cache.ToListWatcherWithWatchListSemantics(lw, dyn), &unstructured.Unstructured{},
		cache.SharedIndexInformerOptions{ObjectDescription: k.gvr.String()})
}

// recordingWatch passes on the events of a watch that lists (its initial
// events), recording each added object's version first. Objects it adds
// after the list are new (no predecessor either way).
type recordingWatch struct {
	in   kwatch.Interface
	out  chan kwatch.Event
	stop chan struct{}
	once sync.Once
}

func recording(in kwatch.Interface, l *listedVersions) kwatch.Interface {
	r := &recordingWatch{in: in, out: make(chan kwatch.Event), stop: make(chan struct{})}
	go func() {
		defer close(r.out)
		for {
			select {
			case ev, ok := <-in.ResultChan():
				if !ok {
					return
				}
				if ev.Type == kwatch.Added {
					l.note(ev.Object)
				}
				select {
				case r.out <- ev:
				case <-r.stop:
					return
				}
			case <-r.stop:
				return
			}
		}
	}()
	return r
}

// Stop stops the watch it wraps.
func (r *recordingWatch) Stop() {
	r.once.Do(func() {
		close(r.stop)
		r.in.Stop()
	})
}

// ResultChan is the wrapped watch's events, each recorded before.
func (r *recordingWatch) ResultChan() <-chan kwatch.Event { return r.out }

// followListed records in e, a version a list delivered after old, which
// version its content was made against: old's knowledge when the content
// is old's, else none (the list may have skipped the version it was made
// against).
func (e *entry) followListed(old *entry) {
	if old != nil && old.uid == e.uid && bytes.Equal(old.content, e.content) && old.problem == e.problem {
		e.prev = old.prev
	}
}
