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
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// Reasons for a configuration that needs a human. They appear on the
// ProviderConfig and on every managed resource that uses it, beside
// spec.ReasonInvalidConfig and the Git reasons of spec.GitError.
const (
	ReasonProviderConfigNotFound xpv2.ConditionReason = "ProviderConfigNotFound"
	ReasonSecretNotFound         xpv2.ConditionReason = "SecretNotFound"
	ReasonSecretMalformed        xpv2.ConditionReason = "SecretMalformed"
	ReasonInsecureRemote         xpv2.ConditionReason = "InsecureRemoteRefused"
)

const (
	errNoRef       = "managed resource has no providerConfigRef"
	errUnknownKind = "providerConfigRef.kind must be ProviderConfig or ClusterProviderConfig"
	errGetSecret   = "cannot get credentials Secret"
	errMissingKey  = "credentials Secret has no key"
	errInsecure    = "http://, git:// and file:// remotes are refused unless the provider runs with --allow-insecure-remotes"
	errNoneOverSSH = "credentials.source None works only for HTTPS; SSH always authenticates"
	errWindow      = "commit.window must be a duration between 0s and 30s"
	// errNoWebhookKeyFmt names the Secret and the key
	// credentials.secretRef.webhookSecretKey names.
	errNoWebhookKeyFmt = "credentials Secret %s has no key %q (credentials.secretRef.webhookSecretKey): the forge's webhook secret"
	errWeakWebhookFmt  = "the webhook secret in key %q of credentials Secret %s is %d bytes: at least %d are needed, random (openssl rand -hex 32), since its hook's path, published in status, is derived from it"
)

// MinWebhookSecret is the shortest webhook secret accepted: the hook's
// path is an HMAC of public names under it, so a short one could be
// guessed offline from the path.
const MinWebhookSecret = 16

// DefaultAuthor signs commits when a configuration names no author.
var DefaultAuthor = git.Signature{Name: "provider-git", Email: "provider-git@crossplane.io"}

// DefaultWindow is the commit window when a configuration names none; the
// CRD defaults it to the same value.
const DefaultWindow = time.Second

// MaxWindow bounds the commit window, as the CRD does: a write waits for its
// window inside a reconcile that times out after a minute, so a longer window
// would let a lone change time out before its commit.
const MaxWindow = 30 * time.Second

// Connection is what a configuration says about reaching one repository.
type Connection struct {
	Remote git.Remote
	Author git.Signature
	Window time.Duration
	// Keys encrypt Secrets written to the repository; nil: Secrets are
	// refused.
	Keys *encrypt.Keys
	// Credentials names the Secret and key the credentials came from, for
	// a refusal to say which to fix; empty when none are sent.
	Credentials string
	// WebhookSecret verifies the forge's event deliveries; nil: the
	// configuration receives none.
	WebhookSecret []byte
}

// Open returns the shared clone of the connection's repository. It does not
// touch the network. The clone is shared by every configuration with the
// same URL and credentials, so the commit window is not the clone's: each
// change carries its configuration's (git.Change.Window).
func (c *Connection) Open(cache *git.Cache) (*git.Repository, error) {
	repo, err := cache.Repository(c.Remote)
	return repo, spec.GitError(err)
}

// Resolver turns configurations into Connections. A namespaced ProviderConfig
// is looked up in the managed resource's own namespace, and its Secret in the
// ProviderConfig's (so the same one): a namespaced resource can never reach
// another namespace's configuration or credentials. Only a
// ClusterProviderConfig, which only a cluster administrator can write, names
// a Secret's namespace.
type Resolver struct {
	client        client.Reader
	secrets       SecretReader
	allowInsecure bool
}

// A SecretReader reads the Secrets configurations name. Package secrets'
// Cache holds those alone; a manager's cached client would list and watch
// every Secret of the cluster on the first read.
type SecretReader interface {
	Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error
}

// NewResolver returns a Resolver reading configurations through c and
// their Secrets through s. allowInsecure accepts http:// and file:// URLs
// (tests and the local default only).
func NewResolver(c client.Reader, s SecretReader, allowInsecure bool) *Resolver {
	return &Resolver{client: c, secrets: s, allowInsecure: allowInsecure}
}

// ForManaged resolves the configuration mg's providerConfigRef names.
func (r *Resolver) ForManaged(ctx context.Context, mg resource.ModernManaged) (*Connection, error) {
	return r.forManaged(ctx, mg, nil)
}

