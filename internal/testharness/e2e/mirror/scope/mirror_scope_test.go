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

package scope_test

// Mirror e2e: what a Mirror may read (grants, RBAC, kinds not served yet).

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestMirrorOtherNamespaceNeedsGrant(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	src := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-src-", Labels: map[string]string{"mirror": "ok"}}}
	e2e.Create(t, src)
	cm := e2e.ConfigMap(src.Name, "x", nil, map[string]string{"k": "1"})
	e2e.Create(t, cm)

	cpc := &v1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: f.Namespace},
		Spec: v1alpha1.ClusterProviderConfigSpec{
			URL: e2e.HTTPGit.RepoURL(f.Namespace + ".git"),
			Credentials: v1alpha1.ClusterProviderCredentials{Source: xpv2.CredentialsSourceSecret,
				SecretRef: &v1alpha1.CredentialsSecretRef{Namespace: f.Namespace, Name: "git-credentials"}},
		},
	}
	e2e.Create(t, cpc)
	t.Cleanup(func() { _ = e2e.CP.Client.Delete(context.Background(), cpc) })
	cpcRef := &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: cpc.Name}
	head := f.Repo.Head(t, "main")

	// With a namespaced ProviderConfig no grant is possible.
	viaPC := e2e.NewMirror(f.Namespace, "via-pc", v1alpha1.MirrorParameters{
		Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}, SourceNamespaces: []string{src.Name},
	}, e2e.PCRef())
	e2e.Create(t, viaPC)
	e2e.WaitFor(t, time.Minute, viaPC, e2e.StalledWith(t, viaPC, mirrorcontroller.ReasonNotAuthorized))

	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{
		Path: "other", Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}, SourceNamespaces: []string{src.Name},
	}, cpcRef)
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.StalledWith(t, m, mirrorcontroller.ReasonNotAuthorized))
	// Cluster-scoped kinds: asked for without the grant, and named without
	// asking (the kind's scope, not the spec, decides).
	cluster := e2e.NewMirror(f.Namespace, "cluster", v1alpha1.MirrorParameters{
		Path: "cluster", Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "Namespace"}}, ClusterScoped: true,
	}, cpcRef)
	unflagged := e2e.NewMirror(f.Namespace, "unflagged", v1alpha1.MirrorParameters{
		Path: "unflagged", Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "Namespace"}},
	}, e2e.PCRef())
	e2e.Create(t, cluster)
	e2e.Create(t, unflagged)
	e2e.WaitFor(t, time.Minute, cluster, e2e.StalledWith(t, cluster, mirrorcontroller.ReasonNotAuthorized))
	e2e.WaitFor(t, time.Minute, unflagged, e2e.StalledWith(t, unflagged, mirrorcontroller.ReasonNotAuthorized))
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "mirror policy") {
		t.Errorf("NotAuthorized does not say what is missing: %q", msg)
	}
	if err := e2e.KstatusIs(t, m, "Failed"); err != nil {
		t.Error(err)
	}
	e2e.WritesLanded(t)
	if got := f.Repo.Head(t, "main"); got != head {
		t.Fatalf("a Mirror without a grant wrote to the repository")
	}

	// The grant, by the source namespace's labels.
	if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(cpc), cpc); err != nil {
		t.Fatal(err)
	}
	cpc.Spec.Mirror = &v1alpha1.MirrorPolicy{MirrorNamespaces: []string{f.Namespace}, ClusterScoped: true,
		SourceNamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"mirror": "ok"}}}
	if err := e2e.CP.Client.Update(ctx, cpc); err != nil {
		t.Fatal(err)
	}
	// A grant is read at the next reconcile: ask for one, as a user would.
	e2e.ReconciledAgain(t, 1, true, m, cluster)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	e2e.WaitFor(t, time.Minute, cluster, e2e.ReadyAndCurrent(t, cluster))
	testenv.Eventually(t, 30*time.Second, func() error {
		got := f.Files(t, "main")["cluster/_cluster/core/namespace/"+src.Name+".yaml"]
		if got != e2e.Rendered(t, src) {
			return fmt.Errorf("the granted cluster-scoped Namespace is not mirrored: %q", got)
		}
		return nil
	})
	testenv.Eventually(t, 30*time.Second, func() error {
		got := f.Files(t, "main")[fmt.Sprintf("other/%s/core/configmap/x.yaml", src.Name)]
		if got != e2e.Rendered(t, cm) {
			return fmt.Errorf("the granted namespace's ConfigMap is not mirrored: %q", got)
		}
		return nil
	})
	// The namespaced ProviderConfig still grants nothing.
	e2e.ReconciledAgain(t, 1, true, viaPC, unflagged)
	for _, o := range []*v1alpha1.Mirror{viaPC, unflagged} {
		if err := e2e.StalledWith(t, o, mirrorcontroller.ReasonNotAuthorized)(); err != nil {
			t.Errorf("%s: %v", o.Name, err)
		}
	}
}

