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
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestNotPermitted plays a provider identity that may only get ConfigMaps:
// Ensure names the missing verb, asks the API server again only after the
// backoff, and recovers once RBAC grants list and watch.
func TestNotPermitted(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	ctx := context.Background()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "limited"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "limited"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "limited"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "limited-" + ns}},
	}
	for _, o := range []client.Object{role, binding, configMap(ns, "c", nil, "1")} {
		if err := cp.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := cp.UserConfig("limited-" + ns)
	if err != nil {
		t.Fatal(err)
	}
	h := startSources(t, cfg, WithRecheckInterval(time.Hour))
	now := time.Now()
	h.s.now = func() time.Time { return now }
	req := Request{Owner: types.NamespacedName{Namespace: ns, Name: "m"}, Kinds: []Kind{configMaps}}

	_, err = h.s.Ensure(ctx, req)
	want := &NotPermittedError{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: ns, Verb: "list"}
	var np *NotPermittedError
	if !errors.As(err, &np) {
		t.Fatalf("Ensure: %v, want a NotPermittedError", err)
	}
	if diff := cmp.Diff(want, np); diff != "" {
		t.Errorf("NotPermittedError: -want, +got:\n%s", diff)
	}
	for _, s := range []string{"list", "configmaps", ns} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q does not name %q", err, s)
		}
	}
	if got := h.reqs.ssars.Load(); got != 1 {
		t.Errorf("access reviews: %d, want 1 (list denied, watch not asked)", got)
	}

	role.Rules[0].Verbs = []string{"get", "list", "watch"}
	if err := cp.Client.Update(ctx, role); err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.Ensure(ctx, req); !errors.As(err, &np) {
		t.Errorf("Ensure within the backoff: %v, want the NotPermittedError again", err)
	}
	if got := h.reqs.ssars.Load(); got != 1 {
		t.Errorf("access reviews within the backoff: %d, want still 1", got)
	}

	// The API server's authorizer learns of the grant from its own
	// informer: past the backoff Ensure asks once, and a review made before
	// the grant took effect would start another hour of backoff.
	waitAllowed(t, cfg, ns, watchVerbs...)
	now = now.Add(time.Hour)
	snap := ensureSynced(t, h.s, req)
	if diff := cmp.Diff([]string{ns + "/core/configmap/c.yaml"}, paths(snap)); diff != "" {
		t.Errorf("after the grant: -want, +got:\n%s", diff)
	}
}

// waitAllowed waits until the API server allows cfg's user verbs on the
// ConfigMaps of ns.
func waitAllowed(t *testing.T, cfg *rest.Config, ns string, verbs ...string) {
	t.Helper()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		for _, verb := range verbs {
			r, err := kc.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(), &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Resource: "configmaps"}},
			}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			if !r.Status.Allowed {
				return fmt.Errorf("%s configmaps in %s not allowed yet", verb, ns)
			}
		}
		return nil
	})
}

// TestClusterScoped checks that a cluster-scoped kind needs
// Request.ClusterScoped, and lands under _cluster with it.
func TestClusterScoped(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	h := startSources(t, cp.Config)
	namespaces := Kind{APIVersion: "v1", Kind: "Namespace"}
	req := Request{Owner: types.NamespacedName{Namespace: ns, Name: "m"}, Kinds: []Kind{configMaps, namespaces}}

	_, err := h.s.Ensure(context.Background(), req)
	var cs *ClusterScopedError
	if !errors.As(err, &cs) || cs.Kind != namespaces {
		t.Fatalf("Ensure without ClusterScoped: %v, want a ClusterScopedError for %v", err, namespaces)
	}
	if got := h.s.Informers(); got != 1 {
		t.Errorf("informers: %d, want 1 (the ConfigMaps still watched)", got)
	}
	req.ClusterScoped = true
	snap := ensureSynced(t, h.s, req)
	if !contains(paths(snap), "_cluster/core/namespace/"+ns+".yaml") {
		t.Errorf("own namespace not mirrored under _cluster: %v", paths(snap))
	}
}

// TestKindAppearsLater checks that a kind unknown to discovery is a
// KindNotFoundError, resolves on a later Ensure once its CRD exists, and is
// a KindNotFoundError again when the CRD is deleted while watched.
func TestKindAppearsLater(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	ctx := context.Background()
	h := startSources(t, cp.Config, WithDiscoveryRefreshInterval(0))
	group := "later-" + ns + ".example.test"
	widgets := Kind{Group: group, Resource: "widgets"}
	req := Request{Owner: types.NamespacedName{Namespace: ns, Name: "m"}, Kinds: []Kind{widgets}}

	_, err := h.s.Ensure(ctx, req)
	var nf *KindNotFoundError
	if !errors.As(err, &nf) || nf.Kind != widgets {
		t.Fatalf("Ensure before the CRD: %v, want a KindNotFoundError for %v", err, widgets)
	}

	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:                   "object",
					XPreserveUnknownFields: ptrTo(true),
				}},
			}},
		},
	}
	if err := cp.Client.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Client.Delete(context.Background(), crd) })
	ensureSynced(t, h.s, req)

	w := &unstructured.Unstructured{}
	w.SetAPIVersion(group + "/v1")
	w.SetKind("Widget")
	w.SetNamespace(ns)
	w.SetName("w1")
	testenv.Eventually(t, 30*time.Second, func() error { return cp.Client.Create(ctx, w) })
	testenv.Eventually(t, 30*time.Second, func() error {
		snap, err := h.s.Ensure(ctx, req)
		if err != nil {
			return err
		}
		if want := []string{ns + "/" + group + "/widget/w1.yaml"}; !cmp.Equal(want, paths(snap)) {
			return errors.New("widget not mirrored yet: " + strings.Join(paths(snap), ","))
		}
		return nil
	})

	if err := cp.Client.Delete(ctx, crd); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 60*time.Second, func() error {
		_, err := h.s.Ensure(ctx, req)
		if !errors.As(err, &nf) {
			return fmt.Errorf("Ensure after the CRD was deleted: %w, want a KindNotFoundError", err)
		}
		return nil
	})
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func ptrTo[T any](v T) *T { return &v }
