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

// Package pullrequest is the controller of PullRequest: a pull request (a
// merge request on GitLab) from a head branch into a base branch, on the
// forge that hosts the configuration's repository.
package pullrequest

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
)

const (
	errNoOpenerFmt = "this provider has no client for the forge type %q"
	errOpen        = "cannot open the forge's API client"
)

// Setup adds the PullRequest controller to mgr. A PullRequest is polled at
// o.PollInterval; every PullRequest of one repository reads one shared list
// of its open pull requests (forge.Board), listed at most once per poll
// interval, so 100 open PullRequests cost one list request per poll (a 304
// on a forge with ETags), not 100. A PullRequest is woken at once when its
// head or base branch moves in the shared clone (a File pushed to its head,
// a commit a fetch brought), so its head commit, checks and mergeability
// follow the branch without waiting for the poll.
//
// Two PullRequests of one repository, head and base claim one pull
// request: the later one is Stalled (claim.ReasonConflict), never adopts
// it, and takes over when the first goes; the first deleted while the
// other remains leaves the pull request open.
func Setup(mgr ctrl.Manager, o options.Options) error {
	clk := clock.PassiveClock(clock.RealClock{})
	if o.Clock != nil {
		clk = o.Clock
	}
	if err := o.Claims.Register(context.Background(), claim.PullRequest()); err != nil {
		return err
	}
	return o.SetupManaged(mgr, v1alpha1.PullRequestGroupVersionKind,
		managed.WithTypedExternalConnector[*v1alpha1.PullRequest](NewConnector(
			config.NewConnector(mgr.GetClient(), o.Secrets, o.Cache, o.AllowInsecureRemotes),
			mgr.GetClient(), o.Forges, o.PollInterval, clk).WithWatcher(o.Watcher).WithRates(o.ForgeRates).WithClaims(o.Claims).WithBoard(o.Board)),
		// Woken when its branches move, and polled still: the forge's
		// side (a title edit, a merge, a close) is seen only by a poll.
		managed.WithWakeSource(o.Watcher.Source(v1alpha1.PullRequestKind)),
		managed.WithWakeSource(o.Claims.Source(mgr.GetCache(), claim.PullRequest(), claim.PullRequest())),
		// A change of its configuration's spec (the forge, credentials)
		// is acted on at once, not at the next poll.
		managed.WithWakeSource(config.Wakes(mgr.GetCache(), v1alpha1.PullRequestKind, nil, o.Logger)...),
		// The number is the external name, known once created or adopted:
		// a create is safe to retry, since Observe adopts an open pull
		// request for the same branches before Create is asked again.
		managed.WithInitializers(),
		managed.WithDeterministicExternalName(true),
	)
}

// SetupGated adds the PullRequest controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o options.Options) error {
	return o.SetupGated(mgr, Setup, append(config.Kinds(), v1alpha1.PullRequestGroupVersionKind)...)
}

// gitConnector is what a PullRequest needs of the configuration: its
// repository's clone (for the head branch and a GitHub App's token) and
// what it says of the forge.
type gitConnector interface {
	ConnectForge(ctx context.Context, mg *v1alpha1.PullRequest) (repository, config.Connection, config.ForgeAccess, error)
}

// repository is what a PullRequest needs of the shared clone.
type repository interface {
	watch.Repository
	Refresh(ctx context.Context, maxAge time.Duration, branches ...string) error
	Head(branch string) (string, error)
	AppToken() (func(ctx context.Context) (string, error), bool)
}

// gitAdapter adapts config.Connector to gitConnector.
type gitAdapter struct{ c *config.Connector }

func (g gitAdapter) ConnectForge(ctx context.Context, mg *v1alpha1.PullRequest) (repository, config.Connection, config.ForgeAccess, error) {
	repo, conn, fa, err := g.c.ConnectForge(ctx, mg)
	if err != nil {
		return nil, config.Connection{}, fa, err
	}
	return repo, *conn, fa, nil
}

// A Connector connects PullRequests to their forge. It outlives
// reconciles: it keeps one API client, one shared listing and one pace per
// forge account and repository.
type Connector struct {
	git    gitConnector
	kube   client.Reader
	forges map[forge.Type]forge.Opener
	maxAge time.Duration
	clock  clock.PassiveClock
	board  *forge.Board
	pacer  *forge.Pacer
	// watch wakes a PullRequest when its branches move; nil: only its
	// poll brings it back.
	watch follower
	// polls says how often a repository is polled now: longer while its
	// forge events arrive (watch.Watcher.PollInterval); nil: maxAge.
	polls interface {
		PollInterval(repo string) time.Duration
	}
	// rates is the pace of creates per forge type; nil: forge.RateOf.
	rates func(forge.Type) forge.Rate
	// claims holds PullRequests of one head and base apart; nil: none.
	claims claims

	// mu guards clients, keyOf and swept; never held across the network
	// (accounts.go).
	mu      sync.Mutex
	clients map[string]*account
	keyOf   map[string]string
	swept   time.Time
}

