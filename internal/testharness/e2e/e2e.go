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
	"flag"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/crossplane-contrib/provider-git/apis"
	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	gitcontroller "github.com/crossplane-contrib/provider-git/internal/controller"
	gitconfig "github.com/crossplane-contrib/provider-git/internal/controller/config"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// End-to-end tests: the provider's controllers run in-process against a real
// API server and real Git servers on loopback, wired as cmd/provider wires
// them (safe-start gate included).

const (
	// GitUser is the HTTP Git server's user, in every fixture's Secret.
	GitUser = "provider-git"
	// GitToken is GitUser's password.
	GitToken = "s3cret-t0ken"
	// Poll is short so drift in Git is corrected within a test's patience.
	Poll = 2 * time.Second
	// Window batches what a test creates at once into few commits.
	Window = 300 * time.Millisecond
	// DiscoveryRefresh bounds how often an unknown kind refreshes
	// discovery: a CRD a test installs later is served within it.
	DiscoveryRefresh = 500 * time.Millisecond
	// Workers per controller. A File's write no longer waits for its push,
	// so this no longer bounds what one commit collects.
	Workers = 100
)

// What Main started, for the tests of its package. Tests read them; only
// Main and StartProvider set them.
var (
	// Running is the provider started last.
	Running *Provider
	log     = logging.NewNopLogger()
	// CP is the control plane.
	CP *testenv.ControlPlane
	// GitRoot is the directory of HTTPGit's repositories.
	GitRoot string
	// HTTPGit is the smart HTTP Git server every fixture's repository is on.
	HTTPGit *testenv.HTTPServer
)

// Main is a test package's TestMain: it starts the control plane and the Git
// server, runs the package's tests and returns their exit code. Every test
// of such a package runs the controllers against both: -short (make unit)
// runs none of them.
func Main(m *testing.M) int { return MainWith(m, MainOptions{}) }

// MainOptions vary the control plane Main starts.
type MainOptions struct {
	// APIServerArgs are set on the kube-apiserver's command line.
	APIServerArgs map[string][]string
}

