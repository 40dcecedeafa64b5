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

package managed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

// The control plane is shared by every test and benchmark in this package
// and started on first use: starting kube-apiserver and etcd costs seconds.
var (
	cpOnce sync.Once
	cp     *testenv.ControlPlane
	cpErr  error
)

func TestMain(m *testing.M) {
	// Managers log through controller-runtime's root logger; without one it
	// prints a stack trace on first use.
	ctrl.SetLogger(logr.Discard())
	code := m.Run()
	if cp != nil {
		_ = cp.Stop()
	}
	os.Exit(code)
}

func controlPlane(t testing.TB) *testenv.ControlPlane {
	t.Helper()
	testenv.Integration(t)
	cpOnce.Do(func() {
		s := runtime.NewScheme()
		if cpErr = corev1.AddToScheme(s); cpErr != nil {
			return
		}
		if cpErr = v1alpha1.AddToScheme(s); cpErr != nil {
			return
		}
		cp, cpErr = testenv.StartControlPlane(testenv.ControlPlaneOptions{
			CRDDirectoryPaths: []string{filepath.Join("..", "..", "testharness", "testkind", "crds")},
			Scheme:            s,
		})
	})
	if cpErr != nil {
		t.Fatalf("cannot start control plane: %v", cpErr)
	}
	return cp
}

var nsSeq atomic.Int64

func newNamespace(t testing.TB, c client.Client) string {
	t.Helper()
	ns := fmt.Sprintf("t%d-%d", time.Now().UnixNano()%1e6, nsSeq.Add(1))
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	return ns
}

// faultyClient is the reconciler's client with status writes counted and,
// on demand, the first status write for one generation rejected with a
// Conflict, as a lagging cache would cause.
type faultyClient struct {
	client.Client
	statusWrites atomic.Int64
	rejectGen    atomic.Int64 // reject the first status patch for this generation

	mu               sync.Mutex
	seq              int
	lostSeq, landSeq int // order of the rejected and the next landed write of rejectGen
	lostAt, landAt   time.Time
}

func (c *faultyClient) Status() client.SubResourceWriter {
	return &faultyStatus{SubResourceWriter: c.Client.Status(), c: c}
}

type faultyStatus struct {
	client.SubResourceWriter
	c *faultyClient
}

func (s *faultyStatus) Patch(ctx context.Context, obj client.Object, p client.Patch, o ...client.SubResourcePatchOption) error {
	s.c.statusWrites.Add(1)
	target := s.c.rejectGen.Load() == obj.GetGeneration()
	if target && s.c.rejectGen.CompareAndSwap(obj.GetGeneration(), 0) {
		s.c.mu.Lock()
		s.c.seq++
		s.c.lostSeq, s.c.lostAt = s.c.seq, time.Now()
		s.c.mu.Unlock()
		return kerrors.NewConflict(schema.GroupResource{Group: v1alpha1.Group, Resource: "things"}, obj.GetName(), fmt.Errorf("injected"))
	}
	err := s.SubResourceWriter.Patch(ctx, obj, p, o...)
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	if err == nil && s.c.lostSeq > 0 && s.c.landSeq == 0 {
		s.c.seq++
		s.c.landSeq, s.c.landAt = s.c.seq, time.Now()
	}
	return err
}

func (s *faultyStatus) Update(ctx context.Context, obj client.Object, o ...client.SubResourceUpdateOption) error {
	s.c.statusWrites.Add(1)
	return s.SubResourceWriter.Update(ctx, obj, o...)
}

// reconcileCounter counts, per resource, the reconciles that have started,
// so a test can prove the controller ran instead of sleeping and hoping it
// did. It is passed to SetupWithManager as the global rate limiter, which is
// asked about every request just before the reconciler runs; it never
// limits. controller-runtime never reconciles one resource twice at once, so
// once n+1 reconciles of a resource have started, n have finished.
type reconcileCounter struct {
	mu      sync.Mutex
	started map[string]int // by rate limiter item: controller name + namespace/name
}

func (c *reconcileCounter) When(item string) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started[item]++
	return 0
}

func (c *reconcileCounter) Forget(string) {}

func (c *reconcileCounter) NumRequeues(string) int { return 0 }

func (c *reconcileCounter) count(item string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started[item]
}

type clusterOf struct {
	ctrl.Manager
	c client.Client
}

func (c clusterOf) GetClient() client.Client { return c.c }

// env is one test's namespace with a manager running our reconciler.
type env struct {
	c    client.Client // uncached, for the test's own reads and writes
	ns   string
	st   *store
	fc   *faultyClient // the reconciler's client, reading from the manager's cache
	rc   *reconcileCounter
	stop func()
}

type envOptions struct {
	poll time.Duration
}

