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

// Package options holds what every provider-git controller is set up with.
package options

import (
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/receiver"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/secrets"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/share"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
)

// Options are crossplane-runtime's controller options plus what provider-git
// shares between controllers: one Git cache per process, and one condition
// metric family.
type Options struct {
	controller.Options

	// Cache holds one local clone per repository, shared by every resource.
	Cache *git.Cache

	// AllowInsecureRemotes accepts http:// and file:// repository URLs.
	AllowInsecureRemotes bool

	// PollJitter spreads each resource's poll interval by up to this much
	// either way, so resources created together do not poll together.
	PollJitter time.Duration

	// Watcher wakes resources on Git events: a landed write, a drift found
	// by polling their repository. SetupGated in package controller makes
	// one when it is nil.
	Watcher *watch.Watcher
	// Claims finds two resources claiming one thing in Git. SetupGated in
	// package controller makes one when it is nil.
	Claims *claim.Index
	// Mirrors are the shared watches Mirrors read live objects from.
	// SetupGated in package controller makes them when nil.
	Mirrors *mirror.Sources
	// Secrets holds the Secrets configurations name, each watched by
	// name, and no other. SetupGated in package controller makes it when
	// nil.
	Secrets *secrets.Cache
	// ConditionMetrics publishes each object's Ready/Reconciling/Stalled.
	ConditionMetrics *session.ConditionMetrics
	// Clock times the controllers' own delays (a configuration's usage
	// debounce); nil: the real clock. Tests step a fake one. The Git
	// engine's commit windows go by the Cache's (git.WithClock).
	Clock clock.WithDelayedExecution
	// Forges open the API clients of the forges PullRequests reach, by
	// type; cmd/provider names the ones the binary carries, so the
	// controller imports none. A type without one is Stalled ForgeUnknown.
	Forges map[forge.Type]forge.Opener
	// Board shares the lists of open pull requests among the PullRequests
	// of a repository. SetupGated in package controller makes it when nil.
	Board *forge.Board
	// Events holds the hooks of the configurations with a webhook secret;
	// nil: none receives events. SetupGated in package controller makes
	// it, and serves it on EventsAddress, when that is set.
	Events *receiver.Registry
	// EventsAddress is where forge webhook deliveries are served (empty:
	// nowhere, unless Events is served by the caller).
	EventsAddress string
	// EventsURL is the events endpoint's external URL, which a
	// configuration with spec.events.register gives its forge; "": none
	// is registered.
	EventsURL string
	// EventsHolders, when replicas share the repositories, says which
	// one holds a repository: a delivery that reaches another is
	// forwarded to it (receiver.WithHolders). nil: every delivery acts
	// where it lands.
	EventsHolders receiver.Holders
	// EventsRelaxedPoll is how often a repository whose forge delivers
	// events is polled, from a verified event until none came for that
	// long; 0: always every PollInterval.
	EventsRelaxedPoll time.Duration
	// ForgeRates paces the pull requests opened on each forge type; nil:
	// forge.RateOf (GitHub's documented limit, a polite pace elsewhere).
	// Tests that open a hundred set a quicker one.
	ForgeRates func(forge.Type) forge.Rate

	// Audit holds the audit facts Mirrors with attribution: Audit join
	// their changes to (package audit); nil: no attribution, and such a
	// Mirror's changes are all authored unresolved after the wait.
	Audit *audit.Store
	// AuditMetrics counts the attributions (nil: none).
	AuditMetrics *audit.Metrics
	// Admission holds the admission webhook's facts Mirrors with
	// attribution Admission or Auto join (nil: none; those Mirrors author
	// what no audit fact names unresolved).
	Admission *admission.Store
	// AttributionWait is how long a change waits for the audit event that
	// names who made it; 0 takes the Mirror controller's default.
	AttributionWait time.Duration
	// AttributionWebhook, when set, is the ValidatingWebhookConfiguration
	// the Mirror controller keeps in step with the Mirrors whose
	// attribution wants admission facts; nil: none is kept.
	AttributionWebhook *AttributionWebhook

	// Share, when set, is this replica's share of the repositories: its
	// controllers reconcile only the objects of the repositories it holds
	// (package share). nil: this replica reconciles everything its cache
	// holds.
	Share share.Share
}

// AttributionWebhook names the ValidatingWebhookConfiguration of Mirror
// attribution and how the API server reaches the provider's admission
// endpoint.
type AttributionWebhook struct {
	// Name of the ValidatingWebhookConfiguration (cluster-scoped).
	Name string
	// ClientConfig is how the API server calls the endpoint: a Service (as
	// Crossplane creates one per provider) or a URL, with the CA bundle
	// that verifies the endpoint's certificate.
	ClientConfig admissionregistrationv1.WebhookClientConfig
	// Owner, when set, owns the configuration, so that it goes with the
	// provider (Crossplane's ProviderRevision).
	Owner *metav1.OwnerReference
}
