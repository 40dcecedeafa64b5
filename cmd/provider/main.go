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

// Command provider runs provider-git: the controllers that make Git
// repositories a Crossplane managed external system.
package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/crossplane-contrib/provider-git/apis"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	gitcontroller "github.com/crossplane-contrib/provider-git/internal/controller"
	gitconfig "github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/azure"
	"github.com/crossplane-contrib/provider-git/internal/forge/bitbucket"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitea"
	"github.com/crossplane-contrib/provider-git/internal/forge/github"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitlab"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/share"
)

// cacheOpened is told of the Git cache once it is open; tests set it to see
// that every exit path closes it.
var cacheOpened = func(*git.Cache) {}

func main() {
	// One exit, after run has returned and its deferred closes have run.
	kingpin.FatalIfError(run(ctrl.SetupSignalHandler(), os.Args[1:]), "")
}

// run runs the provider until ctx is done or something fails. Every failure
// is returned, not exited on, so the deferred Close of the Git cache runs on
// every path: its Close cancels the fetches and pushes in flight.
func run(ctx context.Context, args []string) error {
	var (
		app            = kingpin.New(filepath.Base(os.Args[0]), "Crossplane provider that manages Git repositories.").DefaultEnvars()
		debug          = app.Flag("debug", "Run with debug logging.").Short('d').Bool()
		leaderElection = app.Flag("leader-election", "Use leader election for the controller manager.").Short('l').Default("false").Bool()
		syncInterval   = app.Flag("sync", "How often all resources are re-listed from the API server (informer resync).").Short('s').Default("1h").Duration()
		pollInterval   = app.Flag("poll", "How often each repository in use is checked for drift (one ls-remote; a fetch and a tree diff only when a branch head moved, then only the resources at changed paths are reconciled).").Default("1m").Duration()
		pollJitter     = app.Flag("poll-jitter-percentage", "Spread of the poll interval, in percent, so resources created together do not poll together.").Default("10").Uint()
		maxReconcile   = app.Flag("max-reconcile-rate", "Bounds the API client's request rate (25x QPS, 50x burst), the workers per controller, and the ProviderConfig controller's reconciles per second.").Default("10").Int()
		metricsAddr    = app.Flag("metrics-bind-address", "The address the Prometheus metrics endpoint binds to.").Default(":8080").String()
		probeAddr      = app.Flag("health-probe-bind-address", "The address the health and readiness probes bind to.").Default(":8081").String()
		pprofAddr      = app.Flag("pprof-bind-address", "The address Go's pprof endpoints bind to, for profiling the provider's memory and CPU (empty: off).").Default("").String()
		cacheDir       = app.Flag("cache-dir", "Directory of the local Git clones, one per repository, shared by every resource.").Default(filepath.Join(os.TempDir(), "provider-git")).String()
		cloneIdle      = app.Flag("clone-idle-timeout", "How long a local clone no resource uses stays open before it is closed and its directory removed (0: never).").Default("10m").Duration()
		cloneMemory    = cloneMemoryFlag(app)
		cloneDepth     = app.Flag("clone-history-depth", "How many commits down each branch a local clone fetches; a search for a CommitRequest's commit that needs more fetches more (0: the whole history).").Default(strconv.Itoa(git.DefaultHistoryDepth)).Int()
		allowInsecure  = app.Flag("allow-insecure-remotes", "Accept http://, git:// and file:// repository URLs, and an http:// GitHub App API URL. For tests and the local default only: credentials would cross the network in clear text.").Default("false").Bool()

		eventsAddr     = app.Flag("events-bind-address", "The address forge webhook deliveries are served on, plain HTTP behind the cluster's ingress (empty: off). Each configuration with credentials.secretRef.webhookSecretKey receives at the path in its status.events.path.").Default("").String()
		eventsURL      = app.Flag("events-url", "The external URL the forge reaches --events-bind-address at (e.g. https://hooks.example.com), which configurations with spec.events.register give their forge's webhook, followed by their status.events.path. https:// (http:// only with --allow-insecure-remotes); empty: nothing is registered.").Default("").String()
		eventsRelaxed  = app.Flag("events-relaxed-poll", "How often a repository whose forge delivers events is polled: from a verified event until none came for that long, its drift poll, check and pull request listing relax from --poll to this (0: never relax).").Default("10m").Duration()
		auditAddr      = app.Flag("audit-webhook-bind-address", "The address the kube-apiserver audit webhook endpoint binds to, for Mirrors with attribution: Audit (empty: off).").Default("").String()
		auditSecret    = app.Flag("audit-webhook-secret", "namespace/name of a Secret with the audit endpoint's tls.crt and tls.key, and the ca.crt that signs the API server's client certificate or the token it sends (or both).").Default("").String()
		auditCert      = app.Flag("audit-webhook-cert-file", "The audit endpoint's serving certificate (PEM), instead of --audit-webhook-secret.").Default("").String()
		auditKey       = app.Flag("audit-webhook-key-file", "The audit endpoint's serving key (PEM).").Default("").String()
		auditCA        = app.Flag("audit-webhook-client-ca-file", "CA (PEM) that signs the API server's client certificate for the audit endpoint.").Default("").String()
		auditToken     = app.Flag("audit-webhook-token-file", "File holding the bearer token the API server sends to the audit endpoint.").Default("").String()
		auditNames     = app.Flag("audit-webhook-allowed-names", "Comma-separated client certificate common names the audit endpoint lets in; empty lets in any certificate the client CA signed. Set it when that CA signs other clients too (the cluster's CA signs every kubelet's).").Default("").String()
		auditReload    = app.Flag("audit-webhook-reload-interval", "How often, at most, the audit endpoint looks at its certificate, key, client CA and token (files or Secret) again; a rotation is in force within it, without a restart. At least 1s.").Default("10s").Duration()
		auditWait      = app.Flag("audit-attribution-wait", "How long a Mirror's change waits for the audit event that names who made it before it is authored 'unknown (attribution unresolved)'.").Default("3s").Duration()
		auditMaxBytes  = app.Flag("audit-store-max-bytes", "Bound of the audit facts kept in memory for attribution; the oldest are dropped past it.").Default("16777216").Int64()
		auditMaxAge    = app.Flag("audit-store-max-age", "How long an audit fact is kept at most.").Default("5m").Duration()
		watchSelector  = app.Flag("watch-label-selector", "Reconcile only the managed resources and (Cluster)ProviderConfigs whose labels match this selector (e.g. shard=a): a static shard. Empty: all of them.").Default("").String()
		shareRepos     = app.Flag("share-repositories", "Share the repositories with the other replicas running with this flag: each replica holds a Lease, every repository is written by one live replica (rendezvous hashing), and a replica that dies is replaced within a lease. Not with --leader-election.").Default("false").Bool()
		shareLease     = app.Flag("share-lease-duration", "How long a replica that stopped renewing its Lease still holds its repositories (--share-repositories). It renews every third of it.").Default("15s").Duration()
		podIP          = app.Flag("pod-ip", "This pod's IP (POD_IP, from the downward API). With --share-repositories and --events-bind-address, the replica publishes it and the events port on its Lease, and the others forward to it the forge deliveries for the repositories it holds. Empty: nothing is forwarded to this replica; it acts on its repositories' events only when the forge's delivery reaches it, and otherwise at its next poll.").Envar("POD_IP").Default("").String()
		shareNamespace = app.Flag("share-namespace", "Namespace of the replicas' Leases (--share-repositories).").Envar("POD_NAMESPACE").Default("crossplane-system").String()
		replicaName    = app.Flag("replica-name", "This replica's name, unique among the replicas: its Lease's, and in the User-Agent of its Git requests. Default: the pod's name (POD_NAME), else the host name.").Envar("POD_NAME").Default(hostname()).String()
	)
	admissionFlags, hookFlags := admissionFlagsOf(app), webhookConfigFlagsOf(app)
	if _, err := app.Parse(args); err != nil {
		return err
	}
	if err := checkAdmissionReplicas(*admissionFlags.addr, *shareRepos, *leaderElection); err != nil {
		return err
	}
	crossplaneCertificate(admissionFlags, os.Getenv)
	admissionPath, err := admissionPath(*hookFlags.path, *admissionFlags.key, *hookFlags.name != "")
	if err != nil {
		return err
	}
	hook, err := attributionWebhook(hookFlags, *admissionFlags.addr, admissionPath, os.Getenv)
	if err != nil {
		return err
	}
	selector, jitter, err := checkFlags(*pollInterval, *pollJitter, *watchSelector, *shareRepos, *leaderElection)
	if err != nil {
		return err
	}
	if err := checkReloadInterval(*auditReload); err != nil {
		return err
	}
	forwardAddr, err := checkEvents(*eventsURL, *eventsAddr, *podIP, *allowInsecure, *shareRepos)
	if err != nil {
		return err
	}

	level := zapcore.InfoLevel
	if *debug {
		level = zapcore.DebugLevel
	}
	zl := zap.New(zap.UseDevMode(*debug), zap.Level(level))
	ctrl.SetLogger(zl)
	log := logging.NewLogrLogger(zl.WithName("provider-git"))

	if err := os.MkdirAll(*cacheDir, 0o700); err != nil {
		return errors.Wrap(err, "cannot create the cache directory")
	}
	log.Info("Starting", "sync-interval", syncInterval.String(), "poll-interval", pollInterval.String(),
		"poll-jitter-percentage", *pollJitter, "max-reconcile-rate", *maxReconcile, "cache-dir", *cacheDir,
		"clone-idle-timeout", cloneIdle.String(), "clone-memory", cloneMemory.String(), "clone-history-depth", *cloneDepth, "allow-insecure-remotes", *allowInsecure,
		"watch-label-selector", selector.String(), "share-repositories", *shareRepos, "replica-name", *replicaName)

	cfg, err := ctrl.GetConfig()
	if err != nil {
		return errors.Wrap(err, "cannot get a Kubernetes API server config")
	}

	// The scheme is whole before the manager is made: a static shard's
	// cache options name provider-git's kinds.
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, apis.AddToScheme} {
		if err := add(scheme); err != nil {
			return errors.Wrap(err, "cannot build the scheme")
		}
	}
	mgr, err := ctrl.NewManager(options.LimitRESTConfig(cfg, *maxReconcile), ctrl.Options{
		Scheme: scheme,
		// Nothing reads managedFields; they are most of a cached File.
		// A static shard's cache holds its own resources only.
		Cache: cache.Options{SyncPeriod: syncInterval, DefaultTransform: cache.TransformStripManagedFields(), ByObject: gitcontroller.ShardCache(selector)},
		// A Secret is never read through the manager's cache: its first read
		// would list and watch every Secret of the cluster. Configurations'
		// Secrets are watched by name (package secrets); any other read,
		// such as a connection Secret's, goes to the API server.
		Client:                  client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
		LeaderElection:          *leaderElection,
		LeaderElectionID:        "crossplane-leader-election-provider-git",
		LeaseDuration:           func() *time.Duration { d := 60 * time.Second; return &d }(),
		RenewDeadline:           func() *time.Duration { d := 50 * time.Second; return &d }(),
		Metrics:                 metricsserver.Options{BindAddress: *metricsAddr},
		HealthProbeBindAddress:  *probeAddr,
		PprofBindAddress:        *pprofAddr,
		GracefulShutdownTimeout: func() *time.Duration { d := 30 * time.Second; return &d }(),
	})
	if err != nil {
		return errors.Wrap(err, "cannot create the controller manager")
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return errors.Wrap(err, "cannot add the health check")
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return errors.Wrap(err, "cannot add the readiness check")
	}

	gitMetrics := git.NewMetrics()
	if err := gitMetrics.Register(metrics.Registry); err != nil {
		return errors.Wrap(err, "cannot register the Git metrics")
	}
	conditions := gitcontroller.NewConditionMetrics()
	if err := metrics.Registry.Register(conditions); err != nil {
		return errors.Wrap(err, "cannot register the condition metrics")
	}
	gitOpts := []git.Option{git.WithMetrics(gitMetrics), git.WithIdleTimeout(*cloneIdle), git.WithCloneMemory(int64(*cloneMemory)), git.WithHistoryDepth(*cloneDepth), git.WithUserAgent("provider-git/" + *replicaName),
		git.WithCommitAPI(gitconfig.NewCommitAPIOpener(forge.NewPacer(clock.RealClock{})))}
	var member *share.Membership
	if *shareRepos {
		if member, err = joinShare(mgr, shareOptions{namespace: *shareNamespace, name: *replicaName, selector: selector.String(),
			lease: *shareLease, address: forwardAddr}, log); err != nil {
			return err
		}
		gitOpts = append(gitOpts, git.WithFence(member))
	}
	cache, err := git.NewCache(*cacheDir, gitOpts...)
	if err != nil {
		return errors.Wrap(err, "cannot open the Git cache")
	}
	defer cache.Close()
	cacheOpened(cache)

	auditMetrics := audit.NewMetrics()
	if err := auditMetrics.Register(metrics.Registry); err != nil {
		return errors.Wrap(err, "cannot register the audit metrics")
	}
	store := audit.NewStore(audit.WithMaxBytes(*auditMaxBytes), audit.WithMaxAge(*auditMaxAge), audit.WithMetrics(auditMetrics))
	if *auditAddr != "" {
		err := serveAudit(ctx, mgr, log, store, auditMetrics, *auditAddr, *auditSecret,
			audit.Files{Cert: *auditCert, Key: *auditKey, CA: *auditCA, Token: *auditToken}, *auditReload, *auditNames)
		if err != nil {
			return err
		}
		log.Info("Serving the audit webhook endpoint", "address", *auditAddr, "attribution-wait", auditWait.String())
	}
	admitted, err := startAdmission(ctx, mgr, log, admissionFlags, admissionPath)
	if err != nil {
		return err
	}

	o := options.Options{
		Options: controller.Options{
			Logger:                  log,
			MaxConcurrentReconciles: *maxReconcile,
			PollInterval:            *pollInterval,
			GlobalRateLimiter:       ratelimiter.NewGlobal(*maxReconcile),
			Gate:                    new(gate.Gate[schema.GroupVersionKind]),
		},
		Cache:                cache,
		AllowInsecureRemotes: *allowInsecure,
		PollJitter:           jitter,
		ConditionMetrics:     conditions,
		Forges:               forges(),
		Audit:                store,
		Admission:            admitted,
		AuditMetrics:         auditMetrics,
		AttributionWait:      *auditWait,
		AttributionWebhook:   hook,
		EventsAddress:        *eventsAddr,
		EventsRelaxedPoll:    *eventsRelaxed,
		EventsURL:            *eventsURL,
	}
	if member != nil {
		o.Share, o.EventsHolders = member, member
	}
	// Safe start: controllers are registered with the gate and start once their
	// CRD is established, because Crossplane v2 may keep a managed resource
	// kind inactive (no CRD) until an activation policy enables it.
	if err := customresourcesgate.Setup(mgr, o.Options); err != nil {
		return errors.Wrap(err, "cannot set up the CRD gate")
	}
	if err := gitcontroller.SetupGated(mgr, o); err != nil {
		return errors.Wrap(err, "cannot set up the controllers")
	}

	return errors.Wrap(errors.Wrap(mgr.Start(ctx), "manager stopped"), "cannot run the controller manager")
}

