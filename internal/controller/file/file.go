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

// Package file is the controller of File: a file that must hold the given
// content at a path on a branch.
package file

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/validate"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

const (
	errRefresh  = "cannot fetch from the repository"
	errAddWaker = "cannot add the waker of Mirrors whose folder holds a File to the manager"
	errHead     = "cannot read the branch head"
	// The File's own path and branch are named, so a conflict with what the
	// branch holds points at the File, not at its repository.
	errReadFmt   = "cannot read %q on branch %q"
	errWriteFmt  = "cannot commit %q to branch %q"
	errRemoveFmt = "cannot commit the removal of %q from branch %q"
	// errNoBranchFmt is transient on purpose: a Branch resource created
	// alongside the File may not have created the branch yet.
	errNoBranchFmt = "branch %q does not exist yet (a Branch resource may still be creating it)"
)

// ReasonCommitting is Ready's reason while a File's change waits in its
// branch writer for the push that carries it.
//
// An update of a File that was Available turns Ready False too, not True
// beside Reconciling True: the readiness accumulator never reports both
// (they would tell humans and kstatus different stories), and until the
// push lands the branch does not hold what the spec asks.
const ReasonCommitting = "Committing"

const (
	msgCommittingFmt = "Committing the %s of %q on branch %q; waiting for the push that carries it"
)

// Setup adds the File controller to mgr. A write does not hold a worker: it
// is handed to the branch writer and the reconcile ends; the writer wakes
// the File when its push landed or failed, so what one commit collects is
// what arrives within the commit window. Drift is found by o.Watcher's poll
// of the repository, which wakes only the Files whose paths changed: a
// converged File is never polled on its own.
//
// Two Files claiming one path of one repository's branch do not fight: the
// later one is Stalled (claim.ReasonConflict), and takes over when the first
// goes.
func Setup(mgr ctrl.Manager, o options.Options) error {
	if err := o.Claims.Register(context.Background(), claim.File()); err != nil {
		return err
	}
	// A Mirror whose folder holds this File, waiting for it, is woken when
	// the File goes (the Mirror controller may start after this one).
	mirrors := o.Watcher.Source(v1alpha1.MirrorKind).Wake
	if err := mgr.Add(o.Claims.Waker(mgr.GetCache(), claim.File(), claim.Mirror(), mirrors)); err != nil {
		return errors.Wrap(err, errAddWaker)
	}
	return o.SetupManaged(mgr, v1alpha1.FileGroupVersionKind,
		managed.WithTypedExternalConnector[*v1alpha1.File](&connector{
			git:    config.NewConnector(mgr.GetClient(), o.Secrets, o.Cache, o.AllowInsecureRemotes),
			watch:  o.Watcher,
			claims: o.Claims,
			maxAge: o.PollInterval,
			sealer: encrypt.NewSealer(0),
			fights: newFights(o.Clock),
		}),
		// Named after its path, persisted with the finalizer and the
		// create-pending mark in one write.
		managed.WithExternalNameOf(func(mg resource.Managed) string {
			f, _ := mg.(*v1alpha1.File)
			return f.Spec.ForProvider.Path
		}),
		managed.WithEventSource(o.Watcher.Source(v1alpha1.FileKind)),
		managed.WithEventSource(o.Claims.Source(mgr.GetCache(), claim.File(), claim.File())),
		// A change of its configuration's spec is acted on at once; a File
		// holding a Secret is encrypted again when the recipients change.
		managed.WithEventSource(config.Wakes(mgr.GetCache(), v1alpha1.FileKind, holdsSecret, o.Logger)...),
	)
}

// SetupGated adds the File controller once its CRD, and those of the
// configurations it watches, are established.
func SetupGated(mgr ctrl.Manager, o options.Options) error {
	return o.SetupGated(mgr, Setup, append(config.Kinds(), v1alpha1.FileGroupVersionKind)...)
}

type connector struct {
	git    *config.Connector
	watch  tracker
	claims claims
	maxAge time.Duration
	// sealer outlives reconciles: it hands a Secret whose write is still
	// queued the same encrypted bytes at every observation.
	sealer *encrypt.Sealer
	// fights outlives reconciles: when each File was last put back.
	fights *fights
}

// claims is what a File needs of the claim index: whether another File
// holds its path.
type claims interface {
	Check(ctx context.Context, k claim.Kind, o claim.Object) (letGo bool, err error)
}

