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
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// ReasonNotAuthorized marks a Mirror that asks to read more than its own
// namespace without a grant that covers it: a cluster administrator must
// extend the grant, or the Mirror must ask for less.
const ReasonNotAuthorized xpv2.ConditionReason = "NotAuthorized"

const (
	errNeedsCPCFmt    = "reading %s needs a grant in the mirror policy of a ClusterProviderConfig; this Mirror uses %s %q"
	errNoPolicyFmt    = "reading %s needs a grant, and ClusterProviderConfig %q has no spec.mirror policy"
	errNotGranteeFmt  = "reading %s needs a grant, and the mirror policy of ClusterProviderConfig %q does not list namespace %q in mirrorNamespaces"
	errNoClusterFmt   = "ClusterProviderConfig %q does not grant cluster-scoped kinds (spec.mirror.clusterScoped)"
	errNoSourcesFmt   = "ClusterProviderConfig %q does not grant reading namespace(s) %s (neither in spec.mirror.sourceNamespaces nor matched by its sourceNamespaceSelector)"
	errGetCPC         = "cannot get the ClusterProviderConfig to check the Mirror's grant"
	errGetNamespace   = "cannot get a source namespace to match it against the grant's selector"
	errPolicySelector = "the mirror policy's sourceNamespaceSelector is invalid"
)

// authorize checks that mg reads only what it may: its own namespace always,
// anything more only within the mirror policy of the ClusterProviderConfig
// it uses, which only a cluster administrator can write. A namespaced
// ProviderConfig never grants more: whoever can write a Mirror in a
// namespace can write a ProviderConfig there too. A refusal is Stalled
// NotAuthorized and names what is not granted.
func authorize(ctx context.Context, kube client.Reader, mg *v1alpha1.Mirror) error {
	p := mg.Spec.ForProvider
	own := mg.GetNamespace()
	var others []string
	for _, ns := range p.SourceNamespaces {
		if ns != own {
			others = append(others, ns)
		}
	}
	if len(others) == 0 && !p.ClusterScoped {
		return nil
	}
	what := reach(others, p.ClusterScoped)
	ref := mg.GetProviderConfigReference()
	if ref == nil || ref.Kind != v1alpha1.ClusterProviderConfigKind {
		kind, name := "no provider configuration", ""
		if ref != nil {
			kind, name = ref.Kind, ref.Name
		}
		return notAuthorized(errors.Errorf(errNeedsCPCFmt, what, kind, name))
	}
	cpc := &v1alpha1.ClusterProviderConfig{}
	if err := kube.Get(ctx, types.NamespacedName{Name: ref.Name}, cpc); err != nil {
		// The connector already got it: a NotFound now is a race with its
		// deletion, reported as such on the next reconcile.
		return errors.Wrap(err, errGetCPC)
	}
	pol := cpc.Spec.Mirror
	switch {
	case pol == nil:
		return notAuthorized(errors.Errorf(errNoPolicyFmt, what, cpc.Name))
	case !slices.Contains(pol.MirrorNamespaces, own):
		return notAuthorized(errors.Errorf(errNotGranteeFmt, what, cpc.Name, own))
	case p.ClusterScoped && !pol.ClusterScoped:
		return notAuthorized(errors.Errorf(errNoClusterFmt, cpc.Name))
	}
	var denied []string
	for _, ns := range others {
		ok, err := granted(ctx, kube, pol, ns)
		if err != nil {
			return err
		}
		if !ok {
			denied = append(denied, ns)
		}
	}
	if len(denied) > 0 {
		return notAuthorized(errors.Errorf(errNoSourcesFmt, cpc.Name, strings.Join(denied, ", ")))
	}
	return nil
}

