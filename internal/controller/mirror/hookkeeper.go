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
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
)

const (
	errListMirrors = "cannot list the Mirrors to keep the attribution webhook in step"
	errGetHook     = "cannot get the attribution ValidatingWebhookConfiguration"
	errWriteHook   = "cannot write the attribution ValidatingWebhookConfiguration"
	errDeleteHook  = "cannot delete the attribution ValidatingWebhookConfiguration"
	errAddKeeper   = "cannot add the keeper of the attribution webhook to the manager"
	errScopeFmt    = "cannot tell what Mirror %s asks the attribution webhook to see"
)

// hookResync checks the configuration again this often without a change of
// a Mirror or a grant: a grant by a namespace's labels follows the labels.
const hookResync = 10 * time.Minute

// resolver names the resource a Mirror's kind is served as.
type resolver interface {
	Resolve(ctx context.Context, k mirror.Kind) (schema.GroupVersionResource, bool, error)
}

// hookKeeper keeps one ValidatingWebhookConfiguration in step with the
// Mirrors that want admission facts: the kinds and namespaces they read and
// are granted, nothing more. It is the provider's own object, not the one a
// package declares, which Crossplane's package manager writes back as the
// package has it. Every replica runs it: each computes the same
// configuration from the same Mirrors, and writes only a difference.
type hookKeeper struct {
	kube client.Client
	res  resolver
	hook options.AttributionWebhook
	log  logging.Logger
}

// setupHookKeeper adds the keeper to mgr; Mirrors, ClusterProviderConfigs
// (their grants) and the configuration itself wake it.
func setupHookKeeper(mgr ctrl.Manager, res resolver, hook options.AttributionWebhook, log logging.Logger) error {
	k := &hookKeeper{kube: mgr.GetClient(), res: res, hook: hook, log: log.WithValues("controller", "mirror-attribution-webhook")}
	one := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: hook.Name}}}
	})
	mine := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == hook.Name })
	err := builder.ControllerManagedBy(mgr).
		Named("mirror-attribution-webhook").
		Watches(&v1alpha1.Mirror{}, one, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&v1alpha1.ClusterProviderConfig{}, one, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&admissionregistrationv1.ValidatingWebhookConfiguration{}, one, builder.WithPredicates(mine)).
		Complete(k)
	return errors.Wrap(err, errAddKeeper)
}

// Reconcile writes the configuration the Mirrors want, deletes it when none
// wants one, and leaves it alone when it is as wanted.
func (k *hookKeeper) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	want, err := k.desired(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	cur := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	err = k.kube.Get(ctx, types.NamespacedName{Name: k.hook.Name}, cur)
	switch {
	case kerrors.IsNotFound(err) && len(want) == 0:
		return reconcile.Result{RequeueAfter: hookResync}, nil
	case kerrors.IsNotFound(err):
		cur = &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: k.hook.Name}, Webhooks: want}
		k.own(cur)
		return reconcile.Result{RequeueAfter: hookResync}, errors.Wrap(client.IgnoreAlreadyExists(k.kube.Create(ctx, cur)), errWriteHook)
	case err != nil:
		return reconcile.Result{}, errors.Wrap(err, errGetHook)
	case len(want) == 0:
		return reconcile.Result{RequeueAfter: hookResync}, errors.Wrap(client.IgnoreNotFound(k.kube.Delete(ctx, cur, client.Preconditions{UID: &cur.UID})), errDeleteHook)
	}
	owned := k.own(cur)
	if equality.Semantic.DeepEqual(cur.Webhooks, want) && !owned {
		return reconcile.Result{RequeueAfter: hookResync}, nil
	}
	k.log.Debug("Writing the attribution webhook configuration", "webhooks", len(want))
	cur.Webhooks = want
	// An update, not an apply: a conflict (another replica wrote it) is
	// retried on a fresh read, which then finds it as wanted.
	return reconcile.Result{RequeueAfter: hookResync}, errors.Wrap(k.kube.Update(ctx, cur), errWriteHook)
}

// own adds the configured owner to c, keeping any other; it reports whether
// it added one.
func (k *hookKeeper) own(c *admissionregistrationv1.ValidatingWebhookConfiguration) bool {
	if k.hook.Owner == nil {
		return false
	}
	for _, r := range c.OwnerReferences {
		if r.UID == k.hook.Owner.UID {
			return false
		}
	}
	c.OwnerReferences = append(c.OwnerReferences, *k.hook.Owner)
	return true
}

// desired are the webhooks the Mirrors that want admission facts ask for.
// A Mirror whose spec or grant is refused asks for nothing (its own
// reconcile says why), and neither does a kind the API server does not
// serve yet (a later resync or change adds it); any other failure is an
// error, and the configuration stays as it is.
func (k *hookKeeper) desired(ctx context.Context) ([]admissionregistrationv1.ValidatingWebhook, error) {
	l := &v1alpha1.MirrorList{}
	if err := k.kube.List(ctx, l); err != nil {
		return nil, errors.Wrap(err, errListMirrors)
	}
	var scopes []hookScope
	for i := range l.Items {
		m := &l.Items[i]
		if m.GetDeletionTimestamp() != nil || !wantsAdmission(m.Spec.ForProvider) {
			continue
		}
		s, err := k.scope(ctx, m)
		if _, refused := managed.StalledReason(err); refused {
			// Refused for good (an invalid spec, a grant it lacks): its
			// own reconcile says why, and it asks for nothing.
			k.log.Debug("A Mirror that wants admission facts asks for none", "mirror", nameOf(m), "error", err)
			continue
		}
		if err != nil {
			// A passing failure (discovery, a grant's namespace not read)
			// leaves the configuration as it is, retried with backoff:
			// written without this Mirror it would lose its facts.
			return nil, errors.Wrapf(err, errScopeFmt, nameOf(m))
		}
		scopes = append(scopes, s)
	}
	return desiredWebhooks(scopes, k.hook.ClientConfig), nil
}

// scope is what m reads, once its spec and its grant are checked as its
// own reconcile checks them.
func (k *hookKeeper) scope(ctx context.Context, m *v1alpha1.Mirror) (hookScope, error) {
	r, err := Request(m)
	if err != nil {
		return hookScope{}, err
	}
	if err := authorize(ctx, k.kube, m); err != nil {
		return hookScope{}, err
	}
	s := hookScope{namespaces: r.Namespaces}
	for _, kind := range r.Kinds {
		gvr, cluster, err := k.res.Resolve(ctx, kind)
		var missing *mirror.KindNotFoundError
		switch {
		case errors.As(err, &missing):
			continue
		case err != nil:
			return hookScope{}, err
		}
		switch {
		case !cluster:
			s.namespaced = append(s.namespaced, gvr)
		case r.ClusterScoped:
			s.cluster = append(s.cluster, gvr)
		}
	}
	return s, nil
}

// wantsAdmission reports whether a Mirror's attribution takes admission
// facts.
func wantsAdmission(p v1alpha1.MirrorParameters) bool {
	return p.Attribution == v1alpha1.MirrorAttributionAdmission || p.Attribution == v1alpha1.MirrorAttributionAuto
}
