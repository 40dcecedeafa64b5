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

package mirror

import (
	"cmp"
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	kcache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
)

const (
	errNoSources   = "the Mirror controller needs options.Mirrors (package controller makes them)"
	errAddReleaser = "cannot add the Mirror releaser to the manager"
	errAddWaker    = "cannot add the waker of Files claiming a Mirror's folder to the manager"
	errGetInformer = "cannot get the Mirror informer"
	errAddHandler  = "cannot watch Mirror deletions"
	errDynamic     = "cannot create the dynamic client Mirrors read objects with"
	errClientset   = "cannot create the client Mirrors check their access with"
)

// Setup adds the Mirror controller to mgr. The shared watches (o.Mirrors)
// wake a Mirror when what its folder should hold changed; o.Watcher wakes
// it when a push it waits for landed, or when someone else changed its
// folder in Git. A converged Mirror is never polled on its own.
func Setup(mgr ctrl.Manager, o options.Options) error {
	if o.Mirrors == nil {
		return errors.New(errNoSources)
	}
	memo, refused := newSealedFiles(), newRefusals()
	store := o.Audit
	if store == nil {
		// Nothing feeds it: a Mirror with attribution: Audit finds no
		// facts, and its changes are authored unresolved after the wait.
		store = audit.NewStore()
	}
	var clk clock.PassiveClock = clock.RealClock{}
	if o.Clock != nil {
		clk = o.Clock
	}
	attr := attribution.NewAttributions(store, clk, cmp.Or(o.AttributionWait, attribution.DefaultWait), o.AuditMetrics)
	attr.SetWaker(o.Watcher.Source(v1alpha1.MirrorKind).Wake)
	attr.SetAdmission(o.Admission)
	if err := mgr.Add(&releaser{cache: mgr.GetCache(), src: o.Mirrors, memo: memo, refused: refused, attr: attr}); err != nil {
		return errors.Wrap(err, errAddReleaser)
	}
	if o.AttributionWebhook != nil {
		if err := setupHookKeeper(mgr, o.Mirrors, *o.AttributionWebhook, o.Logger); err != nil {
			return err
		}
	}
	if err := o.Claims.Register(context.Background(), claim.Mirror()); err != nil {
		return err
	}
	// A File in the folder that waits for this Mirror is woken when the
	// Mirror goes; the File controller cannot watch Mirrors itself (their
	// CRD may be established after it starts).
	files := o.Watcher.Source(v1alpha1.FileKind).Wake
	if err := mgr.Add(o.Claims.Waker(mgr.GetCache(), claim.Mirror(), claim.File(), files)); err != nil {
		return errors.Wrap(err, errAddWaker)
	}
	return o.SetupManaged(mgr, v1alpha1.MirrorGroupVersionKind,
		managed.WithTypedExternalConnector[*v1alpha1.Mirror](&connector{
			kube:    mgr.GetClient(),
			claims:  o.Claims,
			git:     config.NewConnector(mgr.GetClient(), o.Secrets, o.Cache, o.AllowInsecureRemotes),
			src:     o.Mirrors,
			watch:   o.Watcher,
			maxAge:  o.PollInterval,
			sealer:  encrypt.NewSealer(0),
			memo:    memo,
			refused: refused,
			attr:    attr,
		}),
		managed.WithInitializers(options.ExternalNameFrom(mgr.GetClient(), func(mg resource.Managed) string {
			m, _ := mg.(*v1alpha1.Mirror)
			return m.Spec.ForProvider.Path
		})),
		managed.WithDeterministicExternalName(true),
		managed.WithEventSource(o.Watcher.Source(v1alpha1.MirrorKind)),
		managed.WithEventSource(o.Claims.Source(mgr.GetCache(), claim.Mirror(), claim.Mirror())),
		// A change of its configuration's spec (a grant) is acted on at
		// once; its Secrets are encrypted again when the recipients change.
		managed.WithEventSource(config.Wakes(mgr.GetCache(), v1alpha1.MirrorKind, selectsSecrets, o.Logger)...),
	)
}

