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

// Package commitrequest is the controller of CommitRequest: one commit, with
// its own message, that lands exactly once.
//
// Exactly once rests on two records. status.atProvider.commit says the
// request landed. When a provider stops between the push and that status
// write, the commit's Provider-Git-UID trailer still names the request: the
// next Observe finds it in the branch's history and records it instead of
// pushing again. A request whose files already hold what it asks is recorded
// with the branch head as its commit: no empty commit is made.
package commitrequest

import (
	"context"
	"fmt"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// MaxWalk bounds the history searched for a request's commit after a
// restart. A request that landed more than MaxWalk commits below the head
// before its status was written would land again; 1000 commits is far more
// than a branch moves between a push and the status write that follows it.
// The engine's clones hold git.DefaultHistoryDepth commits (a little more),
// and deepen where a search needs more.
const MaxWalk = 1000

// Limits, the same as the CRD's.
const (
	maxFiles        = 256
	maxMessageBytes = 16384
)

// ReasonCommitting is Ready's reason while a request waits in its branch
// writer for the push that carries it.
const ReasonCommitting = "Committing"

const msgCommittingFmt = "Committing to branch %q; waiting for the push that carries it"

const (
	errRefresh     = "cannot fetch from the repository"
	errFind        = "cannot search the branch history for this request's commit"
	errLand        = "cannot land the commit"
	errLandFmt     = "cannot land the commit on branch %q"
	errMessage     = "spec.forProvider.message must be non-empty, at most 16384 bytes, without control characters other than newline and tab"
	errNoFiles     = "spec.forProvider.files must list between 1 and 256 files"
	errDupPathFmt  = "spec.forProvider.files lists %q more than once"
	errFileFmt     = "spec.forProvider.files[%d] (%s)"
	errDeleteAndIn = "delete: true excludes content and object"
	errNoBranchFmt = "branch %q does not exist yet (a Branch resource may still be creating it)"
)

// Setup adds the CommitRequest controller to mgr.
func Setup(mgr ctrl.Manager, o options.Options) error {
	return o.SetupManaged(mgr, v1alpha1.CommitRequestGroupVersionKind,
		managed.WithTypedExternalConnector[*v1alpha1.CommitRequest](&connector{
			git:    config.NewConnector(mgr.GetClient(), o.Secrets, o.Cache, o.AllowInsecureRemotes),
			wake:   o.Watcher,
			maxAge: o.PollInterval,
		}),
		// The external name is the commit SHA, known only once it landed:
		// no initializer names it after the object.
		managed.WithInitializers(),
		// A create whose outcome was never recorded is safe to retry: Observe
		// finds a landed request by its UID trailer first.
		managed.WithDeterministicExternalName(true),
		// One-shot requests come and go with every save: a series per
		// request would churn the condition metric without bound.
		managed.WithConditionMetrics(nil),
		// The branch writer wakes a request when its push landed; a landed
		// commit never changes, so nothing polls it.
		managed.WithEventSource(o.Watcher.Source(v1alpha1.CommitRequestKind)),
		// A change of its configuration's spec (credentials, the
		// repository) is acted on at once, not at the next resync.
		managed.WithEventSource(config.Wakes(mgr.GetCache(), v1alpha1.CommitRequestKind, nil, o.Logger)...),
	)
}

// SetupGated adds the CommitRequest controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o options.Options) error {
	return o.SetupGated(mgr, Setup, append(config.Kinds(), v1alpha1.CommitRequestGroupVersionKind)...)
}

