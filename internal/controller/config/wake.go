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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// errListUsers is logged when the users of a configuration could not all
// be found or read: those listed but not read are woken all the same.
const errListUsers = "cannot find every user of a configuration that changed"

// errWants says which user could not be read.
const errWantsFmt = "cannot tell whether %s needs waking"

// Wants reports whether the resource nn, read through c, needs waking. A
// resource that is gone does not (false, nil); one that cannot be read is
// an error.
type Wants func(ctx context.Context, c client.Reader, nn types.NamespacedName) (bool, error)

// Wakes are event sources that enqueue the resources of mrKind that
// use a ProviderConfig or ClusterProviderConfig when it changes: every user
// when its spec changes (a new generation: the repository, credentials, the
// author, a grant of namespaces or Secrets), and, for a change of its
// published encryption (status.encryption: the recipients and the public
// key), the users for which wants is true (none when wants is nil: a kind
// that writes no Secrets). A converged resource is not
// polled, and reads its configuration only when it is observed: without
// these, a grant added to a configuration would reach Git only at the next
// resync. Users are found through their ProviderConfigUsages in the cache;
// that costs a read of each user that wants is asked of, which is fine for
// events as rare as an edit of a configuration. Any other status write of a
// configuration (its users, its conditions) wakes nobody.
func Wakes(c cache.Cache, mrKind string, wants Wants, log logging.Logger) []source.Source {
	out := make([]source.Source, 0, 4)
	for _, cfgKind := range []configKind{providerConfig, clusterProviderConfig} {
		for _, w := range []struct {
			wants Wants
			p     predicate.Funcs
		}{{wants: everyone, p: specChanged()}, {wants: wants, p: encryptionChanged()}} {
			if w.wants == nil {
				continue
			}
			users := func(ctx context.Context, pc client.Object) []reconcile.Request {
				reqs, err := usersOf(ctx, c, cfgKind, pc, mrKind, w.wants)
				if err != nil {
					log.Info(errListUsers, "kind", cfgKind.gvk.Kind, "name", pc.GetName(), "namespace", pc.GetNamespace(), "error", err)
				}
				return reqs
			}
			out = append(out, source.Kind[client.Object](c, cfgKind.new(), handler.EnqueueRequestsFromMapFunc(users), w.p))
		}
	}
	return out
}

// everyone wants waking.
func everyone(context.Context, client.Reader, types.NamespacedName) (bool, error) { return true, nil }

// specChanged passes only updates that change a configuration's spec: the
// API server bumps the generation of a custom resource for nothing else.
func specChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration()
		},
	}
}

// encryptionChanged passes only updates that change a configuration's
// published encryption.
func encryptionChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return !equality.Semantic.DeepEqual(encryptionStatusOf(e.ObjectOld), encryptionStatusOf(e.ObjectNew))
		},
	}
}

// usersOf is every resource of mrKind that a ProviderConfigUsage records as
// using pc, of cfgKind, and that wants. A namespaced resource's usage is in
// its own namespace. A user that wants cannot read is woken too (its own
// reconcile reads it again), and the error is returned with the others.
func usersOf(ctx context.Context, c client.Reader, cfgKind configKind, pc client.Object, mrKind string, wants Wants) ([]reconcile.Request, error) {
	l := &v1alpha1.ProviderConfigUsageList{}
	opts := []client.ListOption{client.MatchingLabels{
		xpv2.LabelKeyProviderName: pc.GetName(),
		xpv2.LabelKeyProviderKind: cfgKind.gvk.Kind,
	}}
	if ns := pc.GetNamespace(); ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	if err := c.List(ctx, l, opts...); err != nil {
		return nil, errors.Wrap(err, errListUsages)
	}
	var out []reconcile.Request
	var errs []error
	for _, u := range l.Items {
		ref := u.ResourceReference
		if ref.Kind != mrKind {
			continue
		}
		nn := types.NamespacedName{Namespace: u.GetNamespace(), Name: ref.Name}
		want, err := wants(ctx, c, nn)
		if err != nil {
			errs = append(errs, errors.Wrapf(err, errWantsFmt, nn))
			want = true
		}
		if want {
			out = append(out, reconcile.Request{NamespacedName: nn})
		}
	}
	if len(errs) > 0 {
		return out, errors.Join(errs...)
	}
	return out, nil
}

// encryptionStatusOf is a configuration's published encryption.
func encryptionStatusOf(o client.Object) *v1alpha1.EncryptionStatus {
	switch pc := o.(type) {
	case *v1alpha1.ProviderConfig:
		return pc.Status.Encryption
	case *v1alpha1.ClusterProviderConfig:
		return pc.Status.Encryption
	}
	return nil
}