// TestMirrorWatchNotPermitted runs Mirrors as an identity that may read
// ConfigMaps but not Deployments, as a provider whose ServiceAccount nobody
// granted them: the Mirror is Stalled WatchNotPermitted naming the kind and
// the verb, writes nothing, and recovers once RBAC grants the kind.
func TestMirrorWatchNotPermitted(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	user := "mirror-limited-" + f.Namespace
	rule := func(group, resource string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{"get", "list", "watch"}}
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "mirror"}, Rules: []rbacv1.PolicyRule{rule("", "configmaps")}}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "mirror"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}
	e2e.Create(t, role)
	e2e.Create(t, binding)
	cfg, err := e2e.CP.UserConfig(user)
	if err != nil {
		t.Fatal(err)
	}
	e2e.StartProvider(t, "", e2e.WithMirrorIdentity(cfg))
	head := f.Repo.Head(t, "main")

	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{
		{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "apps/v1", Kind: "Deployment"},
	}}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.StalledWith(t, m, mirrorcontroller.ReasonWatchNotPermitted))
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "deployments.apps") || !strings.Contains(msg, "list") {
		t.Errorf("WatchNotPermitted does not name the kind and the verb: %q", msg)
	}
	e2e.WritesLanded(t)
	if got := f.Repo.Head(t, "main"); got != head {
		t.Fatalf("a Mirror that may not watch a kind wrote to the branch")
	}

	if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(role), role); err != nil {
		t.Fatal(err)
	}
	role.Rules = append(role.Rules, rule("apps", "deployments"))
	if err := e2e.CP.Client.Update(ctx, role); err != nil {
		t.Fatal(err)
	}
	// The grant is seen at the Mirror's next poll, once the denial's
	// recheck interval has passed.
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
}

// TestMirrorKindServedLater names a kind whose CRD is not installed yet: the
// Mirror is progressing (ResourceNotFound, kstatus InProgress), not stalled,
// and mirrors the kind once the CRD is installed, with nobody touching it.
func TestMirrorKindServedLater(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	group := strings.ReplaceAll(f.Namespace, "-", "") + ".example.org"
	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: group + "/v1", Kind: "Widget"}}}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, func() error {
		if err := e2e.ConditionIs(m, xpv2.TypeReady, corev1.ConditionUnknown, mirrorcontroller.ReasonResourceNotFound); err != nil {
			return err
		}
		return e2e.KstatusIs(t, m, "InProgress")
	})

	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}
	e2e.Create(t, crd)
	t.Cleanup(func() { _ = e2e.CP.Client.Delete(context.Background(), crd) })
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": f.Namespace},
		"spec":     map[string]any{"size": int64(3)},
	}}
	testenv.Eventually(t, 30*time.Second, func() error { return e2e.CP.Client.Create(ctx, w) })
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	testenv.Eventually(t, 30*time.Second, func() error {
		if got := f.Files(t, "main")[fmt.Sprintf("%s/%s/%s/widget/w.yaml", e2e.MirrorFolder, f.Namespace, group)]; !strings.Contains(got, "size: 3") {
			return fmt.Errorf("the Widget is not mirrored: %q", got)
		}
		return nil
	})
}
