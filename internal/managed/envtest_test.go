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
	"strconv"
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

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/managed/testkind/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
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
	cpOnce.Do(func() {
		s := runtime.NewScheme()
		if cpErr = corev1.AddToScheme(s); cpErr != nil {
			return
		}
		if cpErr = v1alpha1.AddToScheme(s); cpErr != nil {
			return
		}
		cp, cpErr = testenv.StartControlPlane(testenv.ControlPlaneOptions{
			CRDDirectoryPaths: []string{filepath.Join("testkind", "crds")},
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

func TestEnvCreateToAvailable(t *testing.T) {
	e := startEnv(t, envOptions{poll: time.Second})
	e.create(t, e.thing("a"))
	th := e.waitFor(t, "a", "Ready=True", converges)

	if got := kstatusOf(t, th); got != status.CurrentStatus {
		t.Errorf("kstatus of a converged resource: want Current, got %s", got)
	}
	if got := condOf(th, xpv2.TypeReady).Reason; got != xpv2.ReasonAvailable {
		t.Errorf("Ready reason: want Available, got %s", got)
	}
	if _, ok := e.st.get(e.ns + "/a"); !ok {
		t.Error("external thing was not created")
	}
	if !meta.FinalizerExists(th, finalizerName) || meta.GetExternalName(th) != "a" {
		t.Errorf("finalizer or external name missing: %v %v", th.Finalizers, th.Annotations)
	}
	for _, c := range th.Status.Conditions {
		if c.ObservedGeneration != th.Generation {
			t.Errorf("condition %s observedGeneration: want %d, got %d", c.Type, th.Generation, c.ObservedGeneration)
		}
	}
}

func TestEnvDriftAndSpecChange(t *testing.T) {
	e := startEnv(t, envOptions{poll: time.Second})
	e.create(t, e.thing("a"))
	e.waitFor(t, "a", "Ready=True", converges)
	k := e.ns + "/a"

	// Drift in the external system is found by polling and corrected.
	e.st.put(k, extThing{Value: "drifted", Colour: "blue"})
	e.waitFor(t, "a", "drift corrected", func(th *v1alpha1.Thing, ok bool) bool {
		x, _ := e.st.get(k)
		return converges(th, ok) && x.Value == "v1" && th.Status.AtProvider.Value == "v1"
	})
	if e.st.updates.Load() == 0 {
		t.Error("drift was not corrected through Update")
	}

	// A spec change not yet observed reads InProgress (observedGeneration
	// lags), then Current once reconciled.
	updated := e.mutate(t, "a", func(th *v1alpha1.Thing) { th.Spec.ForProvider.Value = "v2" })
	if got := kstatusOf(t, updated); got != status.InProgressStatus {
		t.Errorf("kstatus right after a spec change: want InProgress, got %s", got)
	}
	th := e.waitFor(t, "a", "v2 applied", func(th *v1alpha1.Thing, ok bool) bool {
		x, _ := e.st.get(k)
		return converges(th, ok) && x.Value == "v2" && th.Status.AtProvider.Value == "v2"
	})
	if got := kstatusOf(t, th); got != status.CurrentStatus {
		t.Errorf("kstatus after the change converged: want Current, got %s", got)
	}
}

func TestEnvDelete(t *testing.T) {
	cases := map[string]struct {
		reason   string
		policies xpv2.ManagementPolicies
		wantKept bool
	}{
		"WithDelete": {
			reason:   "With Delete in managementPolicies the external resource is deleted before the finalizer goes.",
			policies: xpv2.ManagementPolicies{xpv2.ManagementActionAll},
		},
		"WithoutDelete": {
			reason:   "Without Delete the external resource is orphaned.",
			policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize},
			wantKept: true,
		},
	}
	e := startEnv(t, envOptions{poll: time.Second})
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			th := e.thing(name)
			th.Name = "del-" + map[bool]string{true: "orphan", false: "delete"}[tc.wantKept]
			th.Spec.ManagementPolicies = tc.policies
			e.create(t, th)
			e.waitFor(t, th.Name, "Ready=True", converges)
			if err := e.c.Delete(context.Background(), th); err != nil {
				t.Fatal(err)
			}
			e.waitFor(t, th.Name, "gone", func(_ *v1alpha1.Thing, ok bool) bool { return !ok })
			if _, kept := e.st.get(e.ns + "/" + th.Name); kept != tc.wantKept {
				t.Errorf("%s\nexternal resource kept: want %v, got %v", tc.reason, tc.wantKept, kept)
			}
		})
	}
}

