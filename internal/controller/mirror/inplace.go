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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/inplace"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// Reasons of the InPlace layout.
const (
	// ReasonUnsupportedLayout: the folder uses something the InPlace
	// layout does not model (a kustomize generator, YAML anchors...); the
	// message names it and the file. Nothing is written until it goes.
	ReasonUnsupportedLayout xpv2.ConditionReason = "UnsupportedLayout"
	// ReasonFoundTwice: an object's document is in two places of the
	// folder; the message names both. Nothing is written until one goes.
	ReasonFoundTwice xpv2.ConditionReason = "FoundTwice"
)

const errIndexFmt = "cannot index the YAML documents of folder %q on branch %q"

// inPlace plans mg's folder at head for layout InPlace
// (internal/mirror/inplace): the folder's YAML files indexed, each read from
// Git only when its blob changed (bounded: a file past the bound is indexed
// as unusable, and the plan stalls naming it), then planned, the objects of
// keep held as Git has them (attribute.go). With commit PerChange or
// attribution the plan is made step by step, in commit order (the objects
// by resourceVersion), so that each object's change is a commit of its
// own. What the layout refuses is Stalled, with the reason that names it.
func (e *external) inPlace(ctx context.Context, mg *v1alpha1.Mirror, head string, f plan.Folder, snap mirror.Snapshot, keep map[string]bool) (inplace.Plan, error) {
	p := mg.Spec.ForProvider
	x := e.memo.index(keyOf(mg))
	err := x.UpdateFolder(p.Path, f.Files, func(full string) ([]byte, error) {
		b, tooLarge, err := e.readBounded(ctx, head, full, p.Branch)
		if tooLarge != nil {
			return nil, &yamledit.BoundError{Reason: tooLarge.Error()}
		}
		return b.Content, err
	})
	if err != nil {
		return inplace.Plan{}, errors.Wrapf(err, errIndexFmt, p.Path, p.Branch)
	}
	m := inplace.Mirror{Path: p.Path, Namespace: mg.GetNamespace(), Prune: p.Prune != v1alpha1.MirrorPruneNever, Hold: keep}
	objs := snap.Objects
	if p.Commit == v1alpha1.MirrorCommitPerChange || attributed(p) {
		m.Steps, objs = true, plan.ByVersion(objs)
	}
	ip, err := x.Plan(m, objs, f.Docs)
	var twice *inplace.FoundTwiceError
	var unsupported *inplace.UnsupportedLayoutError
	switch {
	case errors.As(err, &twice):
		return inplace.Plan{}, managed.Stalled(ReasonFoundTwice, err)
	case errors.As(err, &unsupported):
		return inplace.Plan{}, managed.Stalled(ReasonUnsupportedLayout, err)
	}
	return ip, err
}
