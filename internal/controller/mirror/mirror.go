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

// Package mirror is the controller of Mirror: a folder of a branch kept an
// exact, readable copy of live Kubernetes objects.
//
// Each reconcile computes the whole folder from the Mirror's Snapshot (the
// rendered objects internal/mirror keeps from shared informers) and
// compares it with the folder at the branch head by blob SHA, without
// reading blobs back. What differs becomes one Change of puts and deletes,
// handed to the branch writer under one key per Mirror: a newer Change
// replaces a queued one, so computing the whole difference every time is
// correct, and a burst of object edits becomes one commit per commit window.
// A snapshot whose informers have not listed everything yet drives nothing:
// an object missing from it may merely not be listed yet, and deleting its
// file would be wrong. The same comparison is the mark-and-sweep after a
// restart, a new Mirror or a lost watch: files of objects deleted while
// nobody watched are removed, and objects edited meanwhile are rewritten.
// The comparison itself, and the marker below, are internal/mirror/plan's:
// this package reads the folder from Git for it (plan.go) and hands its
// change to the branch writer.
//
// # Ownership
//
// A Mirror deletes only files it owns, and it records which in the folder
// itself: a marker file, .mirror.yaml at the top of the folder, names the
// Mirror (namespace and name) and lists its files. The marker is rewritten
// in the same commit as the files it lists, so ownership and content never
// disagree, whatever crashes when; a restarted provider reads it at the
// head with one blob read, where commit trailers would need a walk through
// history that a squash or a rewrite by someone else would lose; and a
// person reviewing the folder sees who writes it. A file at an object's
// path that the Mirror does not own is adopted only when it is a single
// document of that very object; anything else is Stalled PathConflict
// naming the path. A marker naming another Mirror that still exists is
// PathConflict too; one naming a Mirror that is gone is taken over without
// what it owned.
//
// The rule holds on the tree the commit lands on, not only on the head the
// plan read: the change carries what it was decided on (the marker's blob,
// and each file it writes without owning it), which the branch writer checks
// wherever it builds the commit, after every rebase too. A file a person
// pushes in between fails the change alone, and the Mirror plans again on
// that head: the rule decides there as if the file had come first.
//
// Before any of that, the Mirror claims its whole folder in the claim index
// (claim.Mirror): a File or Mirror created first anywhere in or around the
// folder holds it off (Stalled Conflict, nothing written), so two resources
// never fight over a folder whose content is computed from live objects
// alone. The marker checks remain for what Git holds without a resource
// behind it.
//
// # Scope
//
// A Mirror reads its own namespace. Other namespaces and cluster-scoped
// kinds need the mirror policy of the ClusterProviderConfig it uses, which
// only a cluster administrator can write (access.go); without it the Mirror
// is Stalled NotAuthorized and reads nothing.
//
// # Secrets
//
// Secrets are read only when the Mirror's configuration encrypts
// (spec.encryption) and is a ClusterProviderConfig whose mirror policy
// lists their namespace in secretNamespaces (access.go): the request then
// opts in to them there, and each Secret is
// written as a SOPS document encrypted to the configuration's age
// recipients, through a Sealer of the Mirror controller's own (secret.go).
// SOPS output is randomized, so a Secret's file is compared by what it
// decrypts to, not by the blob SHA of a new encryption: an unchanged Secret
// is never committed again. That verdict is kept by the blob SHA of the
// file (sealed.go), so a steady poll reads no blob. Without encryption or
// the grant no Secret is listed or watched, and Ready's message says why.
//
// # Attribution
//
// With attribution Audit, who made each change is internal/attribution's:
// each plan's changes are joined to audit facts there (attribute.go hands
// it the plan and reads the spec for it), the changes that wait for their
// facts are planned again as Git has them, and the write is cut into one
// commit per author.
package mirror

import (
	"context"
	"fmt"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
)

