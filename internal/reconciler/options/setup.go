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
	"time"

	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
)

const errSetName = "cannot set the external name"

// minPollInterval is the floor under a crossplane.io/poll-interval
// annotation: without one, "1ms" would make a resource query Git a thousand
// times a second.
const minPollInterval = time.Second

// SetupManaged adds our managed reconciler for gvk to mgr, with what every
// provider-git kind shares; opts (the connector first) add the kind's own.
func (o Options) SetupManaged(mgr ctrl.Manager, gvk schema.GroupVersionKind, opts ...managed.ReconcilerOption) error {
	name := managed.ControllerName(gvk.GroupKind().String())
	all := append([]managed.ReconcilerOption{
		// The shared clone sees our own pushes at once, and Git is
		// consistent: something missing right after its create was really
		// removed, and is written again without a grace period.
		managed.WithCreationGracePeriod(0),
		managed.WithManagementPolicies(),
		managed.WithPollInterval(o.PollInterval),
		managed.WithMinPollInterval(minPollInterval),
		managed.WithPollJitter(o.PollJitter),
		managed.WithLogger(o.Logger.WithValues("controller", name)),
		managed.WithRecorder(mgr.GetEventRecorderFor(name)), //nolint:staticcheck // the session takes a record.EventRecorder.
		managed.WithConditionMetrics(o.ConditionMetrics),
		managed.WithGone(o.forgetter(gvk.Kind)),
	}, opts...)
	all = append(all, o.shared(mgr, gvk)...)
	r := managed.NewReconciler(mgr, resource.ManagedKind(gvk), all...)
	return r.SetupWithManager(mgr, o.ForControllerRuntime(), o.GlobalRateLimiter)
}

// forgetter is the one gone-path of every kind: a resource gone for good
// (deleted, orphaned, or its finalizer removed by hand) leaves the drift
// index, so its repository is no longer polled for it and its clone can go
// idle, and the result of a write it handed to a branch writer is dropped.
func (o Options) forgetter(kind string) managed.ForgetterFn {
	return func(nn types.NamespacedName) {
		r := watch.Ref{Kind: kind, NamespacedName: nn}
		if o.Watcher != nil {
			o.Watcher.Forget(r)
		}
		if o.Cache != nil {
			o.Cache.DropResult(r.Key())
		}
	}
}

// SetupGated registers setup to run once the CRDs of gvks are established
// (safe start: Crossplane may keep a kind inactive until an activation
// policy enables it).
func (o Options) SetupGated(mgr ctrl.Manager, setup func(ctrl.Manager, Options) error, gvks ...schema.GroupVersionKind) error {
	o.Gate.Register(func() {
		if err := setup(mgr, o); err != nil {
			mgr.GetLogger().Error(err, "cannot set up a controller", "kinds", gvks)
		}
	}, gvks...)
	return nil
}

// ExternalNameFrom names a managed resource's external resource after what
// name returns (a branch, a path), not after the Kubernetes object, so
// `kubectl get managed` shows what exists in Git.
func ExternalNameFrom(kube client.Client, name func(resource.Managed) string) xpmanaged.InitializerFn {
	return func(ctx context.Context, mg resource.Managed) error {
		want := name(mg)
		if want == "" || meta.GetExternalName(mg) == want {
			return nil
		}
		meta.SetExternalName(mg, want)
		return errors.Wrap(kube.Update(ctx, mg), errSetName)
	}
}
