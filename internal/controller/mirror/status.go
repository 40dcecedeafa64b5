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
	"fmt"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// observed records what a synced snapshot holds. The counts change only
// when objects do, so a steady state writes no status.
func observed(mg *v1alpha1.Mirror, snap mirror.Snapshot, d plan.Diff) {
	at := &mg.Status.AtProvider
	at.Objects = len(snap.Objects)
	at.Resources = nil
	for _, r := range snap.Resources {
		at.Resources = append(at.Resources, v1alpha1.MirrorResourceStatus{
			Group: r.GVR.Group, Version: r.GVR.Version, Resource: r.GVR.Resource, Count: r.Count,
		})
	}
	if d.Empty() {
		at.Pending = 0
	}
}

// sourceError classifies what the shared watches refused.
func sourceError(err error) error {
	var nf *mirror.KindNotFoundError
	var np *mirror.NotPermittedError
	var cs *mirror.ClusterScopedError
	switch {
	case errors.As(err, &nf):
		// Progressing, not stalled: a CRD installed later resolves it,
		// and the retry (backed off up to the poll interval) sees it.
		return managed.Progressing(ReasonResourceNotFound, errors.Wrap(err, errKindNotFound))
	case errors.As(err, &np):
		return managed.Stalled(ReasonWatchNotPermitted, err)
	case errors.As(err, &cs):
		return managed.Stalled(ReasonNotAuthorized, err)
	}
	return errors.Wrap(err, errSources)
}

// maxNamesInNote caps the objects a note names: Ready's message stays short
// however many are left out.
const maxNamesInNote = 5

// someNames lists names sorted, at most maxNamesInNote of them.
func someNames(names []string) string {
	sorted := slices.Sorted(slices.Values(names))
	if len(sorted) > maxNamesInNote {
		return strings.Join(sorted[:maxNamesInNote], ", ") + ", …"
	}
	return strings.Join(sorted, ", ")
}

// noteOf says what the snapshot, and the plan (objects whose path in this
// folder Git refuses), left out, for Ready's message.
func noteOf(snap mirror.Snapshot, skipped []string) string {
	notes := slices.Clone(snap.Skipped)
	if n := len(skipped); n > 0 {
		notes = append(notes, fmt.Sprintf("objects whose path in this folder Git refuses (%d skipped): %s", n, someNames(skipped)))
	}
	if len(notes) == 0 {
		return ""
	}
	return "The folder is up to date; left out: " + strings.Join(notes, "; ")
}

// waited is what a Mirror as read published while it waited for a push:
// Ready's message and the counts beside it.
type waited struct {
	message string
	at      v1alpha1.MirrorObservation
}

// waitedOf returns what mg as read published of a write it waits for, or
// nil when its Ready does not say Committing.
func waitedOf(mg *v1alpha1.Mirror) *waited {
	c := mg.GetCondition(xpv2.TypeReady)
	if c.Status != corev1.ConditionFalse || c.Reason != ReasonCommitting {
		return nil
	}
	return &waited{message: c.Message, at: *mg.Status.AtProvider.DeepCopy()}
}

// hold is the Waiting of a Mirror whose folder waits for a push of n file
// changes (msgFmt: msgCommittingFmt or msgRemovingFmt).
//
// A Mirror that already published this wait, with no push landed since,
// publishes nothing new: Ready stays the Committing it published and
// atProvider the counts beside it, until the push lands and wakes it. Each
// event of a burst replaces the queued change and moves the counts; were
// every move published, a burst of 1,000 objects cost hundreds of status
// writes, each racing the informer for the one before (a third of them
// refused with a Conflict), where one per push says as much: Committing is
// true all along, and the counts are those of the folder at the last push
// plus the change the wait began with.
func (e *external) hold(mg *v1alpha1.Mirror, msgFmt string, n int) error {
	p := mg.Spec.ForProvider
	if w := e.waited; w != nil && w.message == fmt.Sprintf(msgFmt, w.at.Pending, p.Path, p.Branch) {
		mg.Status.AtProvider = w.at
		return managed.Waiting(ReasonCommitting, w.message)
	}
	return managed.Waiting(ReasonCommitting, fmt.Sprintf(msgFmt, n, p.Path, p.Branch))
}
