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

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// readBounded reads the file at p of head for parsing. A file past
// yamledit.MaxFileBytes is not read at all (whoever can push could make
// the provider hold a blob of any size, every reconcile): it comes back as
// tooLarge, naming path, size and bound, for the caller to report as its
// Mirror's problem; err is any other failure, wrapped with the path.
func (e *external) readBounded(ctx context.Context, head, p, branch string) (b git.Blob, tooLarge *git.TooLargeError, err error) {
	b, err = e.repo.ReadFileMax(ctx, head, p, yamledit.MaxFileBytes)
	if errors.As(err, &tooLarge) {
		return b, tooLarge, nil
	}
	if err != nil {
		return git.Blob{}, nil, errors.Wrapf(spec.GitErrorBy(err, e.creds), errReadFmt, p, branch)
	}
	return b, nil, nil
}
