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

package pullrequest

import (
	"context"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/message"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

const (
	errListFiles        = "cannot list the Files on the head branch for the body"
	errBothReviewersFmt = "%q is in both reviewers and optionalReviewers: a reviewer is either required or optional"
)

// BodyData is what a body template sees.
type BodyData struct {
	// Head, Base and Title are the PullRequest's.
	Head  string
	Base  string
	Title string
	// Name and Namespace are the PullRequest resource's.
	Name      string
	Namespace string
	// Files are the Files of the same configuration on the head branch,
	// sorted by path: the change the pull request proposes, as declared.
	Files []BodyFile
}

// BodyFile is one File a body lists.
type BodyFile struct {
	// Path in the repository, and Name of the File resource.
	Path string
	Name string
}

// desired returns what mg asks the forge to hold. A spec the CRD should
// have refused, or a body template that does not render, is Stalled
// InvalidSpec.
func desired(ctx context.Context, kube client.Reader, mg *v1alpha1.PullRequest) (forge.Spec, error) {
	p := mg.Spec.ForProvider
	for _, b := range []string{p.Head, p.Base} {
		if err := validate.BranchName(b); err != nil {
			return forge.Spec{}, spec.Invalid(err)
		}
	}
	for _, r := range p.OptionalReviewers {
		if slices.Contains(p.Reviewers, r) {
			return forge.Spec{}, spec.Invalid(errors.Errorf(errBothReviewersFmt, r))
		}
	}
	body := ""
	if p.Body != "" {
		files, err := filesOn(ctx, kube, mg)
		if err != nil {
			return forge.Spec{}, err
		}
		body, err = message.RenderLists(p.Body, "", BodyData{Head: p.Head, Base: p.Base, Title: p.Title,
			Name: mg.GetName(), Namespace: mg.GetNamespace(), Files: files}, "Files")
		if err != nil {
			return forge.Spec{}, err
		}
	}
	return forge.Spec{Head: p.Head, Base: p.Base, Title: p.Title, Body: body, Draft: p.Draft,
		Labels: p.Labels, Reviewers: p.Reviewers, Assignees: p.Assignees, OptionalReviewers: p.OptionalReviewers}, nil
}

// filesOn lists the Files in mg's namespace, of its configuration, on its
// head branch, from the manager's cache (no request to the API server).
func filesOn(ctx context.Context, kube client.Reader, mg *v1alpha1.PullRequest) ([]BodyFile, error) {
	if kube == nil {
		return nil, nil
	}
	l := &v1alpha1.FileList{}
	if err := kube.List(ctx, l, client.InNamespace(mg.GetNamespace())); err != nil {
		return nil, errors.Wrap(err, errListFiles)
	}
	ref := mg.GetProviderConfigReference()
	var out []BodyFile
	for i := range l.Items {
		f := &l.Items[i]
		fr := f.GetProviderConfigReference()
		if f.Spec.ForProvider.Branch != mg.Spec.ForProvider.Head || (ref == nil) != (fr == nil) || (ref != nil && *ref != *fr) {
			continue
		}
		out = append(out, BodyFile{Path: f.Spec.ForProvider.Path, Name: f.GetName()})
	}
	slices.SortFunc(out, func(a, b BodyFile) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// drift names what a person changed of what the spec declares, "" when
// nothing. Reviewers are a floor: one a person added, or who already
// reviewed, is not drift.
func drift(want forge.Spec, have forge.PullRequest) string {
	var out []string
	if want.Title != have.Title {
		out = append(out, "title")
	}
	if normalBody(want.Body) != normalBody(have.Body) {
		out = append(out, "body")
	}
	if want.Draft != have.Draft {
		out = append(out, "draft")
	}
	if !sameSet(want.Labels, have.Labels) {
		out = append(out, "labels")
	}
	if !sameSet(want.Assignees, have.Assignees) {
		out = append(out, "assignees")
	}
	for _, r := range slices.Concat(want.Reviewers, want.OptionalReviewers) {
		if !slices.Contains(have.Reviewers, r) {
			out = append(out, "reviewers")
			break
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, ", ") + " differ from the spec"
}

// updateCost is how many content-creating requests putting have back to
// want takes at most, one per part a forge edits with a request of its
// own: title and body, draft, labels and assignees, reviewers.
func updateCost(want forge.Spec, have forge.PullRequest) int {
	n := 0
	for _, differs := range []bool{
		want.Title != have.Title || normalBody(want.Body) != normalBody(have.Body),
		want.Draft != have.Draft,
		!sameSet(want.Labels, have.Labels) || !sameSet(want.Assignees, have.Assignees),
		!sameSet(slices.Concat(want.Reviewers, want.OptionalReviewers), have.Reviewers),
	} {
		if differs {
			n++
		}
	}
	return max(n, 1)
}

// normalBody compares bodies as forges store them: line endings and
// trailing white space are theirs.
func normalBody(s string) string {
	return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \t\n")
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// observe records pr in mg's status. A list's entry lacks what only a Get
// reports (checks, review decision, sometimes mergeable): those keep what
// status held, so alternating sources does not make a status write.
func observe(mg *v1alpha1.PullRequest, t forge.Type, pr forge.PullRequest, detailed bool) {
	a := &mg.Status.AtProvider
	a.Forge, a.Number, a.URL, a.State, a.HeadSHA = string(t), pr.Number, pr.URL, string(pr.State), pr.HeadSHA
	if pr.MergeCommit != "" {
		a.MergeCommit = pr.MergeCommit
	}
	if detailed || pr.Mergeable != nil {
		a.Mergeable = pr.Mergeable
	}
	if detailed || pr.Checks != "" {
		a.Checks = string(pr.Checks)
	}
	if detailed || pr.ReviewDecision != "" {
		a.ReviewDecision = pr.ReviewDecision
	}
}
