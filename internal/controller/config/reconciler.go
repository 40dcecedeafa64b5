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

package config

import (
	"context"
	"fmt"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/receiver"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/share"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// Reasons a configuration publishes besides those of the Resolver and spec.GitError.
const (
	ReasonInUse            xpv2.ConditionReason = "InUse"
	ReasonConnectionFailed xpv2.ConditionReason = "ConnectionFailed"
	ReasonUsageUnknown     xpv2.ConditionReason = "UsageUnknown"
	ReasonSigningKeyFailed xpv2.ConditionReason = "SigningKeyGenerationFailed"
)

const (
	finalizer = "in-use.crossplane.io"

	// checkTimeout bounds one ls-remote; a slower remote is reported as
	// unreachable (transient) and checked again.
	checkTimeout = 30 * time.Second
	// retryInterval is how soon a configuration whose check failed for a
	// reason that may clear by itself is checked again.
	retryInterval = 10 * time.Second

	errGet        = "cannot get the configuration"
	errListUsages = "cannot list ProviderConfigUsages"
	errFinalizer  = "cannot update the configuration's finalizers"
	errCheck      = "cannot reach the repository"
)

// A Reconciler publishes whether a configuration works: it resolves the
// credentials, asks the remote for its references (ls-remote) with them, and
// counts the managed resources that use it, blocking deletion while any do.
// Status goes through a session like every managed resource's: one patch
// per reconcile, none when nothing changed.
type Reconciler struct {
	client   client.Client
	resolver *Resolver
	// secrets watches the Secrets each configuration names.
	secrets  secretWatches
	cache    *git.Cache
	kind     configKind
	poll     time.Duration
	log      logging.Logger
	recorder record.EventRecorder
	metrics  *session.ConditionMetrics
	checks   checks
	// share, when set, is this replica's share of the repositories: a
	// configuration of a repository it does not hold is another
	// replica's to check; keys map configurations to repositories.
	share share.Share
	keys  share.Keys
	// hooks receives the forge events of configurations with a webhook
	// secret; nil: the provider serves no events.
	hooks *receiver.Registry
	// polls relaxes the check of a repository whose forge events arrive;
	// nil: every poll.
	polls pollIntervals
	// registrar keeps the webhooks of configurations that register their
	// events (spec.events.register).
	registrar *registrar
}

// Reconcile checks one configuration.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := r.log.WithValues("request", req)
	pc := r.kind.new()
	if err := r.client.Get(ctx, req.NamespacedName, pc); err != nil {
		if kerrors.IsNotFound(err) {
			r.metrics.Forget(r.kind.gvk.Kind, req.Namespace, req.Name)
			r.checks.forget(req.NamespacedName)
			r.secrets.Retain(r.owner(req.NamespacedName), nil)
			r.unhook(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, errors.Wrap(err, errGet)
	}
	if r.share != nil && !r.share.View().Holds(r.keys.Of(ctx, pc)) {
		// Queued before its repository moved to another replica, which
		// checks it and publishes its conditions. This one still
		// receives its forge events, so it watches the Secrets that
		// verify them.
		r.metrics.Forget(r.kind.gvk.Kind, req.Namespace, req.Name)
		r.checks.forget(req.NamespacedName)
		r.hookOnly(ctx, pc)
		return reconcile.Result{}, nil
	}
	// Watched before they are read: a Secret created or fixed from now on
	// wakes this configuration.
	r.secrets.Retain(r.owner(req.NamespacedName), secretsOf(pc))
	kind := r.kind.gvk.Kind
	s := session.Begin(r.client, pc, session.WithRecorder(r.recorder), session.WithMetrics(r.metrics, kind), session.WithLogger(log))
	rd := session.NewReadiness(session.ReasonSucceeded, readyMessage(pc, false), kind+" is not stalled")
	cadence, empty := r.check(ctx, s, pc, rd)
	if empty && rd.Converged() {
		// Nothing was contributed: the same verdict, saying the repository
		// is empty (the state a forge creates it in, not a fault).
		rd = session.NewReadiness(session.ReasonSucceeded, readyMessage(pc, true), kind+" is not stalled")
	}
	s.ApplyReadiness(rd)
	r.setWriter(pc)
	if err := s.Commit(ctx); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: s.RequeueAfter(cadence)}, nil
}

// setWriter publishes which replica writes the configuration's repository:
// this one, which reconciles it only while it holds the repository. Without
// sharing nobody is named.
func (r *Reconciler) setWriter(pc configObject) {
	w := ""
	if r.share != nil {
		w = r.share.View().Self
	}
	switch c := pc.(type) {
	case *v1alpha1.ProviderConfig:
		c.Status.SetWriter(w)
	case *v1alpha1.ClusterProviderConfig:
		c.Status.SetWriter(w)
	}
}

// secretWatches is what the reconciler needs of package secrets' Cache: to
// say which Secrets a configuration reads, so only those are watched.
type secretWatches interface {
	Retain(owner string, keys []types.NamespacedName)
}

// owner names a configuration of the reconciler's kind to the Secret cache.
func (r *Reconciler) owner(nn types.NamespacedName) string {
	return ownerOf(r.kind.gvk.Kind, nn)
}

// ownerOf names the configuration of kind at nn in the hook Registry.
func ownerOf(kind string, nn types.NamespacedName) string {
	return kind + "/" + nn.String()
}

// check runs the gates in precedence order and returns when to come back,
// and whether the repository turned out to have no branch at all.
func (r *Reconciler) check(ctx context.Context, s *session.Session, pc configObject, rd *session.Readiness) (time.Duration, bool) {
	users, err := r.users(ctx, pc)
	if err != nil {
		rd.Progressing(corev1.ConditionUnknown, ReasonUsageUnknown, errors.Wrap(err, errListUsages).Error())
		return retryInterval, false
	}
	pc.SetUsers(users)

	if meta.WasDeleted(pc) {
		if users > 0 {
			// The usage watch brings us back when the last user goes.
			rd.Progressing(corev1.ConditionFalse, ReasonInUse,
				fmt.Sprintf("deletion is blocked while %d managed resources use this %s", users, r.kind.gvk.Kind))
			return r.poll, false
		}
		if meta.FinalizerExists(pc, finalizer) {
			r.unregister(ctx, pc)
			meta.RemoveFinalizer(pc, finalizer)
			if err := r.client.Update(ctx, pc); err != nil {
				rd.Progressing(corev1.ConditionUnknown, xpv2.ReasonDeleting, errors.Wrap(err, errFinalizer).Error())
				return retryInterval, false
			}
			s.MetadataWritten()
		}
		rd.Progressing(corev1.ConditionFalse, xpv2.ReasonDeleting, "no managed resource uses this "+r.kind.gvk.Kind)
		return 0, false
	}
	if !meta.FinalizerExists(pc, finalizer) {
		meta.AddFinalizer(pc, finalizer)
		if err := r.client.Update(ctx, pc); err != nil {
			rd.Progressing(corev1.ConditionUnknown, ReasonConnectionFailed, errors.Wrap(err, errFinalizer).Error())
			return retryInterval, false
		}
		s.MetadataWritten()
		pc.SetUsers(users)
	}

	if !r.signingKey(ctx, pc, rd) || !r.encryptionKeys(ctx, pc, rd) {
		return retryInterval, false
	}
	hookID := hookIDOf(pc)
	conn, fa, err := r.resolveAndHook(ctx, pc)
	if err == nil {
		r.register(ctx, s, pc, conn, fa, hookID)
	}
	// A reconcile caused by a usage change within half a poll of a good
	// check, with the same generation and credentials, can only repeat its
	// answer. Half: the poll's own reconcile must check again.
	key := client.ObjectKeyFromObject(pc)
	if err == nil && r.checks.fresh(key, pc.GetGeneration(), conn.Remote, r.poll/2) {
		return r.poll, r.checks.empty(key)
	}
	empty := false
	if err == nil {
		start := time.Now()
		if empty, err = r.ping(ctx, conn); err == nil {
			gen, remote, e := pc.GetGeneration(), conn.Remote, empty
			s.AfterPersist(func() { r.checks.remember(key, gen, remote, start, e) })
		}
	}
	if reason, ok := managed.StalledReason(err); ok {
		r.checks.forget(key)
		rd.Stalled(reason, err.Error())
		return r.poll, false
	}
	if err != nil && r.checks.tolerate(key) {
		r.log.Debug("Check failed once after a good one: not reported unless the retry fails too", "error", err)
		return min(retryInterval, r.poll), r.checks.empty(key)
	}
	if err != nil {
		rd.Progressing(corev1.ConditionUnknown, ReasonConnectionFailed, err.Error())
		return retryInterval, false
	}
	return r.poll, empty
}

// ping asks the remote for its references and reports whether it has no
// branch at all.
func (r *Reconciler) ping(ctx context.Context, conn *Connection) (bool, error) {
	repo, err := conn.Open(r.cache)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	// The drift poll asks the same remote every poll interval (relaxed
	// while forge events arrive): its answer, if fresher than one
	// interval, serves this check too.
	empty, err := repo.CheckWithin(ctx, r.pollOf(repo.ID()))
	return empty, errors.Wrap(spec.GitErrorBy(err, conn.Credentials), errCheck)
}

// users counts the ProviderConfigUsages naming pc. Usages of a namespaced
// ProviderConfig live in its namespace; a ClusterProviderConfig's anywhere.
func (r *Reconciler) users(ctx context.Context, pc configObject) (int64, error) {
	l := &v1alpha1.ProviderConfigUsageList{}
	opts := []client.ListOption{client.MatchingLabels{
		xpv2.LabelKeyProviderName: pc.GetName(),
		xpv2.LabelKeyProviderKind: r.kind.gvk.Kind,
	}}
	if ns := pc.GetNamespace(); ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	if err := r.client.List(ctx, l, opts...); err != nil {
		return 0, err
	}
	return int64(len(l.Items)), nil
}

// MessageEmpty ends the Ready message of a configuration whose repository
// has no branch yet: Ready, since the first write creates one.
const MessageEmpty = "repository is empty: it has no branch yet; the first Branch, File or CommitRequest creates its first commit"

// readyMessage says what a converged configuration proved.
func readyMessage(pc configObject, empty bool) string {
	v, _ := viewOf(pc) // pc is one of the two kinds: the reconciler made it.
	if empty {
		return "Repository connectivity validated for " + v.url + "; " + MessageEmpty
	}
	return "Repository connectivity validated for " + v.url
}
