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
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
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

// inPlace plans mg's folder at head for layout InPlace: the folder's YAML
// files indexed (a blob read only when it changed), each object found
// edited in its document, owned documents of objects gone removed. A
// refusal names files by their path in the repository, not in the folder:
// in a repository of many kustomizations nobody finds "kustomization.yaml".
func (e *external) inPlace(mg *v1alpha1.Mirror, head string, f plan.Folder, snap mirror.Snapshot) (mirror.InPlacePlan, error) {
	p := mg.Spec.ForProvider
	rel := make(map[string]string, len(f.Files))
	for full, sha := range f.Files {
		r, _ := mirror.Rel(p.Path, full)
		rel[r] = sha
	}
	x := e.memo.index(keyOf(mg))
	err := x.Update(rel, func(r string) ([]byte, error) {
		b, tooLarge, err := e.readBounded(head, plan.Join(p.Path, r), p.Branch)
		if tooLarge != nil {
			// Indexed as a file past a bound: the plan stalls naming it.
			return nil, &yamledit.BoundError{Reason: tooLarge.Error()}
		}
		return b.Content, err
	})
	if err != nil {
		return mirror.InPlacePlan{}, errors.Wrapf(err, errIndexFmt, p.Path, p.Branch)
	}
	ip, err := mirror.PlanInPlace(x, snap.Objects, f.Docs, mg.GetNamespace(), p.Prune != v1alpha1.MirrorPruneNever)
	var twice *mirror.FoundTwiceError
	var unsupported *mirror.UnsupportedLayoutError
	switch {
	case errors.As(err, &twice):
		twice.First, twice.Second = plan.Join(p.Path, twice.First), plan.Join(p.Path, twice.Second)
		return mirror.InPlacePlan{}, managed.Stalled(ReasonFoundTwice, err)
	case errors.As(err, &unsupported):
		unsupported.File = plan.Join(p.Path, unsupported.File)
		return mirror.InPlacePlan{}, managed.Stalled(ReasonUnsupportedLayout, err)
	}
	return ip, err
}