func TestEnvObserveOnly(t *testing.T) {
	e := startEnv(t, envOptions{poll: time.Second})
	e.st.put(e.ns+"/present", extThing{Value: "theirs", Colour: "green"})

	e.create(t, e.thing("present", withPolicies(xpv2.ManagementActionObserve)))
	th := e.waitFor(t, "present", "Ready=True", converges)
	if x, _ := e.st.get(e.ns + "/present"); x.Value != "theirs" {
		t.Errorf("observe-only changed the external resource: %+v", x)
	}
	if th.Status.AtProvider.Value != "theirs" || kstatusOf(t, th) != status.CurrentStatus {
		t.Errorf("observe-only present: want atProvider theirs and Current, got %q %s", th.Status.AtProvider.Value, kstatusOf(t, th))
	}

	e.create(t, e.thing("missing", withPolicies(xpv2.ManagementActionObserve)))
	th = e.waitFor(t, "missing", "Unavailable", func(th *v1alpha1.Thing, ok bool) bool {
		return ok && condOf(th, xpv2.TypeReady).Reason == xpv2.ReasonUnavailable
	})
	if got := kstatusOf(t, th); got != status.InProgressStatus {
		t.Errorf("observe-only missing: want InProgress, got %s", got)
	}
	if e.st.creates.Load() != 0 {
		t.Errorf("observe-only created %d external resources", e.st.creates.Load())
	}
}

func TestEnvPause(t *testing.T) {
	e := startEnv(t, envOptions{poll: 200 * time.Millisecond})
	e.create(t, e.thing("a"))
	e.waitFor(t, "a", "Ready=True", converges)
	k := e.ns + "/a"

	e.mutate(t, "a", func(th *v1alpha1.Thing) {
		meta.AddAnnotations(th, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"})
	})
	e.waitFor(t, "a", "paused", func(th *v1alpha1.Thing, ok bool) bool {
		return ok && condOf(th, xpv2.TypeSynced).Reason == xpv2.ReasonReconcilePaused
	})
	e.st.put(k, extThing{Value: "drifted", Colour: "blue"})
	updates := e.st.updates.Load()
	// A paused resource is not polled, so waiting would prove nothing: make
	// the controller run. Each label change is a desired-state change that
	// queues a reconcile; wait for each to start before the next, so they
	// are not merged into one. Four starts after the drift are three
	// finished reconciles that left it alone.
	from := e.reconcilesStarted("a")
	for i := range 4 {
		e.mutate(t, "a", func(th *v1alpha1.Thing) { meta.AddLabels(th, map[string]string{"poke": strconv.Itoa(i)}) })
		e.waitReconciled(t, "a", from, i)
	}
	if x, _ := e.st.get(k); x.Value != "drifted" || e.st.updates.Load() != updates {
		t.Errorf("a paused resource was reconciled: %+v", x)
	}

	e.mutate(t, "a", func(th *v1alpha1.Thing) { meta.RemoveAnnotations(th, meta.AnnotationKeyReconciliationPaused) })
	e.waitFor(t, "a", "resumed and corrected", func(th *v1alpha1.Thing, ok bool) bool {
		x, _ := e.st.get(k)
		return converges(th, ok) && x.Value == "v1"
	})
}

func TestEnvErrors(t *testing.T) {
	cases := map[string]struct {
		reason      string
		err         error
		wantKstatus status.Status
		wantReady   corev1.ConditionStatus
		wantReason  xpv2.ConditionReason
	}{
		"Transient": {
			reason:      "A plain error is progressing: InProgress while it lasts, Current once it clears.",
			err:         fmt.Errorf("connection reset"),
			wantKstatus: status.InProgressStatus,
			wantReady:   corev1.ConditionUnknown,
			wantReason:  xpv2.ReasonReconcileError,
		},
		"Stalled": {
			reason:      "A Stalled error is Failed with its own reason until a human fixes it.",
			err:         Stalled("AuthenticationFailed", fmt.Errorf("token refused")),
			wantKstatus: status.FailedStatus,
			wantReady:   corev1.ConditionFalse,
			wantReason:  "AuthenticationFailed",
		},
	}
	e := startEnv(t, envOptions{poll: 500 * time.Millisecond})
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := "err-" + map[bool]string{true: "stalled", false: "transient"}[IsStalled(tc.err)]
			e.create(t, e.thing(n))
			e.waitFor(t, n, "Ready=True", converges)

			e.st.setObserveErr(e.ns+"/"+n, tc.err)
			th := e.waitFor(t, n, "error reported", func(th *v1alpha1.Thing, ok bool) bool {
				return ok && condOf(th, xpv2.TypeSynced).Reason == xpv2.ReasonReconcileError
			})
			if got := kstatusOf(t, th); got != tc.wantKstatus {
				t.Errorf("%s\nkstatus: want %s, got %s", tc.reason, tc.wantKstatus, got)
			}
			if r := condOf(th, xpv2.TypeReady); r.Status != tc.wantReady || r.Reason != tc.wantReason {
				t.Errorf("%s\nReady: want %s/%s, got %s/%s", tc.reason, tc.wantReady, tc.wantReason, r.Status, r.Reason)
			}

			e.st.setObserveErr(e.ns+"/"+n, nil)
			th = e.waitFor(t, n, "recovered", converges)
			if got := kstatusOf(t, th); got != status.CurrentStatus {
				t.Errorf("%s\nkstatus after recovery: want Current, got %s", tc.reason, got)
			}
		})
	}
}