// serveAudit adds the audit endpoint on addr, feeding store, to mgr.
func serveAudit(ctx context.Context, mgr ctrl.Manager, log logging.Logger, store *audit.Store, m *audit.Metrics, addr, secret string, f audit.Files, reload time.Duration, names string) error {
	l := log.WithValues("component", "audit-webhook")
	creds, err := auditCredentials(ctx, mgr.GetAPIReader(), secret, f,
		audit.WithReloadInterval(reload), audit.WithReloadLogger(l), audit.WithReloadMetrics(m))
	if err != nil {
		return err
	}
	srv, err := audit.NewServer(addr, store, creds, audit.WithServerMetrics(m), audit.WithLogger(l), audit.WithAllowedNames(strings.Split(names, ",")...))
	if err != nil {
		return err
	}
	return errors.Wrap(mgr.Add(srv), "cannot add the audit endpoint to the manager")
}

// auditCredentials reads the audit endpoint's credentials from the Secret
// secret names (namespace/name), or else from files, and reads them again
// when they change (looking at most every o's interval): a rotation needs
// no restart.
func auditCredentials(ctx context.Context, c client.Reader, secret string, f audit.Files, o ...audit.ReloadOption) (audit.CredentialSource, error) {
	if secret == "" {
		if f.Cert == "" || f.Key == "" {
			return nil, errors.New("--audit-webhook-bind-address needs --audit-webhook-secret, or --audit-webhook-cert-file and --audit-webhook-key-file")
		}
		return audit.ReloadFiles(ctx, f, o...)
	}
	ns, name, ok := strings.Cut(secret, "/")
	if !ok || ns == "" || name == "" {
		return nil, errors.New("--audit-webhook-secret must be namespace/name")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return audit.ReloadSecret(ctx, c, types.NamespacedName{Namespace: ns, Name: name}, o...)
}

// forges are the forge API clients this binary carries, by type: the
// PullRequest controller opens them and imports none. A PullRequest on a
// forge not named here is Stalled ForgeUnknown. Forgejo serves Gitea's API.
func forges() map[forge.Type]forge.Opener {
	return map[forge.Type]forge.Opener{
		forge.GitHub:  github.New,
		forge.GitLab:  gitlab.New,
		forge.Gitea:   gitea.New,
		forge.Forgejo: gitea.New,

		forge.BitbucketCloud:      bitbucket.NewCloud,
		forge.BitbucketDataCenter: bitbucket.NewDataCenter,
		forge.AzureDevOps:         azure.New,
	}
}

// checkFlags refuses flags that contradict themselves or each other, before
// anything starts; it returns the watch label selector and the poll jitter.
func checkFlags(poll time.Duration, pollJitter uint, watchSelector string, shareRepos, leaderElection bool) (labels.Selector, time.Duration, error) {
	if pollJitter > 100 {
		return nil, 0, errors.New("--poll-jitter-percentage must be between 0 and 100")
	}
	selector, err := labels.Parse(watchSelector)
	if err != nil {
		return nil, 0, errors.Wrap(err, "--watch-label-selector is not a label selector")
	}
	if shareRepos && leaderElection {
		return nil, 0, errors.New("--share-repositories and --leader-election exclude each other: sharing is how every replica works at once")
	}
	return selector, poll * time.Duration(pollJitter) / 100, nil
}

// checkEvents checks the events flags (checkEventsURL) and returns where
// the other replicas forward deliveries to this one (forwardAddress).
func checkEvents(eventsURL, eventsAddr, podIP string, allowInsecure, shareRepos bool) (string, error) {
	if err := checkEventsURL(eventsURL, eventsAddr, allowInsecure); err != nil {
		return "", err
	}
	return forwardAddress(podIP, eventsAddr, shareRepos)
}

// checkEventsURL refuses an --events-url a forge could not be given: not
// absolute, carrying credentials, a query or a fragment, plain http without
// --allow-insecure-remotes, or set while no events are served.
func checkEventsURL(raw, addr string, allowInsecure bool) error {
	if raw == "" {
		return nil
	}
	if addr == "" {
		return errors.New("--events-url needs --events-bind-address: nothing would receive the deliveries")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
		return errors.Errorf("--events-url %q must be an absolute http(s) URL without credentials, query or fragment", raw)
	}
	if u.Scheme == "http" && !allowInsecure {
		return errors.Errorf("--events-url %q is http://: refused unless the provider runs with --allow-insecure-remotes", raw)
	}
	return nil
}

// checkReloadInterval refuses an audit reload interval below
// audit.MinReloadInterval: each look is a Secret Get, and 0 would be one
// per request to the endpoint.
func checkReloadInterval(d time.Duration) error {
	if d < audit.MinReloadInterval {
		return errors.Errorf("--audit-webhook-reload-interval must be at least %s, not %s", audit.MinReloadInterval, d)
	}
	return nil
}