// selectsSecrets reports whether the Mirror nn, as cached, selects core
// Secrets. A Mirror that is gone selects none; one that cannot be read is
// an error (Wakes logs it and wakes the Mirror).
func selectsSecrets(ctx context.Context, c client.Reader, nn types.NamespacedName) (bool, error) {
	m := &v1alpha1.Mirror{}
	if err := c.Get(ctx, nn, m); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	for _, r := range m.Spec.ForProvider.Resources {
		if (r.APIVersion == "v1" && r.Kind == "Secret") || (ptr.Deref(r.Group, "") == "" && r.Resource == "secrets") {
			return true, nil
		}
	}
	return false, nil
}

// SetupGated adds the Mirror controller once its CRD, and those of the
// configurations it watches, are established.
func SetupGated(mgr ctrl.Manager, o options.Options) error {
	return o.SetupGated(mgr, Setup, append(config.Kinds(), v1alpha1.MirrorGroupVersionKind)...)
}

// NewSources returns the shared watches Mirrors read through, reading as
// the identity cfg names (the provider's own) and waking Mirrors through w.
func NewSources(cfg *rest.Config, w *watch.Watcher, log logging.Logger, o ...mirror.Option) (*mirror.Sources, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, errors.Wrap(err, errDynamic)
	}
	// The two typed clients it needs, not the whole clientset: that would
	// link a client of every API group into the binary.
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, errors.Wrap(err, errClientset)
	}
	authz, err := authorizationv1client.NewForConfig(cfg)
	if err != nil {
		return nil, errors.Wrap(err, errClientset)
	}
	wake := w.Source(v1alpha1.MirrorKind).Wake
	return mirror.NewSources(dyn, disc, authz.SelfSubjectAccessReviews(), wake,
		log.WithValues("component", "mirror-sources"), o...), nil
}

type connector struct {
	kube   client.Reader
	claims claims
	git    *config.Connector
	src    sources
	watch  tracker
	maxAge time.Duration
	// sealer outlives reconciles: a Secret whose write is still queued is
	// asked for with the same encrypted bytes at every observation.
	sealer *encrypt.Sealer
	// memo outlives reconciles: what the folder's blobs hold (sealed.go).
	memo *sealedFiles
	// refused outlives reconciles: each Mirror's last refused write.
	refused *refusals
	// attr outlives reconciles: the join of changes to audit facts.
	attr *attribution.Attributions
}

// Connect opens the shared clone of the Mirror's repository; it does not
// touch the network.
func (c *connector) Connect(ctx context.Context, mg *v1alpha1.Mirror) (xpmanaged.TypedExternalClient[*v1alpha1.Mirror], error) {
	repo, conn, err := c.git.Connect(ctx, mg)
	if err != nil {
		return nil, err
	}
	return &external{creds: conn.Credentials, kube: c.kube, claims: c.claims, repo: repo, src: c.src, watch: c.watch, author: conn.Author, window: &conn.Window, maxAge: c.maxAge,
		keys: conn.Keys, sealer: c.sealer, memo: c.memo, refused: c.refused, attr: c.attr}, nil
}

// releaser lets go of a Mirror's watches when the Mirror is gone, however
// it went: a management policy without Delete orphans the folder without
// an Observe, so Observe alone would leave its watches running.
type releaser struct {
	cache   cache.Informers
	src     sources
	memo    *sealedFiles
	refused *refusals
	attr    *attribution.Attributions
}

// Start watches Mirror deletions until ctx ends.
func (r *releaser) Start(ctx context.Context) error {
	inf, err := r.cache.GetInformer(ctx, &v1alpha1.Mirror{})
	if err != nil {
		return errors.Wrap(err, errGetInformer)
	}
	if _, err := inf.AddEventHandler(kcache.ResourceEventHandlerFuncs{DeleteFunc: r.deleted}); err != nil {
		return errors.Wrap(err, errAddHandler)
	}
	<-ctx.Done()
	return nil
}

func (r *releaser) deleted(obj any) {
	if d, ok := obj.(kcache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if m, ok := obj.(*v1alpha1.Mirror); ok {
		r.src.Release(types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()})
		r.memo.forget(keyOf(m))
		r.refused.set(keyOf(m), nil)
		r.attr.Forget(joinOf(m))
	}
}
