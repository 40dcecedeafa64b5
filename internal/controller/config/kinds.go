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
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
)

const (
	errUnknownType = "unexpected configuration type %T"
	errListPCs     = "cannot list ProviderConfigs"
	errListCPCs    = "cannot list ClusterProviderConfigs"
)

// configObject is what the reconciler needs of a ProviderConfig or
// ClusterProviderConfig.
type configObject interface {
	session.Object
	resource.UserCounter
}

// A configKind is one of the two configuration kinds. It and viewOf are the
// only places that tell a ProviderConfig from a ClusterProviderConfig:
// resolving, checking and watching read either through them.
type configKind struct {
	gvk schema.GroupVersionKind
	// namespaced: a managed resource finds the configuration in its own
	// namespace, and the configuration its Secret in its own.
	namespaced bool
	// errGet and errList say which kind could not be read.
	errGet, errList string
	new             func() configObject
	// list returns the configurations whose Secret may live in namespace:
	// a ProviderConfig's is in its own namespace, a ClusterProviderConfig's
	// anywhere.
	list func(ctx context.Context, c client.Reader, namespace string) ([]configObject, error)
}

var (
	providerConfig = configKind{
		gvk:        v1alpha1.ProviderConfigGroupVersionKind,
		namespaced: true,
		errGet:     "cannot get ProviderConfig",
		errList:    "cannot list ProviderConfigs",
		new:        func() configObject { return &v1alpha1.ProviderConfig{} },
		list: func(ctx context.Context, c client.Reader, namespace string) ([]configObject, error) {
			l := &v1alpha1.ProviderConfigList{}
			if err := c.List(ctx, l, client.InNamespace(namespace)); err != nil {
				return nil, err
			}
			out := make([]configObject, len(l.Items))
			for i := range l.Items {
				out[i] = &l.Items[i]
			}
			return out, nil
		},
	}
	clusterProviderConfig = configKind{
		gvk:     v1alpha1.ClusterProviderConfigGroupVersionKind,
		errGet:  "cannot get ClusterProviderConfig",
		errList: "cannot list ClusterProviderConfigs",
		new:     func() configObject { return &v1alpha1.ClusterProviderConfig{} },
		list: func(ctx context.Context, c client.Reader, _ string) ([]configObject, error) {
			l := &v1alpha1.ClusterProviderConfigList{}
			if err := c.List(ctx, l); err != nil {
				return nil, err
			}
			out := make([]configObject, len(l.Items))
			for i := range l.Items {
				out[i] = &l.Items[i]
			}
			return out, nil
		},
	}
)

// kindNamed returns the configuration kind a providerConfigRef names.
func kindNamed(kind string) (configKind, bool) {
	for _, k := range []configKind{providerConfig, clusterProviderConfig} {
		if k.gvk.Kind == kind {
			return k, true
		}
	}
	return configKind{}, false
}

// A view is what resolving a configuration reads, the same for both kinds.
type view struct {
	url    string
	source xpv2.CredentialsSource
	// secret is nil when the configuration names none. Its namespace is
	// resolved: a ProviderConfig's own, or the one a ClusterProviderConfig
	// names (only a cluster administrator can write one).
	secret *secretRef
	commit v1alpha1.CommitConfig
	// signing is nil when the configuration signs no commits.
	signing *signingRef
	// encryption is nil when the configuration refuses Secrets.
	encryption *encryptionRef
	// forge is nil when the configuration names none.
	forge *v1alpha1.ForgeConfig
	// register: spec.events.register.
	register bool
}

type secretRef struct {
	key  types.NamespacedName
	keys v1alpha1.CredentialKeys
}