// Reasons a Mirror waits or needs a human, beside the Git reasons of
// spec.GitError and ReasonNotAuthorized.
const (
	// ReasonSyncing: the informers the Mirror needs have not listed
	// everything yet; they wake it when they have.
	ReasonSyncing xpv2.ConditionReason = "Syncing"
	// ReasonCommitting: the folder's change waits in its branch writer for
	// the push that carries it.
	ReasonCommitting xpv2.ConditionReason = "Committing"
	// ReasonWatchNotPermitted: the provider's own identity may not list or
	// watch a kind; its RBAC must grow.
	ReasonWatchNotPermitted xpv2.ConditionReason = "WatchNotPermitted"
	// ReasonResourceNotFound: a kind to mirror is not served (yet). It is
	// progressing, not stalled: a CRD installed later resolves it without
	// anyone touching the Mirror.
	ReasonResourceNotFound xpv2.ConditionReason = "ResourceNotFound"
	// ReasonAttributing: with attribution Audit, changes wait for the
	// audit events that name who made them (at most the provider's
	// --audit-attribution-wait); the rest of the folder is up to date.
	ReasonAttributing xpv2.ConditionReason = "Attributing"
)

const (
	msgSyncingFmt    = "Waiting for the watches of %d kind(s) to list their objects"
	msgCommittingFmt = "Committing %d file change(s) to %q on branch %q; waiting for the push that carries them"
	msgRemovingFmt   = "Removing %d file(s) from %q on branch %q; waiting for the push that carries them"
	msgAttributeFmt  = "Waiting up to %s for the audit events that name who changed %d object(s)"

	errRefresh      = "cannot fetch from the repository"
	errHead         = "cannot read the branch head"
	errNoBranchFmt  = "branch %q does not exist yet (a Branch resource may still be creating it)"
	errWriteFmt     = "cannot commit folder %q to branch %q"
	errRemoveFmt    = "cannot commit the removal of folder %q from branch %q"
	errSources      = "cannot watch the objects to mirror"
	errKindNotFound = "a kind to mirror is not served (yet): it is mirrored once its CRD is installed"
	errNoChange     = "nothing to commit: Observe computed no change"
)

// sources is what a Mirror needs of the shared watches: the snapshot of
// what its folder should hold, and to let go of them.
type sources interface {
	Ensure(ctx context.Context, r mirror.Request) (mirror.Snapshot, error)
	Release(owner types.NamespacedName)
}

// repository is what a Mirror needs of the shared clone of its repository.
type repository interface {
	watch.Repository
	Refresh(ctx context.Context, maxAge time.Duration, branches ...string) error
	Head(branch string) (string, error)
	ListFiles(commit, prefix string) (map[string]string, error)
	// ReadFileMax reads a file for parsing, refusing one past limit bytes
	// with a *git.TooLargeError before reading it.
	ReadFileMax(commit, path string, limit int64) (git.Blob, error)
	Empty() bool
	Enqueue(branch, key string, c git.Change, done func(git.Result))
	Queued(branch, key string, c git.Change) bool
	InFlight(branch, key string) bool
	TakeResult(key string) (git.Result, bool)
}

// tracker is what a Mirror needs of the watcher: to be woken when a path in
// its folder changes in Git, or when its write landed.
type tracker interface {
	TrackFolder(repo watch.Repository, r watch.Ref, branch, folder string)
	Forget(r watch.Ref)
	Waker(kind string, nn types.NamespacedName) func(git.Result)
}

// claims is what a Mirror needs of the claim index: whether a File or
// Mirror created first claims (part of) its folder.
type claims interface {
	Check(ctx context.Context, k claim.Kind, o claim.Object) (letGo bool, err error)
}

type external struct {
	// creds names the Secret and key the repository's credentials came
	// from, for a refusal to say which to fix.
	creds  string
	kube   client.Reader
	claims claims
	repo   repository
	src    sources
	watch  tracker
	author git.Signature
	// window is the configuration's commit window, carried by every change.
	window *time.Duration
	maxAge time.Duration
	// keys encrypt Secrets; nil: the configuration has no encryption and
	// Secrets are not read.
	keys *encrypt.Keys
	// sealer is shared by every reconcile (see secret.go).
	sealer *encrypt.Sealer
	// memo keeps what blobs of the folder were found to hold, shared by
	// every reconcile (sealed.go).
	memo *sealedFiles
	// refused keeps the refusal of each Mirror's last write, shared by
	// every reconcile (write.go).
	refused *refusals
	// sealed is what this Observe found or made the Secrets' files to
	// hold, kept in memo once the folder is planned.
	sealed map[string]sealedFile

	// change is what this reconcile's Observe found the folder needs, for
	// Create, Update or Delete to hand to the branch writer.
	change *git.Change
	// note is Ready's message when the folder is up to date but the
	// snapshot left something out (Secrets).
	note string
	// guarded holds the snapshot paths of Secrets a configuration reads,
	// found by this reconcile's Observe.
	guarded map[string]bool
	// waited is what the Mirror as read published of the write it waits
	// for, kept while that wait goes on (see hold); nil when it published
	// none, or a push landed since.
	waited *waited

	// attr joins changes to audit facts, shared by every reconcile
	// (attribute.go); nil: no attribution in this process.
	attr *attribution.Attributions
	// att is what this Observe's join decided (attribution: Audit).
	att *attribution.Decision
	// keep are the paths this Observe's plan leaves as Git has them.
	keep map[string]bool
}

