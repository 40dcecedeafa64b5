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
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// ReasonEncryptionKeyInvalid marks an encryption configuration whose age
// identity or recipients cannot be parsed. Nothing encrypted is written
// until it is fixed: a Secret encrypted to the wrong keys is unreadable by
// whoever should read it, and one left out is never written in clear.
const ReasonEncryptionKeyInvalid xpv2.ConditionReason = "EncryptionKeyInvalid"

// ReasonEncryptionKeyFailed marks an age identity Secret the provider was
// asked to generate but could not create.
const ReasonEncryptionKeyFailed xpv2.ConditionReason = "EncryptionKeyGenerationFailed"

const (
	identitySecret          = "age identity Secret"
	recipientsSecret        = "age recipients Secret"
	errGetIdentitySecret    = "cannot get " + identitySecret
	errEncryptionKeyFmt     = "%s %s has no key %q"
	errIdentityInvalidFmt   = identitySecret + " %s key %q"
	errRecipientsInvalidFmt = recipientsSecret + " %s key %q"
	errInlineRecipients     = "encryption.age.recipients"
	errEncryptionNamespace  = "encryption.age secret references must not name a namespace in a ProviderConfig: its Secrets are in its own namespace"
	errEncryptionNoNS       = "encryption.age secret references must name a namespace in a ClusterProviderConfig"
	errIdentityPending      = "waiting for the provider to generate the age identity Secret"
	errCreateIdentity       = "cannot create age identity Secret"
)

// Default Secret keys of the encryption references; the CRD defaults them
// to the same values. age.agekey is the key Flux's kustomize-controller
// reads an age identity from.
const (
	DefaultAgeIdentityKey   = "age.agekey"
	DefaultAgeRecipientsKey = "recipients"
)

// LabelGeneratedAgeIdentity marks an age identity Secret the provider
// created.
const LabelGeneratedAgeIdentity = "git.m.crossplane.io/generated-age-identity"

// secretKeyRef is one key of one Secret, its namespace resolved.
type secretKeyRef struct {
	key     types.NamespacedName
	dataKey string
}

// encryptionRef is a configuration's encryption block, its Secrets'
// namespaces resolved.
type encryptionRef struct {
	identity   secretKeyRef
	recipients *secretKeyRef
	inline     []string
	generate   bool
	// invalid is set when a reference itself is refused.
	invalid string
}

// encryptionOf resolves e's references as signingOf does: a
// ProviderConfig's Secrets are in its own namespace, a
// ClusterProviderConfig's in the ones it names. The CRD checks the same.
func encryptionOf(e *v1alpha1.Encryption, ownNamespace string, namespaced bool) *encryptionRef {
	if e == nil {
		return nil
	}
	a := e.Age
	ref := &encryptionRef{inline: a.Recipients, generate: a.GenerateWhenMissing}
	resolve := func(name, namespace, dataKey, def string) secretKeyRef {
		r := secretKeyRef{key: types.NamespacedName{Name: name, Namespace: namespace}, dataKey: dataKey}
		if r.dataKey == "" {
			r.dataKey = def
		}
		switch {
		case namespaced && namespace != "" && namespace != ownNamespace:
			ref.invalid = errEncryptionNamespace
		case namespaced:
			r.key.Namespace = ownNamespace
		case namespace == "":
			ref.invalid = errEncryptionNoNS
		}
		return r
	}
	ref.identity = resolve(a.IdentitySecretRef.Name, a.IdentitySecretRef.Namespace, a.IdentitySecretRef.Key, DefaultAgeIdentityKey)
	if s := a.RecipientsSecretRef; s != nil {
		r := resolve(s.Name, s.Namespace, s.Key, DefaultAgeRecipientsKey)
		ref.recipients = &r
	}
	return ref
}

// reads reports whether resolving ref reads the Secret key.
func (ref *encryptionRef) reads(key types.NamespacedName) bool {
	return ref != nil && (ref.identity.key == key || (ref.recipients != nil && ref.recipients.key == key))
}

