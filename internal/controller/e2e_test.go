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

package controller_test

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
	gitcontroller "github.com/crossplane-contrib/provider-git/internal/controller"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/controller/options"
	"github.com/crossplane-contrib/provider-git/internal/controller/watch"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/session"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

// End-to-end tests: the provider's controllers run in-process against a real
// API server and real Git servers on loopback, wired as cmd/provider wires
// them (safe-start gate included).

const (
	gitUser  = "provider-git"
	gitToken = "s3cret-t0ken"
	// poll is short so drift in Git is corrected within a test's patience.
	poll = 2 * time.Second
	// window batches what a test creates at once into few commits.
	window = 300 * time.Millisecond
	// workers per controller. A File's write no longer waits for its push,
	// so this no longer bounds what one commit collects.
	workers = 100
)

var (
	// running is the provider started last.
	running *provider
	log     = logging.NewNopLogger()
	cp      *testenv.ControlPlane
	gitRoot string
	httpGit *testenv.HTTPServer
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// Every test here runs the controllers against a control plane and a Git
	// server: -short (make unit) runs none of them.
	flag.Parse()
	if testing.Short() {
		fmt.Println("internal/controller: every test needs a control plane and a Git server; skipped by -short")
		return 0
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
	if cp, err = testenv.StartControlPlane(testenv.ControlPlaneOptions{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cp.Stop() // best effort at exit
	if gitRoot, err = os.MkdirTemp("", "provider-git-e2e-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(gitRoot) // best effort at exit
	if httpGit, err = testenv.StartHTTPServer(gitRoot, gitUser, gitToken); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer httpGit.Close()
	defer removeProviderBinary()
	return m.Run()
}

// provider is one running instance of the provider's controllers.
type provider struct {
	cancel  context.CancelFunc
	done    chan error
	cache   *git.Cache
	watcher *watch.Watcher
	mirrors *mirror.Sources
	// client reads through the manager's cache: what the controllers see.
	client client.Client
}

// providerOptions vary how startProvider runs the controllers.
type providerOptions struct {
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
}

// A providerOption varies how startProvider runs the controllers.
type providerOption func(*providerOptions)

// withTransport wraps the manager's API server transport (to count requests).
func withTransport(wrap func(http.RoundTripper) http.RoundTripper) providerOption {
	return func(o *providerOptions) { o.wrap = wrap }
}

// withGitMetrics records the Git engine's metrics on m.
func withGitMetrics(m *git.Metrics) providerOption {
	return func(o *providerOptions) { o.gitMetrics = m }
}

// withNewGitMetrics has the provider count into a fresh set of the Git
// engine's metrics, registered in the registry it returns.
func withNewGitMetrics(t *testing.T) (providerOption, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	gm := git.NewMetrics()
	if err := gm.Register(reg); err != nil {
		t.Fatal(err)
	}
	return withGitMetrics(gm), reg
}

// withConditionMetrics publishes the resources' conditions on m.
func withConditionMetrics(m *session.ConditionMetrics) providerOption {
	return func(o *providerOptions) { o.conditions = m }
}

// withLogger logs the controllers and their manager to l.
func withLogger(l logr.Logger) providerOption {
	return func(o *providerOptions) { o.logger = &l }
}

// withPoll sets the poll interval (and the cap of a failing resource's
// backoff) instead of poll.
func withPoll(d time.Duration) providerOption {
	return func(o *providerOptions) { o.poll = d }
}

// withClock times the controllers' own delays (the usage debounce) by c.
func withClock(c clock.WithDelayedExecution) providerOption {
	return func(o *providerOptions) { o.clock = c }
}

// withGitClock runs the Git engine's commit windows on c.
func withGitClock(c clock.Clock) providerOption {
	return func(o *providerOptions) { o.gitClock = c }
}

// withMirrorIdentity makes Mirrors read objects as cfg's identity, as a
// provider whose ServiceAccount lacks some grant would.
func withMirrorIdentity(cfg *rest.Config) providerOption {
	return func(o *providerOptions) { o.mirrorCfg = cfg }
}

// withForges opens the forge API clients of PullRequests with forges.
func withForges(forges map[forge.Type]forge.Opener) providerOption {
	return func(o *providerOptions) { o.forges = forges }
}

// withIdleTimeout closes clones unused for d (the engine's default is far
// longer than a test).
func withIdleTimeout(d time.Duration) providerOption {
	return func(o *providerOptions) { o.idle = d }
}

// startProvider runs the controllers with a Git cache in cacheDir (a new
// one when empty) until the test ends or stop is called.
func startProvider(t *testing.T, cacheDir string, opts ...providerOption) *provider {
	t.Helper()
	po := &providerOptions{poll: poll}
	for _, o := range opts {
		o(po)
	}
	cfg := rest.CopyConfig(cp.Config)
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
	gopts := []git.Option{git.WithCommitWindow(window), git.WithMetrics(po.gitMetrics), git.WithClock(po.gitClock)}
	if po.idle > 0 {
		gopts = append(gopts, git.WithIdleTimeout(po.idle))
	}
	cache, err := git.NewCache(cacheDir, gopts...)
	if err != nil {
		t.Fatal(err)
	}
	w := watch.New(po.poll, plog)
	if err := mgr.Add(w); err != nil {
		t.Fatal(err)
	}
	mirrorCfg := cfg
	if po.mirrorCfg != nil {
		mirrorCfg = po.mirrorCfg
	}
	mirrors, err := mirrorcontroller.NewSources(mirrorCfg, w, plog, mirror.WithRecheckInterval(time.Second))
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
			MaxConcurrentReconciles: workers,
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
	}
	if err := customresourcesgate.Setup(mgr, o.Options); err != nil {
		t.Fatal(err)
	}
	if err := gitcontroller.SetupGated(mgr, o); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &provider{cancel: cancel, done: make(chan error, 1), cache: cache, watcher: w, mirrors: mirrors, client: mgr.GetClient()}
	go func() { p.done <- mgr.Start(ctx) }()
	t.Cleanup(p.stop)
	running = p
	return p
}

func (p *provider) stop() {
	if p.cancel == nil {
		return
	}
	p.cancel()
	<-p.done
	p.cache.Close()
	p.cancel = nil
}
