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

package resources_test

// A resource that goes without deleting what it manages in Git (orphaned by
// its managementPolicies, or its finalizer removed by hand) leaves the
// drift index: its repository is polled no more, and its clone, once
// nothing else uses it, goes idle and is evicted.

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// goneIdle is the clone idle timeout of these tests: three polls, so a
// clone the watcher still polls is never idle for it.
const goneIdle = 3 * e2e.Poll

// orphaning are managementPolicies without Delete.
var orphaning = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate,
	xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize}

func TestOrphanedBranchIsForgotten(t *testing.T) {
	ctx := context.Background()
	t.Run("WithoutDeletePolicy", func(t *testing.T) {
		f := e2e.NewFixture(t)
		cacheDir := t.TempDir()
		p := e2e.StartProvider(t, cacheDir, e2e.WithIdleTimeout(goneIdle))
		b := e2e.NewBranch(f, "keep", "keep", "main", orphaning...)
		if err := e2e.CP.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		ref := trackedWhenReady(t, p, b)
		if err := e2e.CP.Client.Delete(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, b)
		forgotten(t, p, ref)
		evicted(t, f, cacheDir)
	})
	t.Run("FinalizerRemovedByHand", func(t *testing.T) {
		f := e2e.NewFixture(t)
		p := e2e.StartProvider(t, "")
		b := e2e.NewBranch(f, "dropped", "dropped", "main")
		if err := e2e.CP.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		ref := trackedWhenReady(t, p, b)
		// A person removes the finalizer, then deletes: the Branch goes at
		// once, without a last reconcile of its own.
		if err := e2e.CP.Client.Patch(ctx, b, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))); err != nil {
			t.Fatal(err)
		}
		if err := e2e.CP.Client.Delete(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, b)
		forgotten(t, p, ref)
	})
}

func TestOrphanedMirrorIsForgotten(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	cacheDir := t.TempDir()
	p := e2e.StartProvider(t, cacheDir, e2e.WithIdleTimeout(goneIdle))
	e2e.Create(t, e2e.ConfigMap(f.Namespace, "kept", nil, map[string]string{"k": "1"}))
	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
	m.Spec.ManagementPolicies = orphaning
	e2e.Create(t, m)
	ref := trackedWhenReady(t, p, m)
	if err := e2e.CP.Client.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, m)
	forgotten(t, p, ref)
	evicted(t, f, cacheDir)
}

// trackedWhenReady waits until o is Ready and returns its ref, which the
// drift index must hold by then: otherwise this test could not see it leave.
func trackedWhenReady(t *testing.T, p *e2e.Provider, o interface {
	client.Object
	GetCondition(xpv2.ConditionType) xpv2.Condition
}) watch.Ref {
	t.Helper()
	e2e.WaitFor(t, time.Minute, o, e2e.ReadyAndCurrent(t, o))
	ref := e2e.RefOf(o)
	if !p.Watcher.Tracks(ref) {
		t.Fatalf("a Ready %s is not in the drift index: this test could not see it leave", ref.Kind)
	}
	return ref
}

// forgotten waits until ref has left the drift index and no repository is
// polled any more (each test's provider serves one fixture): a poll loop
// ends at its first tick after its repository's last resource went, so
// from then on the repository costs nothing.
func forgotten(t *testing.T, p *e2e.Provider, ref watch.Ref) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		if p.Watcher.Tracks(ref) {
			return fmt.Errorf("%s %s is gone but still in the drift index: its repository is polled for it forever", ref.Kind, ref.NamespacedName)
		}
		if n := p.Watcher.Polling(); n != 0 {
			return fmt.Errorf("%d repositories still polled after their only resource went", n)
		}
		return nil
	})
}

// evicted deletes the fixture's ProviderConfig (whose own check uses the
// clone too) and waits until the clone under cacheDir is evicted, which a
// poll refreshing its last use every interval would prevent for good.
func evicted(t *testing.T, f *e2e.Fixture, cacheDir string) {
	t.Helper()
	ctx := context.Background()
	if n := clones(t, cacheDir); n != 1 {
		t.Fatalf("%d clones in the cache, want the fixture's 1", n)
	}
	// envtest runs no garbage collector: delete the usage the orphaned
	// resource owned, as the cluster's garbage collector would.
	if err := e2e.CP.Client.DeleteAllOf(ctx, &v1alpha1.ProviderConfigUsage{}, client.InNamespace(f.Namespace)); err != nil {
		t.Fatal(err)
	}
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
	if err := e2e.CP.Client.Delete(ctx, pc); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, pc)
	testenv.Eventually(t, 10*goneIdle, func() error {
		if n := clones(t, cacheDir); n != 0 {
			return fmt.Errorf("%d clones still open %s after their last resource and configuration went", n, 10*goneIdle)
		}
		return nil
	})
}

// clones counts the clone directories under cacheDir (named by a remote
// identity's 32 hex digits).
func clones(t *testing.T, cacheDir string) int {
	t.Helper()
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if _, err := hex.DecodeString(e.Name()); e.IsDir() && len(e.Name()) == 32 && err == nil {
			n++
		}
	}
	return n
}
