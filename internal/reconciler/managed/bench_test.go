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
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

const (
	benchN     = 200
	benchPoll  = time.Second
	benchPolls = 5
)

// requestCounter counts API requests by "VERB resource[/subresource]" while
// on. It wraps the manager's transport, so it sees everything the
// reconciler, its client and its cache send.
type requestCounter struct {
	on     atomic.Bool
	mu     sync.Mutex
	counts map[string]int
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		if c.on.Load() {
			c.mu.Lock()
			c.counts[classify(r)]++
			c.mu.Unlock()
		}
		return rt.RoundTrip(r)
	})
}

func (c *requestCounter) start() {
	c.mu.Lock()
	c.counts = map[string]int{}
	c.mu.Unlock()
	c.on.Store(true)
}

func (c *requestCounter) stop() map[string]int {
	c.on.Store(false)
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// classify names a request "VERB resource[/subresource]", with GET split
// into GET (one object), LIST and WATCH.
func classify(r *http.Request) string {
	p := strings.Trim(r.URL.Path, "/")
	seg := strings.Split(p, "/")
	switch {
	case len(seg) >= 2 && seg[0] == "api":
		seg = seg[2:]
	case len(seg) >= 3 && seg[0] == "apis":
		seg = seg[3:]
	}
	if len(seg) >= 3 && seg[0] == "namespaces" {
		seg = seg[2:]
	}
	if len(seg) == 0 {
		return r.Method + " " + p
	}
	res, named := seg[0], len(seg) > 1
	if len(seg) > 2 {
		res += "/" + seg[2]
	}
	verb := r.Method
	switch {
	case verb == http.MethodGet && r.URL.Query().Get("watch") == "true":
		verb = "WATCH"
	case verb == http.MethodGet && !named:
		verb = "LIST"
	}
	return verb + " " + res
}

// reconcileCounts counts reconciles: all that started, and per resource
// those that finished.
type reconcileCounts struct {
	started  atomic.Int64
	mu       sync.Mutex
	finished map[types.NamespacedName]int
}

func (c *reconcileCounts) finishedOf(nn types.NamespacedName) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.finished[nn]
}

type countingReconciler struct {
	reconcile.Reconciler
	n *reconcileCounts
}

func (c countingReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	c.n.started.Add(1)
	defer func() {
		c.n.mu.Lock()
		c.n.finished[req.NamespacedName]++
		c.n.mu.Unlock()
	}()
	return c.Reconciler.Reconcile(ctx, req)
}

// benchResult is one reconciler's run.
type benchResult struct {
	name           string
	converge       time.Duration
	convergeRecs   int64
	window         time.Duration
	windowRecs     int64
	requests       map[string]int
	rvBumps        int
	kstatus        map[string]status.Status
	observedGenSet bool
}

func (r benchResult) statusRequests() int {
	n := 0
	for k, v := range r.requests {
		if strings.HasSuffix(k, "/status") {
			n += v
		}
	}
	return n
}

func (r benchResult) allRequests() int {
	n := 0
	for _, v := range r.requests {
		n += v
	}
	return n
}

func (r benchResult) perPoll(n int) float64 {
	return float64(n) / (float64(r.window) / float64(benchPoll))
}

// setupFn registers a reconciler for Things with mgr, counting reconciles.
type setupFn func(mgr ctrl.Manager, st *store, n *reconcileCounts) error

var benchControllerOptions = controller.Options{
	SkipNameValidation:      ptr(true),
	RateLimiter:             ratelimiter.NewController(),
	MaxConcurrentReconciles: 10,
}

// runtimeReconciler is crossplane-runtime v2.4's managed reconciler, set up
// as provider-template sets it up.
func runtimeReconciler(mgr ctrl.Manager, st *store, n *reconcileCounts) error {
	r := xpmanaged.NewReconciler(mgr, resource.ManagedKind(v1alpha1.ThingGroupVersionKind),
		xpmanaged.WithTypedExternalConnector[*v1alpha1.Thing](st),
		xpmanaged.WithPollInterval(benchPoll),
		xpmanaged.WithManagementPolicies())
	return ctrl.NewControllerManagedBy(mgr).Named("runtime-thing").
		WithEventFilter(resource.DesiredStateChanged()).
		For(&v1alpha1.Thing{}).
		WithOptions(benchControllerOptions).
		Complete(countingReconciler{Reconciler: r, n: n})
}

// ourReconciler is this package's reconciler, set up as SetupWithManager
// does, with the same options.
func ourReconciler(mgr ctrl.Manager, st *store, n *reconcileCounts) error {
	r := NewReconciler(mgr, resource.ManagedKind(v1alpha1.ThingGroupVersionKind),
		WithTypedExternalConnector[*v1alpha1.Thing](st),
		WithPollInterval(benchPoll),
		WithManagementPolicies())
	return ctrl.NewControllerManagedBy(mgr).Named("ours-thing").
		For(&v1alpha1.Thing{}, builder.WithPredicates(DesiredStateChanged())).
		WithOptions(benchControllerOptions).
		Complete(countingReconciler{Reconciler: r, n: n})
}

