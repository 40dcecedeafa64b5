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

// Package config owns everything about ProviderConfig and
// ClusterProviderConfig: resolving one into a Git remote for managed
// resources, and the controllers that check it works, count its users and
// block deleting it while it is in use.
package config

import (
	"context"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrl "sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/share"
)

// Setup adds the ProviderConfig and ClusterProviderConfig controllers.
func Setup(mgr ctrl.Manager, o options.Options) error {
	for _, k := range []configKind{providerConfig, clusterProviderConfig} {
		if err := setup(mgr, o, k); err != nil {
			return err
		}
	}
	return nil
}

// Kinds are the kinds the configuration controllers watch, and so do the
// encryption wakes of the managed controllers (Wakes): a
// controller watching them starts once their CRDs are established, since a
// watch of a kind not served yet fails the controller's start.
func Kinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{v1alpha1.ProviderConfigGroupVersionKind,
		v1alpha1.ClusterProviderConfigGroupVersionKind, v1alpha1.ProviderConfigUsageGroupVersionKind}
}

// SetupGated registers Setup to run once the CRDs it watches are established
// (safe start: Crossplane may install a provider's CRDs after the provider).
func SetupGated(mgr ctrl.Manager, o options.Options) error {
	return o.SetupGated(mgr, Setup, Kinds()...)
}

func setup(mgr ctrl.Manager, o options.Options, k configKind) error {
	name := "config/" + strings.ToLower(k.gvk.GroupKind().String())
	r := &Reconciler{
		client:   mgr.GetClient(),
		resolver: NewResolver(mgr.GetClient(), o.Secrets, o.AllowInsecureRemotes),
		secrets:  o.Secrets,
		cache:    o.Cache,
		kind:     k,
		poll:     o.PollInterval,
		log:      o.Logger.WithValues("controller", name),
		recorder: mgr.GetEventRecorderFor(name), //nolint:staticcheck // the session takes a record.EventRecorder.
		metrics:  o.ConditionMetrics,
		share:    o.Share,
		keys:     share.NewKeys(mgr.GetClient()),
		hooks:    o.Events,
		// The clock is the real one unless a test steps o.Clock.
		registrar: newRegistrar(o.EventsURL, o.Forges, passive(o.Clock)),
	}
	r.registrar.kind = k.gvk.Kind
	if o.Events != nil {
		r.registrar.owners = o.Events.OwnerAt
	}
	if o.Watcher != nil {
		r.polls = o.Watcher
	}
	// Every replica reconciles every configuration, even with shared
	// repositories (no share.Filter): the one that does not hold its
	// repository only receives its forge events (hookOnly), since the
	// forge delivers to any replica. Configurations are few.
	b := builder.ControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(k.new(), builder.WithPredicates(managed.DesiredStateChanged()))
	if o.Share != nil {
		// A configuration whose repository moved here is checked, and
		// says who writes it, at once.
		b = b.WatchesRawSource(share.NewHandover(o.Share, r.keys, options.Lister(mgr, k.gvk)))
	}
	return b.
		Watches(&v1alpha1.ProviderConfigUsage{}, newDebounced(&resource.EnqueueRequestForProviderConfig{Kind: k.gvk.Kind}, UsageDebounce, o.Clock)).
		// Only the Secrets configurations name are watched, each by name
		// (package secrets): a watch of corev1.Secret would cache every
		// Secret of the cluster.
		WatchesRawSource(o.Secrets.Source(r.secretChanged)).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}

// secretChanged maps a watched Secret to the configurations that read it.
func (r *Reconciler) secretChanged(ctx context.Context, key types.NamespacedName) []reconcile.Request {
	return r.configsUsing(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})
}

// configsUsing maps a Secret to the configurations that read it, so a fixed
// Secret is checked at once instead of at the next poll.
func (r *Reconciler) configsUsing(ctx context.Context, o client.Object) []reconcile.Request {
	configs, err := r.kind.list(ctx, r.client, o.GetNamespace())
	if err != nil {
		return nil
	}
	secret := client.ObjectKeyFromObject(o)
	var reqs []reconcile.Request
	for _, pc := range configs {
		if v, err := viewOf(pc); err == nil && v.reads(secret) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(pc)})
		}
	}
	return reqs
}

// passive is c, or nil (the real clock) when c is nil: a nil
// WithDelayedExecution must not become a non-nil PassiveClock.
func passive(c clock.WithDelayedExecution) clock.PassiveClock {
	if c == nil {
		return nil
	}
	return c
}
