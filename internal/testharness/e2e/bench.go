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
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/crossplane-contrib/provider-git/apis"
	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	gitcontroller "github.com/crossplane-contrib/provider-git/internal/controller"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Defaults of cmd/provider's flags.
const (
	DefaultRate   = 10
	DefaultPoll   = time.Minute
	DefaultWindow = git.DefaultCommitWindow
)

// BenchFlags are the provider's flags a benchmark sets.
type BenchFlags struct {
	Rate int
	Poll time.Duration
	// CrossplaneQPS limits the API client as crossplane-runtime's
	// LimitRESTConfig does (5x rate), not as cmd/provider does.
	CrossplaneQPS bool
	// Forges are the forge clients PullRequests use, as cmd/provider's
	// forges(); nil: none.
	Forges map[forge.Type]forge.Opener
	// Audit, when set, is the audit store Mirrors with attribution join
	// to, waiting up to AttributionWait (0: the default), counting on
	// AuditMetrics.
	Audit           *audit.Store
	AuditMetrics    *audit.Metrics
	AttributionWait time.Duration
	// Admission, when set, holds the admission webhook's facts Mirrors
	// with attribution Admission or Auto join (options.Options.Admission).
	Admission *admission.Store
	// Events serves forge events on loopback (BenchProvider.EventsURL),
	// as --events-bind-address does; RelaxedPoll is --events-relaxed-poll
	// (0: never relax).
	Events      bool
	RelaxedPoll time.Duration
	// ForgeRates paces PullRequest creates per forge type instead of
	// forge.RateOf (options.Options.ForgeRates); nil: forge.RateOf.
	ForgeRates func(forge.Type) forge.Rate
}

// apiCounter counts the provider's API requests, watches aside, in all and
// by verb and resource.
type apiCounter struct {
	next http.RoundTripper
	N    atomic.Int64
	mu   sync.Mutex
	by   map[string]int
}

func (c *apiCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if r.URL.Query().Get("watch") != "true" {
		c.N.Add(1)
		if _, what, ok := writeOf(r.Method, r.URL.Path); ok {
			if r.Method != http.MethodGet && resp != nil && resp.StatusCode >= http.StatusBadRequest {
				// A refused write (a conflict) is counted apart, as
				// WriteCounter does.
				what += " (" + http.StatusText(resp.StatusCode) + ")"
			}
			c.mu.Lock()
			if c.by == nil {
				c.by = map[string]int{}
			}
			c.by[what]++
			c.mu.Unlock()
		}
	}
	return resp, err
}

// Count is how many requests of what ("VERB resource") the counter saw.
func (c *apiCounter) Count(what string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.by[what]
}

// Breakdown is what the counter saw by verb and resource, on one line.
func (c *apiCounter) Breakdown() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c.by)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, c.by[k]))
	}
	return strings.Join(parts, ", ")
}

// BenchProvider is a provider started as cmd/provider starts it.
type BenchProvider struct {
	Reg   *prometheus.Registry
	API   *apiCounter
	Cache *git.Cache
	Dir   string // the cache's
	Stop  func()
	// EventsURL is where forge events are served (BenchFlags.Events).
	EventsURL string
}

// StartBenchProvider starts the controllers with f, as cmd/provider starts
// them, until the benchmark ends or Stop is called.
func StartBenchProvider(b *testing.B, f BenchFlags) *BenchProvider {
	b.Helper()
	bp := &BenchProvider{Reg: prometheus.NewRegistry(), API: &apiCounter{}}
	gm := git.NewMetrics()
	if err := gm.Register(bp.Reg); err != nil {
		b.Fatal(err)
	}
	cfg := options.LimitRESTConfig(CP.Config, f.Rate)
	if f.CrossplaneQPS {
		cfg = ratelimiter.LimitRESTConfig(CP.Config, f.Rate)
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { bp.API.next = rt; return bp.API })
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, apis.AddToScheme} {
		if err := add(s); err != nil {
			b.Fatal(err)
		}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: s, NewClient: countReconciles,
		Cache:   ctrlcache.Options{DefaultTransform: ctrlcache.TransformStripManagedFields()},
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		b.Fatal(err)
	}
	bp.Dir = b.TempDir()
	if bp.Cache, err = git.NewCache(bp.Dir, git.WithMetrics(gm)); err != nil {
		b.Fatal(err)
	}
	w := watch.New(f.Poll, log, watch.WithRelaxedPoll(f.RelaxedPoll))
	if err := mgr.Add(w); err != nil {
		b.Fatal(err)
	}
	o := options.Options{
		Watcher: w,
		Options: controller.Options{
			Logger: log, MaxConcurrentReconciles: f.Rate, PollInterval: f.Poll,
			GlobalRateLimiter: ratelimiter.NewGlobal(f.Rate), Gate: new(gate.Gate[schema.GroupVersionKind]),
		},
		Cache: bp.Cache, AllowInsecureRemotes: true, PollJitter: f.Poll / 10,
		ConditionMetrics: gitcontroller.NewConditionMetrics(), Forges: f.Forges, ForgeRates: f.ForgeRates,
		Audit: f.Audit, AuditMetrics: f.AuditMetrics, AttributionWait: f.AttributionWait, Admission: f.Admission,
	}
	if f.Events {
		bp.EventsURL = serveEvents(b, mgr, &o)
	}
	if err := customresourcesgate.Setup(mgr, o.Options); err != nil {
		b.Fatal(err)
	}
	if err := gitcontroller.SetupGated(mgr, o); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	bp.Stop = func() { once.Do(func() { cancel(); <-done; bp.Cache.Close() }) }
	b.Cleanup(bp.Stop)
	return bp
}

// BenchFixture is a namespace with a ProviderConfig "git" pointing at a new
// repository whose main holds files.
func BenchFixture(b *testing.B, files map[string]string) string {
	b.Helper()
	return BenchFixtureWindow(b, files, nil)
}

// BenchFixtureWindow is BenchFixture with the ProviderConfig's commit
// window (nil: the default).
func BenchFixtureWindow(b *testing.B, files map[string]string, window *time.Duration) string {
	b.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}
	if err := CP.Client.Create(ctx, ns); err != nil {
		b.Fatal(err)
	}
	name := ns.Name + ".git"
	seed := map[string]string{"README.md": "seed\n"}
	for p, c := range files {
		seed[p] = c
	}
	testenv.NewBareRepo(b, GitRoot, name, map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: seed}}})
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git-credentials"},
		StringData: map[string]string{"username": GitUser, "password": GitToken},
	}
	pc := &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git"},
		Spec: v1alpha1.ProviderConfigSpec{
			URL: HTTPGit.RepoURL(name),
			Credentials: v1alpha1.ProviderCredentials{
				Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: secret.Name},
			},
		},
	}
	if window != nil {
		pc.Spec.Commit.Window = &metav1.Duration{Duration: *window}
	}
	for _, o := range []client.Object{secret, pc} {
		if err := CP.Client.Create(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
	return ns.Name
}

// BenchN is the environment variable name as a positive number, or def.
func BenchN(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// MetricSum adds up every series of a counter family.
func MetricSum(b *testing.B, g prometheus.Gatherer, name string) float64 {
	b.Helper()
	mfs, err := g.Gather()
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}