func startEnv(t testing.TB, o envOptions, opts ...ReconcilerOption) *env {
	t.Helper()
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	e := &env{c: cp.Client, ns: ns, st: newStore(), rc: &reconcileCounter{started: map[string]int{}}}
	mgr := newManager(t, cp, ns, nil)
	e.fc = &faultyClient{Client: mgr.GetClient()}
	opts = append([]ReconcilerOption{
		WithTypedExternalConnector[*v1alpha1.Thing](e.st),
		WithPollInterval(o.poll),
		WithManagementPolicies(),
	}, opts...)
	r := NewReconciler(clusterOf{Manager: mgr, c: e.fc}, resource.ManagedKind(v1alpha1.ThingGroupVersionKind), opts...)
	if err := r.SetupWithManager(mgr, controller.Options{SkipNameValidation: ptr(true), RateLimiter: ratelimiter.NewController(), MaxConcurrentReconciles: 4}, e.rc); err != nil {
		t.Fatal(err)
	}
	e.stop = runManager(t, mgr)
	t.Cleanup(e.stop)
	return e
}

func newManager(t testing.TB, cp *testenv.ControlPlane, ns string, cfg *rest.Config) ctrl.Manager {
	t.Helper()
	if cfg == nil {
		cfg = rest.CopyConfig(cp.Config)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 cp.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}

func runManager(t testing.TB, mgr ctrl.Manager) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); <-done }) }
}

func (e *env) thing(name string, o ...thingOption) *v1alpha1.Thing {
	th := newThing(append([]thingOption{fresh()}, o...)...)
	th.Namespace, th.Name, th.Generation = e.ns, name, 0
	return th
}

func (e *env) create(t testing.TB, th *v1alpha1.Thing) {
	t.Helper()
	if err := e.c.Create(context.Background(), th); err != nil {
		t.Fatal(err)
	}
}

func (e *env) get(t testing.TB, name string) (*v1alpha1.Thing, bool) {
	t.Helper()
	th := &v1alpha1.Thing{}
	err := e.c.Get(context.Background(), types.NamespacedName{Namespace: e.ns, Name: name}, th)
	if kerrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return th, true
}

// mutate re-reads and updates name until the update lands.
func (e *env) mutate(t testing.TB, name string, fn func(*v1alpha1.Thing)) *v1alpha1.Thing {
	t.Helper()
	for {
		th, ok := e.get(t, name)
		if !ok {
			t.Fatalf("%s is gone", name)
		}
		fn(th)
		err := e.c.Update(context.Background(), th)
		if err == nil {
			return th
		}
		if !kerrors.IsConflict(err) {
			t.Fatal(err)
		}
	}
}

func kstatusOf(t testing.TB, th *v1alpha1.Thing) status.Status {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(th)
	if err != nil {
		t.Fatal(err)
	}
	res, err := status.Compute(&unstructured.Unstructured{Object: u})
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}

func condOf(th *v1alpha1.Thing, ct xpv2.ConditionType) xpv2.Condition {
	return th.Status.GetCondition(ct)
}

// waitTimeout bounds every wait for a condition: it is for a hung test, not
// a speed target.
const waitTimeout = 30 * time.Second

// waitFor checks name every 50ms until check passes.
func (e *env) waitFor(t testing.TB, name, what string, check func(th *v1alpha1.Thing, exists bool) bool) *v1alpha1.Thing {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	var last *v1alpha1.Thing
	for time.Now().Before(deadline) {
		th, ok := e.get(t, name)
		last = th
		if check(th, ok) {
			return th
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s: %s; last seen: %+v", name, what, last)
	return nil
}

// reconcilesStarted is how many reconciles of name have started so far.
func (e *env) reconcilesStarted(name string) int {
	return e.rc.count(ControllerName(v1alpha1.ThingKind) + types.NamespacedName{Namespace: e.ns, Name: name}.String())
}

// waitReconciled waits until n reconciles of name that started after
// `from` (a reconcilesStarted value) have finished.
func (e *env) waitReconciled(t testing.TB, name string, from, n int) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		// The (n+1)th start after from proves the nth has finished.
		if e.reconcilesStarted(name) >= from+n+1 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %d reconciles of %s to finish (%d started since)", n, name, e.reconcilesStarted(name)-from)
}

// waitCached waits until the reconciler's cache holds name at
// resourceVersion rv, so a reconcile that starts afterwards cannot work
// from an older copy.
func (e *env) waitCached(t testing.TB, name, rv string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		th := &v1alpha1.Thing{}
		if err := e.fc.Get(context.Background(), types.NamespacedName{Namespace: e.ns, Name: name}, th); err == nil && th.ResourceVersion == rv {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for the cache to hold %s at resourceVersion %s", name, rv)
}

func converges(th *v1alpha1.Thing, ok bool) bool {
	return ok && th.Status.ObservedGeneration == th.Generation &&
		condOf(th, xpv2.TypeReady).Status == corev1.ConditionTrue &&
		condOf(th, xpv2.TypeSynced).Reason == xpv2.ReasonReconcileSuccess
}
