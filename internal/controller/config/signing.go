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

package config

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// ReasonSigningKeyInvalid marks a signing key Secret that exists but holds
// no usable ed25519 private key. Nothing is committed until it does: an
// unsigned commit would be worse than none.
const ReasonSigningKeyInvalid xpv2.ConditionReason = "SigningKeyInvalid"

const (
	errGetSigningSecret   = "cannot get signing key Secret"
	errSigningKeyMissing  = "signing key Secret has no key"
	errSigningKey         = "signing key Secret"
	errSigningNamespace   = "commit.signing.secretRef.namespace is not allowed in a ProviderConfig: its signing key Secret is in its own namespace"
	errSigningNoNamespace = "commit.signing.secretRef.namespace is required in a ClusterProviderConfig"
	errSigningPending     = "waiting for the provider to generate the signing key Secret"
	errCreateSigning      = "cannot create signing key Secret"
)

// DefaultSigningKey is the Secret key of the signing key when the
// configuration names none; the CRD defaults it to the same value. The
// public key of a generated Secret is stored under the same name + ".pub",
// as ssh-keygen names its files.
const DefaultSigningKey = "identity"

// LabelGeneratedSigningKey marks a signing key Secret the provider created.
const LabelGeneratedSigningKey = "git.m.crossplane.io/generated-signing-key"

// signingRef is a configuration's signing key Secret, its namespace
// resolved.
type signingRef struct {
	key      types.NamespacedName
	dataKey  string
	generate bool
	// invalid is set when the reference itself is refused.
	invalid string
}

// signingOf resolves c's signing reference: a ProviderConfig's Secret is in
// its own namespace, a ClusterProviderConfig's in the one it names.
func signingOf(c v1alpha1.CommitConfig, ownNamespace string, namespaced bool) *signingRef {
	s := c.Signing
	if s == nil {
		return nil
	}
	ref := &signingRef{key: types.NamespacedName{Name: s.SecretRef.Name, Namespace: s.SecretRef.Namespace},
		dataKey: s.SecretRef.Key, generate: s.GenerateWhenMissing}
	if ref.dataKey == "" {
		ref.dataKey = DefaultSigningKey
	}
	switch {
	case namespaced && ref.key.Namespace != "" && ref.key.Namespace != ownNamespace:
		ref.invalid = errSigningNamespace
	case namespaced:
		ref.key.Namespace = ownNamespace
	case ref.key.Namespace == "":
		ref.invalid = errSigningNoNamespace
	}
	return ref
}

// signer reads the signing key ref names. A missing Secret the provider is
// about to generate is transient; one nobody will create needs a human, and
// so does one that holds no ed25519 key.
func (r *Resolver) signer(ctx context.Context, ref *signingRef) (git.Signer, error) {
	if ref == nil {
		return nil, nil
	}
	if ref.invalid != "" {
		return nil, managed.Stalled(spec.ReasonInvalidConfig, errors.New(ref.invalid))
	}
	s := &corev1.Secret{}
	err := r.secrets.Get(ctx, ref.key, s)
	switch {
	case kerrors.IsNotFound(err) && ref.generate:
		return nil, errors.Errorf("%s %s", errSigningPending, ref.key)
	case kerrors.IsNotFound(err):
		return nil, managed.Stalled(ReasonSecretNotFound, errors.Wrapf(err, "%s %s", errGetSigningSecret, ref.key))
	case err != nil:
		return nil, errors.Wrap(err, errGetSigningSecret)
	}
	pem, ok := s.Data[ref.dataKey]
	if !ok {
		return nil, managed.Stalled(ReasonSigningKeyInvalid, errors.Errorf("%s %q: %s", errSigningKeyMissing, ref.dataKey, ref.key))
	}
	signer, err := git.NewSSHSigner(pem)
	if err != nil {
		// The engine's error names the problem and never the key.
		return nil, managed.Stalled(ReasonSigningKeyInvalid, errors.Wrapf(err, "%s %s key %q", errSigningKey, ref.key, ref.dataKey))
	}
	return signer, nil
}

// ensureSigningKey creates the signing key Secret of a configuration that
// asks for one to be generated, once: an existing Secret, whatever it holds,
// is left alone, so a restart or a second replica never replaces a key users
// registered. It reports whether it created the Secret.
func ensureSigningKey(ctx context.Context, get SecretReader, c client.Writer, ref *signingRef, owner string) (bool, error) {
	if ref == nil || !ref.generate || ref.invalid != "" {
		return false, nil
	}
	err := get.Get(ctx, ref.key, &corev1.Secret{})
	if !kerrors.IsNotFound(err) {
		return false, errors.Wrap(err, errGetSigningSecret)
	}
	priv, pub, err := git.GenerateSSHKey(owner)
	if err != nil {
		return false, err
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ref.key.Namespace, Name: ref.key.Name,
			Labels: map[string]string{LabelGeneratedSigningKey: "true"}},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{ref.dataKey: priv, ref.dataKey + ".pub": []byte(pub + "\n")},
	}
	err = c.Create(ctx, s)
	if kerrors.IsAlreadyExists(err) {
		// Another replica, or a user, was first: theirs stands.
		return false, nil
	}
	return err == nil, errors.Wrap(err, errCreateSigning)
}

// reads reports whether resolving the configuration reads the Secret key.
func (v view) reads(key types.NamespacedName) bool {
	return (v.secret != nil && v.secret.key == key) || (v.signing != nil && v.signing.key == key) || v.encryption.reads(key)
}

// publishSigning sets status.signing from the resolved signer: the public
// key while one signs, nothing otherwise.
func publishSigning(pc configObject, s git.Signer) {
	var st *v1alpha1.SigningStatus
	if s != nil {
		st = &v1alpha1.SigningStatus{PublicKey: s.PublicKey()}
	}
	switch o := pc.(type) {
	case *v1alpha1.ProviderConfig:
		o.Status.Signing = st
	case *v1alpha1.ClusterProviderConfig:
		o.Status.Signing = st
	}
}

// signingKey generates the configuration's signing key if it asks for one
// and has none, then publishes the public key. It reports false, having
// said why in rd, when the key could not be generated.
func (r *Reconciler) signingKey(ctx context.Context, pc configObject, rd *session.Readiness) bool {
	v, err := viewOf(pc)
	if err != nil || v.signing == nil {
		publishSigning(pc, nil)
		return true
	}
	owner := "provider-git " + r.kind.gvk.Kind + " " + client.ObjectKeyFromObject(pc).String()
	if _, err := ensureSigningKey(ctx, r.resolver.secrets, r.client, v.signing, owner); err != nil {
		rd.Progressing(corev1.ConditionUnknown, ReasonSigningKeyFailed, err.Error())
		return false
	}
	s, err := r.resolver.signer(ctx, v.signing)
	if _, stalled := managed.StalledReason(err); err == nil || stalled {
		// A transient failure (the cache has not seen a Secret just
		// created) says nothing about the key: the published one stands.
		publishSigning(pc, s)
	}
	return true
}