// Observe compares the folder with the Mirror's snapshot. See the package
// doc for what it decides; its order is: spec, grant, the outcome of the
// last write, the snapshot, the folder.
func (e *external) Observe(ctx context.Context, mg *v1alpha1.Mirror) (xpmanaged.ExternalObservation, error) {
	e.waited = waitedOf(mg)
	if meta.WasDeleted(mg) {
		return e.observeDeletion(ctx, mg)
	}
	nn := nameOf(mg)
	req, err := Request(mg)
	if err == nil {
		err = authorize(ctx, e.kube, mg)
	}
	if err == nil {
		err = validMessage(mg)
	}
	if err != nil {
		// Whatever it watched before, it may not (or cannot) now.
		e.src.Release(nn)
		return xpmanaged.ExternalObservation{}, err
	}
	if _, err := e.claims.Check(ctx, claim.Mirror(), mg); err != nil {
		// A File or Mirror created first claims (part of) the folder:
		// Conflict, nothing read or written until it goes, which wakes
		// this Mirror.
		e.src.Release(nn)
		e.watch.Forget(refOf(mg))
		return xpmanaged.ExternalObservation{}, err
	}
	// Secrets only where they are encrypted before they are written, and
	// a cluster administrator allowed it.
	req.SecretNamespaces, req.SecretsNote, err = secretsGrant(ctx, e.kube, mg, req, e.keys != nil)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	p := mg.Spec.ForProvider
	e.watch.TrackFolder(e.repo, refOf(mg), p.Branch, p.Path)
	if e.repo.InFlight(p.Branch, keyOf(mg)) {
		// The head does not show the push under way yet: a change computed
		// without it could drop from the marker a file it adds. Its result
		// wakes the Mirror.
		return xpmanaged.ExternalObservation{}, e.hold(mg, msgCommittingFmt, mg.Status.AtProvider.Pending)
	}
	// After InFlight, not before: a push that finishes between the two
	// calls is then either still under way (held above, its result left
	// for the reconcile it wakes) or collected here. Collected first, it
	// could be neither: no result yet, then not in flight, and the plan
	// on the head that shows it publishes Ready without its commit, a
	// status write the result then repeats.
	if err := e.collect(mg, errWriteFmt); err != nil {
		return xpmanaged.ExternalObservation{}, err
	}

	snap, err := e.src.Ensure(ctx, req)
	if err != nil {
		return xpmanaged.ExternalObservation{}, sourceError(err)
	}
	if !snap.Synced {
		return xpmanaged.ExternalObservation{}, managed.Waiting(ReasonSyncing, fmt.Sprintf(msgSyncingFmt, len(req.Kinds)))
	}
	head, err := e.head(ctx, p.Branch)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	f, err := e.read(ctx, mg, head)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	if e.guarded, err = e.guardedSecrets(ctx, snap); err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	e.sealed = nil
	d, err := e.plan(mg, head, f, snap)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	if d, err = e.attribute(mg, head, f, snap, d); err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	e.memo.keepSecrets(keyOf(mg), e.sealed)
	observed(mg, snap, d)
	if deferred, next := e.att.Deferred(); d.Empty() && deferred > 0 {
		// Nothing else to write: come back when a fact arrives (the
		// store wakes the Mirror) or the wait ends.
		return xpmanaged.ExternalObservation{}, managed.WaitingFor(ReasonAttributing, fmt.Sprintf(msgAttributeFmt, e.attr.Wait(), deferred), next)
	}
	if d.Empty() {
		e.note = noteOf(snap, d.Skipped)
		if n := len(d.Guarded); n > 0 {
			e.note = keysNote(e.note, d.Guarded)
		}
		return xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
	}
	c, err := e.changeOf(mg, d)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	if e.repo.Queued(p.Branch, keyOf(mg), c) {
		mg.Status.AtProvider.Pending = d.Size()
		return xpmanaged.ExternalObservation{}, e.hold(mg, msgCommittingFmt, d.Size())
	}
	e.change = &c
	if err := e.retry(mg); err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	return xpmanaged.ExternalObservation{ResourceExists: d.Claimed, ResourceUpToDate: false, Diff: fmt.Sprintf("%d file(s) differ", d.Size())}, nil
}