// MainWith is Main with a control plane started with o.
func MainWith(m *testing.M, o MainOptions) int {
	flag.Parse()
	if testing.Short() {
		fmt.Println("every test of this package needs a control plane and a Git server; skipped by -short")
		// Run none rather than return: a run of the testing package is
		// what go test caches, so make unit's next run neither links nor
		// runs this package again.
		if err := flag.Set("test.run", "^$"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}
	// E2E_LOG=<file> keeps the provider's debug log for a failing test.
	if path := os.Getenv("E2E_LOG"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close() // best effort at exit
		zl := zap.New(zap.WriteTo(f), zap.UseDevMode(true))
		ctrl.SetLogger(zl)
		log = logging.NewLogrLogger(zl)
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	var err error
	// client-go's whole scheme: Mirror tests create Deployments and
	// ReplicaSets, not only core objects.
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apis.AddToScheme} {
		if err := add(scheme); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if CP, err = testenv.StartControlPlane(testenv.ControlPlaneOptions{Scheme: scheme, APIServerArgs: o.APIServerArgs}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer CP.Stop() // best effort at exit
	if GitRoot, err = os.MkdirTemp("", "provider-git-e2e-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(GitRoot) // best effort at exit
	if HTTPGit, err = testenv.StartHTTPServer(GitRoot, GitUser, GitToken); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer HTTPGit.Close()
	defer removeProviderBinary()
	return m.Run()
}

// Provider is one running instance of the provider's controllers.
type Provider struct {
	cancel  context.CancelFunc
	done    chan error
	Cache   *git.Cache
	Watcher *watch.Watcher
	Mirrors *mirror.Sources
	// Client reads through the manager's cache: what the controllers see.
	Client client.Client
	// EventsURL is where the provider receives forge events (WithEvents),
	// on loopback; "" without.
	EventsURL string
}

// providerOptions vary how StartProvider runs the controllers.
type providerOptions struct {
	events     bool
	register   bool
	relaxed    time.Duration
	wrap       func(http.RoundTripper) http.RoundTripper
	gitMetrics *git.Metrics
	conditions *session.ConditionMetrics
	logger     *logr.Logger
	poll       time.Duration
	mirrorCfg  *rest.Config
	idle       time.Duration
	clock      clock.WithDelayedExecution
	gitClock   clock.Clock
	forges     map[forge.Type]forge.Opener
	rates      func(forge.Type) forge.Rate
	audit      *audit.Store
	auditWait  time.Duration
	admission  *admission.Store
	hook       *options.AttributionWebhook
}

// A ProviderOption varies how StartProvider runs the controllers.
type ProviderOption func(*providerOptions)

// WithTransport wraps the manager's API server transport (to count requests).
func WithTransport(wrap func(http.RoundTripper) http.RoundTripper) ProviderOption {
	return func(o *providerOptions) { o.wrap = wrap }
}

// WithGitMetrics records the Git engine's metrics on m.
func WithGitMetrics(m *git.Metrics) ProviderOption {
	return func(o *providerOptions) { o.gitMetrics = m }
}

// WithNewGitMetrics has the provider count into a fresh set of the Git
// engine's metrics, registered in the registry it returns.
func WithNewGitMetrics(t *testing.T) (ProviderOption, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	gm := git.NewMetrics()
	if err := gm.Register(reg); err != nil {
		t.Fatal(err)
	}
	return WithGitMetrics(gm), reg
}

// WithConditionMetrics publishes the resources' conditions on m.
func WithConditionMetrics(m *session.ConditionMetrics) ProviderOption {
	return func(o *providerOptions) { o.conditions = m }
}

// WithLogger logs the controllers and their manager to l.
func WithLogger(l logr.Logger) ProviderOption {
	return func(o *providerOptions) { o.logger = &l }
}

// WithPoll sets the poll interval (and the cap of a failing resource's
// backoff) instead of poll.
func WithPoll(d time.Duration) ProviderOption {
	return func(o *providerOptions) { o.poll = d }
}

// WithClock times the controllers' own delays (the usage debounce) by c.
func WithClock(c clock.WithDelayedExecution) ProviderOption {
	return func(o *providerOptions) { o.clock = c }
}

// WithGitClock runs the Git engine's commit windows on c.
func WithGitClock(c clock.Clock) ProviderOption {
	return func(o *providerOptions) { o.gitClock = c }
}

// WithMirrorIdentity makes Mirrors read objects as cfg's identity, as a
// provider whose ServiceAccount lacks some grant would.
func WithMirrorIdentity(cfg *rest.Config) ProviderOption {
	return func(o *providerOptions) { o.mirrorCfg = cfg }
}

// WithForges opens the forge API clients of PullRequests with forges.
func WithForges(forges map[forge.Type]forge.Opener) ProviderOption {
	return func(o *providerOptions) { o.forges = forges }
}

// WithForgeRate opens pull requests on every forge at r instead of the
// forge's own pace (GitHub's is 60 a minute): for tests that open many and
// are about something else than the pace.
func WithForgeRate(r forge.Rate) ProviderOption {
	return func(o *providerOptions) { o.rates = func(forge.Type) forge.Rate { return r } }
}

// WithAudit joins Mirrors' changes to the audit facts of store, waiting
// up to wait for them.
func WithAudit(store *audit.Store, wait time.Duration) ProviderOption {
	return func(o *providerOptions) { o.audit, o.auditWait = store, wait }
}

// WithAttributionWebhook keeps the ValidatingWebhookConfiguration h names in
// step with the Mirrors that want admission facts.
func WithAttributionWebhook(h options.AttributionWebhook) ProviderOption {
	return func(o *providerOptions) { o.hook = &h }
}

// WithAdmission joins Mirrors' changes to the admission facts of store
// (attribution Admission or Auto).
func WithAdmission(store *admission.Store) ProviderOption {
	return func(o *providerOptions) { o.admission = store }
}

// WithIdleTimeout closes clones unused for d (the engine's default is far
// longer than a test).
func WithIdleTimeout(d time.Duration) ProviderOption {
	return func(o *providerOptions) { o.idle = d }
}

// StartProvider runs the controllers with a Git cache in cacheDir (a new
// one when empty) until the test ends or stop is called.
func StartProvider(t *testing.T, cacheDir string, opts ...ProviderOption) *Provider {
	t.Helper()
	po := &providerOptions{poll: Poll}
	for _, o := range opts {
		o(po)
	}
	cfg := rest.CopyConfig(CP.Config)
	if po.wrap != nil {
		cfg.Wrap(po.wrap)
	}
	if cacheDir == "" {
		cacheDir = t.TempDir()
	}
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, apis.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	plog, mlog := log, ctrl.Log
	if po.logger != nil {
		plog, mlog = logging.NewLogrLogger(*po.logger), *po.logger
	}
	if po.conditions == nil {
		po.conditions = gitcontroller.NewConditionMetrics()
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Logger:                 mlog,
		Scheme:                 s,
		NewClient:              countReconciles,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Tests run one provider after another in one process, as a restart
		// would; controller names need only be unique within a manager.
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	gopts := []git.Option{git.WithCommitWindow(Window), git.WithMetrics(po.gitMetrics), git.WithClock(po.gitClock),
		git.WithCommitAPI(gitconfig.NewCommitAPIOpener(forge.NewPacer(clock.RealClock{})))}
	if po.idle > 0 {
		gopts = append(gopts, git.WithIdleTimeout(po.idle))
	}
	cache, err := git.NewCache(cacheDir, gopts...)
	if err != nil {
		t.Fatal(err)
	}
	w := watch.New(po.poll, plog, watch.WithRelaxedPoll(po.relaxed))
	if err := mgr.Add(w); err != nil {
		t.Fatal(err)
	}
	mirrorCfg := cfg
	if po.mirrorCfg != nil {
		mirrorCfg = po.mirrorCfg
	}
	// A denied access is asked again, and an unknown kind refreshes discovery,
	// within a second: a test that grants RBAC or installs a CRD later waits
	// for that, not for the defaults (30 s and 10 s).
	mirrors, err := mirrorcontroller.NewSources(mirrorCfg, w, plog, mirror.WithRecheckInterval(time.Second),
		mirror.WithDiscoveryRefreshInterval(DiscoveryRefresh))
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(mirrors); err != nil {
		t.Fatal(err)
	}
	o := options.Options{
		Watcher: w,
		Mirrors: mirrors,
		Options: controller.Options{
			Logger:                  plog,
			MaxConcurrentReconciles: Workers,
			PollInterval:            po.poll,
			GlobalRateLimiter:       ratelimiter.NewGlobal(1000),
			Gate:                    new(gate.Gate[schema.GroupVersionKind]),
		},
		Cache:                cache,
		AllowInsecureRemotes: true,
		PollJitter:           po.poll / 10,
		ConditionMetrics:     po.conditions,
		Clock:                po.clock,
		Forges:               po.forges,
		ForgeRates:           po.rates,
		Audit:                po.audit,
		AttributionWait:      po.auditWait,
		Admission:            po.admission,
		AttributionWebhook:   po.hook,
	}
	eventsURL := ""
	if po.events {
		eventsURL = serveEvents(t, mgr, &o)
		if po.register {
			o.EventsURL = eventsURL
		}
	}
	if err := customresourcesgate.Setup(mgr, o.Options); err != nil {
		t.Fatal(err)
	}
	if err := gitcontroller.SetupGated(mgr, o); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Provider{cancel: cancel, done: make(chan error, 1), Cache: cache, Watcher: w, Mirrors: mirrors, Client: mgr.GetClient(), EventsURL: eventsURL}
	go func() { p.done <- mgr.Start(ctx) }()
	t.Cleanup(p.Stop)
	Running = p
	return p
}

// Stop stops the controllers and closes their Git cache; the test's cleanup
// calls it too, so a test stops a provider early only to start another.
func (p *Provider) Stop() {
	if p.cancel == nil {
		return
	}
	p.cancel()
	<-p.done
	p.Cache.Close()
	p.cancel = nil
}
