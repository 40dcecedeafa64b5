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

package file

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/manifest"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

const (
	errRenderSecret = "cannot render the Secret"
	errEncrypt      = "cannot encrypt the Secret"
)

// desired is Desired, except that a Secret object is accepted when the
// configuration encrypts: it returns the Secret's plaintext manifest, which
// sealed turns into what the file holds. Without encryption a Secret is
// refused exactly as Desired refuses it (SecretRefused).
func (e *external) desired(mg *v1alpha1.File) (git.File, error) {
	want, err := Desired(mg)
	if e.keys == nil || !errors.Is(err, manifest.ErrSecret) {
		return want, err
	}
	plain, err := manifest.RenderForEncryption(mg.Spec.ForProvider.Object.Raw)
	if err != nil {
		return git.File{}, spec.Invalid(errors.Wrap(err, errRenderSecret))
	}
	return git.File{Content: plain, Executable: mg.Spec.ForProvider.Mode == v1alpha1.FileModeExecutable}, nil
}

// sealed returns want, a Secret's plaintext from desired, as the file must
// hold it given what it holds now (have; nil when it does not exist): have
// itself when it decrypts to the same Secret for the same recipients, so an
// unchanged Secret is never committed again, or a new encryption. Any other
// file is returned as it is.
func (e *external) sealed(mg *v1alpha1.File, want git.File, have []byte) (git.File, error) {
	if e.keys == nil || !isSecret(mg) {
		return want, nil
	}
	out, _, err := e.sealer.Seal(e.keys, want.Content, have)
	if err != nil {
		return git.File{}, errors.Wrap(err, errEncrypt)
	}
	want.Content = out
	return want, nil
}

// isSecret reports whether mg's object is a core v1 Secret.
func isSecret(mg *v1alpha1.File) bool {
	o := mg.Spec.ForProvider.Object
	if o == nil || o.Raw == nil {
		return false
	}
	_, err := manifest.Render(o.Raw)
	return errors.Is(err, manifest.ErrSecret)
}

// holdsSecret reports whether the File nn, as cached, holds a Secret: the
// Files a change of their configuration's recipients must wake. A File
// that is gone holds none.
func holdsSecret(ctx context.Context, c client.Reader, nn types.NamespacedName) (bool, error) {
	f := &v1alpha1.File{}
	if err := c.Get(ctx, nn, f); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return isSecret(f), nil
}