func listThings(b *testing.B, c client.Client, ns string) []v1alpha1.Thing {
	b.Helper()
	l := &v1alpha1.ThingList{}
	if err := c.List(context.Background(), l, client.InNamespace(ns)); err != nil {
		b.Fatal(err)
	}
	return l.Items
}

func readyAndSynced(th *v1alpha1.Thing) bool {
	return th.Status.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue &&
		th.Status.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
}

// benchWait checks done every 100ms until it holds.
func benchWait(b *testing.B, what string, timeout time.Duration, done func() bool) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func runReconciler(b *testing.B, name string, setup setupFn) benchResult {
	b.Helper()
	cp := controlPlane(b)
	ns := newNamespace(b, cp.Client)
	rc := &requestCounter{counts: map[string]int{}}
	cfg := rest.CopyConfig(cp.Config)
	cfg.WrapTransport = rc.wrap
	mgr := newManager(b, cp, ns, cfg)
	st := newStore()
	recs := &reconcileCounts{finished: map[types.NamespacedName]int{}}
	if err := setup(mgr, st, recs); err != nil {
		b.Fatal(err)
	}
	stop := runManager(b, mgr)
	defer stop()

	res := benchResult{name: name, kstatus: map[string]status.Status{}}
	start := time.Now()
	for i := range benchN {
		th := newThing(fresh())
		th.Namespace, th.Name, th.Generation = ns, fmt.Sprintf("thing-%03d", i), 0
		if err := cp.Client.Create(context.Background(), th); err != nil {
			b.Fatal(err)
		}
	}
	benchWait(b, name+": all Things Ready and Synced", 5*time.Minute, func() bool {
		items := listThings(b, cp.Client, ns)
		for i := range items {
			if !readyAndSynced(&items[i]) {
				return false
			}
		}
		return len(items) == benchN
	})
	res.converge, res.convergeRecs = time.Since(start), recs.started.Load()

	// The window must measure steady state, not the tail of the create
	// phase: a reconcile queued then may still be running from an older
	// copy. Start it once every Thing has finished two more reconciles,
	// the second of which started after the first had finished.
	settled := map[types.NamespacedName]int{}
	for i := range benchN {
		nn := types.NamespacedName{Namespace: ns, Name: fmt.Sprintf("thing-%03d", i)}
		settled[nn] = recs.finishedOf(nn) + 2
	}
	benchWait(b, name+": two more reconciles of every Thing", time.Minute, func() bool {
		for nn, n := range settled {
			if recs.finishedOf(nn) < n {
				return false
			}
		}
		return true
	})

	before := map[string]string{}
	for _, th := range listThings(b, cp.Client, ns) {
		before[th.Name] = th.ResourceVersion
	}
	recs0 := recs.started.Load()
	rc.start()
	t0 := time.Now()
	// The measurement window: requests and reconciles are counted over
	// benchPolls poll intervals of wall time. This sleep is what is
	// measured, not a wait for something to happen.
	time.Sleep(benchPolls * benchPoll)
	res.requests = rc.stop()
	res.window, res.windowRecs = time.Since(t0), recs.started.Load()-recs0
	items := listThings(b, cp.Client, ns)
	for _, th := range items {
		if before[th.Name] != th.ResourceVersion {
			res.rvBumps++
		}
	}
	res.observedGenSet = items[0].Status.ObservedGeneration == items[0].Generation

	// Correctness: what kstatus says of each outcome.
	key := func(i int) string { return fmt.Sprintf("%s/thing-%03d", ns, i) }
	get := func(i int) *v1alpha1.Thing {
		th := &v1alpha1.Thing{}
		if err := cp.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: fmt.Sprintf("thing-%03d", i)}, th); err != nil {
			b.Fatal(err)
		}
		return th
	}
	st.setObserveErr(key(1), fmt.Errorf("connection reset by peer"))
	st.setObserveErr(key(2), Stalled("AuthenticationFailed", fmt.Errorf("credentials refused")))
	benchWait(b, name+": errors reported", time.Minute, func() bool {
		return get(1).Status.GetCondition(xpv2.TypeSynced).Reason == xpv2.ReasonReconcileError &&
			get(2).Status.GetCondition(xpv2.TypeSynced).Reason == xpv2.ReasonReconcileError
	})
	res.kstatus[outcomeConverged] = kstatusOf(b, get(0))
	res.kstatus[outcomeTransient] = kstatusOf(b, get(1))
	res.kstatus[outcomeStalled] = kstatusOf(b, get(2))
	// The server's answer to the spec update is the object at the moment
	// before any controller has observed the change.
	th := get(3)
	th.Spec.ForProvider.Value = "v2"
	if err := cp.Client.Update(context.Background(), th); err != nil {
		b.Fatal(err)
	}
	res.kstatus[outcomeSpecChanged] = kstatusOf(b, th)
	return res
}

