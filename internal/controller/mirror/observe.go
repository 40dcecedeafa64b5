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
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// Observe compares the folder with the Mirror's snapshot. See the package
// doc for what it decides. It reads (the spec and what it may read, the
// outcome of the last write, the snapshot, the folder), classifies (the
// plan, joined to audit facts) and acts (nothing, a wait, or the change
// Create or Update hands to the branch writer).
func (e *external) Observe(ctx context.Context, mg *v1alpha1.Mirror) (xpmanaged.ExternalObservation, error) {
	e.waited = waitedOf(mg)
	if meta.WasDeleted(mg) {
		return e.observeDeletion(ctx, mg)
	}
	req, err := e.admit(ctx, mg)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	p := mg.Spec.ForProvider
	e.watch.TrackFolder(e.repo, refOf(mg), p.Branch, p.Path)
	if e.repo.InFlight(p.Branch, keyOf(mg)) {
		// The head does not show the push under way yet: a change computed
		// without it could drop from the marker a file it adds. Its result
		// wakes the Mirror. A retry of a refused write keeps the refusal
		// published.
		if err := e.stillRefused(mg); err != nil {
			return xpmanaged.ExternalObservation{}, err
		}
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
	pl, err := e.readFolder(ctx, mg, req)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	d, err := e.planFolder(ctx, pl)
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	return e.act(mg, pl.snap, d)
}

// admit checks what mg asks for before anything is read: its spec, its
// access to what it mirrors, its commit message, its claim on the folder,
// and which Secrets its configuration grants. A refused spec, access or
// claim lets go of the Mirror's watches: whatever it watched before, it
// may not (or cannot) now.
func (e *external) admit(ctx context.Context, mg *v1alpha1.Mirror) (mirror.Request, error) {
	req, err := Request(mg)
	if err == nil {
		err = authorize(ctx, e.kube, mg)
	}
	if err == nil {
		err = validMessage(mg)
	}
	if err != nil {
		e.src.Release(nameOf(mg))
		return mirror.Request{}, err
	}
	if _, err := e.claims.Check(ctx, claim.Mirror(), mg); err != nil {
		// A File or Mirror created first claims (part of) the folder:
		// Conflict, nothing read or written until it goes, which wakes
		// this Mirror.
		e.src.Release(nameOf(mg))
		e.watch.Forget(refOf(mg))
		return mirror.Request{}, err
	}
	// Secrets only where they are encrypted before they are written, and
	// a cluster administrator allowed it.
	req.SecretNamespaces, req.SecretsNote, err = secretsGrant(ctx, e.kube, mg, req, e.keys != nil)
	if err != nil {
		return mirror.Request{}, err
	}
	return req, nil
}

// readFolder reads what mg's plan compares: the snapshot of its objects,
// once the informers listed them all, and its folder at the branch head,
// with the Secrets a configuration reads.
func (e *external) readFolder(ctx context.Context, mg *v1alpha1.Mirror, req mirror.Request) (*planning, error) {
	snap, err := e.src.Ensure(ctx, req)
	if err != nil {
		return nil, sourceError(err)
	}
	if !snap.Synced {
		return nil, managed.Waiting(ReasonSyncing, fmt.Sprintf(msgSyncingFmt, len(req.Kinds)))
	}
	head, err := e.head(ctx, mg.Spec.ForProvider.Branch)
	if err != nil {
		return nil, err
	}
	f, err := e.read(ctx, mg, head)
	if err != nil {
		return nil, err
	}
	guarded, err := e.guardedSecrets(ctx, snap)
	if err != nil {
		return nil, err
	}
	return &planning{mg: mg, head: head, folder: f, snap: snap, guarded: guarded}, nil
}

// planFolder plans pl's folder (plan.go), joins its changes to audit facts
// (attribute.go), and keeps what the plan found the Secrets' files to hold.
func (e *external) planFolder(ctx context.Context, pl *planning) (plan.Diff, error) {
	d, err := e.plan(ctx, pl, nil)
	if err != nil {
		return plan.Diff{}, err
	}
	if d, e.att, err = e.attribute(ctx, pl, d); err != nil {
		return plan.Diff{}, err
	}
	e.memo.keepSecrets(keyOf(pl.mg), pl.sealed)
	return d, nil
}

// act publishes what the snapshot holds and does what d asks for: nothing
// (up to date), a wait for audit facts or for the push of the same change
// queued already, or the change Create or Update hands to the branch
// writer.
func (e *external) act(mg *v1alpha1.Mirror, snap mirror.Snapshot, d plan.Diff) (xpmanaged.ExternalObservation, error) {
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
	p := mg.Spec.ForProvider
	if e.repo.Queued(p.Branch, keyOf(mg), c) {
		if err := e.stillRefused(mg); err != nil {
			return xpmanaged.ExternalObservation{}, err
		}
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
