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

package claim

import (
	"fmt"
	"slices"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// File is the claim of a File: one path of one branch. A File's branch or
// path that the controller refuses claims nothing: it is InvalidSpec before
// it is anything.
func File() Kind {
	return Kind{
		Name:    v1alpha1.FileKind,
		New:     func() Object { return &v1alpha1.File{} },
		NewList: func() client.ObjectList { return &v1alpha1.FileList{} },
		Loc: func(o Object) (Loc, bool) {
			f, ok := o.(*v1alpha1.File)
			if !ok {
				return Loc{}, false
			}
			p := f.Spec.ForProvider
			if validate.BranchName(p.Branch) != nil || validate.Path(p.Path) != nil {
				return Loc{}, false
			}
			return Loc{Branch: p.Branch, Path: p.Path}, true
		},
		// A File that may neither create, update nor delete its file
		// only reads it.
		Shared: func(o Object) bool {
			return !may(o, xpv2.ManagementActionCreate) && !may(o, xpv2.ManagementActionUpdate) && !may(o, xpv2.ManagementActionDelete)
		},
		Share:  "an Observe-only File shares it",
		Rivals: []string{v1alpha1.FileKind, v1alpha1.MirrorKind},
	}
}

// Mirror is the claim of a Mirror: its whole folder ("." the whole tree),
// where it writes one file per object and its marker. A File anywhere in
// it, or a Mirror's folder inside it or around it, is a rival: the folder's
// content is computed from live objects alone, so whatever else writes
// there would be undone at every poll.
func Mirror() Kind {
	return Kind{
		Name:    v1alpha1.MirrorKind,
		New:     func() Object { return &v1alpha1.Mirror{} },
		NewList: func() client.ObjectList { return &v1alpha1.MirrorList{} },
		Loc: func(o Object) (Loc, bool) {
			m, ok := o.(*v1alpha1.Mirror)
			if !ok {
				return Loc{}, false
			}
			p := m.Spec.ForProvider
			if validate.BranchName(p.Branch) != nil || validate.Folder(p.Path) != nil {
				return Loc{}, false
			}
			folder := p.Path
			if folder == "." {
				folder = ""
			}
			return Loc{Branch: p.Branch, Path: folder, Prefix: true}, true
		},
		// A Mirror that may neither create, update nor delete only
		// compares.
		Shared: func(o Object) bool {
			return !may(o, xpv2.ManagementActionCreate) && !may(o, xpv2.ManagementActionUpdate) && !may(o, xpv2.ManagementActionDelete)
		},
		Share:   "an Observe-only Mirror shares it",
		Rivals:  []string{v1alpha1.FileKind, v1alpha1.MirrorKind},
		Folders: true,
	}
}

// Branch is the claim of a Branch: the branch itself, which deleting the
// Branch deletes.
func Branch() Kind {
	return Kind{
		Name:    v1alpha1.BranchKind,
		New:     func() Object { return &v1alpha1.Branch{} },
		NewList: func() client.ObjectList { return &v1alpha1.BranchList{} },
		Loc: func(o Object) (Loc, bool) {
			b, ok := o.(*v1alpha1.Branch)
			if !ok || validate.BranchName(b.Spec.ForProvider.Branch) != nil {
				return Loc{}, false
			}
			return Loc{Branch: b.Spec.ForProvider.Branch}, true
		},
		// Only deleting a branch takes it from others: creating one that
		// exists changes nothing. Branches without Delete share it (a
		// Composition's branch per environment, composed by every XR).
		Shared: func(o Object) bool { return !may(o, xpv2.ManagementActionDelete) },
		Share:  "Branches without Delete in their managementPolicies share it",
		Rivals: []string{v1alpha1.BranchKind},
	}
}

// PullRequest is the claim of a PullRequest: the pull request from its head
// into its base, which it adopts, rewrites, merges and closes. Two
// PullRequests of one repository, head and base (two namespaces, a
// Composition's mistake) would rewrite each other's title at every poll,
// and the first deleted would close what the other still declares. The
// location is the head branch with the base as its "path": only
// PullRequests are its rivals, so it never meets a File's path.
func PullRequest() Kind {
	return Kind{
		Name:    v1alpha1.PullRequestKind,
		New:     func() Object { return &v1alpha1.PullRequest{} },
		NewList: func() client.ObjectList { return &v1alpha1.PullRequestList{} },
		Loc: func(o Object) (Loc, bool) {
			pr, ok := o.(*v1alpha1.PullRequest)
			if !ok {
				return Loc{}, false
			}
			p := pr.Spec.ForProvider
			if validate.BranchName(p.Head) != nil || validate.BranchName(p.Base) != nil {
				return Loc{}, false
			}
			return Loc{Branch: p.Head, Path: p.Base}, true
		},
		// A PullRequest that may neither create, update nor delete only
		// reports.
		Shared: func(o Object) bool {
			return !may(o, xpv2.ManagementActionCreate) && !may(o, xpv2.ManagementActionUpdate) && !may(o, xpv2.ManagementActionDelete)
		},
		Share:  "an Observe-only PullRequest shares it",
		Rivals: []string{v1alpha1.PullRequestKind},
		Describe: func(l Loc) string {
			return fmt.Sprintf("the pull request from %q into %q", l.Branch, l.Path)
		},
	}
}

// may reports whether o's management policies allow action a; no policies
// allow everything.
func may(o Object, a xpv2.ManagementAction) bool {
	m, ok := o.(interface {
		GetManagementPolicies() xpv2.ManagementPolicies
	})
	if !ok {
		return true
	}
	p := m.GetManagementPolicies()
	return len(p) == 0 || slices.Contains(p, xpv2.ManagementActionAll) || slices.Contains(p, a)
}
