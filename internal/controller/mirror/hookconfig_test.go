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
	"errors"
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

func TestDesiredWebhooks(t *testing.T) {
	cc := admissionregistrationv1.WebhookClientConfig{
		Service:  &admissionregistrationv1.ServiceReference{Namespace: "crossplane-system", Name: "provider-git", Path: ptr.To("/attribution"), Port: ptr.To[int32](9443)},
		CABundle: []byte("ca"),
	}
	cm := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	deploy := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	sts := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	widgetsV1 := schema.GroupVersionResource{Group: "example.org", Version: "v1", Resource: "widgets"}
	gadgetsV2 := schema.GroupVersionResource{Group: "example.org", Version: "v2", Resource: "gadgets"}
	ns := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	crd := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

	in := func(nss ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: nss}}}
	}
	rule := func(scope admissionregistrationv1.ScopeType, gv string, resources ...string) admissionregistrationv1.RuleWithOperations {
		g, v, _ := strings.Cut(gv, "/")
		if v == "" {
			g, v = "", g
		}
		return admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE", "DELETE"},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{g}, APIVersions: []string{v}, Resources: resources, Scope: ptr.To(scope)},
		}
	}
	hook := func(name string, sel *metav1.LabelSelector, rules ...admissionregistrationv1.RuleWithOperations) admissionregistrationv1.ValidatingWebhook {
		if sel == nil {
			sel = &metav1.LabelSelector{}
		}
		return admissionregistrationv1.ValidatingWebhook{
			Name: name, ClientConfig: cc, Rules: rules,
			FailurePolicy: ptr.To(admissionregistrationv1.Ignore), MatchPolicy: ptr.To(admissionregistrationv1.Equivalent),
			NamespaceSelector: sel, ObjectSelector: &metav1.LabelSelector{},
			SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone), TimeoutSeconds: ptr.To[int32](2),
			AdmissionReviewVersions: []string{"v1"},
		}
	}
	// The names hash the namespaces a webhook covers.
	const (
		teamA  = "96c2886c51d1.attribution.git.m.crossplane.io"
		teamAB = "183efbe2b206.attribution.git.m.crossplane.io"
	)
	cases := map[string]struct {
		reason string
		scopes []hookScope
		want   []admissionregistrationv1.ValidatingWebhook
	}{
		"None": {
			reason: "No Mirror wants admission facts: no webhook.",
		},
		"OneMirror": {
			reason: "One Mirror's kinds in its namespace, one rule per API group, every defaulted field set.",
			scopes: []hookScope{{namespaces: []string{"team-a"}, namespaced: []schema.GroupVersionResource{sts, cm, deploy}}},
			want:   []admissionregistrationv1.ValidatingWebhook{hook(teamA, in("team-a"), rule("Namespaced", "v1", "configmaps"), rule("Namespaced", "apps/v1", "deployments", "statefulsets"))},
		},
		"ExactPerResource": {
			reason: "Each resource is seen in exactly the namespaces that ask for it: ConfigMaps in team-a and team-b, Deployments in team-a only.",
			scopes: []hookScope{
				{namespaces: []string{"team-a"}, namespaced: []schema.GroupVersionResource{cm, deploy}},
				{namespaces: []string{"team-b"}, namespaced: []schema.GroupVersionResource{cm}},
			},
			want: []admissionregistrationv1.ValidatingWebhook{
				hook(teamA, in("team-a"), rule("Namespaced", "apps/v1", "deployments")),
				hook(teamAB, in("team-a", "team-b"), rule("Namespaced", "v1", "configmaps")),
			},
		},
		"PerVersion": {
			reason: "Each resource in the version the Mirror reads: one rule per group and version.",
			scopes: []hookScope{{namespaces: []string{"team-a"}, namespaced: []schema.GroupVersionResource{gadgetsV2, widgetsV1}}},
			want: []admissionregistrationv1.ValidatingWebhook{hook(teamA, in("team-a"),
				rule("Namespaced", "example.org/v1", "widgets"), rule("Namespaced", "example.org/v2", "gadgets"))},
		},
		"SameAskTwice": {
			reason: "Two Mirrors asking for the same thing make one webhook, not two.",
			scopes: []hookScope{
				{namespaces: []string{"team-a"}, namespaced: []schema.GroupVersionResource{cm}},
				{namespaces: []string{"team-a"}, namespaced: []schema.GroupVersionResource{cm}},
			},
			want: []admissionregistrationv1.ValidatingWebhook{hook(teamA, in("team-a"), rule("Namespaced", "v1", "configmaps"))},
		},
		"ClusterScoped": {
			reason: "Cluster-scoped kinds have a webhook of their own, with no namespace selector (it would not apply).",
			scopes: []hookScope{{namespaces: []string{"team-a"}, cluster: []schema.GroupVersionResource{ns, crd}}},
			want: []admissionregistrationv1.ValidatingWebhook{hook("cluster.attribution.git.m.crossplane.io", nil,
				rule("Cluster", "v1", "namespaces"), rule("Cluster", "apiextensions.k8s.io/v1", "customresourcedefinitions"))},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := desiredWebhooks(tc.scopes, cc)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\ndesiredWebhooks(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// resolverFunc resolves every kind with one answer.
type resolverFunc func(mirror.Kind) (schema.GroupVersionResource, bool, error)

func (f resolverFunc) Resolve(_ context.Context, k mirror.Kind) (schema.GroupVersionResource, bool, error) {
	return f(k)
}

func TestHookKeeperDesired(t *testing.T) {
	cm := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	resolves := resolverFunc(func(mirror.Kind) (schema.GroupVersionResource, bool, error) { return cm, false, nil })
	admissionOn := func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAdmission }
	cases := map[string]struct {
		reason   string
		mirror   *v1alpha1.Mirror
		res      resolver
		webhooks int
		wantErr  bool
	}{
		"Asks": {
			reason:   "A Mirror with attribution Admission asks for its kind in its namespace.",
			mirror:   newMirror(admissionOn),
			res:      resolves,
			webhooks: 1,
		},
		"NotWanted": {
			reason: "A Mirror without admission attribution asks for nothing.",
			mirror: newMirror(),
			res:    resolves,
		},
		"NotAuthorized": {
			reason: "A Mirror reading another namespace without a grant asks for nothing: its own reconcile is Stalled NotAuthorized.",
			mirror: newMirror(admissionOn, func(m *v1alpha1.Mirror) { m.Spec.ForProvider.SourceNamespaces = []string{"kube-system"} }),
			res:    resolves,
		},
		"KindNotServed": {
			reason: "A kind the API server does not serve (yet) is left out, not an error.",
			mirror: newMirror(admissionOn),
			res: resolverFunc(func(k mirror.Kind) (schema.GroupVersionResource, bool, error) {
				return schema.GroupVersionResource{}, false, &mirror.KindNotFoundError{Kind: k}
			}),
		},
		"PassingFailure": {
			reason: "Discovery failing for a moment is an error: the configuration stays as it is rather than lose the Mirror's kinds.",
			mirror: newMirror(admissionOn),
			res: resolverFunc(func(mirror.Kind) (schema.GroupVersionResource, bool, error) {
				return schema.GroupVersionResource{}, false, errors.New("the server is currently unable to handle the request")
			}),
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k := &hookKeeper{kube: kube(t, tc.mirror), res: tc.res, log: logging.NewNopLogger()}
			got, err := k.desired(context.Background())
			if (err != nil) != tc.wantErr {
				t.Fatalf("\n%s\ndesired(...): error %v, want error %t", tc.reason, err, tc.wantErr)
			}
			if len(got) != tc.webhooks {
				t.Errorf("\n%s\ndesired(...): %d webhooks, want %d", tc.reason, len(got), tc.webhooks)
			}
		})
	}
}
