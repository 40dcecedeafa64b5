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

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/spec"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/managed"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

const errEncryptFmt = "cannot encrypt Secret %s"

// sealSecret returns what the file of o, a Secret in plain text, must hold
// at full, and whether that differs from what it holds: the file is read and compared
// by what it decrypts to, because a SOPS document never encrypts the same
// way twice, so the blob SHA of a new encryption never matches. The Sealer
// keeps a file that decrypts to the same Secret for the same recipients,
// and hands a write still queued the same bytes again, so an unchanged
// Secret never makes a commit. A file the Mirror does not own is adopted,
// as any object's, only when it is a document of that very Secret (its
// name and namespace stay in clear text).
func (e *external) sealSecret(mg *v1alpha1.Mirror, head, full string, o mirror.Object, present, owned bool) (git.File, bool, error) {
	var existing []byte
	if present {
		b, err := e.repo.ReadFile(head, full)
		if err != nil {
			return git.File{}, false, errors.Wrapf(spec.GitError(err), errReadFmt, full, mg.Spec.ForProvider.Branch)
		}
		existing = b.Content
		if !owned && !sameObject(existing, o) {
			return git.File{}, false, managed.Stalled(spec.ReasonPathConflict, errors.Errorf(errForeignFmt, full, mg.Spec.ForProvider.Branch, o.GVK.Kind, objectName(o)))
		}
	}
	out, changed, err := e.sealer.Seal(e.keys, o.Content, existing)
	if err != nil {
		return git.File{}, false, errors.Wrapf(err, errEncryptFmt, objectName(o))
	}
	return git.File{Content: out}, changed, nil
}
