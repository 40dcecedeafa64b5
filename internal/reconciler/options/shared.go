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

package options

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/share"
)

const errNotAList = "the scheme's list of the kind is not a list"

// shared are the options of a managed kind's reconciler when replicas share
// the repositories: its events filtered to the repositories this replica
// holds, what was queued before a handover not reconciled, and a source that
// enqueues the resources of repositories gained or lost. None without
// sharing.
func (o Options) shared(mgr ctrl.Manager, gvk schema.GroupVersionKind) []managed.ReconcilerOption {
	if o.Share == nil {
		return nil
	}
	keys := share.NewKeys(mgr.GetClient())
	return []managed.ReconcilerOption{
		managed.WithEventFilter(share.Filter(o.Share, keys)),
		managed.WithAdmission(share.Admit(o.Share, keys)),
		managed.WithSource(share.NewHandover(o.Share, keys, Lister(mgr, gvk))),
	}
}

// Lister lists every object of gvk through the manager's cache.
func Lister(mgr ctrl.Manager, gvk schema.GroupVersionKind) func(ctx context.Context) ([]client.Object, error) {
	return func(ctx context.Context) ([]client.Object, error) {
		ro, err := mgr.GetScheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err != nil {
			return nil, err
		}
		l, ok := ro.(client.ObjectList)
		if !ok {
			return nil, errors.New(errNotAList)
		}
		if err := mgr.GetClient().List(ctx, l); err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			return nil, err
		}
		out := make([]client.Object, 0, len(items))
		for _, it := range items {
			if co, ok := it.(client.Object); ok {
				out = append(out, co)
			}
		}
		return out, nil
	}
}