// granted reports whether pol lets Mirrors read namespace ns: by name, or by
// the namespace's labels. A namespace that does not exist matches no
// selector (its labels are unknown), so it is granted only by name.
func granted(ctx context.Context, kube client.Reader, pol *v1alpha1.MirrorPolicy, ns string) (bool, error) {
	if slices.Contains(pol.SourceNamespaces, ns) {
		return true, nil
	}
	if pol.SourceNamespaceSelector == nil {
		return false, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(pol.SourceNamespaceSelector)
	if err != nil {
		return false, notAuthorized(errors.Wrap(err, errPolicySelector))
	}
	n := &corev1.Namespace{}
	err = kube.Get(ctx, types.NamespacedName{Name: ns}, n)
	switch {
	case kerrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, errors.Wrap(err, errGetNamespace)
	}
	return sel.Matches(labels.Set(n.GetLabels())), nil
}

// reach describes what a Mirror asks beyond its own namespace.
func reach(others []string, clusterScoped bool) string {
	var parts []string
	if len(others) > 0 {
		parts = append(parts, "namespace(s) "+strings.Join(others, ", "))
	}
	if clusterScoped {
		parts = append(parts, "cluster-scoped kinds")
	}
	return strings.Join(parts, " and ")
}

func notAuthorized(err error) error { return managed.Stalled(ReasonNotAuthorized, err) }

// Why a Mirror's Secrets are not read, for Ready's message.
const (
	noteSecretsNeedCPCFmt    = "Secrets are not read: mirroring them needs a grant in spec.mirror.secretNamespaces of a ClusterProviderConfig, and this Mirror uses %s %q"
	noteSecretsNoPolicyFmt   = "Secrets are not read: ClusterProviderConfig %q has no spec.mirror policy, so it grants no secretNamespaces"
	noteSecretsNotGranteeFmt = "Secrets are not read: the mirror policy of ClusterProviderConfig %q does not list namespace %q in mirrorNamespaces"
	noteSecretsNotGrantedFmt = "Secrets of namespace(s) %s are not read: ClusterProviderConfig %q does not list them in spec.mirror.secretNamespaces"
	errGetCPCForSecrets      = "cannot get the ClusterProviderConfig to check the Mirror's grant of Secrets"
)

// secretsGrant returns the namespaces of nss whose Secrets mg may mirror,
// and why the others' are not read. Secrets are read only where they are
// encrypted before they are written (encrypts), and only in the namespaces
// the mirror policy of the ClusterProviderConfig mg uses lists in
// secretNamespaces. Without that grant, whoever may write a Mirror and a
// ProviderConfig in a namespace could have the provider copy every Secret
// of it, encrypted to recipients of their choosing, to a repository of
// their choosing, without holding get on Secrets themselves; a namespaced
// ProviderConfig never grants it, since they could write that too. Nothing
// is looked up for a Mirror that names no Secrets.
func secretsGrant(ctx context.Context, kube client.Reader, mg *v1alpha1.Mirror, r mirror.Request, encrypts bool) ([]string, string, error) {
	if !encrypts || !namesSecrets(r.Kinds) {
		// Without encryption the shared watches say why themselves.
		return nil, "", nil
	}
	ref := mg.GetProviderConfigReference()
	if ref == nil || ref.Kind != v1alpha1.ClusterProviderConfigKind {
		kind, name := "no provider configuration", ""
		if ref != nil {
			kind, name = ref.Kind, ref.Name
		}
		return nil, fmt.Sprintf(noteSecretsNeedCPCFmt, kind, name), nil
	}
	cpc := &v1alpha1.ClusterProviderConfig{}
	if err := kube.Get(ctx, types.NamespacedName{Name: ref.Name}, cpc); err != nil {
		return nil, "", errors.Wrap(err, errGetCPCForSecrets)
	}
	pol := cpc.Spec.Mirror
	switch {
	case pol == nil:
		return nil, fmt.Sprintf(noteSecretsNoPolicyFmt, cpc.Name), nil
	case !slices.Contains(pol.MirrorNamespaces, mg.GetNamespace()):
		return nil, fmt.Sprintf(noteSecretsNotGranteeFmt, cpc.Name, mg.GetNamespace()), nil
	}
	var allowed, denied []string
	for _, ns := range r.Namespaces {
		if slices.Contains(pol.SecretNamespaces, ns) {
			allowed = append(allowed, ns)
			continue
		}
		denied = append(denied, ns)
	}
	if len(denied) == 0 {
		return allowed, "", nil
	}
	return allowed, fmt.Sprintf(noteSecretsNotGrantedFmt, strings.Join(denied, ", "), cpc.Name), nil
}

// namesSecrets reports whether kinds name core Secrets, as the user wrote
// them: by kind or by resource.
func namesSecrets(kinds []mirror.Kind) bool {
	for _, k := range kinds {
		if (k.Kind == "Secret" && k.APIVersion == "v1") || (k.Resource == "secrets" && k.Group == "") {
			return true
		}
	}
	return false
}
