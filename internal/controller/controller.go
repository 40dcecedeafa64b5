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

// Package controller wires every controller of provider-git into a manager.
package controller

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/branch"
	"github.com/crossplane-contrib/provider-git/internal/controller/commitrequest"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/controller/file"
	"github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/controller/pullrequest"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/receiver"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/secrets"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
)

const (
	errAddWatcher = "cannot add the Git watcher to the manager"
	errAddSources = "cannot add the Mirror watches to the manager"
	errAddSecrets = "cannot add the Secret cache to the manager"
	errClientset  = "cannot create the client Secrets are watched with"
	errAddEvents  = "cannot add the forge events endpoint to the manager"
	errEventsMetr = "cannot register the forge events metrics"
)

// serveEvents serves forge webhook deliveries on o.EventsAddress, acting
// through o's Watcher and Board, and makes o.Events for the
// configurations to publish their hooks in.
func serveEvents(mgr ctrl.Manager, o *options.Options) error {
	if o.EventsAddress == "" {
		return nil
	}
	if o.Events == nil {
		o.Events = receiver.NewRegistry()
	}
	log := o.Logger.WithValues("component", "forge-events")
	var ro []receiver.Option
	if o.EventsHolders != nil {
		ro = append(ro, receiver.WithHolders(o.EventsHolders, receiver.NewForwarder()))
	}
	rc := receiver.New(o.Events, o.Watcher, o.Board, log, ro...)
	if err := rc.Register(metrics.Registry); err != nil {
		return errors.Wrap(err, errEventsMetr)
	}
	o.Watcher.OnEventPolled(rc.EventPolled)
	return errors.Wrap(mgr.Add(receiver.NewServer(o.EventsAddress, rc, log)), errAddEvents)
}

// SetupGated registers every controller with o.Gate, so each one starts only
// once the CRDs it watches are established (the safe-start capability). The
// controllers share one watch.Watcher, made here unless o has one, which
// polls each repository in use once per o.PollInterval, one claim.Index and
// one set of Mirror watches (informers shared by every Mirror), and one
// cache of the Secrets configurations name, each made here unless o has it.
// The Watcher hears of every head that moves in o.Cache's clones.
func SetupGated(mgr ctrl.Manager, o options.Options) error {
	if o.Watcher == nil {
		o.Watcher = watch.New(o.PollInterval, o.Logger.WithValues("component", "git-watch"), watch.WithRelaxedPoll(o.EventsRelaxedPoll))
		if err := mgr.Add(o.Watcher); err != nil {
			return errors.Wrap(err, errAddWatcher)
		}
	}
	if o.Cache != nil {
		// Every head that moves in a clone, by a push of this provider or
		// a fetch, wakes what follows that branch (a PullRequest).
		o.Cache.OnHeadMove(o.Watcher.HeadMoved)
	}
	if o.Board == nil {
		o.Board = forge.NewBoard(clock.RealClock{})
	}
	if err := serveEvents(mgr, &o); err != nil {
		return err
	}
	if o.Claims == nil {
		o.Claims = claim.NewIndex(mgr.GetClient(), mgr.GetFieldIndexer())
	}
	if o.Mirrors == nil {
		src, err := mirror.NewSources(mgr.GetConfig(), o.Watcher, o.Logger)
		if err != nil {
			return err
		}
		if err := mgr.Add(src); err != nil {
			return errors.Wrap(err, errAddSources)
		}
		o.Mirrors = src
	}
	if o.Secrets == nil {
		cs, err := corev1client.NewForConfig(mgr.GetConfig())
		if err != nil {
			return errors.Wrap(err, errClientset)
		}
		o.Secrets = secrets.NewCache(cs, mgr.GetAPIReader())
		if err := mgr.Add(o.Secrets); err != nil {
			return errors.Wrap(err, errAddSecrets)
		}
	}
	for _, setup := range []func(ctrl.Manager, options.Options) error{
		config.SetupGated,
		branch.SetupGated,
		file.SetupGated, commitrequest.SetupGated,
		mirror.SetupGated,
		pullrequest.SetupGated,
	} {
		if err := setup(mgr, o); err != nil {
			return err
		}
	}
	return nil
}

// NewConditionMetrics returns the condition metrics of provider-git's kinds:
// the kinds a person declares one by one have series of their own besides
// the per-kind counts; Files and CommitRequests, one per file and one per
// commit, and any kind added later unless named here, are counted only.
func NewConditionMetrics() *session.ConditionMetrics {
	return session.NewConditionMetrics(session.OwnSeriesFor(v1alpha1.BranchKind, v1alpha1.MirrorKind,
		v1alpha1.ProviderConfigKind, v1alpha1.ClusterProviderConfigKind))
}