// keys reads the age keys ref names. A missing identity Secret the provider
// is about to generate is transient; any other missing Secret, or a key
// that does not parse, needs a human.
func (r *Resolver) keys(ctx context.Context, ref *encryptionRef) (*encrypt.Keys, error) {
	if ref == nil {
		return nil, nil
	}
	if ref.invalid != "" {
		return nil, managed.Stalled(spec.ReasonInvalidConfig, errors.New(ref.invalid))
	}
	identity, err := r.secretKey(ctx, ref.identity, identitySecret, ref.generate)
	if err != nil {
		return nil, err
	}
	// Each source is parsed on its own, so the error names the one to fix.
	// The identity's names the Secret and key, never the key itself.
	if _, err := encrypt.NewKeys(string(identity)); err != nil {
		return nil, managed.Stalled(ReasonEncryptionKeyInvalid, errors.Wrapf(err, errIdentityInvalidFmt, ref.identity.key, ref.identity.dataKey))
	}
	if _, err := encrypt.NewKeys(string(identity), ref.inline...); err != nil {
		// A recipient is public: the error quotes it.
		return nil, managed.Stalled(ReasonEncryptionKeyInvalid, errors.Wrap(err, errInlineRecipients))
	}
	recipients := ref.inline
	if ref.recipients != nil {
		text, err := r.secretKey(ctx, *ref.recipients, recipientsSecret, false)
		if err != nil {
			return nil, err
		}
		listed := encrypt.ParseRecipients(string(text))
		if _, err := encrypt.NewKeys(string(identity), listed...); err != nil {
			return nil, managed.Stalled(ReasonEncryptionKeyInvalid, errors.Wrapf(err, errRecipientsInvalidFmt, ref.recipients.key, ref.recipients.dataKey))
		}
		recipients = append(append([]string{}, recipients...), listed...)
	}
	k, err := encrypt.NewKeys(string(identity), recipients...)
	if err != nil {
		// Not reached: each part parsed above.
		return nil, managed.Stalled(ReasonEncryptionKeyInvalid, errors.Wrap(err, errInlineRecipients))
	}
	return k, nil
}

// secretKey reads one key of one Secret; what names the Secret in errors.
func (r *Resolver) secretKey(ctx context.Context, ref secretKeyRef, what string, generated bool) ([]byte, error) {
	errGet := "cannot get " + what
	s := &corev1.Secret{}
	err := r.secrets.Get(ctx, ref.key, s)
	switch {
	case kerrors.IsNotFound(err) && generated:
		return nil, errors.Errorf("%s %s", errIdentityPending, ref.key)
	case kerrors.IsNotFound(err):
		return nil, managed.Stalled(ReasonSecretNotFound, errors.Wrapf(err, "%s %s", errGet, ref.key))
	case err != nil:
		return nil, errors.Wrap(err, errGet)
	}
	b, ok := s.Data[ref.dataKey]
	if !ok {
		return nil, managed.Stalled(ReasonEncryptionKeyInvalid, errors.Errorf(errEncryptionKeyFmt, what, ref.key, ref.dataKey))
	}
	return b, nil
}

// ensureAgeIdentity creates the age identity Secret of a configuration that
// asks for one to be generated, once: an existing Secret is left alone, so
// a restart or a second replica never replaces a key whose files exist.
func ensureAgeIdentity(ctx context.Context, get SecretReader, c client.Writer, ref *encryptionRef) (bool, error) {
	if ref == nil || !ref.generate || ref.invalid != "" {
		return false, nil
	}
	err := get.Get(ctx, ref.identity.key, &corev1.Secret{})
	if !kerrors.IsNotFound(err) {
		return false, errors.Wrap(err, errGetIdentitySecret)
	}
	identity, recipient, err := encrypt.GenerateIdentity()
	if err != nil {
		return false, errors.Wrap(err, errCreateIdentity)
	}
	k := ref.identity.dataKey
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ref.identity.key.Namespace, Name: ref.identity.key.Name,
			Labels: map[string]string{LabelGeneratedAgeIdentity: "true"}},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{k: []byte(identity + "\n"), k + ".pub": []byte(recipient + "\n")},
	}
	err = c.Create(ctx, s)
	if kerrors.IsAlreadyExists(err) {
		// Another replica, or a user, was first: theirs stands.
		return false, nil
	}
	return err == nil, errors.Wrap(err, errCreateIdentity)
}

// publishEncryption sets status.encryption from the resolved keys: the
// public keys while they encrypt, nothing otherwise.
func publishEncryption(pc configObject, k *encrypt.Keys) {
	var st *v1alpha1.EncryptionStatus
	if k != nil {
		st = &v1alpha1.EncryptionStatus{PublicKey: k.PublicKey(), Recipients: k.Recipients()}
	}
	switch o := pc.(type) {
	case *v1alpha1.ProviderConfig:
		o.Status.Encryption = st
	case *v1alpha1.ClusterProviderConfig:
		o.Status.Encryption = st
	}
}

// encryptionKeys generates the configuration's age identity if it asks for
// one and has none, then publishes the public keys. It reports false,
// having said why in rd, when the identity could not be generated.
func (r *Reconciler) encryptionKeys(ctx context.Context, pc configObject, rd *session.Readiness) bool {
	v, err := viewOf(pc)
	if err != nil || v.encryption == nil {
		publishEncryption(pc, nil)
		return true
	}
	if _, err := ensureAgeIdentity(ctx, r.resolver.secrets, r.client, v.encryption); err != nil {
		rd.Progressing(corev1.ConditionUnknown, ReasonEncryptionKeyFailed, err.Error())
		return false
	}
	k, err := r.resolver.keys(ctx, v.encryption)
	if _, stalled := managed.StalledReason(err); err == nil || stalled {
		// A transient failure (the cache has not seen a Secret just
		// created) says nothing about the keys: the published ones stand.
		publishEncryption(pc, k)
	}
	return true
}
