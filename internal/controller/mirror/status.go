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

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/managed"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// observed records what a synced snapshot holds. The counts change only
// when objects do, so a steady state writes no status.
func observed(mg *v1alpha1.Mirror, snap mirror.Snapshot, d diff) {
	at := &mg.Status.AtProvider
	at.Objects = len(snap.Objects)
	at.Resources = nil
	for _, r := range snap.Resources {
		at.Resources = append(at.Resources, v1alpha1.MirrorResourceStatus{
			Group: r.GVR.Group, Version: r.GVR.Version, Resource: r.GVR.Resource, Count: r.Count,
		})
	}
	if d.empty() {
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

func committing(mg *v1alpha1.Mirror, n int) error {
	p := mg.Spec.ForProvider
	return managed.Waiting(ReasonCommitting, fmt.Sprintf(msgCommittingFmt, n, p.Path, p.Branch))
}

func removing(mg *v1alpha1.Mirror, n int) error {
	p := mg.Spec.ForProvider
	return managed.Waiting(ReasonCommitting, fmt.Sprintf(msgRemovingFmt, n, p.Path, p.Branch))
}