// Connect opens the shared clone of the File's repository; it does not
// touch the network.
func (c *connector) Connect(ctx context.Context, mg *v1alpha1.File) (xpmanaged.TypedExternalClient[*v1alpha1.File], error) {
	repo, conn, err := c.git.Connect(ctx, mg)
	if err != nil {
		return nil, err
	}
	return &external{creds: conn.Credentials, repo: repo, watch: c.watch, claims: c.claims, author: conn.Author, window: &conn.Window, maxAge: c.maxAge,
		keys: conn.Keys, sealer: c.sealer, fights: c.fights}, nil
}

// repository is what a File needs of the shared clone of its repository.
type repository interface {
	watch.Repository
	Refresh(ctx context.Context, maxAge time.Duration, branches ...string) error
	Head(branch string) (string, error)
	// ReadFileMax reads a file to compare it, refusing one past limit bytes
	// with a *git.TooLargeError before reading it.
	ReadFileMax(ctx context.Context, commit, path string, limit int64) (git.Blob, error)
	Empty() bool
	Enqueue(branch, key string, c git.Change, done func(git.Result))
	Queued(branch, key string, c git.Change) bool
	TakeResult(key string) (git.Result, bool)
}

// tracker is what a File needs of the watcher: to be woken when its path
// changes in Git or its write landed.
type tracker interface {
	Track(repo watch.Repository, r watch.Ref, branch, path string)
	Forget(r watch.Ref)
	Waker(kind string, nn types.NamespacedName) func(git.Result)
}

type external struct {
	// creds names the Secret and key the repository's credentials came
	// from, for a refusal to say which to fix.
	creds  string
	repo   repository
	watch  tracker
	claims claims
	author git.Signature
	// window is the configuration's commit window, carried by every change
	// (configurations sharing a clone keep their own); nil: the engine's.
	window *time.Duration
	maxAge time.Duration
	// keys encrypt a Secret object; nil: the configuration has no
	// encryption and Secrets are refused.
	keys   *encrypt.Keys
	sealer *encrypt.Sealer
	fights *fights
}

// Desired returns what f asks the branch to hold at its path. Errors that
// need a human are marked Stalled: a Secret object is SecretRefused, any
// other spec the CRD should have refused is InvalidSpec.
func Desired(f *v1alpha1.File) (git.File, error) {
	p := f.Spec.ForProvider
	if err := validate.BranchName(p.Branch); err != nil {
		return git.File{}, spec.Invalid(err)
	}
	if err := validate.Path(p.Path); err != nil {
		return git.File{}, spec.Invalid(err)
	}
	content, err := spec.Content(p.Content, p.Object)
	if err != nil {
		return git.File{}, err
	}
	return git.File{Content: content, Executable: p.Mode == v1alpha1.FileModeExecutable}, nil
}