// ChangeFor builds the change that lands cr: its own commit, with cr's
// message, files and UID trailer. Errors that need a human are marked
// Stalled (SecretRefused, InvalidSpec).
func ChangeFor(cr *v1alpha1.CommitRequest, author git.Signature) (git.Change, error) {
	p := cr.Spec.ForProvider
	if err := validate.BranchName(p.Branch); err != nil {
		return git.Change{}, spec.Invalid(err)
	}
	if !validMessage(p.Message) {
		return git.Change{}, spec.Invalid(errors.New(errMessage))
	}
	if len(p.Files) == 0 || len(p.Files) > maxFiles {
		return git.Change{}, spec.Invalid(errors.New(errNoFiles))
	}
	c := git.Change{
		Puts:      map[string]git.File{},
		Message:   p.Message,
		Author:    author,
		OwnCommit: true,
		Resource: git.Resource{
			Kind: v1alpha1.CommitRequestKind, Namespace: cr.GetNamespace(), Name: cr.GetName(), UID: string(cr.GetUID()),
		},
	}
	seen := map[string]bool{}
	for i, f := range p.Files {
		if err := validate.Path(f.Path); err != nil {
			return git.Change{}, spec.Invalid(errors.Wrapf(err, errFileFmt, i, f.Path))
		}
		if seen[f.Path] {
			return git.Change{}, spec.Invalid(errors.Errorf(errDupPathFmt, f.Path))
		}
		seen[f.Path] = true
		if f.Delete {
			if f.Content != nil || f.Object != nil {
				return git.Change{}, spec.Invalid(errors.Errorf(errFileFmt+": %s", i, f.Path, errDeleteAndIn))
			}
			c.Deletes = append(c.Deletes, f.Path)
			continue
		}
		content, err := spec.Content(f.Content, f.Object)
		if err != nil {
			return git.Change{}, errors.Wrapf(err, errFileFmt, i, f.Path)
		}
		c.Puts[f.Path] = git.File{Content: content, Executable: f.Mode == v1alpha1.FileModeExecutable}
	}
	return c, nil
}

// validMessage mirrors the CRD's rule for spec.forProvider.message.
func validMessage(m string) bool {
	if m == "" || len(m) > maxMessageBytes {
		return false
	}
	for _, r := range m {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			return false
		}
	}
	return true
}

type connector struct {
	git    *config.Connector
	wake   waker
	maxAge time.Duration
}

// waker wakes a request when the push carrying it landed or failed.
type waker interface {
	Waker(kind string, nn types.NamespacedName) func(git.Result)
}

// Connect opens the shared clone of the CommitRequest's repository; it does
// not touch the network.
func (c *connector) Connect(ctx context.Context, mg *v1alpha1.CommitRequest) (xpmanaged.TypedExternalClient[*v1alpha1.CommitRequest], error) {
	repo, conn, err := c.git.Connect(ctx, mg)
	if err != nil {
		return nil, err
	}
	return &external{creds: conn.Credentials, repo: repo, wake: c.wake, author: conn.Author, window: &conn.Window, maxAge: c.maxAge}, nil
}

// repository is what a CommitRequest needs of the shared clone of its
// repository.
type repository interface {
	Refresh(ctx context.Context, maxAge time.Duration, branches ...string) error
	FindCommitByUID(ctx context.Context, branch, uid string, maxWalk int) (git.Commit, bool, error)
	Empty() bool
	Enqueue(branch, key string, c git.Change, done func(git.Result))
	Queued(branch, key string, c git.Change) bool
	TakeResult(key string) (git.Result, bool)
}

type external struct {
	// creds names the Secret and key the repository's credentials came
	// from, for a refusal to say which to fix.
	creds  string
	repo   repository
	wake   waker
	author git.Signature
	// window is the configuration's commit window, carried by the change
	// (configurations sharing a clone keep their own); nil: the engine's.
	window *time.Duration
	maxAge time.Duration
}

// Observe reports whether the request landed: recorded in status, or found
// in the branch's history by its UID trailer (a push whose status write was
// lost).
func (e *external) Observe(ctx context.Context, mg *v1alpha1.CommitRequest) (xpmanaged.ExternalObservation, error) {
	if meta.WasDeleted(mg) {
		// Deleting changes nothing in Git: history stays. Reporting it gone
		// lets the finalizer go without a Delete.
		return xpmanaged.ExternalObservation{ResourceExists: false}, nil
	}
	if c := mg.Status.AtProvider.Commit; c != "" {
		return e.landed(mg, c), nil
	}
	// The external name is set only from a landed commit, and persisted by
	// its own write right after the push: it survives a lost status write
	// even when a later change to the same paths hides the UID search's
	// answer.
	if c := meta.GetExternalName(mg); isSHA(c) {
		return e.landed(mg, c), nil
	}
	change, err := ChangeFor(mg, e.author)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	branch := mg.Spec.ForProvider.Branch
	if res, ok := e.repo.TakeResult(keyOf(mg)); ok {
		if res.Err != nil {
			return xpmanaged.ExternalObservation{}, landError(res.Err, branch, e.creds)
		}
		// res.UpToDate: every file already held what the request asks.
		// Nothing was committed (no empty commit); the head that satisfies
		// it is recorded as its commit.
		return e.landed(mg, res.Commit), nil
	}
	if e.repo.Queued(branch, keyOf(mg), change) {
		return xpmanaged.ExternalObservation{}, committing(branch)
	}
	if err := e.repo.Refresh(ctx, e.maxAge, branch); err != nil && git.KindOf(err) != git.KindBranchNotFound {
		return xpmanaged.ExternalObservation{}, errors.Wrap(spec.GitErrorBy(err, e.creds), errRefresh)
	}
	c, found, err := e.repo.FindCommitByUID(ctx, branch, string(mg.GetUID()), MaxWalk)
	if git.KindOf(err) == git.KindBranchNotFound && e.repo.Empty() {
		// A repository with no branch at all: the request becomes its
		// first commit, and creates its branch.
		return xpmanaged.ExternalObservation{ResourceExists: false}, nil
	}
	if git.KindOf(err) == git.KindBranchNotFound {
		return xpmanaged.ExternalObservation{}, errors.Errorf(errNoBranchFmt, branch)
	}
	if err != nil {
		return xpmanaged.ExternalObservation{}, errors.Wrap(spec.GitErrorBy(err, e.creds), errFind)
	}
	if !found {
		return xpmanaged.ExternalObservation{ResourceExists: false}, nil
	}
	return e.landed(mg, c.SHA), nil
}

