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
	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// The Mirror's side of attribution Audit: the join itself, its ledger and
// its authors are internal/attribution's; this reads the spec for it and
// hands it each plan.

// attribute joins d's changes (the first plan of pl) to audit facts when
// the Mirror has attribution Audit, and plans again without the changes
// that wait for their facts or that ignored users alone made. It returns
// the plan and what the join decided (nil without attribution).
func (e *external) attribute(pl *planning, d plan.Diff) (plan.Diff, *attribution.Decision, error) {
	mg := pl.mg
	if e.attr == nil {
		return d, nil, nil
	}
	if mg.Spec.ForProvider.Attribution != v1alpha1.MirrorAttributionAudit {
		e.attr.Forget(joinOf(mg))
		return d, nil, nil
	}
	at, err := e.attr.Join(joinOf(mg), pl.snap, changedFiles(mg.Spec.ForProvider.Path, d))
	if err != nil {
		return plan.Diff{}, nil, spec.Invalid(err)
	}
	if len(at.Keep()) == 0 {
		return d, at, nil
	}
	d, err = e.plan(pl, at.Keep())
	return d, at, err
}

// joinOf is mg as the join reads it.
func joinOf(mg *v1alpha1.Mirror) attribution.Mirror {
	p := mg.Spec.ForProvider
	m := attribution.Mirror{Key: keyOf(mg), Name: nameOf(mg)}
	if p.Ignore != nil {
		m.Ignore = p.Ignore.Users
	}
	if p.Author != nil {
		m.AuthorName, m.AuthorEmail = p.Author.Name, p.Author.Email
	}
	return m
}

// checkAuthor refuses author templates that cannot render: InvalidSpec
// when the Mirror is read, not at its next change.
func checkAuthor(a *v1alpha1.MirrorAuthor) error {
	var name, email string
	if a != nil {
		name, email = a.Name, a.Email
	}
	if err := attribution.CheckAuthor(name, email); err != nil {
		return spec.Invalid(err)
	}
	return nil
}

// changedFiles are the files d writes (their blob SHA) or deletes (""),
// relative to folder, the marker aside.
func changedFiles(folder string, d plan.Diff) map[string]string {
	changed := map[string]string{}
	for full, f := range d.Puts {
		if rel, ok := mirror.Rel(folder, full); ok && rel != MarkerFile {
			changed[rel] = git.BlobSHA(f.Content)
		}
	}
	for _, full := range d.Deletes {
		if rel, ok := mirror.Rel(folder, full); ok {
			changed[rel] = ""
		}
	}
	return changed
}
