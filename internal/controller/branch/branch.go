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
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

const (
	errRefresh = "cannot fetch from the repository"
	errHead    = "cannot read the branch head"
	errCreate  = "cannot create the branch"
	errDelete  = "cannot delete the branch"
)

// Setup adds the Branch controller to mgr. Drift is found by o.Watcher's
// poll of the repository, which wakes a Branch whose head moved or vanished:
// a converged Branch is never polled on its own.
//
// Two Branches that may delete one branch of one repository do not share
// it: the later one is Stalled (claim.ReasonConflict) and takes over when the
// first goes, and deleting either while the other remains leaves the
// branch. Branches without Delete in their management policies share it.
func Setup(mgr ctrl.Manager, o options.Options) error {
	if err := o.Claims.Register(context.Background(), claim.Branch()); err != nil {
		return err
	}
	return o.SetupManaged(mgr, v1alpha1.BranchGroupVersionKind,
		managed.WithTypedExternalConnector[*v1alpha1.Branch](&connector{
			git:    config.NewConnector(mgr.GetClient(), o.Secrets, o.Cache, o.AllowInsecureRemotes),
			watch:  o.Watcher,
			claims: o.Claims,
			maxAge: o.PollInterval,
		}),
		managed.WithEventSource(o.Watcher.Source(v1alpha1.BranchKind)),
		managed.WithEventSource(o.Claims.Source(mgr.GetCache(), claim.Branch(), claim.Branch())),
		// A change of its configuration's spec (credentials, the
		// repository) is acted on at once, not at the next resync.
		managed.WithEventSource(config.Wakes(mgr.GetCache(), v1alpha1.BranchKind, nil, o.Logger)...),
		managed.WithInitializers(options.ExternalNameFrom(mgr.GetClient(), func(mg resource.Managed) string {
			b, _ := mg.(*v1alpha1.Branch)
			return b.Spec.ForProvider.Branch
		})),
		managed.WithDeterministicExternalName(true),
	)
}

// SetupGated adds the Branch controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o options.Options) error {
	return o.SetupGated(mgr, Setup, append(config.Kinds(), v1alpha1.BranchGroupVersionKind)...)
}

type connector struct {
	git    *config.Connector
	watch  tracker
	claims claims
	maxAge time.Duration
}

// claims is what a Branch needs of the claim index: whether another Branch
// holds its branch.
type claims interface {
	Check(ctx context.Context, k claim.Kind, o claim.Object) (letGo bool, err error)
}

// tracker is what a Branch needs of the watcher: to be woken when its head
// moves or vanishes.
type tracker interface {
	Track(repo watch.Repository, r watch.Ref, branch, path string)
	Forget(r watch.Ref)
}

// Connect opens the shared clone of the Branch's repository; it does not
// touch the network.
func (c *connector) Connect(ctx context.Context, mg *v1alpha1.Branch) (xpmanaged.TypedExternalClient[*v1alpha1.Branch], error) {
	repo, conn, err := c.git.Connect(ctx, mg)
	if err != nil {
		return nil, err
	}
	return &external{creds: conn.Credentials, repo: repo, author: conn.Author, watch: c.watch, claims: c.claims, maxAge: c.maxAge}, nil
}

// repository is what a Branch needs of the shared clone of its repository.
type repository interface {
	watch.Repository
	Refresh(ctx context.Context, maxAge time.Duration, branches ...string) error
	Head(branch string) (string, error)
	DefaultBranch(ctx context.Context) (string, error)
	CreateBranchAs(ctx context.Context, branch, from string, author git.Signature) git.Result
	DeleteBranch(ctx context.Context, branch string) git.Result
}

type external struct {
	// creds names the Secret and key the repository's credentials came
	// from, for a refusal to say which to fix.
	creds string
	repo  repository
	// author is the configuration's identity: it authors (and, signed,
	// commits) an empty repository's first commit.
	author git.Signature
	watch  tracker
	claims claims
	maxAge time.Duration
}

// Observe reads the branch head from the shared clone, after a fetch that N
// Branches of one repository share.
func (e *external) Observe(ctx context.Context, mg *v1alpha1.Branch) (xpmanaged.ExternalObservation, error) {
	branch := mg.Spec.ForProvider.Branch
	if err := validate.BranchName(branch); err != nil {
		return xpmanaged.ExternalObservation{}, spec.Invalid(err)
	}
	ref := watch.Ref{Kind: v1alpha1.BranchKind, NamespacedName: types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}}
	if letGo, err := e.claims.Check(ctx, claim.Branch(), mg); err != nil || letGo {
		// Held by a Branch created first: Conflict, nothing created. Being
		// deleted while another Branch keeps the branch: it stays.
		e.watch.Forget(ref)
		return xpmanaged.ExternalObservation{ResourceExists: false}, err
	}
	e.watch.Track(e.repo, ref, branch, "")
	if err := e.repo.Refresh(ctx, e.maxAge, branch); err != nil && git.KindOf(err) != git.KindBranchNotFound {
		return xpmanaged.ExternalObservation{}, errors.Wrap(spec.GitErrorBy(err, e.creds), errRefresh)
	}
	head, err := e.repo.Head(branch)
	if git.KindOf(err) == git.KindBranchNotFound {
		if meta.WasDeleted(mg) {
			e.watch.Forget(ref)
		}
		return xpmanaged.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return xpmanaged.ExternalObservation{}, errors.Wrap(spec.GitErrorBy(err, e.creds), errHead)
	}
	mg.Status.AtProvider.Commit = head
	// A branch that exists is what a Branch asks for; `from` only matters
	// when it is created.
	return xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
}

// Create creates the branch from spec.forProvider.from (the repository's
// default branch when empty). A repository with no branch at all has no
// default branch: there the engine, asked with no start point, creates the
// repository's first commit.
func (e *external) Create(ctx context.Context, mg *v1alpha1.Branch) (xpmanaged.ExternalCreation, error) {
	from := mg.Spec.ForProvider.From
	if from == "" {
		d, err := e.repo.DefaultBranch(ctx)
		if err != nil && !errors.Is(err, git.ErrEmptyRepository) {
			return xpmanaged.ExternalCreation{}, errors.Wrap(spec.GitErrorBy(err, e.creds), errCreate)
		}
		from = d
	}
	res := e.repo.CreateBranchAs(ctx, mg.Spec.ForProvider.Branch, from, e.author)
	if res.Err != nil {
		return xpmanaged.ExternalCreation{}, errors.Wrap(spec.GitErrorBy(res.Err, e.creds), errCreate)
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
	return xpmanaged.ExternalDelete{}, errors.Wrap(spec.GitErrorBy(res.Err, e.creds), errDelete)
}

// Disconnect keeps the clone: it is shared and cached across reconciles.
func (e *external) Disconnect(_ context.Context) error { return nil }