// observeDeletion reports whether the folder still holds files this Mirror
// owns; Delete removes them. The Mirror's watches are released first: a
// Mirror being deleted mirrors nothing more.
func (e *external) observeDeletion(ctx context.Context, mg *v1alpha1.Mirror) (xpmanaged.ExternalObservation, error) {
	e.src.Release(nameOf(mg))
	p := mg.Spec.ForProvider
	gone := func() (xpmanaged.ExternalObservation, error) {
		e.watch.Forget(refOf(mg))
		return xpmanaged.ExternalObservation{ResourceExists: false}, nil
	}
	if !written(p) {
		return gone()
	}
	if letGo, err := e.claims.Check(ctx, claim.Mirror(), mg); err != nil || letGo {
		// Another File or Mirror still claims (part of) the folder: the
		// folder stays as it is, as a File deleted while another keeps
		// its path leaves the file. Only the last claimant deletes.
		if err == nil {
			return gone()
		}
		return xpmanaged.ExternalObservation{}, err
	}
	if e.repo.InFlight(p.Branch, keyOf(mg)) {
		return xpmanaged.ExternalObservation{}, e.hold(mg, msgRemovingFmt, mg.Status.AtProvider.Pending)
	}
	// After InFlight, as in Observe.
	if err := e.collect(mg, errRemoveFmt); err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	head, err := e.head(ctx, p.Branch)
	if git.KindOf(err) == git.KindBranchNotFound || (err == nil && head == "") {
		// No branch, no folder.
		return gone()
	}
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	f, err := e.read(ctx, mg, head)
	if reason, ok := managed.StalledReason(err); ok && reason == spec.ReasonPathConflict {
		// Another Mirror's folder, or none at all: nothing here is ours.
		return gone()
	}
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	d := plan.Removal(planOf(mg), f)
	if !f.Claimed || d.Empty() {
		return gone()
	}
	c, err := e.changeOf(mg, d)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	if e.repo.Queued(p.Branch, keyOf(mg), c) {
		return xpmanaged.ExternalObservation{}, e.hold(mg, msgRemovingFmt, d.Size())
	}
	e.change = &c
	return xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
}

// head refreshes the branch and returns its head: "" in an empty
// repository, whose first commit the Mirror's write makes.
func (e *external) head(ctx context.Context, branch string) (string, error) {
	if err := e.repo.Refresh(ctx, e.maxAge, branch); err != nil && git.KindOf(err) != git.KindBranchNotFound {
		return "", errors.Wrap(spec.GitErrorBy(err, e.creds), errRefresh)
	}
	head, err := e.repo.Head(branch)
	if git.KindOf(err) == git.KindBranchNotFound {
		if e.repo.Empty() {
			return "", nil
		}
		return "", errors.Wrapf(err, errNoBranchFmt, branch)
	}
	if err != nil {
		return "", errors.Wrap(spec.GitErrorBy(err, e.creds), errHead)
	}
	return head, nil
}

// Note is Ready's message when the folder is up to date and the snapshot
// left something out, so a Mirror that selects Secrets says it does not
// write them.
func (e *external) Note() string { return e.note }

// Disconnect keeps the clone and the watches: both are shared.
func (e *external) Disconnect(_ context.Context) error { return nil }

// keyOf names mg's changes in the branch writer.
func keyOf(mg *v1alpha1.Mirror) string { return refOf(mg).Key() }

// refOf names mg in the watcher.
func refOf(mg *v1alpha1.Mirror) watch.Ref {
	return watch.Ref{Kind: v1alpha1.MirrorKind, NamespacedName: nameOf(mg)}
}

func nameOf(mg resource.Object) types.NamespacedName {
	return types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}
}