func TestEnvLostStatusWriteComesBack(t *testing.T) {
	// The poll interval is an hour: only the prompt lost-write requeue can
	// bring the resource back, because the predicate filters status-only
	// updates.
	e := startEnv(t, envOptions{poll: time.Hour})
	e.create(t, e.thing("a"))
	th := e.waitFor(t, "a", "Ready=True", converges)

	// A spec change that needs no external update converges in one
	// reconcile; the first status write for the new generation is rejected.
	e.fc.rejectGen.Store(th.Generation + 1)
	e.mutate(t, "a", func(th *v1alpha1.Thing) { th.Spec.ForProvider.Colour = ptr("red") })
	th = e.waitFor(t, "a", "status of the new generation persisted", converges)

	e.fc.mu.Lock()
	defer e.fc.mu.Unlock()
	if e.fc.lostSeq == 0 {
		t.Fatal("no status write was rejected; the test proves nothing")
	}
	if e.fc.landSeq < e.fc.lostSeq {
		t.Errorf("the rejected write was never replaced by a landed one")
	}
	if got := kstatusOf(t, th); got != status.CurrentStatus {
		t.Errorf("kstatus: want Current, got %s", got)
	}
	t.Logf("lost write replaced after %s (poll interval 1h)", e.fc.landAt.Sub(e.fc.lostAt))
}

func TestEnvSteadyStateWritesNoStatus(t *testing.T) {
	e := startEnv(t, envOptions{poll: 100 * time.Millisecond})
	e.create(t, e.thing("a"))
	th := e.waitFor(t, "a", "Ready=True", converges)
	// Once the cache holds the converged resource, every reconcile that
	// starts works from it; one that started earlier, from an older copy,
	// may still write. Let one later reconcile finish so it has.
	e.waitCached(t, "a", th.ResourceVersion)
	e.waitReconciled(t, "a", e.reconcilesStarted("a"), 1)
	writes, observes, rv := e.fc.statusWrites.Load(), e.st.observes.Load(), th.ResourceVersion

	// Polled every 100ms; three reconciles that started after the counts
	// above, and finished, are three polls.
	e.waitReconciled(t, "a", e.reconcilesStarted("a"), 3)
	if got := e.st.observes.Load() - observes; got < 3 {
		t.Fatalf("only %d observations in 3 polls; the test proves nothing", got)
	}
	if got := e.fc.statusWrites.Load() - writes; got != 0 {
		t.Errorf("status writes in steady state: want 0, got %d", got)
	}
	if th, _ := e.get(t, "a"); th.ResourceVersion != rv {
		t.Errorf("resourceVersion moved in steady state: %s -> %s", rv, th.ResourceVersion)
	}
}
