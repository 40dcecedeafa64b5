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

// Package spec turns what a managed resource's spec asks for into the bytes
// Git should hold, and names what it cannot accept: the stalled reasons every
// controller writes, whether the cause is the spec itself or what the Git
// engine said of it. File and CommitRequest take file content in the same
// two forms and must refuse the same things for the same reasons.
package spec

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crossplane-contrib/provider-git/internal/manifest"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// Reasons for a spec that needs a human.
const (
	// ReasonInvalidSpec marks a spec the CRD should have refused (an object
	// stored before a CRD change) or a commit message template that does
	// not render.
	ReasonInvalidSpec xpv2.ConditionReason = "InvalidSpec"
	// ReasonSecretRefused marks an object that is a Secret, or carries one
	// (a List's item, an embedded manifest with data): its data would land
	// in Git in clear text. A Secret inside another object is refused even
	// when the configuration encrypts (manifest.ErrNestedSecret says why).
	ReasonSecretRefused xpv2.ConditionReason = "SecretRefused"
)

const (
	errObject    = "cannot render the object"
	errNoContent = "exactly one of content or object must be set"
)

// Invalid marks err as a spec the provider refuses (Stalled, InvalidSpec).
func Invalid(err error) error { return managed.Stalled(ReasonInvalidSpec, err) }

// Content returns the bytes a file holds for exactly one of content or an
// embedded object (rendered as stable YAML by internal/manifest). Errors are
// marked Stalled: a Secret, or an object carrying one, is SecretRefused,
// anything else InvalidSpec.
func Content(content *string, object *runtime.RawExtension) ([]byte, error) {
	var raw []byte
	if object != nil {
		raw = object.Raw
	}
	switch {
	case content != nil && raw == nil:
		if err := validate.Content(*content); err != nil {
			return nil, Invalid(err)
		}
		return []byte(*content), nil
	case content == nil && raw != nil:
		out, err := manifest.Render(raw)
		if errors.Is(err, manifest.ErrSecret) || errors.Is(err, manifest.ErrNestedSecret) {
			return nil, managed.Stalled(ReasonSecretRefused, errors.Wrap(err, errObject))
		}
		if err != nil {
			return nil, Invalid(errors.Wrap(err, errObject))
		}
		// The object's YAML is the file: the same cap as content (a huge
		// label map fits the API server's request limit, not the file's).
		if err := validate.Content(string(out)); err != nil {
			return nil, Invalid(errors.Wrap(err, errObject))
		}
		return out, nil
	}
	return nil, Invalid(errors.New(errNoContent))
}