// Observe compares the file on the branch, read from the shared clone after
// a fetch that every File of the repository shares, with the spec. The
// outcome of a write handed to the branch writer is collected first: a
// failure is reported as the write's own error.
func (e *external) Observe(ctx context.Context, mg *v1alpha1.File) (xpmanaged.ExternalObservation, error) {
	p := mg.Spec.ForProvider
	ref := refOf(mg)
	var want git.File
	if meta.WasDeleted(mg) {
		// Deleting needs only the path. A path or branch the provider would
		// refuse was never written, so there is nothing to remove; and a
		// content that became invalid must not block the removal.
		if !written(p) {
			e.watch.Forget(ref)
			return xpmanaged.ExternalObservation{ResourceExists: false}, nil
		}
	} else {
		var err error
		if want, err = e.desired(mg); err != nil {
			return xpmanaged.ExternalObservation{}, err
		}
		// A template that cannot render is reported now, not when the
		// file next needs a commit.
		if err := validMessage(mg); err != nil {
			return xpmanaged.ExternalObservation{}, err
		}
	}
	if letGo, err := e.claims.Check(ctx, claim.File(), mg); err != nil || letGo {
		// Held by a File created first: Conflict, nothing written. Being
		// deleted while another File keeps the path: the file stays.
		e.watch.Forget(ref)
		return xpmanaged.ExternalObservation{ResourceExists: false}, err
	}
	if err := e.collect(mg); err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	e.watch.Track(e.repo, ref, p.Branch, p.Path)

	if err := e.repo.Refresh(ctx, e.maxAge, p.Branch); err != nil && git.KindOf(err) != git.KindBranchNotFound {
		return xpmanaged.ExternalObservation{}, errors.Wrap(spec.GitErrorBy(err, e.creds), errRefresh)
	}
	head, err := e.repo.Head(p.Branch)
	if git.KindOf(err) == git.KindBranchNotFound {
		mg.Status.AtProvider.Blob = ""
		if meta.WasDeleted(mg) {
			// No branch, no file: nothing left to remove.
			e.watch.Forget(ref)
			return xpmanaged.ExternalObservation{ResourceExists: false}, nil
		}
		if e.repo.Empty() {
			// In a repository with no branch at all the file's commit is
			// the first one, and creates its branch; elsewhere a missing
			// branch is a Branch's to create, from the start point it names.
			return e.missing(mg, want)
		}
		return xpmanaged.ExternalObservation{}, errors.Errorf(errNoBranchFmt, p.Branch)
	}
	if err != nil {
		return xpmanaged.ExternalObservation{}, errors.Wrap(spec.GitErrorBy(err, e.creds), errHead)
	}

	have, err := e.repo.ReadFileMax(ctx, head, p.Path, yamledit.MaxFileBytes)
	var tooLarge *git.TooLargeError
	if errors.As(err, &tooLarge) {
		// Larger than any File's content can be (the API server keeps no
		// object of this size): it differs, and is not read to say so.
		err = nil
	}
	if errors.Is(err, git.ErrNotExist) {
		mg.Status.AtProvider.Blob = ""
		if meta.WasDeleted(mg) {
			e.watch.Forget(ref)
			return xpmanaged.ExternalObservation{ResourceExists: false}, nil
		}
		return e.missing(mg, want)
	}
	if err != nil {
		return xpmanaged.ExternalObservation{}, errors.Wrapf(spec.GitErrorBy(err, e.creds), errReadFmt, p.Path, p.Branch)
	}
	mg.Status.AtProvider.Blob = have.SHA
	if mg.Status.AtProvider.Commit == "" {
		// We did not write it (or lost the record): the head holds it.
		mg.Status.AtProvider.Commit = head
	}
	if meta.WasDeleted(mg) {
		return xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, e.queued(mg, ActionDelete, want)
	}
	if want, err = e.sealed(mg, want, have.Content); err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	obs := xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}
	switch {
	case tooLarge != nil:
		obs.ResourceUpToDate, obs.Diff = false, tooLarge.Error()
	case !bytes.Equal(have.Content, want.Content):
		obs.ResourceUpToDate, obs.Diff = false, "content differs from the spec"
	case have.Executable != want.Executable:
		obs.ResourceUpToDate, obs.Diff = false, "mode differs from the spec"
	}
	if !obs.ResourceUpToDate {
		return obs, e.queued(mg, ActionUpdate, want)
	}
	return obs, nil
}

// missing observes a file that does not exist: it is to be created, unless
// its creation is already with the branch writer.
func (e *external) missing(mg *v1alpha1.File, want git.File) (xpmanaged.ExternalObservation, error) {
	want, err := e.sealed(mg, want, nil)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	return xpmanaged.ExternalObservation{ResourceExists: false}, e.queued(mg, ActionCreate, want)
}

// collect takes the outcome of the File's last write, if one finished since
// the last Observe: the commit that carried it, or its error.
func (e *external) collect(mg *v1alpha1.File) error {
	res, ok := e.repo.TakeResult(keyOf(mg))
	if !ok {
		return nil
	}
	p := mg.Spec.ForProvider
	if res.Err != nil {
		if meta.WasDeleted(mg) {
			return errors.Wrapf(writeError(res.Err, p.Branch, e.creds), errRemoveFmt, p.Path, p.Branch)
		}
		return errors.Wrapf(writeError(res.Err, p.Branch, e.creds), errWriteFmt, p.Path, p.Branch)
	}
	mg.Status.AtProvider.Commit = res.Commit
	return nil
}

// queued returns a Waiting error when the change a that Observe is about
// to ask for is already with the branch writer: nothing is submitted twice,
// and no create bookkeeping is written again while it waits.
func (e *external) queued(mg *v1alpha1.File, a Action, want git.File) error {
	if !e.repo.Queued(mg.Spec.ForProvider.Branch, keyOf(mg), changeOf(mg, a, want)) {
		return nil
	}
	return committing(mg, a)
}

