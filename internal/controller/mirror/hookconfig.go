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
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// hookSuffix ends the name of every webhook of the attribution
// configuration: the API server wants fully qualified names.
const hookSuffix = ".attribution.git.m.crossplane.io"

// hookTimeout is the API server's wait for the endpoint, in seconds. The
// endpoint answers from memory; a provider that does not answer in time
// loses that fact (failurePolicy Ignore), never the write.
const hookTimeout = 2

// hookScope is what one Mirror with admission attribution asks the webhook
// to see: its namespaced resources in its namespaces, and the
// cluster-scoped ones its grant allows.
type hookScope struct {
	namespaces []string
	namespaced []schema.GroupVersionResource
	cluster    []schema.GroupVersionResource
}

// desiredWebhooks are the webhooks that show the endpoint exactly the
// writes the scopes ask for: each resource in the union of the namespaces
// that ask for it, and nothing else, in the version the Mirrors read it
// (with matchPolicy Equivalent, a write in another version is sent in
// that one, which is what the join compares with the Mirror's rendering). Resources asked for in the same
// namespaces share a webhook; every field the API server would default is
// set, so that a configuration as stored compares equal to its desired
// one and steady state writes nothing.
func desiredWebhooks(scopes []hookScope, cc admissionregistrationv1.WebhookClientConfig) []admissionregistrationv1.ValidatingWebhook {
	where := map[schema.GroupVersionResource]map[string]bool{}
	cluster := map[schema.GroupVersionResource]bool{}
	for _, s := range scopes {
		for _, gr := range s.namespaced {
			if where[gr] == nil {
				where[gr] = map[string]bool{}
			}
			for _, ns := range s.namespaces {
				where[gr][ns] = true
			}
		}
		for _, gr := range s.cluster {
			cluster[gr] = true
		}
	}
	// Resources by the namespaces they are asked for in.
	byNamespaces := map[string][]schema.GroupVersionResource{}
	for gr, nss := range where {
		key := strings.Join(slices.Sorted(maps.Keys(nss)), ",")
		byNamespaces[key] = append(byNamespaces[key], gr)
	}
	var out []admissionregistrationv1.ValidatingWebhook
	for _, key := range slices.Sorted(maps.Keys(byNamespaces)) {
		sum := sha256.Sum256([]byte(key))
		h := webhook(hex.EncodeToString(sum[:6])+hookSuffix, cc, rules(byNamespaces[key], admissionregistrationv1.NamespacedScope))
		h.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: corev1NamespaceName, Operator: metav1.LabelSelectorOpIn, Values: strings.Split(key, ","),
		}}}
		out = append(out, h)
	}
	if len(cluster) > 0 {
		out = append(out, webhook("cluster"+hookSuffix, cc, rules(slices.Collect(maps.Keys(cluster)), admissionregistrationv1.ClusterScope)))
	}
	return out
}

// corev1NamespaceName is the label the API server sets on every Namespace
// to its name.
const corev1NamespaceName = "kubernetes.io/metadata.name"

// webhook is one validating webhook that never refuses and never blocks a
// write: failures are ignored, it has no side effects, and its wait is
// short.
func webhook(name string, cc admissionregistrationv1.WebhookClientConfig, rules []admissionregistrationv1.RuleWithOperations) admissionregistrationv1.ValidatingWebhook {
	return admissionregistrationv1.ValidatingWebhook{
		Name:                    name,
		ClientConfig:            *cc.DeepCopy(),
		Rules:                   rules,
		FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
		MatchPolicy:             ptr.To(admissionregistrationv1.Equivalent),
		NamespaceSelector:       &metav1.LabelSelector{},
		ObjectSelector:          &metav1.LabelSelector{},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		TimeoutSeconds:          ptr.To[int32](hookTimeout),
		AdmissionReviewVersions: []string{"v1"},
	}
}

// rules are one rule per API group and version, for the writes that
// change or remove an object.
func rules(gvrs []schema.GroupVersionResource, scope admissionregistrationv1.ScopeType) []admissionregistrationv1.RuleWithOperations {
	byGroup := map[schema.GroupVersion][]string{}
	for _, r := range gvrs {
		gv := r.GroupVersion()
		byGroup[gv] = append(byGroup[gv], r.Resource)
	}
	out := make([]admissionregistrationv1.RuleWithOperations, 0, len(byGroup))
	for _, g := range slices.SortedFunc(maps.Keys(byGroup), func(a, b schema.GroupVersion) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Version, b.Version))
	}) {
		out = append(out, admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
			Rule: admissionregistrationv1.Rule{
				APIGroups:   []string{g.Group},
				APIVersions: []string{g.Version},
				Resources:   slices.Sorted(slices.Values(byGroup[g])),
				Scope:       ptr.To(scope),
			},
		})
	}
	return out
}
