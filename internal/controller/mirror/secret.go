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
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

const (
	errEncryptFmt = "cannot encrypt Secret %s"
	errGuarded    = "cannot tell which Secrets a ProviderConfig reads"
)

// guardedSecrets returns the snapshot paths of the Secrets any
// ProviderConfig or ClusterProviderConfig reads (credentials, signing key,
// age identity or recipients): those are never mirrored, even encrypted,
// since a key that protects the repository does not belong in it, and an
// identity encrypted to itself protects nothing. The configurations are
// listed once for all the snapshot's Secrets (config.SecretsRead). Without
// encryption no Secret is in the snapshot, and nothing is looked up.
func (e *external) guardedSecrets(ctx context.Context, snap mirror.Snapshot) (map[string]bool, error) {
	var namespaces []string
	for _, o := range snap.Objects {
		if o.Secret && !slices.Contains(namespaces, o.Namespace) {
			namespaces = append(namespaces, o.Namespace)
		}
	}
	if len(namespaces) == 0 {
		return nil, nil
	}
	read, err := config.SecretsRead(ctx, e.kube, namespaces)
	if err != nil {
		return nil, errors.Wrap(err, errGuarded)
	}
	var out map[string]bool
	for _, o := range snap.Objects {
		if o.Secret && read[types.NamespacedName{Namespace: o.Namespace, Name: o.Name}] {
			if out == nil {
				out = map[string]bool{}
			}
			out[o.Path] = true
		}
	}
	return out, nil
}

// keysNote adds the guarded Secrets to Ready's message.
func keysNote(note string, guarded []string) string {
	add := fmt.Sprintf("Secrets a ProviderConfig reads, never mirrored (%d): %s", len(guarded), someNames(guarded))
	if note == "" {
		return "The folder is up to date; left out: " + add
	}
	return note + "; " + add
}

// sealSecret returns what the file of o, a Secret in plain text, must hold
// at full, and whether that differs from what it holds (blob SHA have):
// the file is compared by what it decrypts to, because a SOPS document
// never encrypts the same way twice, so the blob SHA of a new encryption
// never matches. The Sealer keeps a file that decrypts to the same Secret
// for the same recipients, and hands a write still queued the same bytes
// again, so an unchanged Secret never makes a commit. Its verdict is kept
// by blob SHA (sealedFiles): the same owned blob for the same plaintext and
// keys is not read again. A file the Mirror does not own is adopted, as
// any object's, only when it is a document of that very Secret (its name
// and namespace stay in clear text).
func (e *external) sealSecret(ctx context.Context, pl *planning, full string, o mirror.Object, have string, present, owned bool) (git.File, bool, error) {
	mg := pl.mg
	digest := sealedDigest(e.keys, o.Content)
	if present && owned && e.memo.holds(keyOf(mg), full, have, digest) {
		pl.found(full, sealedFile{blob: have, digest: digest})
		return git.File{}, false, nil
	}
	var existing []byte
	if present {
		b, tooLarge, err := e.readBounded(ctx, pl.head, full, mg.Spec.ForProvider.Branch)
		switch {
		case err != nil:
			return git.File{}, false, err
		case tooLarge != nil && !owned:
			return git.File{}, false, managed.Stalled(spec.ReasonPathConflict, errors.Wrapf(tooLarge, errForeignFmt, full, mg.Spec.ForProvider.Branch, o.GVK.Kind, o.NamespacedName()))
		}
		// An owned file too large to read cannot hold this Secret: with no
		// existing content the Sealer encrypts it afresh, and the write
		// replaces it.
		existing = b.Content
		if !owned && !sameObject(existing, o) {
			return git.File{}, false, managed.Stalled(spec.ReasonPathConflict, errors.Errorf(errForeignFmt, full, mg.Spec.ForProvider.Branch, o.GVK.Kind, o.NamespacedName()))
		}
	}
	out, changed, err := e.sealer.Seal(e.keys, o.Content, existing)
	if err != nil {
		return git.File{}, false, errors.Wrapf(err, errEncryptFmt, o.NamespacedName())
	}
	// Unchanged: the blob at head holds it. Changed: the blob this write
	// lands holds it, and the first Observe after it reads nothing.
	pl.found(full, sealedFile{blob: git.BlobSHA(out), digest: digest})
	return git.File{Content: out}, changed, nil
}
