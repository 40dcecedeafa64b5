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
		Rivals: []string{v1alpha1.FileKind},
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
		Rivals: []string{v1alpha1.BranchKind},
	}
}
