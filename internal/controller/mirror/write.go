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
	"strings"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror/commits"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// collect takes the outcome of the Mirror's last write, if one finished
// since the last Observe: the commit that carried it, or its error.
func (e *external) collect(mg *v1alpha1.Mirror, errFmt string) error {
	res, ok := e.repo.TakeResult(keyOf(mg))
	if !ok {
		return nil
	}
	p := mg.Spec.ForProvider
	if res.Err != nil {
		e.attr.Failed(keyOf(mg))
	} else {
		e.attr.Landed(keyOf(mg))
	}
	e.refused.set(keyOf(mg), nil)
	var changed *git.PreconditionError
	if errors.As(res.Err, &changed) {
		// Nothing landed: the folder changed after the read (a file pushed
		// by hand). Plan again on the head that refused it, which the
		// clone holds now, so the ownership rule decides there.
		return nil
	}
	if res.Err != nil {
		err := spec.GitErrorBy(res.Err, e.creds)
		if git.KindOf(res.Err) == git.KindBranchNotFound {
			err = errors.Wrapf(res.Err, errNoBranchFmt, p.Branch)
		}
		err = errors.Wrapf(err, errFmt, p.Path, p.Branch)
		if _, stalled := managed.StalledReason(err); stalled {
			e.refused.set(keyOf(mg), err)
		}
		return err
	}
	// A push landed: news to publish, whatever was published before.
	e.waited = nil
	if res.Commit != "" {
		mg.Status.AtProvider.Commit = res.Commit
	}
	mg.Status.AtProvider.Pending = 0
	return nil
}

// Create writes the folder for the first time: its files and its marker.
func (e *external) Create(_ context.Context, mg *v1alpha1.Mirror) (xpmanaged.ExternalCreation, error) {
	return xpmanaged.ExternalCreation{}, e.enqueue(mg, msgCommittingFmt)
}

// Update writes what differs in the folder.
func (e *external) Update(_ context.Context, mg *v1alpha1.Mirror) (xpmanaged.ExternalUpdate, error) {
	return xpmanaged.ExternalUpdate{}, e.enqueue(mg, msgCommittingFmt)
}

// Delete removes the owned files and the marker in one commit. A management
// policy without Delete never gets here: the folder stays as it is.
func (e *external) Delete(_ context.Context, mg *v1alpha1.Mirror) (xpmanaged.ExternalDelete, error) {
	return xpmanaged.ExternalDelete{}, e.enqueue(mg, msgRemovingFmt)
}

// enqueue hands Observe's change to the branch writer and returns at once
// (Waiting); the writer wakes the Mirror when the push landed or failed.
func (e *external) enqueue(mg *v1alpha1.Mirror, msgFmt string) error {
	if e.change == nil {
		return errors.New(errNoChange)
	}
	return e.hold(mg, msgFmt, e.submit(mg))
}

// submit hands Observe's change to the branch writer, which wakes the
// Mirror when the push landed or failed, and returns its file changes.
func (e *external) submit(mg *v1alpha1.Mirror) int {
	c := *e.change
	n := len(c.Puts) + len(c.Deletes)
	if len(c.Parts) > 0 {
		n = 0
		for _, p := range c.Parts {
			n += len(p.Puts) + len(p.Deletes)
		}
	}
	if e.att != nil {
		e.attr.Spend(keyOf(mg), e.att)
	}
	mg.Status.AtProvider.Pending = n
	e.repo.Enqueue(mg.Spec.ForProvider.Branch, keyOf(mg), c, e.watch.Waker(v1alpha1.MirrorKind, nameOf(mg)))
	return n
}

// retry submits Observe's change again when the Mirror as read still
// publishes the refusal of its last write (a hook, a protected branch), and
// returns that refusal: the Mirror stays Stalled as published until the
// retry's result says otherwise. Through Create or Update each poll of a
// Stalled Mirror published Committing and then the same refusal again: two
// status writes and a create mark a poll, for nothing that changed. It
// returns nil, and submits nothing, when the Mirror publishes anything else.
func (e *external) retry(mg *v1alpha1.Mirror) error {
	err := e.stillRefused(mg)
	if err != nil {
		e.submit(mg)
	}
	return err
}

// stillRefused returns the refusal of mg's last write when mg as read
// publishes it, else nil. A reconcile that finds the retry of a refused
// write still queued or being pushed returns it too, not the Committing
// wait: woken meanwhile (a watch, or a poll that outran a slow push), it
// published Committing, and the retry's refusal the Stalled state again.
func (e *external) stillRefused(mg *v1alpha1.Mirror) error {
	err := e.refused.of(keyOf(mg))
	reason, _ := managed.StalledReason(err)
	ready := mg.GetCondition(xpv2.TypeReady)
	// A spec edited since the refusal was published may have lifted it
	// (another branch): the change under way is its answer, not the old
	// refusal.
	if err == nil || ready.Reason != reason || !strings.HasSuffix(ready.Message, err.Error()) || ready.ObservedGeneration != mg.GetGeneration() {
		return nil
	}
	return err
}

// refusals keep, by Mirror, the Stalled error of its last write, shared by
// every reconcile: what retry compares with what the Mirror publishes. A
// restarted provider knows none, and publishes one Committing first.
type refusals struct {
	mu       sync.Mutex
	byMirror map[string]error
}

func newRefusals() *refusals { return &refusals{byMirror: map[string]error{}} }

// set keeps err for mirror; nil forgets it.
func (r *refusals) set(mirror string, err error) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		delete(r.byMirror, mirror)
		return
	}
	r.byMirror[mirror] = err
}

// of returns what mirror's last write was refused with, or nil.
func (r *refusals) of(mirror string) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byMirror[mirror]
}

// changeOf is d as a change of mg's (internal/mirror/commits): one commit,
// one per object with commit PerChange, or by author with attribution
// Audit, which a removal of the folder never is.
func (e *external) changeOf(mg *v1alpha1.Mirror, d plan.Diff) (git.Change, error) {
	p := mg.Spec.ForProvider
	m := commits.Mirror{
		Path: p.Path, PerChange: p.Commit == v1alpha1.MirrorCommitPerChange, Author: e.author, Window: e.window,
		Resource:      git.Resource{Kind: v1alpha1.MirrorKind, Namespace: mg.GetNamespace(), Name: mg.GetName(), UID: string(mg.GetUID())},
		Message:       func(n int) (string, error) { return Message(mg, n) },
		ChangeMessage: func(c plan.Change) (string, error) { return changeMessage(mg, c) },
	}
	at := e.att
	if meta.WasDeleted(mg) {
		at = nil
	}
	return m.Change(d, at)
}