const (
	outcomeConverged   = "converged"
	outcomeTransient   = "transient error (clears by itself)"
	outcomeStalled     = "stalled error (needs a human)"
	outcomeSpecChanged = "spec changed, not yet observed"
)

var wantKstatus = map[string]status.Status{
	outcomeConverged:   status.CurrentStatus,
	outcomeTransient:   status.InProgressStatus,
	outcomeStalled:     status.FailedStatus,
	outcomeSpecChanged: status.InProgressStatus,
}

func ratio(a, b float64) string {
	switch {
	case b == 0 && a == 0:
		return "-"
	case b == 0:
		return "∞ (ours 0)"
	}
	return fmt.Sprintf("%.1fx", a/b)
}

func printTables(w io.Writer, base, ours benchResult) {
	fmt.Fprintf(w, "\nSteady state: N=%d Things, poll %s, %d poll intervals measured after convergence (one run each, same API server and scripted external client)\n\n", benchN, benchPoll, benchPolls)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "metric\t%s\t%s\truntime/ours\n", base.name, ours.name)
	row := func(m string, a, b float64, f string) {
		fmt.Fprintf(tw, "%s\t"+f+"\t"+f+"\t%s\n", m, a, b, ratio(a, b))
	}
	row("status requests per poll (all N)", base.perPoll(base.statusRequests()), ours.perPoll(ours.statusRequests()), "%.1f")
	row("status requests per poll per MR", base.perPoll(base.statusRequests())/benchN, ours.perPoll(ours.statusRequests())/benchN, "%.2f")
	row("API requests per poll (all verbs)", base.perPoll(base.allRequests()), ours.perPoll(ours.allRequests()), "%.1f")
	row("resourceVersion bumps in window", float64(base.rvBumps), float64(ours.rvBumps), "%.0f")
	row("reconciles/s in steady state", float64(base.windowRecs)/base.window.Seconds(), float64(ours.windowRecs)/ours.window.Seconds(), "%.1f")
	row("time to converge N (s)", base.converge.Seconds(), ours.converge.Seconds(), "%.1f")
	row("reconciles to converge N", float64(base.convergeRecs), float64(ours.convergeRecs), "%.0f")
	union := maps.Clone(base.requests)
	maps.Copy(union, ours.requests)
	keys := slices.Sorted(maps.Keys(union))
	for _, k := range keys {
		row("  requests in window: "+k, float64(base.requests[k]), float64(ours.requests[k]), "%.0f")
	}
	fmt.Fprintf(tw, "top-level status.observedGeneration set\t%v\t%v\t\n", base.observedGenSet, ours.observedGenSet)
	_ = tw.Flush()

	fmt.Fprintf(w, "\nCorrectness: what kstatus.Compute (cli-utils v0.37.2) says of the MR\n\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "outcome\twant\t%s\t%s\n", base.name, ours.name)
	mark := func(got, want status.Status) string {
		if got == want {
			return string(got) + " ok"
		}
		return string(got) + " WRONG"
	}
	for _, o := range []string{outcomeConverged, outcomeTransient, outcomeStalled, outcomeSpecChanged} {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o, wantKstatus[o], mark(base.kstatus[o], wantKstatus[o]), mark(ours.kstatus[o], wantKstatus[o]))
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
}

// BenchmarkReconcilers runs crossplane-runtime's managed reconciler and ours
// side by side on the same MR kind, scripted external client and API server,
// and prints two tables: API requests in steady state, and what kstatus says
// of each outcome. It is one measured scenario, not a b.N loop: it takes
// well over the default benchtime, so the framework runs it once.
func BenchmarkReconcilers(b *testing.B) {
	base := runReconciler(b, "crossplane-runtime", runtimeReconciler)
	ours := runReconciler(b, "provider-git", ourReconciler)
	printTables(os.Stdout, base, ours)

	b.ReportMetric(base.perPoll(base.statusRequests()), "runtime-status-req/poll")
	b.ReportMetric(ours.perPoll(ours.statusRequests()), "ours-status-req/poll")
	for o, want := range wantKstatus {
		if ours.kstatus[o] != want {
			b.Errorf("ours: kstatus for %q: want %s, got %s", o, want, ours.kstatus[o])
		}
	}
	if ours.statusRequests() != 0 {
		b.Errorf("ours sent %d status requests in steady state, want 0", ours.statusRequests())
	}
}