// isSHA reports whether s is a full hexadecimal commit SHA.
func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// landed records commit as the request's and names the external resource
// after it. When the name is not yet persisted (the status write after the
// push was lost, or a restart found the commit by UID), it asks the
// reconciler to persist it through late initialization.
func (e *external) landed(mg *v1alpha1.CommitRequest, commit string) xpmanaged.ExternalObservation {
	mg.Status.AtProvider.Commit = commit
	if mg.Status.AtProvider.Branch == "" {
		mg.Status.AtProvider.Branch = mg.Spec.ForProvider.Branch
	}
	named := meta.GetExternalName(mg) == commit
	if !named {
		meta.SetExternalName(mg, commit)
	}
	return xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: !named}
}

// Create hands the request, a commit of its own, to the branch writer and
// returns at once (Waiting): it is pushed with whatever else is queued for
// the branch, and the writer wakes the request when the push landed or
// failed. The next Observe records the commit, or reports the failure.
func (e *external) Create(_ context.Context, mg *v1alpha1.CommitRequest) (xpmanaged.ExternalCreation, error) {
	c, err := ChangeFor(mg, e.author)
	if err != nil {
		return xpmanaged.ExternalCreation{}, err
	}
	c.Window = e.window
	branch := mg.Spec.ForProvider.Branch
	e.repo.Enqueue(branch, keyOf(mg), c,
		e.wake.Waker(v1alpha1.CommitRequestKind, types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}))
	return xpmanaged.ExternalCreation{}, committing(branch)
}

// landError classifies the error of a push that failed to land a request.
func landError(err error, branch, creds string) error {
	if git.KindOf(err) == git.KindBranchNotFound {
		// Transient, as in Observe; the engine's error stays in the chain.
		return errors.Wrap(errors.Wrapf(err, errNoBranchFmt, branch), errLand)
	}
	return errors.Wrapf(spec.GitErrorBy(err, creds), errLandFmt, branch)
}

func committing(branch string) error {
	return managed.Waiting(ReasonCommitting, fmt.Sprintf(msgCommittingFmt, branch))
}

// keyOf names mg's change in the branch writer.
func keyOf(mg *v1alpha1.CommitRequest) string {
	return watch.Ref{Kind: v1alpha1.CommitRequestKind, NamespacedName: types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}}.Key()
}

// Update has nothing to do: the spec is immutable and a landed commit is
// never changed.
func (e *external) Update(_ context.Context, _ *v1alpha1.CommitRequest) (xpmanaged.ExternalUpdate, error) {
	return xpmanaged.ExternalUpdate{}, nil
}

// Delete does nothing: history stays. Observe reports a deleted request as
// gone, so the reconciler does not call it; it is here for the interface.
func (e *external) Delete(_ context.Context, _ *v1alpha1.CommitRequest) (xpmanaged.ExternalDelete, error) {
	return xpmanaged.ExternalDelete{}, nil
}

// Disconnect keeps the clone: it is shared and cached across reconciles.
func (e *external) Disconnect(_ context.Context) error { return nil }
