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

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
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
	ReadFileMax(ctx context.Context, commit, path string, limit int64) (git.Blob, error)
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
	// attr joins changes to audit facts, shared by every reconcile
	// (attribute.go); nil: no attribution in this process.
	attr *attribution.Attributions

	// What one reconcile's Observe hands on to Create, Update, Delete or
	// Note (the external client lives one reconcile). What a plan reads
	// and finds on the way is a planning of Observe's own (plan.go).

	// change is what this reconcile's Observe found the folder needs, for
	// Create, Update or Delete to hand to the branch writer.
	change *git.Change
	// note is Ready's message when the folder is up to date but the
	// snapshot left something out (Secrets).
	note string
	// waited is what the Mirror as read published of the write it waits
	// for, kept while that wait goes on (see hold); nil when it published
	// none, or a push landed since.
	waited *waited
	// att is what this Observe's join decided (attribution: Audit), spent
	// when its change is handed to the branch writer.
	att *attribution.Decision
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
