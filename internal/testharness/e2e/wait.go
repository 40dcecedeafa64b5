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

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	xpmeta "github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Waiting: every wait of these tests is on a condition (an object's state,
// a repository's content, a count of reconciles), never on time alone.

// WaitFor polls obj until check passes or timeout, then fails with what it saw.
func WaitFor(t *testing.T, timeout time.Duration, obj client.Object, check func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, func() error {
		if err := CP.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		if err := check(); err != nil {
			return fmt.Errorf("%T %s: %w", obj, client.ObjectKeyFromObject(obj), err)
		}
		return nil
	})
}

// WaitGone waits until obj no longer exists (its finalizer was removed).
func WaitGone(t *testing.T, obj client.Object) {
	t.Helper()
	probe, _ := obj.DeepCopyObject().(client.Object)
	testenv.Eventually(t, 30*time.Second, func() error {
		if err := CP.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), probe); !kerrors.IsNotFound(err) {
			return fmt.Errorf("%T %s still exists", obj, client.ObjectKeyFromObject(obj))
		}
		return nil
	})
}

// reconciles counts, per object, the reconciles the providers started. Each
// reconcile of a managed resource starts with a Get of it through the
// manager's client, and nothing else of the provider reads a managed
// resource (crossplane-runtime's critical annotation updater re-reads one
// after a conflict, which can only make a count run ahead of the reconciles
// by one).
var reconciles = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

func reconcileKey(obj client.Object, key client.ObjectKey) string {
	return fmt.Sprintf("%T %s", obj, key)
}

// countReconciles is the managers' client: the default one, counting Gets.
func countReconciles(cfg *rest.Config, o client.Options) (client.Client, error) {
	c, err := client.New(cfg, o)
	return &countingClient{Client: c}, err
}

type countingClient struct{ client.Client }

func (c *countingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	reconciles.Lock()
	reconciles.n[reconcileKey(obj, key)]++
	reconciles.Unlock()
	return c.Client.Get(ctx, key, obj, opts...)
}

// ReconcilesOf is how many reconciles of obj the providers have started.
func ReconcilesOf(obj client.Object) int {
	reconciles.Lock()
	defer reconciles.Unlock()
	return reconciles.n[reconcileKey(obj, client.ObjectKeyFromObject(obj))]
}

// ReconciledAgain waits until the provider has finished n reconciles of each
// of objs that started after the call, then reads objs afresh. A reconcile has
// finished once the next one of the same object started: controller-runtime
// never runs two of one object at once. Each reconcile is asked for: as a
// Git event would (the watcher wakes the resource without touching it), or,
// with poke, as a user would (crossplane.io/reconcile-requested-at), which
// also reaches a paused resource.
func ReconciledAgain(t *testing.T, n int, poke bool, objs ...client.Object) {
	t.Helper()
	ctx := context.Background()
	for range n + 1 {
		counts := make([]int, len(objs))
		for i, o := range objs {
			counts[i] = ReconcilesOf(o)
			if !poke {
				// What a drift found in Git or a landed write does: wake
				// the resource without touching it.
				Running.Watcher.Wake(RefOf(o))
				continue
			}
			patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, xpmeta.AnnotationKeyReconcileRequestedAt, time.Now().Format(time.RFC3339Nano))
			if err := CP.Client.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
				t.Fatal(err)
			}
		}
		testenv.Eventually(t, 30*time.Second, func() error {
			for i, o := range objs {
				if got := ReconcilesOf(o); got <= counts[i] {
					return fmt.Errorf("%T %s: no reconcile started after the %dth", o, client.ObjectKeyFromObject(o), counts[i])
				}
			}
			return nil
		})
	}
	for _, o := range objs {
		if err := CP.Client.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			t.Fatal(err)
		}
	}
}

// WritesLanded waits until no change handed to a branch writer of the
// running provider waits for its push.
func WritesLanded(t *testing.T) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		if n := Running.Cache.Pending(); n != 0 {
			return fmt.Errorf("%d changes wait for their push", n)
		}
		return nil
	})
}

// UsersCounted waits until the ProviderConfig "git" of namespace counts n
// users. It writes that count once its usages have been still for
// config.UsageDebounce (3 s), so a burst that converges sooner than that
// has its configuration's status write still to come: a steady state
// measured from here does not count it.
func UsersCounted(t *testing.T, namespace string, n int) {
	t.Helper()
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "git"}}
	WaitFor(t, time.Minute, pc, func() error {
		if pc.Status.Users != int64(n) {
			return fmt.Errorf("ProviderConfig %s/git counts %d users, want %d", namespace, pc.Status.Users, n)
		}
		return nil
	})
}

// RefOf names obj in the watcher.
func RefOf(obj client.Object) watch.Ref {
	kind := ""
	switch obj.(type) {
	case *v1alpha1.File:
		kind = v1alpha1.FileKind
	case *v1alpha1.Branch:
		kind = v1alpha1.BranchKind
	case *v1alpha1.CommitRequest:
		kind = v1alpha1.CommitRequestKind
	case *v1alpha1.Mirror:
		kind = v1alpha1.MirrorKind
	}
	return watch.Ref{Kind: kind, NamespacedName: client.ObjectKeyFromObject(obj)}
}

// TotalReconciles is how many reconciles of any File the providers have
// started.
func TotalReconciles() int {
	reconciles.Lock()
	defer reconciles.Unlock()
	n := 0
	for k, v := range reconciles.n {
		if strings.HasPrefix(k, "*v1alpha1.File ") {
			n += v
		}
	}
	return n
}
