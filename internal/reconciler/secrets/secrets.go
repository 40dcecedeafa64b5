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

// Package secrets holds the Secrets provider configurations name, and no
// other Secret. A cache of every Secret of the cluster would hold Helm's
// release records, often megabytes each, for nothing: the provider reads a
// handful. So each named Secret is listed and watched on its own, in its
// namespace and by its name (a field selector), as the kubelet watches the
// Secrets its pods use. A read of a Secret no configuration has named yet
// goes to the API server.
package secrets

import (
	"context"
	"slices"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

const (
	errNotSecret = "the Secret cache reads only Secrets, not %T"
	errStarted   = "the Secret cache is already started"
	errStore     = "cannot read the Secret cache"
)

// A Cache holds the Secrets its owners (configurations) retain, each
// watched by name. It is a manager.Runnable: watches run from Start until
// its context ends.
//
// mu guards ctx, stopped, owners, watches and subs. It is never held across
// the network (a direct read runs after it is released; an informer starts
// its own goroutine) nor while calling a subscriber.
type Cache struct {
	cs     corev1client.SecretsGetter
	direct client.Reader

	mu      sync.Mutex
	ctx     context.Context // Start's; nil until then
	stopped bool
	owners  map[string][]types.NamespacedName
	watches map[types.NamespacedName]*secretWatch
	subs    []func(types.NamespacedName)

	wg sync.WaitGroup // every informer goroutine
}

// secretWatch is the informer of one Secret and who retains it.
type secretWatch struct {
	owners map[string]bool
	inf    toolscache.SharedIndexInformer // nil until started
	cancel context.CancelFunc
}

// NewCache returns a Cache that watches through cs and reads a Secret it
// does not watch through direct, which must not be a caching reader (a
// manager's APIReader). cs is the core client alone: the whole clientset
// would link every typed client of Kubernetes into the binary (8 MiB).
func NewCache(cs corev1client.SecretsGetter, direct client.Reader) *Cache {
	return &Cache{cs: cs, direct: direct, owners: map[string][]types.NamespacedName{}, watches: map[types.NamespacedName]*secretWatch{}}
}

// Start runs the watches retained so far, and those retained later, until
// ctx ends.
func (c *Cache) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.ctx != nil {
		c.mu.Unlock()
		return errors.New(errStarted)
	}
	c.ctx = ctx
	for k, w := range c.watches {
		c.run(ctx, k, w)
	}
	c.mu.Unlock()
	<-ctx.Done()
	c.mu.Lock()
	c.stopped = true
	for _, w := range c.watches {
		w.stop()
	}
	c.mu.Unlock()
	c.wg.Wait()
	return nil
}

// Retain makes keys the Secrets owner needs watched, replacing what it
// retained before; a Secret nobody retains any more is dropped. An empty
// keys lets go of everything owner retained.
func (c *Cache) Retain(owner string, keys []types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.owners[owner] {
		if slices.Contains(keys, k) {
			continue
		}
		w := c.watches[k]
		delete(w.owners, owner)
		if len(w.owners) == 0 {
			w.stop()
			delete(c.watches, k)
		}
	}
	if len(keys) == 0 {
		delete(c.owners, owner)
		return
	}
	c.owners[owner] = slices.Clone(keys)
	for _, k := range keys {
		w := c.watches[k]
		if w == nil {
			w = &secretWatch{owners: map[string]bool{}}
			c.watches[k] = w
			if c.ctx != nil && !c.stopped {
				c.run(c.ctx, k, w) // Start's: the watch outlives the call that retained it.
			}
		}
		w.owners[owner] = true
	}
}

// Get reads the Secret key into obj: from its watch once that has listed
// it, from the API server otherwise. It implements client.Reader's Get, so
// a resolver reads through either.
func (c *Cache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return errors.Errorf(errNotSecret, obj)
	}
	c.mu.Lock()
	var inf toolscache.SharedIndexInformer
	if w := c.watches[key]; w != nil {
		inf = w.inf
	}
	c.mu.Unlock()
	if inf == nil || !inf.HasSynced() {
		return c.direct.Get(ctx, key, obj, opts...)
	}
	item, exists, err := inf.GetStore().GetByKey(key.String())
	if err != nil {
		return errors.Wrap(err, errStore)
	}
	if !exists {
		return kerrors.NewNotFound(corev1.Resource("secrets"), key.Name)
	}
	cached, ok := item.(*corev1.Secret)
	if !ok {
		return errors.Errorf(errNotSecret, item)
	}
	cached.DeepCopyInto(s)
	return nil
}

// Source returns a controller source that enqueues, whenever a watched
// Secret is created, changed or deleted, the requests toRequests maps its
// key to.
func (c *Cache) Source(toRequests func(ctx context.Context, key types.NamespacedName) []reconcile.Request) source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.subs = append(c.subs, func(key types.NamespacedName) {
			for _, r := range toRequests(ctx, key) {
				q.Add(r)
			}
		})
		return nil
	})
}

// Watched returns the Secrets watched now, for tests and metrics.
func (c *Cache) Watched() []types.NamespacedName {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]types.NamespacedName, 0, len(c.watches))
	for k := range c.watches {
		out = append(out, k)
	}
	return out
}

// run starts w's informer on ctx, Start's. Call with mu held.
func (c *Cache) run(ctx context.Context, key types.NamespacedName, w *secretWatch) {
	sel := fields.OneTermEqualSelector("metadata.name", key.Name).String()
	secrets := c.cs.Secrets(key.Namespace)
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			return secrets.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return secrets.Watch(ctx, o)
		},
	}
	inf := toolscache.NewSharedIndexInformer(lw, &corev1.Secret{}, 0, toolscache.Indexers{})
	// Nothing reads managedFields.
	_ = inf.SetTransform(func(obj any) (any, error) {
		if s, ok := obj.(*corev1.Secret); ok {
			s.ManagedFields = nil
		}
		return obj, nil
	})
	notify := func(any) { c.notify(key) }
	_, _ = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: notify, UpdateFunc: func(_, obj any) { notify(obj) }, DeleteFunc: notify,
	})
	ctx, cancel := context.WithCancel(ctx)
	w.inf, w.cancel = inf, cancel
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		inf.RunWithContext(ctx)
	}()
}

// notify tells every subscriber that the Secret key changed.
func (c *Cache) notify(key types.NamespacedName) {
	c.mu.Lock()
	subs := slices.Clone(c.subs)
	c.mu.Unlock()
	for _, fn := range subs {
		fn(key)
	}
}

// stop ends w's informer, if it runs. Call with the Cache's mu held.
func (w *secretWatch) stop() {
	if w.cancel != nil {
		w.cancel()
	}
}
