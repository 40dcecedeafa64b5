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

// EncryptionWakes are event sources that enqueue the resources of kind that
// use a ProviderConfig or ClusterProviderConfig whose published encryption
// (status.encryption: the recipients and the public key) changed, and for
// which wants is true. A File or Mirror finds out for whom a Secret must be
// encrypted only when it is observed, and a converged one is not polled:
// without these, a recipient added to or removed from a configuration would
// reach Git only at the next resync. Users are found through their
// ProviderConfigUsages, from the cache.
func EncryptionWakes(c cache.Cache, kind string, wants func(context.Context, client.Reader, types.NamespacedName) bool) []source.Source {
	out := make([]source.Source, 0, 2)
	for _, k := range []configKind{providerConfig, clusterProviderConfig} {
		users := func(ctx context.Context, pc client.Object) []reconcile.Request {
			return usersOf(ctx, c, k, pc, kind, wants)
		}
		out = append(out, source.Kind[client.Object](c, k.new(), handler.EnqueueRequestsFromMapFunc(users),
			predicate.Funcs{
				CreateFunc:  func(event.CreateEvent) bool { return false },
				DeleteFunc:  func(event.DeleteEvent) bool { return false },
				GenericFunc: func(event.GenericEvent) bool { return false },
				UpdateFunc: func(e event.UpdateEvent) bool {
					return !equality.Semantic.DeepEqual(encryptionStatusOf(e.ObjectOld), encryptionStatusOf(e.ObjectNew))
				},
			}))
	}
	return out
}

// usersOf is every resource of kind that a ProviderConfigUsage records as
// using pc, of kind k, and that wants.
func usersOf(ctx context.Context, c client.Reader, k configKind, pc client.Object, kind string, wants func(context.Context, client.Reader, types.NamespacedName) bool) []reconcile.Request {
	l := &v1alpha1.ProviderConfigUsageList{}
	opts := []client.ListOption{client.MatchingLabels{
		xpv2.LabelKeyProviderName: pc.GetName(),
		xpv2.LabelKeyProviderKind: k.gvk.Kind,
	}}
	if ns := pc.GetNamespace(); ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	if err := c.List(ctx, l, opts...); err != nil {
		// The cache lists without a network call; it fails only when the
		// kind is not cached, and then there is nobody to wake.
		return nil
	}
	var out []reconcile.Request
	for _, u := range l.Items {
		ref := u.ResourceReference
		nn := types.NamespacedName{Namespace: u.GetNamespace(), Name: ref.Name}
		if ref.Kind == kind && wants(ctx, c, nn) {
			out = append(out, reconcile.Request{NamespacedName: nn})
		}
	}
	return out
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