// viewOf reads either configuration kind.
func viewOf(pc configObject) (view, error) {
	switch o := pc.(type) {
	case *v1alpha1.ProviderConfig:
		v := view{url: o.Spec.URL, source: o.Spec.Credentials.Source, commit: o.Spec.Commit,
			signing: signingOf(o.Spec.Commit, o.GetNamespace(), true), encryption: encryptionOf(o.Spec.Encryption, o.GetNamespace(), true),
			forge: o.Spec.Forge, register: o.Spec.Events != nil && o.Spec.Events.Register}
		if s := o.Spec.Credentials.SecretRef; s != nil {
			v.secret = &secretRef{key: types.NamespacedName{Namespace: o.GetNamespace(), Name: s.Name}, keys: s.CredentialKeys}
		}
		return v, nil
	case *v1alpha1.ClusterProviderConfig:
		v := view{url: o.Spec.URL, source: o.Spec.Credentials.Source, commit: o.Spec.Commit,
			signing: signingOf(o.Spec.Commit, "", false), encryption: encryptionOf(o.Spec.Encryption, "", false),
			forge: o.Spec.Forge, register: o.Spec.Events != nil && o.Spec.Events.Register}
		if s := o.Spec.Credentials.SecretRef; s != nil {
			v.secret = &secretRef{key: types.NamespacedName{Namespace: s.Namespace, Name: s.Name}, keys: s.CredentialKeys}
		}
		return v, nil
	}
	return view{}, errors.Errorf(errUnknownType, pc)
}

// A transport is how a repository URL is reached; it decides which
// credentials a configuration needs and whether it is refused.
type transport int

const (
	// transportHTTPS: https://; a username and password or token.
	transportHTTPS transport = iota
	// transportSSH: ssh:// or scp-like user@host:path; a private key and
	// known_hosts, always.
	transportSSH
	// transportInsecure: http:// (credentials in clear text), git:// (clear
	// text, unauthenticated) or file:// (the provider's own file system);
	// refused unless the provider runs with --allow-insecure-remotes.
	transportInsecure
)

// transportOf is the one place that decides what kind of URL a
// configuration has (its repository's, and its GitHub App API URL), and it
// asks the engine's own parser, which reads the scheme as net/url does,
// case-insensitively: a URL the engine would reach over anything but https
// or ssh is insecure however it is spelled. A URL the engine cannot parse is
// treated as HTTPS here; opening it fails with InvalidProviderConfig.
func transportOf(url string) transport {
	p, err := git.Protocol(url)
	switch {
	case err != nil, p == "https":
		return transportHTTPS
	case p == "ssh":
		return transportSSH
	}
	return transportInsecure
}

// SecretsRead returns, of the Secrets in namespaces, those any
// ProviderConfig or ClusterProviderConfig reads: its credentials, signing
// key, age identity or recipients. A Mirror never writes such a Secret to
// Git, even encrypted: a key that protects the repository does not belong
// in it. It makes one pass, whatever the number of Secrets asked about: one
// list of the ProviderConfigs of each namespace and one of the
// ClusterProviderConfigs, read in place (nothing is copied or kept).
func SecretsRead(ctx context.Context, c client.Reader, namespaces []string) (map[types.NamespacedName]bool, error) {
	out := map[types.NamespacedName]bool{}
	add := func(pc configObject) {
		for _, k := range readsOf(pc) {
			if slices.Contains(namespaces, k.Namespace) {
				out[k] = true
			}
		}
	}
	for _, ns := range namespaces {
		l := &v1alpha1.ProviderConfigList{}
		if err := c.List(ctx, l, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
			return nil, errors.Wrap(err, errListPCs)
		}
		for i := range l.Items {
			add(&l.Items[i])
		}
	}
	l := &v1alpha1.ClusterProviderConfigList{}
	if err := c.List(ctx, l, client.UnsafeDisableDeepCopy); err != nil {
		return nil, errors.Wrap(err, errListCPCs)
	}
	for i := range l.Items {
		add(&l.Items[i])
	}
	return out, nil
}

// readsOf is every Secret pc names, whatever its credentials source: the
// keys a Mirror must keep out of Git (v.reads answers for one key).
func readsOf(pc configObject) []types.NamespacedName {
	v, err := viewOf(pc)
	if err != nil {
		return nil
	}
	var out []types.NamespacedName
	if v.secret != nil {
		out = append(out, v.secret.key)
	}
	if v.signing != nil {
		out = append(out, v.signing.key)
	}
	if e := v.encryption; e != nil {
		out = append(out, e.identity.key)
		if e.recipients != nil {
			out = append(out, e.recipients.key)
		}
	}
	return out
}

// secretsOf is every Secret pc names that can be watched: one whose
// namespace is unknown (a reference the configuration's checks refuse)
// would be watched in every namespace.
func secretsOf(pc configObject) []types.NamespacedName {
	var out []types.NamespacedName
	for _, k := range readsOf(pc) {
		if k.Namespace != "" && k.Name != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
