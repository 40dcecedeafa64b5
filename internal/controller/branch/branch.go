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

// Package branch is the controller of Branch: a branch that must exist.
package branch

import (
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/controller/options"
	"github.com/crossplane-contrib/provider-git/internal/controller/spec"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/managed"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

const (
	errTrackUsage = "cannot track ProviderConfig usage"
	errCache      = "cannot open the repository cache"
	errRefresh    = "cannot fetch from the repository"
	errHead       = "cannot read the branch head"
	errCreate     = "cannot create the branch"
	errDelete     = "cannot delete the branch"
	errSetName    = "cannot set the external name"
)

// Setup adds the Branch controller to mgr.
func Setup(mgr ctrl.Manager, o options.Options) error {
	name := managed.ControllerName(v1alpha1.BranchGroupVersionKind.GroupKind().String())
	r := managed.NewReconciler(mgr, resource.ManagedKind(v1alpha1.BranchGroupVersionKind),
		managed.WithTypedExternalConnector[*v1alpha1.Branch](&connector{
			kube:     mgr.GetClient(),
			usage:    resource.NewProviderConfigUsageTracker(mgr.GetClient(), &v1alpha1.ProviderConfigUsage{}),
			resolver: config.NewResolver(mgr.GetClient(), o.AllowInsecureRemotes),
			cache:    o.Cache,
			maxAge:   o.PollInterval,
		}),
		managed.WithInitializers(externalNameIsBranch(mgr.GetClient())),
		managed.WithDeterministicExternalName(true),
		// Git is consistent and the shared clone sees our own pushes at once:
		// no grace period is needed before a missing branch is created again.
		managed.WithCreationGracePeriod(0),
		managed.WithManagementPolicies(),
		managed.WithPollInterval(o.PollInterval),
		managed.WithPollJitter(o.PollInterval/10),
		managed.WithLogger(o.Logger.WithValues("controller", name)),
		managed.WithRecorder(mgr.GetEventRecorderFor(name)), //nolint:staticcheck // the session takes a record.EventRecorder.
		managed.WithConditionMetrics(o.ConditionMetrics),
	)
	return r.SetupWithManager(mgr, o.ForControllerRuntime(), o.GlobalRateLimiter)
}

// SetupGated adds the Branch controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o options.Options) error {
	o.Gate.Register(func() {
		if err := Setup(mgr, o); err != nil {
			mgr.GetLogger().Error(err, "cannot set up the Branch controller")
		}
	}, v1alpha1.BranchGroupVersionKind)
	return nil
}

// externalNameIsBranch names the external resource after the branch (not
// after the Kubernetes object), so `kubectl get managed` shows what exists in
// Git.
func externalNameIsBranch(kube client.Client) xpmanaged.InitializerFn {
	return func(ctx context.Context, mg resource.Managed) error {
		b, ok := mg.(*v1alpha1.Branch)
		if !ok || meta.GetExternalName(b) == b.Spec.ForProvider.Branch {
			return nil
		}
		meta.SetExternalName(b, b.Spec.ForProvider.Branch)
		return errors.Wrap(kube.Update(ctx, b), errSetName)
	}
}

type connector struct {
	kube     client.Client
	usage    *resource.ProviderConfigUsageTracker
	resolver *config.Resolver
	cache    *git.Cache
	maxAge   time.Duration
}

// Connect resolves the Branch's configuration into the shared clone of its
// repository; it does not touch the network.
func (c *connector) Connect(ctx context.Context, mg *v1alpha1.Branch) (xpmanaged.TypedExternalClient[*v1alpha1.Branch], error) {
	if err := c.usage.Track(ctx, mg); err != nil {
		return nil, errors.Wrap(err, errTrackUsage)
	}
	conn, err := c.resolver.ForManaged(ctx, mg)
	if err != nil {
		return nil, err
	}
	repo, err := conn.Open(c.cache)
	if err != nil {
		return nil, errors.Wrap(err, errCache)
	}
	return &external{repo: repo, maxAge: c.maxAge}, nil
}

type external struct {
	repo   *git.Repository
	maxAge time.Duration
}

// Observe reads the branch head from the shared clone, after a fetch that N
// Branches of one repository share.
func (e *external) Observe(ctx context.Context, mg *v1alpha1.Branch) (xpmanaged.ExternalObservation, error) {
	branch := mg.Spec.ForProvider.Branch
	if err := validate.BranchName(branch); err != nil {
		return xpmanaged.ExternalObservation{}, spec.Invalid(err)
	}
	if err := e.repo.Refresh(ctx, e.maxAge, branch); err != nil && git.KindOf(err) != git.KindBranchNotFound {
		return xpmanaged.ExternalObservation{}, errors.Wrap(config.GitError(err), errRefresh)
	}
	head, err := e.repo.Head(branch)
	if git.KindOf(err) == git.KindBranchNotFound {
		return xpmanaged.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return xpmanaged.ExternalObservation{}, errors.Wrap(config.GitError(err), errHead)
	}
	mg.Status.AtProvider.Commit = head
	// A branch that exists is what a Branch asks for; `from` only matters
	// when it is created.
	return xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
}

// Create creates the branch from spec.forProvider.from (the repository's
// default branch when empty).
func (e *external) Create(ctx context.Context, mg *v1alpha1.Branch) (xpmanaged.ExternalCreation, error) {
	from := mg.Spec.ForProvider.From
	if from == "" {
		d, err := e.repo.DefaultBranch(ctx)
		if err != nil {
			return xpmanaged.ExternalCreation{}, errors.Wrap(config.GitError(err), errCreate)
		}
		from = d
	}
	res := e.repo.CreateBranch(ctx, mg.Spec.ForProvider.Branch, from)
	if res.Err != nil {
		return xpmanaged.ExternalCreation{}, errors.Wrap(config.GitError(res.Err), errCreate)
	}
	mg.Status.AtProvider.Commit = res.Commit
	return xpmanaged.ExternalCreation{}, nil
}

// Update has nothing to do: an existing branch is up to date.
func (e *external) Update(_ context.Context, _ *v1alpha1.Branch) (xpmanaged.ExternalUpdate, error) {
	return xpmanaged.ExternalUpdate{}, nil
}

// Delete deletes the remote branch. A management policy without Delete never
// gets here: the branch is left in place.
func (e *external) Delete(ctx context.Context, mg *v1alpha1.Branch) (xpmanaged.ExternalDelete, error) {
	res := e.repo.DeleteBranch(ctx, mg.Spec.ForProvider.Branch)
	return xpmanaged.ExternalDelete{}, errors.Wrap(config.GitError(res.Err), errDelete)
}

// Disconnect keeps the clone: it is shared and cached across reconciles.
func (e *external) Disconnect(_ context.Context) error { return nil }