// forManaged is ForManaged, filling in fa, when not nil, with what the
// configuration says of its forge's API.
func (r *Resolver) forManaged(ctx context.Context, mg resource.ModernManaged, fa *ForgeAccess) (*Connection, error) {
	ref := mg.GetProviderConfigReference()
	if ref == nil {
		return nil, managed.Stalled(ReasonProviderConfigNotFound, errors.New(errNoRef))
	}
	k, ok := kindNamed(ref.Kind)
	if !ok {
		return nil, managed.Stalled(spec.ReasonInvalidConfig, errors.New(errUnknownKind))
	}
	key := types.NamespacedName{Name: ref.Name}
	if k.namespaced {
		key.Namespace = mg.GetNamespace()
	}
	pc := k.new()
	if err := r.get(ctx, r.client, key, pc, ReasonProviderConfigNotFound, k.errGet); err != nil {
		return nil, err
	}
	return r.resolveAll(ctx, pc, fa)
}

// resolveAll turns either configuration kind into a Connection, filling
// in fa, when not nil, with what the
// configuration says of its forge's API.
func (r *Resolver) resolveAll(ctx context.Context, pc configObject, fa *ForgeAccess) (*Connection, error) {
	v, err := viewOf(pc)
	if err != nil {
		return nil, err
	}
	t := transportOf(v.url)
	if !r.allowInsecure && t == transportInsecure {
		return nil, managed.Stalled(ReasonInsecureRemote, errors.New(errInsecure))
	}
	c := &Connection{Remote: git.Remote{URL: v.url}, Author: DefaultAuthor, Window: DefaultWindow}
	if fa != nil {
		*fa = ForgeAccess{allowInsecure: r.allowInsecure, ssh: t == transportSSH}
		if v.forge != nil {
			fa.Type, fa.APIURL = forge.Type(v.forge.Type), v.forge.APIURL
		}
	}
	if a := v.commit.Author; a != nil {
		c.Author = git.Signature{Name: a.Name, Email: a.Email}
	}
	if v.commit.Window != nil {
		c.Window = v.commit.Window.Duration
	}
	if c.Window < 0 || c.Window > MaxWindow {
		return nil, managed.Stalled(spec.ReasonInvalidConfig, errors.New(errWindow))
	}
	if c.Remote.Signer, err = r.signer(ctx, v.signing); err != nil {
		return nil, err
	}
	if c.Keys, err = r.keys(ctx, v.encryption); err != nil {
		return nil, err
	}
	ssh := t == transportSSH
	if v.source != xpv2.CredentialsSourceSecret || v.secret == nil {
		if ssh {
			return nil, managed.Stalled(spec.ReasonInvalidConfig, errors.New(errNoneOverSSH))
		}
		if err := r.viaAPI(v, c); err != nil {
			return nil, err
		}
		return c, nil
	}
	ref := v.secret
	s := &corev1.Secret{}
	if err := r.get(ctx, r.secrets, ref.key, s, ReasonSecretNotFound, errGetSecret); err != nil {
		return nil, err
	}
	if c.Credentials, err = credentialsFrom(s, ref.keys, ssh, r.allowInsecure, &c.Remote); err != nil {
		return nil, err
	}
	if err := r.viaAPI(v, c); err != nil {
		return nil, err
	}
	if k := ref.keys.WebhookSecretKey; k != "" {
		if c.WebhookSecret = s.Data[k]; len(c.WebhookSecret) == 0 {
			return nil, managed.Stalled(ReasonSecretMalformed, errors.Errorf(errNoWebhookKeyFmt, ref.key, k))
		}
		if n := len(c.WebhookSecret); n < MinWebhookSecret {
			return nil, managed.Stalled(ReasonSecretMalformed, errors.Errorf(errWeakWebhookFmt, k, ref.key, n, MinWebhookSecret))
		}
	}
	if fa != nil {
		tok := lookupKey(s, ref.keys.APITokenKey, defaultAPITokenKey)
		fa.secret, fa.tokenKey, fa.token = ref.key.String(), tok.name, string(tok.value)
	}
	return c, nil
}

// get reads one object through c; NotFound needs a human (someone must create it), any
// other error is transient.
func (r *Resolver) get(ctx context.Context, c SecretReader, key types.NamespacedName, obj client.Object, notFound xpv2.ConditionReason, msg string) error {
	err := c.Get(ctx, key, obj)
	switch {
	case kerrors.IsNotFound(err):
		return managed.Stalled(notFound, errors.Wrapf(err, "%s %s", msg, key))
	case err != nil:
		return errors.Wrap(err, msg)
	}
	return nil
}