// account is one forge API client and what is learnt of it.
type account struct {
	client forge.Client
	// refused holds, by number, the head SHA at which the forge answered
	// AutoMerge with ErrUnsupported: the provider merges that pull request
	// itself at that head; others (and a new head) ask the forge again.
	refused sync.Map
	// waits holds, by resource (namespace/name), the last wait for a
	// missing branch: doubled from headRetry up to the poll interval.
	waits sync.Map
	// authWait is the last hold (nanoseconds) of the account for a refused
	// token: doubled from the poll interval up to maxAuthHold.
	authWait atomic.Int64
	// asked holds, by number, the head SHA auto-merge was asked for: a
	// forge that does not report a scheduled auto-merge (Gitea) is not
	// asked again at every poll, and is asked again once the head moved.
	asked sync.Map
	// lastUsed is when a PullRequest last connected through it, by the
	// Connector's clock; guarded by Connector.mu.
	lastUsed time.Time
	// seen holds, by number, the clone's head of the head branch the pull
	// request was last confirmed at (heads.go).
	seen sync.Map
}

// NewConnector returns a Connector reading configurations through g, Files
// (for a body's .Files) through kube, opening forge clients with forges.
func NewConnector(g *config.Connector, kube client.Reader, forges map[forge.Type]forge.Opener, maxAge time.Duration, clk clock.PassiveClock) *Connector {
	return newConnector(gitAdapter{c: g}, kube, forges, maxAge, clk)
}

func newConnector(g gitConnector, kube client.Reader, forges map[forge.Type]forge.Opener, maxAge time.Duration, clk clock.PassiveClock) *Connector {
	return &Connector{git: g, kube: kube, forges: forges, maxAge: maxAge, clock: clk,
		board: forge.NewBoard(clk), pacer: forge.NewPacer(clk), clients: map[string]*account{}, keyOf: map[string]string{}}
}

// WithBoard shares b's lists of open pull requests (forge events
// invalidate them); nil keeps the Connector's own.
func (c *Connector) WithBoard(b *forge.Board) *Connector {
	if b != nil {
		c.board = b
	}
	return c
}

// WithWatcher makes w wake each PullRequest when its head or base branch
// moves.
func (c *Connector) WithWatcher(w *watch.Watcher) *Connector {
	if w != nil {
		c.watch, c.polls = w, w
	}
	return c
}

// WithRates paces the creates of each forge type at rates(type) instead of
// forge.RateOf's; nil keeps forge.RateOf. Tests that open a hundred pull
// requests set a quicker pace than GitHub's 60 a minute.
func (c *Connector) WithRates(rates func(forge.Type) forge.Rate) *Connector {
	c.rates = rates
	return c
}

// WithClaims makes PullRequests claim their pull request (claim.Index):
// without, as in tests of one resource, nothing is claimed.
func (c *Connector) WithClaims(cl claims) *Connector {
	c.claims = cl
	return c
}

// claims is what a PullRequest needs of the claim index: whether another
// PullRequest holds its head and base.
type claims interface {
	Check(ctx context.Context, k claim.Kind, o claim.Object) (letGo bool, err error)
}

// Connect resolves the configuration and returns the forge account's
// client; it does not touch the network.
func (c *Connector) Connect(ctx context.Context, mg *v1alpha1.PullRequest) (xpmanaged.TypedExternalClient[*v1alpha1.PullRequest], error) {
	repo, conn, fa, err := c.git.ConnectForge(ctx, mg)
	if err != nil {
		return nil, err
	}
	cfg, key, err := fa.Config(conn.Remote, repo)
	if err != nil {
		return nil, err
	}
	acc, err := c.account(configOf(mg), cfg, key)
	if err != nil {
		return nil, err
	}
	// Forge events act on the clone of the configuration whose hook they
	// reached: its listings are those of that clone.
	maxAge := c.maxAge
	if c.polls != nil {
		// The forge's events invalidate the listing and wake what they
		// name: the polls are the safety net, relaxed while events come.
		maxAge = max(maxAge, c.polls.PollInterval(repo.ID()))
	}
	return &external{
		acc: acc, key: key, typ: cfg.Type, creds: conn.Credentials, apiCreds: fa.TokenFrom(conn.Credentials), repo: repo,
		listing: c.board.For(key, repo.ID(), acc.client, maxAge), pacer: c.pacer, clock: c.clock,
		kube: c.kube, maxAge: maxAge, watch: c.watch, rates: c.rates, claims: c.claims,
	}, nil
}

// numberOf is the pull request's number: the external name once it is
// one, else the one status recorded (an adoption whose name was not
// persisted yet); 0 when none is known.
func numberOf(mg *v1alpha1.PullRequest) int64 {
	if n, err := strconv.ParseInt(meta.GetExternalName(mg), 10, 64); err == nil && n > 0 {
		return n
	}
	return mg.Status.AtProvider.Number
}

// isBranchMissing reports a head branch the clone does not know.
func isBranchMissing(err error) bool { return git.KindOf(err) == git.KindBranchNotFound }