func committing(mg *v1alpha1.File, a Action) error {
	p := mg.Spec.ForProvider
	return managed.Waiting(ReasonCommitting, fmt.Sprintf(msgCommittingFmt, a, p.Path, p.Branch))
}

// changeOf is what a asks of the branch for mg, without its message.
func changeOf(mg *v1alpha1.File, a Action, want git.File) git.Change {
	p := mg.Spec.ForProvider
	if a == ActionDelete {
		return git.Change{Deletes: []string{p.Path}, Resource: resourceOf(mg)}
	}
	return git.Change{Puts: map[string]git.File{p.Path: want}, Resource: resourceOf(mg)}
}

// written reports whether the provider can have written p's file: a branch
// or path it refuses never reached Git.
func written(p v1alpha1.FileParameters) bool {
	return validate.BranchName(p.Branch) == nil && validate.Path(p.Path) == nil
}

// Create commits the file.
func (e *external) Create(ctx context.Context, mg *v1alpha1.File) (xpmanaged.ExternalCreation, error) {
	return xpmanaged.ExternalCreation{}, e.write(ctx, mg, ActionCreate)
}

// Update commits the file's new content or mode.
func (e *external) Update(ctx context.Context, mg *v1alpha1.File) (xpmanaged.ExternalUpdate, error) {
	return xpmanaged.ExternalUpdate{}, e.write(ctx, mg, ActionUpdate)
}

// write hands the file to the branch writer and returns at once (Waiting):
// Files written within one commit window land in one commit, and the
// writer wakes the File when the push landed or failed.
func (e *external) write(_ context.Context, mg *v1alpha1.File, a Action) error {
	want, err := e.desired(mg)
	if err != nil {
		return err
	}
	// Observe found the file differs: the Sealer's memory gives the bytes
	// it asked for.
	if want, err = e.sealed(mg, want, nil); err != nil {
		return err
	}
	return e.enqueue(mg, a, want)
}

// Delete hands the file's removal to the branch writer. A management policy
// without Delete never gets here: the file is left in place. A
// commitMessage template that does not render stalls the deletion too
// (InvalidSpec); fixing the template lets it proceed.
func (e *external) Delete(_ context.Context, mg *v1alpha1.File) (xpmanaged.ExternalDelete, error) {
	return xpmanaged.ExternalDelete{}, e.enqueue(mg, ActionDelete, git.File{})
}

func (e *external) enqueue(mg *v1alpha1.File, a Action, want git.File) error {
	msg, err := Message(mg, a)
	if err != nil {
		return err
	}
	c := changeOf(mg, a, want)
	c.Message, c.Author, c.Window = msg, e.author, e.window
	done := e.watch.Waker(v1alpha1.FileKind, types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()})
	if a == ActionUpdate && putsBack(mg) {
		// A fight's round is remembered too: it stays one while it lasts.
		c.PutBack, done = !e.fights.fighting(mg.GetUID()), e.fights.watch(mg.GetUID(), e.window, done)
	}
	e.repo.Enqueue(mg.Spec.ForProvider.Branch, keyOf(mg), c, done)
	return committing(mg, a)
}

// Disconnect keeps the clone: it is shared and cached across reconciles.
func (e *external) Disconnect(_ context.Context) error { return nil }

// keyOf names mg's changes in the branch writer.
func keyOf(mg *v1alpha1.File) string { return refOf(mg).Key() }

// refOf names mg in the watcher.
func refOf(mg *v1alpha1.File) watch.Ref {
	return watch.Ref{Kind: v1alpha1.FileKind, NamespacedName: types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}}
}

// resourceOf names mg in the commit's trailers.
func resourceOf(mg *v1alpha1.File) git.Resource {
	return git.Resource{Kind: v1alpha1.FileKind, Namespace: mg.GetNamespace(), Name: mg.GetName(), UID: string(mg.GetUID())}
}

// writeError classifies a write's error. A branch that vanished is
// transient, as in Observe: a Branch resource may bring it back. The engine's
// error stays in the chain either way.
func writeError(err error, branch, creds string) error {
	if git.KindOf(err) == git.KindBranchNotFound {
		return errors.Wrapf(err, errNoBranchFmt, branch)
	}
	return spec.GitErrorBy(err, creds)
}
